"""Hostile input on the command line (issue 17): clear sentences and exit 2, never exit 70."""

from __future__ import annotations

NESTED = "[" * 1000 + "]" * 1000


def test_journal_with_a_nested_json_line_reads_on(cli, tmp_path):
    assert cli("queue", "set", "APP.AUDIT", "--max-depth", "9").code == 0
    journal = tmp_path / "home" / "state" / "journal.jsonl"
    with open(journal, "a") as fp:
        fp.write(NESTED + "\n")
    assert cli("queue", "set", "APP.AUDIT", "--max-depth", "10").code == 0
    r = cli("journal")
    assert r.code == 0, r.err
    assert "line 2: not a journal record (the JSON nests too deeply to read), skipped" in r.err
    assert len(r.out.splitlines()) == 2 and "Traceback" not in r.err
    r = cli("journal", "--json")
    assert r.code == 0 and len(r.json) == 2

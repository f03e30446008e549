"""Hostile input on the command line (issue 17): clear sentences and exit 2, never exit 70."""

from __future__ import annotations

NESTED = "[" * 1000 + "]" * 1000


def test_journal_with_a_nested_json_line_reads_on(cli, tmp_path):
    assert cli("queue", "set", "APP.AUDIT", "--max-depth", "9", "--yes").code == 0
    journal = tmp_path / "home" / "state" / "journal.jsonl"
    with open(journal, "a") as fp:
        fp.write(NESTED + "\n")
    assert cli("queue", "set", "APP.AUDIT", "--max-depth", "10", "--yes").code == 0
    r = cli("journal")
    assert r.code == 0, r.err
    # (each queue set is a start and an end record: the nested line is line 3)
    assert "line 3: not a journal record (the JSON nests too deeply to read), skipped" in r.err
    assert len(r.out.splitlines()) == 2 and "Traceback" not in r.err
    r = cli("journal", "--json")
    assert r.code == 0 and len(r.json) == 2


def test_a_catastrophic_regex_ends_with_its_answer(cli):
    """Issue 27: '(a|aa)+$' on 5,000 a's and a '!' made the old engine backtrack until its
    time bound (exit 2); RE2 answers: no message matches, and moving none is no error."""
    assert cli("put", "APP.AUDIT", "--text", "a" * 5000 + "!").code == 0
    assert cli("put", "APP.AUDIT", "--text", "!" + "a" * 5000).code == 0
    r = cli("browse", "APP.AUDIT", "--where", "text ~ '(a|aa)+$'", "--json")
    assert r.code == 0, r.err
    assert [m["position"] for m in r.json] == [2]
    r = cli("move", "APP.AUDIT", "APP.ORDERS", "--where", "text ~ '(a|aa)+$'", "--yes")
    assert r.code == 0, r.err
    assert [m["preview"][:3] for m in cli("browse", "APP.AUDIT", "--json").json] == ["aaa"]


def test_what_re2_refuses_is_exit_2_with_the_position(cli):
    r = cli("browse", "APP.AUDIT", "--where", "text ~ '(a)\\1'")
    assert r.code == 2
    assert r.err.startswith("mqconsole: Bad --where expression at position 12: RE2 does not "
                            "support backreferences"), r.err
    r = cli("delete", "APP.AUDIT", "--where", "user ~ 'x(?=y)'", "--yes")
    assert r.code == 2 and "position 10: RE2 does not support lookahead" in r.err, r.err
    assert "Traceback" not in r.err


def test_many_wildcards_end_at_once(cli):
    stars = "*" * 22 + "Z"
    r = cli("browse", "SYSTEM.DEAD.LETTER.QUEUE", "--where", f"dest_q = '{stars}'", "--json")
    assert r.code == 0 and r.json == []
    r = cli("browse", "SYSTEM.DEAD.LETTER.QUEUE", "--where", "dest_q = '**APP.S**L'",
            "--json")
    assert r.code == 0 and {m["dlh"]["dest_q"] for m in r.json} == {"APP.SMALL"}


def test_save_onto_the_open_database_or_a_device_is_refused(cli, demo, tmp_path):
    before = cli("queues", "--json").json
    for target in (str(demo), f"{demo}-wal", f"{demo}-shm"):
        r = cli("save", "APP.ORDERS", target, "--force")
        assert r.code == 2, r.err
        assert "belongs to the queue manager database" in r.err or \
            "is a queue manager database" in r.err
        assert len(r.err.strip().splitlines()) == 1
    assert cli("queues", "--json").json == before  # every queue is still there
    r = cli("save", "APP.ORDERS", "/dev/null", "--force")
    assert r.code == 2 and "/dev/null is a character device, not a regular file" in r.err
    # writes a journal
    assert cli("queue", "set", "APP.AUDIT", "--max-depth", "9", "--yes").code == 0
    journal = tmp_path / "home" / "state" / "journal.jsonl"
    r = cli("save", "APP.ORDERS", str(journal), "--force", "--all", "--remove")
    assert r.code == 2 and "is a change journal" in r.err  # before the prompt: not exit 4
    r = cli("delete", "APP.ORDERS", "--all", "--backup", str(demo))
    assert r.code == 2 and "is a queue manager database" in r.err
    assert cli("queue", "show", "APP.ORDERS", "--json").json["depth"] == 40


def test_loading_a_file_cut_short_is_refused(cli, tmp_path):
    path = tmp_path / "orders.dmp"
    assert cli("save", "APP.ORDERS", str(path)).code == 0
    data = path.read_bytes()
    last_x = data.rindex(b"\nX ") + 1
    cut = tmp_path / "cut.dmp"
    cut.write_bytes(data[:last_x + 20])  # in the middle of the last message's data
    r = cli("load", str(cut), "APP.AUDIT", "--yes")
    assert r.code == 2, r.err
    assert "has no empty line after its data: the file looks cut short" in r.err
    assert cli("queue", "show", "APP.AUDIT", "--json").json["depth"] == 0  # nothing loaded
    r = cli("load", str(path), "APP.AUDIT", "--yes")
    assert r.code == 0 and cli("queue", "show", "APP.AUDIT", "--json").json["depth"] == 40

"""The journal reader against hostile lines: nested JSON is a skipped line, never a crash."""

from __future__ import annotations

import json

from mqconsole.ops.journal import Journal, JournalEntry

NESTED = "[" * 1000 + "]" * 1000


def test_a_deeply_nested_line_is_skipped_and_its_neighbours_kept(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.append(JournalEntry(operation="copy"))
    deep_details = {"time": "2026-11-01T00:00:00Z", "operation": "edit",
                    "details": {"x": json.loads("[" * 500 + "]" * 500)}}
    with open(path, "a") as fp:
        fp.write(NESTED + "\n")
        fp.write(json.dumps(deep_details) + "\n")
        fp.write('{"time": "2026-11-01T00:00:00Z", "operation": "move", "details": '
                 + "[" * 1000 + "]" * 1000 + "}\n")
    journal.append(JournalEntry(operation="delete"))
    assert [e.operation for e in journal.read()] == ["copy", "delete"]
    assert len(journal.problems) == 3
    assert "line 2: not a journal record (the JSON nests too deeply" in journal.problems[0]
    assert "'details' nests deeper than 32 levels" in journal.problems[1]
    assert all(p.endswith("skipped") for p in journal.problems)


def test_a_nested_torn_last_line_is_ignored(tmp_path):
    path = tmp_path / "j.jsonl"
    Journal(path).append(JournalEntry(operation="copy"))
    with open(path, "a") as fp:
        fp.write(NESTED)  # no line end: a write in progress
    journal = Journal(path)
    assert [e.operation for e in journal.read()] == ["copy"] and journal.problems == []

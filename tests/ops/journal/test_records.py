"""An operation journaled as it commits: start, a unit record before each commit and a commit
record after it, an end record that stays small; read back as one change, complete or
interrupted (with the unit in doubt), whatever else is in the file."""

from __future__ import annotations

import json
from pathlib import Path

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.journal import Journal, JournalEntry
from mqconsole.ops.operation import Move, Resubmit
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.selection import Selection

ALL = Selection(all=True)


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_a_move_writes_start_units_commits_and_a_small_end(tmp_path):
    path = tmp_path / "j.jsonl"
    run = run_operation(Move("IN", "OUT", ALL, batch=100), journal_path=path,
                        queues={"IN": [f"m{i}" for i in range(250)], "OUT": []})
    records = lines(path)
    kinds = [r["record"] for r in records]
    assert kinds == ["start", "unit", "commit", "unit", "commit", "unit", "commit", "end"]
    assert len({r["op"] for r in records}) == 1
    assert all(list(r)[:3] == ["time", "record", "op"] for r in records)
    units = [r for r in records if r["record"] == "unit"]
    assert [len(u["msgids"]) for u in units] == [100, 100, 50]
    assert all(u["destination"] == "OUT" for u in units)
    end = records[-1]
    assert end["committed"] == 250 and end["msgids"] == [] and end["outcomes"] == []
    assert end["details"]["done"] == 250 and len(json.dumps(end)) < 1000
    [entry] = run.journal
    moved = [m.md.msg_id.hex().upper() for m in run.messages("OUT")]
    assert entry.state == "complete" and entry.msgids == moved
    assert entry.counts()["done"] == 250 and entry.destinations == ["OUT"]
    assert entry.ended is not None and entry.time <= entry.ended


def test_without_ids_the_reader_counts(tmp_path):
    path = tmp_path / "j.jsonl"
    run_operation(Move("IN", "OUT", ALL, batch=7), journal_path=path,
                  queues={"IN": [f"m{i}" for i in range(30)], "OUT": []})
    [entry] = Journal(path).read(ids=False)
    assert entry.msgids == [] and entry.counts()["done"] == 30


def test_a_resubmit_records_each_messages_destination(tmp_path):
    path = tmp_path / "j.jsonl"
    messages = []
    for i, dest in enumerate(["A", "B", "A", "C"]):
        md, body = add_dead_letter_header(MQMD(format="MQSTR", msg_id=bytes([i + 1]) * 24),
                                          b"x", reason=2053, dest_q_name=dest,
                                          dest_qmgr_name="QM1")
        messages.append(Message(md, body))
    run = run_operation(Resubmit("DLQ", ALL), journal_path=path,
                        queues={"DLQ": messages, "A": [], "B": [], "C": []})
    [unit] = [r for r in lines(path) if r["record"] == "unit"]
    assert unit["destinations"] == ["A", "B", "A", "C"]
    [entry] = run.journal
    assert [o.destination for o in entry.outcomes] == ["A", "B", "A", "C"]


def _start(journal: Journal, operation: str = "move") -> object:
    return journal.begin(JournalEntry(operation=operation, source="IN", destinations=["OUT"]))


def test_an_operation_without_its_end_is_interrupted_with_its_last_unit_in_doubt(tmp_path):
    journal = Journal(tmp_path / "j.jsonl")
    rec = _start(journal)
    rec.unit(["01", "02"], ["OUT", "OUT"])
    rec.committed()
    rec.unit(["03"], ["OUT"])  # backed out (a failed commit), then redone:
    rec.unit(["03", "04"], ["OUT", "OUT"])
    rec.committed()
    rec.unit(["05", "06"], ["OUT", "OUT"])  # killed before its commit record
    journal.append(JournalEntry(operation="copy"))  # another process goes on writing
    first, second = journal.read()
    assert first.state == "interrupted" and first.ended is None
    assert first.msgids == ["01", "02", "03", "04"] and first.in_doubt == ["05", "06"]
    assert second.operation == "copy" and second.op is None
    assert journal.problems == []


def test_interleaved_operations_are_told_apart(tmp_path):
    journal = Journal(tmp_path / "j.jsonl")
    a, b = _start(journal, "move"), _start(journal, "delete")
    a.unit(["A1"], ["OUT"])
    b.unit(["B1"], [None])
    b.committed()
    a.committed()
    b.end(JournalEntry(operation="delete", source="IN", outcomes=[{"msgid": "B1"}]))
    [ea, eb] = journal.read()
    assert (ea.operation, ea.state, ea.msgids) == ("move", "interrupted", ["A1"])
    assert (eb.operation, eb.state, eb.msgids) == ("delete", "complete", ["B1"])


def test_a_torn_line_never_swallows_the_next_record(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.append(JournalEntry(operation="copy"))
    whole = JournalEntry(operation="move").to_json()
    with open(path, "a") as fp:
        fp.write(whole[: len(whole) // 2])  # a process killed mid-write
    journal.append(JournalEntry(operation="delete"))
    journal.append(JournalEntry(operation="load"))
    assert [e.operation for e in journal.read()] == ["copy", "delete", "load"]
    [problem] = journal.problems
    assert "line 2: a torn record" in problem and problem.endswith("skipped")


def test_a_torn_line_glued_to_the_next_record_keeps_the_record(tmp_path):
    """A file written before writers ended a torn line first: the whole record is read."""
    path = tmp_path / "j.jsonl"
    whole = JournalEntry(operation="move").to_json()
    path.write_text(whole[:40] + JournalEntry(operation="delete").to_json() + "\n"
                    + JournalEntry(operation="load").to_json() + "\n")
    journal = Journal(path)
    assert [e.operation for e in journal.read()] == ["delete", "load"]
    assert "torn record" in journal.problems[0]


def test_records_of_an_unknown_kind_are_reported(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.write_line('{"time":"2026-11-01T00:00:00Z","record":"party","op":"x"}')
    journal.write_line('{"time":"2026-11-01T00:00:00Z","record":"unit","op":"x","unit":"a",'
                       '"msgids":[]}')
    journal.append(JournalEntry(operation="copy"))
    assert [e.operation for e in journal.read()] == ["copy"]
    assert len(journal.problems) == 2
    assert "unknown record kind 'party'" in journal.problems[0]


def test_a_delete_and_a_load_journal_their_units_too(tmp_path):
    from mqconsole.ops.operation import Delete, Load

    path = tmp_path / "j.jsonl"
    backup = tmp_path / "backup.dmp"
    run = run_operation(Delete("IN", ALL, backup=str(backup), batch=10), journal_path=path,
                        queues={"IN": [f"m{i}" for i in range(25)]})
    assert run.summary.counts["done"] == 25 and run.messages("IN") == []
    kinds = [r["record"] for r in lines(path)]
    assert kinds.count("unit") == kinds.count("commit") == 3
    [deleted] = run.journal
    assert len(deleted.msgids) == 25 and deleted.state == "complete"
    assert deleted.backup == str(backup)
    path2 = tmp_path / "j2.jsonl"
    loaded = run_operation(Load(str(backup), "OUT", batch=10), journal_path=path2,
                           queues={"OUT": []})
    [entry] = loaded.journal
    assert entry.msgids == deleted.msgids and entry.destinations == ["OUT"]
    assert [r["record"] for r in lines(path2)].count("commit") == 3


def test_a_change_stopped_early_says_why():
    """Issue 17 items 2-3: an end record of a change stopped at a commit reads as stopped,
    with the signal (or escape) that stopped it; a change that ran to its end does not."""
    def entry(**details):
        return JournalEntry(operation="move", source="A", details=details)

    assert entry(done=3).stopped() is None
    assert entry(cancelled=True, stopped_by="SIGTERM").stopped() == "by SIGTERM"
    assert entry(cancelled=True).stopped() == "by the operator"
    assert entry(stopped_early="the journal could not be written").stopped() == \
        "the journal could not be written"
    assert entry(error="interrupted at once: the open unit of work was backed out",
                 cancelled=True).stopped().startswith("interrupted at once")
    assert entry(cancelled="yes", stopped_by=3).stopped() is None  # a foreign record


def test_a_delete_killed_midway_still_names_its_backup(tmp_path):
    """kill -9 in the middle of a delete: the deleted messages' only copy is the backup file,
    and the journal said nothing of it (the file was named in the end record only). Now its
    unit records name it, so an interrupted delete reads back with its backup (issue 17
    item 2)."""
    from mqconsole.ops.operation import Delete

    path = tmp_path / "j.jsonl"
    backup = tmp_path / "backup.dmp"
    run_operation(Delete("IN", ALL, backup=str(backup), batch=10), journal_path=path,
                  queues={"IN": [f"m{i}" for i in range(25)]})
    records = path.read_text().splitlines()
    units = [json.loads(x) for x in records if '"record":"unit"' in x]
    assert units and all(u["backup"] == str(backup) for u in units)
    path.write_text("\n".join(records[:-2]) + "\n")  # killed after its last unit record
    for ids in (True, False):
        [entry] = Journal(path).read(ids=ids)
        assert entry.state == "interrupted" and entry.backup == str(backup)
        assert entry.counts()["done"] == 20 and len(entry.in_doubt) == 5

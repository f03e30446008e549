"""A full disk under a change (issue 28 item 3): the journal record of a unit of work is
written before the unit commits, and a unit whose record cannot be written is backed out,
never committed. Whichever record the disk fills at (a unit's, its commit's, the end's),
every message that moved is in a record or in doubt, and the journal claims nothing that
did not move. Checked against the queues, for a move and for the dead-letter handler."""

from __future__ import annotations

import errno

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.message import Message
from mqconsole.ops.dlq.rules import parse_table
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.journal import Journal, JournalError
from mqconsole.ops.operation import DlqPass, Move, Operation
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.result import NOT_RECORDED
from mqconsole.ops.selection import Selection
from tests.support.faulty import make_message

TOTAL = 100
BATCH = 10


class FullDisk(Journal):
    """The disk fills at the ``at``-th record of ``kind`` (``unit``, ``commit`` or ``end``)
    and stays full: that write and every one after fail with ENOSPC."""

    def __init__(self, path, kind: str, at: int = 1) -> None:
        super().__init__(path)
        self.kind, self.at, self.seen, self.full = kind, at, 0, False

    def write_line(self, text: str) -> None:
        if f'"record":"{self.kind}"' in text:
            self.seen += 1
            if self.seen >= self.at:
                self.full = True
        if self.full:
            raise JournalError(self.path, OSError(errno.ENOSPC, "No space left on device"))
        super().write_line(text)


def _ids(run, queue: str) -> list[str]:
    return [m.md.msg_id.hex().upper() for m in run.messages(queue)]


def _accounted(path, moved: list[str]) -> None:
    """Every message that moved is in a record (done) or in doubt; nothing more is claimed;
    the journal is readable without problems."""
    journal = Journal(path)
    [entry] = journal.read()
    done = {o.msgid for o in entry.outcomes if o.outcome == "done"}
    assert done | set(entry.in_doubt) >= set(moved), "moved without a record"
    assert done <= set(moved), "the journal claims messages that did not move"
    assert journal.problems == []


def dead(i: int) -> Message:
    m = make_message(i, body=f"dead {i}".encode())
    md, data = add_dead_letter_header(m.md.copy(), m.body, reason=2053, dest_q_name="APP.IN",
                                      put_time=f"1000{i:04d}")
    return Message(md, data)


def _source(kind_name: str):
    """The queues, a first run (journaled elsewhere) to get a queue manager, and the kind."""
    if kind_name == "move":
        run = run_operation(Move("NONE", "OUT", Selection(all=True)),
                            queues={"IN": [f"m{i}" for i in range(TOTAL)], "OUT": [],
                                    "NONE": []})
        return run, Move("IN", "OUT", Selection(all=True), batch=BATCH), "IN", "OUT"
    run = run_operation(Move("NONE", "APP.IN", Selection(all=True)),
                        queues={"APP.DLQ": [dead(i) for i in range(TOTAL)], "APP.IN": [],
                                "NONE": []})
    kind = DlqPass(parse_table("ACTION(RETRY)"), "site.rules", input_q="APP.DLQ", once=True,
                   batch=BATCH)
    return run, kind, "APP.DLQ", "APP.IN"


@pytest.mark.parametrize("kind_name", ["move", "dlq-handler"])
@pytest.mark.parametrize(("record", "at"), [("unit", 3), ("commit", 3), ("end", 1)])
def test_a_full_disk_leaves_every_moved_message_accounted_for(tmp_path, kind_name, record,
                                                                at):
    run, kind, source, dest = _source(kind_name)
    path = tmp_path / "j.jsonl"
    summary = Operation(kind, journal=FullDisk(path, record, at)).run(run.qm)
    assert summary.exit_code == ExitCode.JOURNAL_FAILED
    assert "No space left on device" in (summary.journal_problem or "")
    moved = _ids(run, dest)
    assert len(moved) + len(run.messages(source)) == TOTAL  # nothing lost, nothing doubled
    _accounted(path, moved)
    if record == "unit":
        # unit 3 could not be recorded: backed out, not committed; its messages stayed
        assert len(moved) == 2 * BATCH and summary.counts["done"] == 2 * BATCH
        assert summary.result.stopped_early == NOT_RECORDED
        # the unit backed out and those after it: not tried (they stayed), never "skipped"
        assert summary.result.not_tried == TOTAL - 2 * BATCH
        assert summary.result.skipped == 0
    elif record == "commit":
        # unit 3 committed (its unit record says so); its commit record and the end record
        # failed: the journal holds it in doubt
        assert len(moved) == 3 * BATCH
        [entry] = Journal(path).read()
        assert entry.state == "interrupted" and len(entry.in_doubt) == BATCH
    else:
        assert len(moved) == TOTAL


def test_a_unit_recorded_again_after_a_passing_failure_is_not_committed_blind(tmp_path):
    """The disk had room again for the end record: the end record says what happened, and
    the unit that could not be recorded stayed on the source."""

    class Once(FullDisk):
        def write_line(self, text: str) -> None:
            if self.full and '"record":"end"' in text:
                self.full = False
            super().write_line(text)

    run, kind, source, dest = _source("move")
    path = tmp_path / "j.jsonl"
    summary = Operation(kind, journal=Once(path, "unit", 3)).run(run.qm)
    assert summary.exit_code == ExitCode.JOURNAL_FAILED
    # the unit that could not be recorded and those after it were never tried: counted, in
    # the selected (issue 24 item 2), as delete and the handler count them
    assert summary.counts == {"selected": TOTAL, "done": 2 * BATCH, "failed": 0,
                              "skipped": 0}
    assert summary.result.not_tried == TOTAL - 2 * BATCH
    moved = _ids(run, dest)
    assert len(moved) == 2 * BATCH and len(run.messages(source)) == TOTAL - 2 * BATCH
    [entry] = Journal(path).read()
    assert entry.state == "complete" and sorted(entry.msgids) == sorted(moved)
    assert entry.details.get("stopped_early") == NOT_RECORDED or \
        entry.stopped() == NOT_RECORDED


def _other(kind_name: str, tmp_path):
    """put, load and delete: the queue manager, the kind, and how to see what changed."""
    from mqconsole.mq.md import MQMD
    from mqconsole.ops.operation import Delete, Load, Put, Save

    run = run_operation(Save("IN", str(tmp_path / "saved.dmp"), Selection(all=True)),
                        queues={"IN": [f"m{i}" for i in range(TOTAL)], "OUT": []})
    if kind_name == "put":
        return run, Put("OUT", MQMD(format="MQSTR"), b"x", count=1200), \
            lambda: _ids(run, "OUT"), 2 * 500
    if kind_name == "load":
        return run, Load(str(tmp_path / "saved.dmp"), "OUT", batch=BATCH), \
            lambda: _ids(run, "OUT"), 2 * BATCH
    before = set(_ids(run, "IN"))
    return run, Delete("IN", Selection(all=True), backup_dir=tmp_path, batch=BATCH), \
        lambda: sorted(before - set(_ids(run, "IN"))), 2 * BATCH


@pytest.mark.parametrize("kind_name", ["put", "load", "delete"])
def test_put_load_and_delete_back_out_a_unit_they_cannot_record(tmp_path, kind_name):
    run, kind, changed, recorded = _other(kind_name, tmp_path)
    path = tmp_path / "j.jsonl"
    summary = Operation(kind, journal=FullDisk(path, "unit", 3)).run(run.qm)
    assert summary.exit_code == ExitCode.JOURNAL_FAILED
    assert summary.result.stopped_early == NOT_RECORDED
    assert len(changed()) == recorded == summary.counts["done"]
    _accounted(path, changed())

"""The journal under faults: a write that fails is cut back off and names the file; a record
that fails mid-operation stops the operation at the next commit, the summary says so with
exit code 6, and what the journal holds never contradicts the queues."""

from __future__ import annotations

import errno
import os

import pytest

from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.journal import Journal, JournalEntry, JournalError, writer
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.selection import Selection

ALL = Selection(all=True)


def test_a_failed_write_is_cut_back_off_and_names_the_file(tmp_path, monkeypatch):
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.append(JournalEntry(operation="copy"))
    before = path.read_bytes()
    real_write = os.write

    def half_then_full(fd, data):
        real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer.os, "write", half_then_full)
    with pytest.raises(JournalError) as caught:
        journal.append(JournalEntry(operation="move"))
    assert str(caught.value) == (f"the journal {path} could not be written: "
                                 "No space left on device")
    assert caught.value.code == ExitCode.JOURNAL_FAILED
    assert path.read_bytes() == before  # no half record left
    monkeypatch.undo()
    journal.append(JournalEntry(operation="delete"))
    assert [e.operation for e in journal.read()] == ["copy", "delete"]
    assert journal.problems == []


def test_a_folder_in_place_of_the_journal(tmp_path):
    (tmp_path / "j.jsonl").mkdir()
    with pytest.raises(JournalError, match="a folder is in its place"):
        Journal(tmp_path / "j.jsonl").append(JournalEntry(operation="copy"))


class FailingJournal(Journal):
    """Writes fail from the ``fail_at``-th unit record on (``times``: that many writes,
    then the disk has room again)."""

    def __init__(self, path, fail_at: int, times: int | None = None) -> None:
        super().__init__(path)
        self.fail_at, self.times, self.units = fail_at, times, 0

    def write_line(self, text: str) -> None:
        if '"record":"unit"' in text:
            self.units += 1
        if self.units >= self.fail_at and (self.times is None or self.times > 0):
            if self.times is not None:
                self.times -= 1
            raise JournalError(self.path, OSError(errno.ENOSPC, "No space left on device"))
        super().write_line(text)


def _move(tmp_path, journal: Journal):
    run = run_operation(Move("OUT", "IN", ALL), queues={"IN": [f"m{i}" for i in range(100)],
                                                        "OUT": []},
                        journal_path=tmp_path / "first.jsonl")
    summary = Operation(Move("IN", "OUT", ALL, batch=10), journal=journal).run(run.qm)
    return run, summary


def test_a_journal_failing_mid_way_stops_at_the_next_commit(tmp_path):
    path = tmp_path / "j.jsonl"
    run, summary = _move(tmp_path, FailingJournal(path, fail_at=3, times=1))
    # unit 3 could not be recorded: it is backed out (never committed without a record)
    # and the move stops there
    assert summary.counts["done"] == 20 and summary.exit_code == ExitCode.JOURNAL_FAILED
    assert summary.journal_problem == (f"the journal {path} could not be written: "
                                       "No space left on device")
    assert summary.result.stopped_early == "the journal could not be written"
    assert not summary.result.cancelled
    assert summary.to_json()["exit_code"] == 6
    out = [m.md.msg_id.hex().upper() for m in run.messages("OUT")]
    assert len(out) == 20 and len(run.messages("IN")) == 80
    # the disk had room again for the end record: it holds the unit the journal missed
    [entry] = Journal(path).read()
    assert entry.state == "complete" and sorted(entry.msgids) == sorted(out)


def test_a_journal_that_stays_broken_never_claims_more_than_moved(tmp_path):
    path = tmp_path / "j.jsonl"
    run, summary = _move(tmp_path, FailingJournal(path, fail_at=3))
    assert summary.counts["done"] == 20 and summary.exit_code == ExitCode.JOURNAL_FAILED
    out = {m.md.msg_id.hex().upper() for m in run.messages("OUT")}
    [entry] = Journal(path).read()
    assert entry.state == "interrupted"  # no end record could be written
    assert set(entry.msgids) == out and len(entry.msgids) == 20  # every moved one recorded


def test_the_console_journal_gets_the_path_sentence_for_any_failure(tmp_path):
    """A failure that is not an OSError (a bug while making the end record) still names
    the journal's file."""

    class Broken(Journal):
        def append(self, entry):
            raise RuntimeError("boom")

    run = run_operation(Move("IN", "OUT", ALL), queues={"IN": [b"x"], "OUT": []})
    summary = Operation(Move("OUT", "IN", ALL), journal=Broken(tmp_path / "b.jsonl")).run(
        run.qm, dry_run=True)
    assert summary.journal_problem == (f"the journal {tmp_path / 'b.jsonl'} could not be "
                                       "written: boom")
    assert summary.exit_code == ExitCode.JOURNAL_FAILED


def test_a_ctrl_c_while_the_end_record_is_written_comes_after_it(tmp_path, monkeypatch):
    """A second Ctrl-C right after the first stopped a change at its commit landed while the
    end record was being made: the record was lost and the journal said INTERRUPTED,
    'killed'. The signal is now held until the end record is written, then acted on."""
    import os
    import signal
    import time

    from mqconsole.ops.journal import Journal, Recorder
    from mqconsole.ops.operation import Move
    from mqconsole.ops.operation.testing import run_operation
    from mqconsole.ops.selection import Selection

    real_end = Recorder.end

    def end(self, *args, **kw):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # without the hold, the interrupt is raised here
        return real_end(self, *args, **kw)

    monkeypatch.setattr(Recorder, "end", end)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    path = tmp_path / "j.jsonl"
    try:
        with pytest.raises(KeyboardInterrupt):
            run_operation(Move("IN", "OUT", Selection(all=True), batch=10), journal_path=path,
                          queues={"IN": [f"m{i}" for i in range(25)], "OUT": []})
    finally:
        signal.signal(signal.SIGINT, previous)
    [entry] = Journal(path).read()
    assert entry.state == "complete" and entry.counts()["done"] == 25

"""Runs that ended in doubt, read from the journal, and settling them (issue 28 item 16):
the last unit of a change whose commit outcome MQ could not tell is in doubt; a copy or a
load in doubt is said before the next one; settling a copy or a load removes nothing and
records which in-doubt messages are on the destination."""

from __future__ import annotations

from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.journal import Journal
from mqconsole.ops.operation import Copy, Load, Operation, ResolveInDoubt, Save
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.selection import Selection
from tests.support.faulty import Faults, FaultyQueueManager

ALL = Selection(all=True)


def _in_doubt_run(tmp_path, kind_of, faults: Faults):
    run = run_operation(Save("IN", str(tmp_path / "saved.dmp"), ALL),
                        queues={"IN": [f"m{i}" for i in range(30)], "OUT": []})
    journal = Journal(tmp_path / "j.jsonl")
    summary = Operation(kind_of(tmp_path), journal=journal).run(
        FaultyQueueManager(run.qm, faults))
    assert summary.exit_code == ExitCode.UNKNOWN_OUTCOME
    [entry] = journal.read()
    assert entry.state == "complete" and len(entry.in_doubt) == 10  # the second unit
    return run, journal, entry


def test_a_copy_in_doubt_is_said_and_settled_without_removing_anything(tmp_path):
    # the second commit commits, then MQ cannot say so (2549): the copies are there
    run, journal, _entry = _in_doubt_run(tmp_path, lambda _t: Copy("IN", "OUT", ALL, batch=10),
                                        Faults(commit_after={2: 2549}))
    op = Operation(Copy("IN", "OUT", ALL), journal=journal)
    [caution] = [c for c in op.cautions(run.qm) if "in doubt" in c]
    assert caution.startswith("the last copy from IN to OUT (")
    assert caution.endswith("ended in doubt: the outcome of its last unit of work (10 "
                            "messages) is not known, and they may already be on OUT: copying "
                            "again would double them; --resolve-in-doubt says which are there")
    before = (len(run.messages("IN")), len(run.messages("OUT")))
    settle = Operation(ResolveInDoubt("copy", "IN", "OUT", journal), journal=journal)
    settle.validate(run.qm)
    summary = settle.run(run.qm)
    assert summary.exit_code == ExitCode.OK
    assert summary.counts["done"] == 10 and summary.counts["skipped"] == 0
    assert (len(run.messages("IN")), len(run.messages("OUT"))) == before  # nothing removed
    assert not [c for c in op.cautions(run.qm) if "in doubt" in c]  # settled


def test_a_load_in_doubt_is_said_and_settling_says_none_arrived(tmp_path):
    # the second commit fails and in fact backed out (2009): none of that unit arrived
    def load(t):
        return Load(str(t / "saved.dmp"), "OUT", batch=10)

    run, journal, _entry = _in_doubt_run(tmp_path, load, Faults(commit={2: 2009}))
    cautions = Operation(load(tmp_path), journal=journal).cautions(run.qm)
    assert any(c.startswith(f"the last load from {tmp_path / 'saved.dmp'} to OUT (")
               for c in cautions)
    settle = Operation(ResolveInDoubt("load", str(tmp_path / "saved.dmp"), "OUT", journal),
                       journal=journal)
    settle.validate(run.qm)
    summary = settle.run(run.qm)
    assert summary.counts["done"] == 0 and summary.counts["skipped"] == 10
    assert summary.exit_code == ExitCode.OK

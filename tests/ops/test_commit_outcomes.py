"""Commit outcomes, for every operation that changes messages (load, edit, delete, move,
copy, resubmit, the dead-letter handler, save --remove, put): only 2003 means "backed out". A
commit answered 2009, 2018, 2548 or 2549 may have committed — whether it did or not,
nothing is redone (no duplicate, no second removal) and the result says "outcome unknown"
(exit 5). Any other commit failure leaves MQ's unit of work open: it is backed out before
anything is redone, and when that backout fails too, the outcome is unknown as well."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from mqconsole.backends.base import settle_failed_commit
from mqconsole.cli.errors import exit_code_for_mq
from mqconsole.cli.exit_codes import ExitCode
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.errors import CommitOutcomeUnknown, MQError, commit_outcome_unknown
from mqconsole.mq.message import Message
from mqconsole.ops.delete import delete_messages
from mqconsole.ops.dmpfile import load_file
from mqconsole.ops.edit import edit_message
from mqconsole.ops.exit_codes import exit_code_of
from mqconsole.ops.resubmit import resubmit
from mqconsole.ops.result import OperationResult
from mqconsole.ops.savefile import save_queue
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer
from tests.support.faulty import (
    Faults,
    FaultyQueueManager,
    assert_exactly_once,
    browse_all,
    fill,
    key,
    make_message,
)

SRC, DST, DLQ, FILE_Q = "APP.SRC", "APP.DST", "APP.DLQ", "APP.FILE"
ALL = Selection.build(all_=True)
N, BATCH = 6, 2
UNKNOWN = (2009, 2018, 2548, 2549)


@pytest.fixture
def qm(make_qm):
    return make_qm(SRC, DST, DLQ, FILE_Q)


def _messages() -> list[Message]:
    return [make_message(i) for i in range(N)]


# Each operation: set the queues up, run it through ``fq``, and check every message is in
# exactly one place (``committed``: the faulty commit did commit).
def _load(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    from mqconsole.ops.savefile import load_to_queue

    original = _messages()
    fill(qm, FILE_Q, original)
    path = tmp_path / "load.dmp"
    save_queue(qm, FILE_Q, path, ALL)
    r = load_to_queue(fq, path, DST, batch=BATCH)
    end()
    _at_most_once(original, browse_all(qm, DST))
    return r


def _at_most_once(original: list[Message], place: list[Message]) -> None:
    """Nothing in ``place`` that is not one of ``original``, nothing there twice."""
    want, have = Counter(key(m) for m in original), Counter(key(m) for m in place)
    assert not have - want, "a message is there twice (or one that never was)"


def _edit(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    fill(qm, SRC, _messages())
    target = browse_all(qm, SRC)[2]
    out = edit_message(fq, SRC, target.md.msg_id, text="edited")
    end()
    bodies = [m.body for m in browse_all(qm, SRC)]
    assert len(bodies) == N  # the original or its edited version, never both, never none
    assert (b"edited" in bodies) != (target.body in bodies)
    return out.result


def _delete(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    original = _messages()
    fill(qm, SRC, original)
    r = delete_messages(fq, SRC, ALL, backup_dir=tmp_path, batch=BATCH)
    end()
    assert_exactly_once(original, load_file(r.backup))  # the backup holds them all
    _at_most_once(original, browse_all(qm, SRC))
    return r


def _move(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    original = _messages()
    fill(qm, SRC, original)
    r = transfer(fq, SRC, DST, ALL, batch=BATCH)
    end()
    assert_exactly_once(original, browse_all(qm, SRC), browse_all(qm, DST))
    return r


def _copy(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    original = _messages()
    fill(qm, SRC, original)
    r = transfer(fq, SRC, DST, ALL, batch=BATCH, copy=True)
    end()
    assert_exactly_once(original, browse_all(qm, SRC))  # a copy never takes the source's
    _at_most_once(original, browse_all(qm, DST))  # and never puts a message twice
    return r


def _save_remove(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    """``save --remove FILE``: a delete whose backup is the named file."""
    original = _messages()
    fill(qm, SRC, original)
    path = tmp_path / "saved.dmp"
    r = delete_messages(fq, SRC, ALL, backup=path, batch=BATCH, operation="save")
    end()
    assert_exactly_once(original, load_file(path))
    _at_most_once(original, browse_all(qm, SRC))
    return r


def _put(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    """``put --count N``: new messages, so 'at most once' is at most N on the queue."""
    from mqconsole.mq.md import MQMD
    from mqconsole.ops.messages import put_messages

    try:
        r = put_messages(fq, DST, MQMD(format="MQSTR   "), b"put", count=N, batch=BATCH)
    except MQError as exc:  # backed out for sure: said as the error it is (no redo)
        assert not commit_outcome_unknown(exc)
        r = OperationResult(operation="put", source=None, destination=DST)
    end()
    assert len(browse_all(qm, DST)) <= N
    return r


def _resubmit(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    original = _messages()
    dead = []
    for m in original:
        md, body = add_dead_letter_header(m.md, m.body, reason=2053, dest_q_name=DST)
        dead.append(Message(md, body))
    fill(qm, DLQ, dead)
    r = resubmit(fq, DLQ, ALL, batch=BATCH)
    end()
    # a resubmitted message loses its dead-letter header: compare by body
    bodies = sorted(m.body for m in browse_all(qm, DST)) + \
        sorted(m.body[172:] for m in browse_all(qm, DLQ))
    assert sorted(bodies) == sorted(m.body for m in original)
    return r


def _dlq_handler(qm, fq, tmp_path: Path, end=lambda: None) -> OperationResult:
    from mqconsole.ops.dlq.handler import run_handler, settings_for
    from mqconsole.ops.dlq.rules import parse_table

    original = _messages()
    dead = []
    for m in original:
        md, body = add_dead_letter_header(m.md, m.body, reason=2053, dest_q_name=DST)
        dead.append(Message(md, body))
    fill(qm, DLQ, dead)
    table = parse_table("RETRYINT(0) WAIT(NO)\nACTION(RETRY)")
    settings = settings_for(table, DLQ, batch=BATCH, once=True)
    report = run_handler(fq, table, settings, store_path=str(tmp_path / "attempts.sqlite"))
    end()
    bodies = sorted(m.body for m in browse_all(qm, DST)) + \
        sorted(m.body[172:] for m in browse_all(qm, DLQ))
    assert sorted(bodies) == sorted(m.body for m in original)
    return report.result


OPERATIONS: dict[str, Callable[..., OperationResult]] = {
    "load": _load, "edit": _edit, "delete": _delete, "move": _move, "copy": _copy,
    "put": _put,
    "resubmit": _resubmit, "dlq_handler": _dlq_handler, "save_remove": _save_remove}


def _exit(name: str, r: OperationResult) -> ExitCode:
    return exit_code_of(r)


@pytest.mark.parametrize("committed", [True, False], ids=["committed", "not_committed"])
@pytest.mark.parametrize("reason", UNKNOWN)
@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_a_commit_whose_reply_is_lost_is_never_redone(qm, tmp_path, name, reason, committed):
    faults = Faults(commit_after={1: reason}) if committed else Faults(commit={1: reason})
    fq = FaultyQueueManager(qm, faults)
    r = OPERATIONS[name](qm, fq, tmp_path)
    assert faults.injected, "the fault was never reached"
    assert r.outcome_unknown and not r.all_done
    assert _exit(name, r) == ExitCode.UNKNOWN_OUTCOME
    assert faults.commits == 1, "a commit of unknown outcome was followed by more work"
    assert not qm.in_unit_of_work


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_another_commit_failure_is_backed_out_before_a_redo(qm, tmp_path, name):
    """2102 leaves MQ's unit of work open: it is backed out, then redone (edit: reported)."""
    faults = Faults(commit={1: 2102})
    fq = FaultyQueueManager(qm, faults)
    r = OPERATIONS[name](qm, fq, tmp_path)
    assert faults.injected and not r.outcome_unknown
    assert ("backout", "") in faults.calls
    calls = [c for c, _ in faults.calls]
    assert calls.index("backout") > calls.index("commit")
    assert not qm.in_unit_of_work


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_a_commit_failure_that_cannot_be_backed_out_is_unknown(qm, tmp_path, name):
    faults = Faults(commit={1: 2102}, backout={1: 2009})
    fq = FaultyQueueManager(qm, faults)

    def connection_ends() -> None:  # MQ backs out what a lost connection left open
        if qm.in_unit_of_work:
            qm.backout()

    r = OPERATIONS[name](qm, fq, tmp_path, connection_ends)
    assert faults.injected and r.outcome_unknown
    assert _exit(name, r) == ExitCode.UNKNOWN_OUTCOME
    assert [c for c, _ in faults.calls].count("commit") == 1  # nothing redone


def test_the_classification() -> None:
    assert [commit_outcome_unknown(MQError(r)) for r in (2003, 2009, 2018, 2548, 2549, 2102,
                                                         2195, 2071)] == \
        [False, True, True, True, True, False, False, False]
    assert commit_outcome_unknown(CommitOutcomeUnknown(2102))
    # the CLI never maps a commit's 2009 to "cannot connect" (3)
    assert exit_code_for_mq(CommitOutcomeUnknown(2009)) == ExitCode.UNKNOWN_OUTCOME
    assert exit_code_for_mq(MQError(2009)) == ExitCode.UNAVAILABLE  # not a commit


def test_settle_backs_out_and_says_whether_a_redo_is_safe(qm) -> None:
    fq = FaultyQueueManager(qm, Faults(backout={2: 2009}))
    qm.put(SRC, make_message(1))
    assert settle_failed_commit(fq, MQError(2102)) and not qm.in_unit_of_work
    qm.put(SRC, make_message(2))
    assert not settle_failed_commit(fq, MQError(2102))  # the backout failed: still open
    assert qm.in_unit_of_work
    assert not settle_failed_commit(fq, MQError(2009))  # may have committed: no backout
    assert fq.faults.backouts == 2
    assert settle_failed_commit(fq, MQError(2003))
    assert not qm.in_unit_of_work and browse_all(qm, SRC) == []

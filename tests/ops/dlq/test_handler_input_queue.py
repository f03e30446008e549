"""The handler never puts a message back on the queue it is processing, whatever name
leads there: an alias of it, a remote queue definition (or a queue manager alias) pointing
back to it on this queue manager, the input queue opened through an alias. Each such RETRY
or FWD is a failed attempt (INPUT_QUEUE); before, a pass that committed midway met each
put-back copy again at the end of the queue and never ended. Where the names cannot be
resolved (the handler may not inquire them), a message that comes back in the run teaches
the handler that its destination loops, so the run still ends."""

from __future__ import annotations

import threading

import pytest

from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueAttrs, QueueType
from mqconsole.mq.reasons import MQRC_NOT_AUTHORIZED
from mqconsole.ops.result import Control
from tests.ops.dlq.test_handler import DLQ, dead, run
from tests.support.faulty import browse_all, fill

ALIAS = QueueAttrs("DLQ.ALIAS", type=QueueType.ALIAS, target_q=DLQ)
BACK = QueueAttrs("DLQ.BACK", type=QueueType.REMOTE, remote_q_name=DLQ,
                  remote_qmgr_name="QM1")
BACK_BLANK_QM = QueueAttrs("DLQ.BACK.HERE", type=QueueType.REMOTE, remote_q_name=DLQ,
                           remote_qmgr_name="")
QM_ALIAS = QueueAttrs("QM1.AGAIN", type=QueueType.REMOTE, remote_q_name="",
                      remote_qmgr_name="QM1")
ALIAS_OF_BACK = QueueAttrs("BACK.ALIAS", type=QueueType.ALIAS, target_q="DLQ.BACK")


@pytest.fixture
def qm(make_qm, tmp_path):
    return make_qm("APP.IN", ALIAS, BACK, BACK_BLANK_QM, QM_ALIAS, ALIAS_OF_BACK,
                   path=tmp_path / "qm.sqlite")


def guarded(qm, text: str, tmp_path, **kw):
    """``run`` with a guard: the old behaviour never ends, so stop it after 20 s (the
    report then says cancelled, and the test fails instead of hanging)."""
    guard = Control()
    timer = threading.Timer(20, guard.cancel.set)
    timer.start()
    try:
        return run(qm, text, tmp_path, control=guard, **kw)
    finally:
        timer.cancel()


@pytest.mark.parametrize(("rule", "dest", "label", "input_q"), [
    ("ACTION(FWD) FWDQ(DLQ.ALIAS)", "APP.IN", "DLQ.ALIAS", None),
    ("ACTION(FWD) FWDQ(DLQ.BACK)", "APP.IN", "DLQ.BACK", None),
    ("ACTION(FWD) FWDQ(DLQ.BACK.HERE)", "APP.IN", "DLQ.BACK.HERE", None),
    ("ACTION(FWD) FWDQ(BACK.ALIAS)", "APP.IN", "BACK.ALIAS", None),
    (f"ACTION(FWD) FWDQ({DLQ}) FWDQM(QM1.AGAIN)", "APP.IN", f"{DLQ}@QM1.AGAIN", None),
    ("ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM)", "DLQ.ALIAS", "DLQ.ALIAS", None),
    ("ACTION(RETRY)", "DLQ.BACK", "DLQ.BACK", None),
    (f"ACTION(FWD) FWDQ({DLQ})", "APP.IN", DLQ, "DLQ.ALIAS"),
], ids=["alias", "qremote", "qremote-blank-rqmname", "alias-of-qremote", "qmgr-alias",
        "destq-alias", "retry-qremote", "input-through-alias"])
def test_a_name_resolving_to_the_queue_being_processed_is_a_failed_attempt(
        qm, tmp_path, rule, dest, label, input_q) -> None:
    msgs = [dead(i, dest=dest) for i in range(3)]
    fill(qm, DLQ, msgs)
    report = guarded(qm, f"RETRYINT(0) WAIT(NO)\n{rule} RETRY(2)", tmp_path, batch=1,
                     input_q=input_q)
    assert not report.result.cancelled, "the pass did not end"
    assert report.result.done == 0
    assert [(m.attempts, m.outcome) for m in report.messages] == [
        (1, "failed")] * 3 + [(2, "failed")] * 3
    assert {m.destination for m in report.messages} == {label}
    reason = report.messages[0].reason
    assert reason.startswith(f"INPUT_QUEUE: {rule.split('(')[1].split(')')[0]} would put "
                             f"the message back on {DLQ}, the queue being processed"), reason
    assert [m.md.msg_id for m in browse_all(qm, DLQ)] == [m.md.msg_id for m in msgs]
    plan = run(qm, f"{rule} RETRY(5)", tmp_path, dry_run=True, store=tmp_path / "new.sqlite",
               input_q=input_q)
    assert plan.messages[0].outcome.startswith("would fail: INPUT_QUEUE")


def test_a_queue_that_resolves_elsewhere_is_put_to(qm, tmp_path) -> None:
    """The check resolves names, it does not refuse every alias: an alias of APP.IN is
    forwarded to as before."""
    qm.define_queue(QueueAttrs("APP.ALIAS", type=QueueType.ALIAS, target_q="APP.IN"))
    fill(qm, DLQ, [dead(i) for i in range(3)])
    report = guarded(qm, "WAIT(NO)\nACTION(FWD) FWDQ(APP.ALIAS)", tmp_path, batch=1)
    assert [m.outcome for m in report.messages] == ["forwarded"] * 3
    assert browse_all(qm, DLQ) == [] and len(browse_all(qm, "APP.IN")) == 3


class NoResolution:
    """The queue manager as a handler sees it when it may put to a queue but not inquire
    it (2035): no name resolution, and inquiries of anything but the input queue refused."""

    def __init__(self, inner) -> None:
        self._inner = inner

    def __getattr__(self, name: str):
        if name == "resolve_put":
            raise AttributeError(name)
        return getattr(self._inner, name)

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def in_unit_of_work(self) -> bool:
        return self._inner.in_unit_of_work

    def inquire_queue(self, name: str):
        if name != DLQ:
            raise MQError(MQRC_NOT_AUTHORIZED, f"not authorized to inquire {name}")
        return self._inner.inquire_queue(name)


def test_when_names_cannot_be_resolved_a_message_that_comes_back_ends_the_loop(
        qm, tmp_path) -> None:
    """Resolution refused: FWDQ(DLQ.ALIAS) is put to once per message; the copies met at
    the end of the queue show the destination loops — they are failed attempts, as is every
    later attempt to it in the run. Nothing lost, nothing doubled, and the run ends."""
    msgs = [dead(i) for i in range(3)]
    fill(qm, DLQ, msgs)
    report = guarded(NoResolution(qm), "RETRYINT(0) WAIT(NO)\n"
                     "ACTION(FWD) FWDQ(DLQ.ALIAS) RETRY(2)", tmp_path, batch=1)
    assert not report.result.cancelled, "the pass did not end"
    assert [(m.attempts, m.outcome) for m in report.messages] == [
        (1, "forwarded")] * 3 + [(1, "failed")] * 3 + [(2, "failed")] * 3
    assert report.messages[3].reason.startswith(
        "INPUT_QUEUE: FWD to DLQ.ALIAS put the message back on "
        f"{DLQ}, the queue being processed")
    assert report.shared_keys == 0
    assert sorted(m.md.msg_id for m in browse_all(qm, DLQ)) == sorted(
        m.md.msg_id for m in msgs)


def test_when_names_cannot_be_resolved_a_unit_committed_at_the_end_still_ends(
        qm, tmp_path) -> None:
    """The same with one unit for the whole pass: the copies come back after it, the wait
    takes them for an arrival, and the next pass meets them (a key is remembered for the
    pass it was put in and the next). WAIT(NO) would end after the first pass."""
    msgs = [dead(i) for i in range(3)]
    fill(qm, DLQ, msgs)
    report = guarded(NoResolution(qm), "RETRYINT(0) WAIT(1)\n"
                     "ACTION(FWD) FWDQ(DLQ.ALIAS) RETRY(2)", tmp_path, batch=10)
    assert not report.result.cancelled, "the run did not end"
    assert [(m.attempts, m.outcome) for m in report.messages] == [
        (1, "forwarded")] * 3 + [(1, "failed")] * 3 + [(2, "failed")] * 3
    assert report.passes == 3 and report.shared_keys == 0
    assert sorted(m.md.msg_id for m in browse_all(qm, DLQ)) == sorted(
        m.md.msg_id for m in msgs)

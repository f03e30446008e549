"""Issue 22 item 7 (part): a site that grants no +setall can still resubmit.

Set-all context (MQPMO_SET_ALL_CONTEXT, the default: each message keeps its own) needs
+setall on the destination queue and on the queue manager object: without it MQOPEN of the
destination with MQOO_SET_ALL_CONTEXT answers 2035 (IBM MQ, "Authority to set context",
setmqaut: setall). ``--context default`` (MQPMO_DEFAULT_CONTEXT: the resubmitter's own
context, as a new message) needs only +put. The stand-in checks both (authorities at
MQOPEN)."""

from __future__ import annotations

from mqconsole.backends.base import Context
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import Operation, Resubmit
from mqconsole.ops.selection import Selection

ALL = Selection(all=True)


def _without_setall(qmgr):
    """``ops``: browse, get, put, inq and dsp on the queues, connect/inq/dsp on the queue
    manager — no +setall anywhere (a locked-down site's operator)."""
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("ops", "*", {"browse", "get", "put", "inq", "dsp"})
    admin.set_authority("ops", "", {"connect", "inq", "dsp"}, object_type="qmgr")
    return qmgr.connect(user="ops")


def _dead_lettered(qmgr, dlq: str, dst: str, n: int = 3) -> None:
    for i in range(n):
        md, body = add_dead_letter_header(
            MQMD(format="MQSTR   ", msg_id=b"X%023d" % i, user_identifier="app1"),
            b"m%d" % i, reason=2053, dest_q_name=dst)
        qmgr.admin().put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)


def test_without_setall_resubmit_with_default_context_works(make_qmgr) -> None:
    qmgr = make_qmgr()
    dlq, dst = qmgr.queue(), qmgr.queue()
    qm = _without_setall(qmgr)
    _dead_lettered(qmgr, dlq, dst)
    kept = Operation(Resubmit(dlq, ALL), journal=None).run(qm)
    assert kept.exit_code == ExitCode.PARTIAL  # set-all: every put refused
    assert {f.reason for f in kept.result.failed} == {2035}
    assert qm.inquire_queue(dst).depth == 0
    mine = Operation(Resubmit(dlq, ALL, new_context=True), journal=None).run(qm)
    assert mine.exit_code == ExitCode.OK and mine.result.done == 3
    assert mine.description.options["context"] == "new"
    with qmgr.admin().browse(dst) as cursor:
        got = list(iter(cursor.next, None))
    assert [m.body for m in got] == [b"m0", b"m1", b"m2"]
    assert {m.md.user_identifier.strip() for m in got} == {"ops"}  # the resubmitter's
    assert qm.inquire_queue(dlq).depth == 0

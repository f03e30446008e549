"""Issue 22 item 7: ``--context pass`` (MQPMO_PASS_ALL_CONTEXT) over the stand-in, the real
library's calls. Each message is got first through the move's cursor, opened
MQOO_SAVE_ALL_CONTEXT, then put with MQPMO_PASS_ALL_CONTEXT and PMO.Context naming that
handle: it keeps its context with +passall on the destination and no +setall anywhere
(IBM, "Authorizations for context": set context needs the queue manager object too,
passing it does not). A refused put backs its get out: that message alone stays, its
BackoutCount raised by one, and the rest goes on."""

from __future__ import annotations

from mqconsole.backends.base import Context
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import Move, Operation, Resubmit
from mqconsole.ops.selection import Selection

ALL = Selection(all=True)


def _ops(qmgr, *queues: str, passall: bool = True):
    """``ops``: browse, get, put (and passall) on the queues; connect/inq/dsp on the queue
    manager — no +setall anywhere."""
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    for q in queues:
        admin.set_authority("ops", q, {"browse", "get", "put", "inq", "dsp"}
                            | ({"passall"} if passall else set()))
    admin.set_authority("ops", "", {"connect", "inq", "dsp"}, object_type="qmgr")
    return qmgr.connect(user="ops")


def _fill(qmgr, queue: str, n: int = 3) -> None:
    for i in range(n):
        md = MQMD(format="MQSTR   ", msg_id=b"P%023d" % i, user_identifier="alice",
                  put_appl_name="ORDERS.APP", put_date="20260101", put_time=f"1200{i:04d}",
                  appl_origin_data="orig")
        qmgr.admin().put(queue, Message(md, b"m%d" % i), context=Context.SET_ALL,
                         syncpoint=False)


def _browse(qmgr, q):
    with qmgr.admin().browse(q) as cursor:
        return list(iter(cursor.next, None))


def test_pass_keeps_the_context_with_passall_alone(make_qmgr, engine) -> None:
    qmgr = make_qmgr()
    src, dst = qmgr.queue(), qmgr.queue()
    qm = _ops(qmgr, src, dst)
    _fill(qmgr, src)
    kept = Operation(Move(src, dst, ALL), journal=None).run(qm)
    assert {f.reason for f in kept.result.failed} == {2035}  # set-all: no +setall
    engine.clear_calls()
    run = Operation(Move(src, dst, ALL, pass_context=True), journal=None).run(qm)
    assert run.exit_code == ExitCode.OK and run.result.done == 3, run.result.failed
    assert run.description.options["context"] == "pass_all"
    moved = _browse(qmgr, dst)
    assert [m.body for m in moved] == [b"m0", b"m1", b"m2"]
    for i, m in enumerate(moved):  # each one's own context, passed
        assert (m.md.user_identifier.strip(), m.md.put_appl_name.strip(), m.md.put_date,
                m.md.put_time, m.md.appl_origin_data.strip()) == \
            ("alice", "ORDERS.APP", "20260101", f"1200{i:04d}", "orig")
    assert _browse(qmgr, src) == []
    C = qmgr.lib.CMQC
    opens = [c.info for c in engine.calls if c.name == "MQOPEN"
             and c.info.get("name", "").strip() == src and c.info["options"] & C.MQOO_INPUT_SHARED]
    assert opens and all(o["options"] & C.MQOO_SAVE_ALL_CONTEXT for o in opens)
    puts = [c.info for c in engine.calls if c.name == "MQPUT1"]
    assert len(puts) == 3 and all(p["pmo_options"] & C.MQPMO_PASS_ALL_CONTEXT for p in puts)


def test_without_passall_the_pass_is_refused_and_nothing_moves(make_qmgr) -> None:
    qmgr = make_qmgr()
    src, dst = qmgr.queue(), qmgr.queue()
    qm = _ops(qmgr, src, dst, passall=False)
    _fill(qmgr, src, 2)
    run = Operation(Move(src, dst, ALL, pass_context=True), journal=None).run(qm)
    assert {f.reason for f in run.result.failed} == {2035} and run.result.done == 0
    assert "+passall" in run.result.failed[0].detail
    left = _browse(qmgr, src)
    assert [m.body for m in left] == [b"m0", b"m1"]
    assert [m.md.backout_count for m in left] == [1, 1]  # each get backed out once
    assert _browse(qmgr, dst) == []


def test_a_refused_put_backs_its_get_out_and_the_rest_goes_on(make_qmgr) -> None:
    qmgr = make_qmgr()
    src, dst = qmgr.queue(), qmgr.queue(max_depth=2)
    qm = _ops(qmgr, src, dst)
    _fill(qmgr, src, 3)
    run = Operation(Move(src, dst, ALL, pass_context=True, batch=50), journal=None).run(qm)
    assert run.exit_code == ExitCode.PARTIAL and run.result.done == 2
    assert [f.reason for f in run.result.failed] == [2053]
    [left] = _browse(qmgr, src)
    assert left.body == b"m2" and left.md.backout_count == 1
    assert left.md.user_identifier.strip() == "alice"  # as it was
    assert [m.body for m in _browse(qmgr, dst)] == [b"m0", b"m1"]


def test_resubmit_passes_the_context(make_qmgr) -> None:
    qmgr = make_qmgr()
    dlq, dst = qmgr.queue(), qmgr.queue()
    qm = _ops(qmgr, dlq, dst)
    for i in range(2):
        md, body = add_dead_letter_header(
            MQMD(format="MQSTR   ", msg_id=b"R%023d" % i, user_identifier="app1",
                 put_appl_name="PAYMENTS"), b"r%d" % i, reason=2053, dest_q_name=dst)
        qmgr.admin().put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    run = Operation(Resubmit(dlq, ALL, pass_context=True), journal=None).run(qm)
    assert run.exit_code == ExitCode.OK and run.result.done == 2, run.result.failed
    got = _browse(qmgr, dst)
    assert [m.body for m in got] == [b"r0", b"r1"]  # the header removed
    assert {(m.md.user_identifier.strip(), m.md.put_appl_name.strip(), m.md.format)
            for m in got} == {("app1", "PAYMENTS", "MQSTR   ")}

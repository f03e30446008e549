"""Issue 24 item 1 on a queue manager that checks authority (the stand-in): a plan predicts a
put the destination would refuse for authority (2035, no +put) — MQ checks +put when the
queue is opened for output, so the plan opens it (MQOO_OUTPUT, nothing put) — and does not
predict a failure for a queue the user may put to but not inquire (no +inq: the put
works; the plan said 2035 before). The dead-letter handler's plan and a move's dry run
both ask the same way (``ops.transfer.local_prediction``)."""

from __future__ import annotations

from mqconsole.backends.base import Context
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.dlq.handler import run_handler, settings_for
from mqconsole.ops.dlq.rules import parse_table
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer


def _setup(qmgr):
    src, no_put, no_inq = qmgr.queue(), qmgr.queue(), qmgr.queue()
    admin = qmgr.admin()
    for i in range(3):
        admin.put(src, Message(MQMD(format="MQSTR   ", msg_id=b"P%023d" % i), b"m%d" % i),
                  context=Context.SET_ALL, syncpoint=False)
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("ops", src, {"browse", "get", "inq"})
    admin.set_authority("ops", no_put, {"inq"})  # may look, may not put
    admin.set_authority("ops", no_inq, {"put"})  # may put, may not look
    admin.set_authority("ops", "", {"connect", "inq", "setall"}, object_type="qmgr")
    return src, no_put, no_inq


def test_a_move_plan_predicts_2035_without_put_and_nothing_without_inq(qmgr) -> None:
    src, no_put, no_inq = _setup(qmgr)
    ops = qmgr.connect(user="ops")
    refused = transfer(ops, src, no_put, Selection(all=True), dry_run=True,
                       new_context=True)
    assert refused.would_fail() == 3, refused.plan
    assert {g["reason_name"] for g in refused.would_fail_groups()} == {"MQRC_NOT_AUTHORIZED"}
    fine = transfer(ops, src, no_inq, Selection(all=True), dry_run=True, new_context=True)
    assert fine.would_fail() == 0, fine.would_fail_groups()
    # and the run does what the plans said
    done = transfer(ops, src, no_inq, Selection(all=True), new_context=True)
    assert done.done == 3 and not done.failed


def test_a_handler_plan_predicts_2035_for_a_destination_without_put(qmgr, tmp_path) -> None:
    dlq, _, _ = _one_dead_letter(qmgr, MQMD(format="MQSTR   ", msg_id=b"D%023d" % 1),
                                 {"connect", "inq"})
    handler = qmgr.connect(user="dlqh")
    table = parse_table("ACTION(RETRY) PUTAUT(DEF)\n")
    report = run_handler(handler, table, settings_for(table, dlq, dry_run=True),
                         store_path=None)
    [m] = list(report.messages)
    assert "would fail now: MQRC_NOT_AUTHORIZED" in m.outcome, m.outcome
    assert report.result.would_fail() == 1


def test_a_move_plan_opens_with_the_run_s_context(qmgr) -> None:
    """A move keeping the messages' context (set-all, the default) needs +setall on the
    destination and the queue manager: without it the plan says 2035 for every message,
    as the run then fails; with --new-context (+put only) it predicts nothing."""
    src, dest, _ = _setup(qmgr)
    admin = qmgr.admin()
    admin.set_authority("ops", dest, {"put", "inq"})
    admin.set_authority("ops", "", {"connect", "inq"}, object_type="qmgr")  # no +setall
    ops = qmgr.connect(user="ops")
    kept = transfer(ops, src, dest, Selection(all=True), dry_run=True)
    assert kept.would_fail() == 3, kept.plan
    assert {g["reason_name"] for g in kept.would_fail_groups()} == {"MQRC_NOT_AUTHORIZED"}
    run = transfer(ops, src, dest, Selection(all=True))
    assert run.done == 0 and len(run.failed) == 3
    new = transfer(ops, src, dest, Selection(all=True), dry_run=True, new_context=True)
    assert new.would_fail() == 0, new.would_fail_groups()


def test_a_handler_plan_predicts_2035_for_putaut_ctx_as_a_user_who_may_not_put(
        qmgr) -> None:
    """PUTAUT(CTX) puts as the message's UserIdentifier (alternate user authority): the
    plan opens the destination as that user, so a user without +put there is 2035 in the
    plan, as in the run; once the user may put, the plan and the run agree again."""
    dlq, dest, admin = _one_dead_letter(
        qmgr, MQMD(format="MQSTR   ", msg_id=b"C%023d" % 1, user_identifier="app1"),
        {"connect", "inq", "altusr"})
    admin.set_authority("app1", "", {"setall"}, object_type="qmgr")
    handler = qmgr.connect(user="dlqh")
    table = parse_table("ACTION(RETRY) PUTAUT(CTX)\n")

    def plan() -> str:
        report = run_handler(handler, table, settings_for(table, dlq, dry_run=True),
                             store_path=None)
        [m] = list(report.messages)
        return m.outcome

    assert "as app1 — would fail now: MQRC_NOT_AUTHORIZED" in plan()
    admin.set_authority("app1", dest, {"put", "setall"})
    assert "would fail" not in plan()
    report = run_handler(handler, table, settings_for(table, dlq, once=True),
                         store_path=None)
    assert report.result.done == 1, [m.outcome for m in report.messages]


def _one_dead_letter(qmgr, md: MQMD, on_qmgr: set[str]):
    """A dead-letter queue holding one message for a destination (queue names from the
    stand-in), the handler's user ``dlqh`` allowed to read it, to look at the destination
    (+inq, no +put) and ``on_qmgr`` on the queue manager: (dlq, destination, admin)."""
    dlq, dest = qmgr.queue(), qmgr.queue()
    admin = qmgr.admin()
    md, body = add_dead_letter_header(md, b"x", reason=2053, dest_q_name=dest)
    admin.put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("dlqh", dlq, {"browse", "get", "inq"})
    admin.set_authority("dlqh", dest, {"inq"})
    admin.set_authority("dlqh", "", on_qmgr, object_type="qmgr")
    return dlq, dest, admin

"""Issue 22 item 7: the dead-letter handler's PUTAUT(DEF) puts with the handler's own
authority **and its own context** (the put's default context: a new message's user, time
and application; MsgId and CorrelId kept), so a handler granted +put on its destinations
and no +setall anywhere forwards and retries. IBM ("DLQ rules (patterns and actions)"):
DEF puts "with the authority of the DLQ handler itself"; only PUTAUT(CTX) needs authority
over other users' identities ("Invoking the dead-letter queue handler": "to put messages
on queues with the authority of the user ID in the message context, you must also be
authorized to assume the identity of other users"). Before, DEF put with set-all context
(MQOO_SET_ALL_CONTEXT at the open: 2035 without +setall on the queue and the queue
manager), so every such put failed."""

from __future__ import annotations

from mqconsole.backends.base import Context
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.dlq.handler import run_handler, settings_for
from mqconsole.ops.dlq.rules import parse_table


def _browse(qmgr, q):
    with qmgr.admin().browse(q) as cursor:
        return list(iter(cursor.next, None))


def test_putaut_def_needs_no_setall_and_gives_the_handlers_context(make_qmgr,
                                                                   tmp_path) -> None:
    qmgr = make_qmgr()
    dlq, app, catch = qmgr.queue(), qmgr.queue(), qmgr.queue()
    admin = qmgr.admin()
    for i, dest in enumerate((app, app, "NOWHERE")):
        md, body = add_dead_letter_header(
            MQMD(format="MQSTR   ", msg_id=b"D%023d" % i, correl_id=b"C%023d" % i,
                 user_identifier="app1", put_appl_name="ORDERS.APP"),
            b"m%d" % i, reason=2053 if dest == app else 2085, dest_q_name=dest)
        admin.put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    grants = qmgr.admin()
    grants.set_authority("mqadmin", "*", "all")
    grants.set_authority("mqadmin", "", "all", object_type="qmgr")
    grants.set_authority("dlqh", dlq, {"browse", "get", "inq"})
    grants.set_authority("dlqh", app, {"put"})
    grants.set_authority("dlqh", catch, {"put"})
    grants.set_authority("dlqh", "", {"connect", "inq"}, object_type="qmgr")
    handler = qmgr.connect(user="dlqh")
    table = parse_table("REASON(MQRC_Q_FULL) ACTION(RETRY)\n"
                        f"ACTION(FWD) FWDQ({catch}) HEADER(NO) PUTAUT(DEF)\n")
    report = run_handler(handler, table, settings_for(table, dlq, once=True),
                         store_path=str(tmp_path / "attempts.sqlite"))
    assert [m.outcome for m in report.messages] == ["retried", "retried", "forwarded"], \
        [(m.outcome, m.reason) for m in report.messages]
    assert _browse(qmgr, dlq) == []
    retried, forwarded = _browse(qmgr, app), _browse(qmgr, catch)
    assert [m.body for m in retried] == [b"m0", b"m1"] and [m.body for m in forwarded] == \
        [b"m2"]
    for i, m in enumerate(retried + forwarded):
        # the handler's own context: its user and application, not the message's
        assert m.md.user_identifier.strip() == "dlqh"
        assert m.md.put_appl_name.strip() != "ORDERS.APP"
        # MsgId and CorrelId kept
        assert (m.md.msg_id, m.md.correl_id) == (b"D%023d" % i, b"C%023d" % i)

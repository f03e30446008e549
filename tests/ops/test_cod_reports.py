"""Delete and move get messages, and a get of a message asking for a confirm-on-delivery
report makes the queue manager send one (IBM MQ, MQMD Report: MQRO_COD "is generated when
the message is retrieved from the queue … and deleted"): their plans and summaries say so
(issue 22 item 5); a copy gets nothing and says nothing of COD."""

from __future__ import annotations

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import MQRO_COD
from mqconsole.ops.operation import Copy, Delete, Move
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.selection import Selection

ALL = Selection(all=True)


def _queues():
    return {"IN": [Message(MQMD(format="MQSTR", report=MQRO_COD if i < 2 else 0,
                                reply_to_q="REPLIES", msg_id=b"C%023d" % i), b"x")
                   for i in range(3)], "OUT": []}


def test_a_move_plans_and_says_the_cod_reports_its_gets_make():
    plan = run_operation(Move("IN", "OUT", ALL), queues=_queues(), dry_run=True).summary
    assert [p.get("reports") for p in plan.result.plan] == [["COD"], ["COD"], None]
    assert any("2 messages ask for a confirm-on-delivery report (COD): getting them off IN"
               in w for w in plan.result.warnings)
    done = run_operation(Move("IN", "OUT", ALL), queues=_queues()).summary
    assert any(w.startswith("2 messages asked for a confirm-on-delivery report (COD): the "
                            "move's get made the queue manager send one")
               for w in done.result.warnings)


def test_a_copy_says_nothing_of_cod():
    plan = run_operation(Copy("IN", "OUT", ALL), queues=_queues(), dry_run=True).summary
    assert not any("COD" in w for w in plan.result.warnings)
    assert all("reports" not in p for p in plan.result.plan)


def test_a_delete_says_the_cod_reports_its_gets_make(tmp_path):
    plan = run_operation(Delete("IN", ALL, backup_dir=tmp_path), queues=_queues(),
                         dry_run=True).summary
    assert ("2 selected messages ask for a confirm-on-delivery report (COD): removing them "
            "from IN would make the queue manager send one to the ReplyToQ, as an "
            "application's get would") in plan.result.warnings
    done = run_operation(Delete("IN", ALL, backup_dir=tmp_path), queues=_queues()).summary
    assert done.result.done == 3
    assert any("removing them from IN makes the queue manager send one" in w
               for w in done.result.warnings)

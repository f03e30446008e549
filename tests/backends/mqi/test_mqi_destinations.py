"""Destinations on real MQ (the stand-in): the summary of a backend without CountsFacts
(it browses) tells APP.ORDERS@QM9 from the local APP.ORDERS, the queue manager it is
connected to being the local one (issue 15 item 7)."""

from __future__ import annotations

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.summary import summarize_queue


def test_the_summary_names_the_destination_queue_manager(qmgr, qm) -> None:
    queue = qmgr.queue()
    admin = qmgr.admin()
    local = qm.name
    for dest_qmgr in ("QM9", "QM9", local, ""):
        md, body = add_dead_letter_header(MQMD(format="MQSTR"), b"order", reason=2087,
                                          dest_q_name="APP.ORDERS", dest_qmgr_name=dest_qmgr)
        admin.put(queue, Message(md, body), syncpoint=False)
    doc = summarize_queue(qm, queue)
    assert [(g["destination"], g["dest_qmgr"], g["count"])
            for g in doc["by_reason_and_dest"]] == [("APP.ORDERS", local, 2),
                                                     ("APP.ORDERS@QM9", "QM9", 2)]

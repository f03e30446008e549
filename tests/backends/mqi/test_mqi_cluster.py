"""Issue 14 item 8: cluster queues hosted elsewhere are destinations.

A queue manager in a cluster resolves a cluster queue it does not host when it is put to
(MQOPEN for output, MQPUT1), while a plain MQCMD_INQUIRE_Q answers 2085. The stand-in does
that (``QMgrDef.cluster_queues``). ``resubmit --to``, ``edit --to`` and dry runs asked only
INQUIRE_Q and said 2085; the MQI backend now lets the put decide (an MQOPEN for output).
"""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs, QueueType
from mqconsole.ops.edit import edit_message
from mqconsole.ops.resubmit import resubmit
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer

CLUSTER_Q = "CLUS.ORDERS"


@pytest.fixture
def cluster(qmgr):
    xmitq = qmgr.queue("SCTQ")  # stands for SYSTEM.CLUSTER.TRANSMIT.QUEUE
    qmgr.qdef.cluster_queues[CLUSTER_Q] = xmitq
    return xmitq


def _msg(i: int) -> Message:
    return Message(MQMD(format="MQSTR   ", msg_id=f"C{i:05d}".encode().ljust(24, b"\0")),
                   f"c{i}".encode())


def test_a_cluster_queue_is_a_destination(qmgr, qm, cluster) -> None:
    attrs = qm.inquire_queue(CLUSTER_Q)
    assert attrs.type is QueueType.CLUSTER and attrs.depth is None
    with pytest.raises(MQError) as info:
        qm.inquire_queue("NOWHERE.AT.ALL")
    assert info.value.reason == 2085
    with pytest.raises(ValueError):
        qm.define_queue(QueueAttrs(name="X.CLUS", type=QueueType.CLUSTER))


def test_move_and_its_dry_run_to_a_cluster_queue(qmgr, qm, cluster) -> None:
    src = qmgr.queue()
    for i in range(3):
        qm.put(src, _msg(i), context=Context.SET_ALL, syncpoint=False)
    plan = transfer(qm, src, CLUSTER_Q, Selection.build(all_=True), dry_run=True)
    assert [p.get("would_fail") for p in plan.plan] == [None, None, None]
    r = transfer(qm, src, CLUSTER_Q, Selection.build(all_=True))
    assert (r.done, r.failed) == (3, [])
    assert qm.inquire_queue(cluster).depth == 3


def test_resubmit_and_edit_to_a_cluster_queue(qmgr, qm, cluster) -> None:
    src = qmgr.queue()
    for i in range(2):
        qm.put(src, _msg(i), context=Context.SET_ALL, syncpoint=False)
    plan = resubmit(qm, src, Selection.build(msgids=[_msg(0).msg_id_hex]), to=CLUSTER_Q,
                    dry_run=True)
    assert plan.plan and plan.plan[0].get("would_fail") is None
    r = resubmit(qm, src, Selection.build(msgids=[_msg(0).msg_id_hex]), to=CLUSTER_Q)
    assert (r.done, r.failed) == (1, [])
    out = edit_message(qm, src, _msg(1).md.msg_id, body=b"edited", to=CLUSTER_Q)
    assert out.result.done == 1
    assert qm.inquire_queue(src).depth == 0 and qm.inquire_queue(cluster).depth == 2

"""Contract: the queue manager and its queues (MQINQ, PCF inquire/define/change/delete/status)."""

from __future__ import annotations

import time

import pytest
from contract_support import mq_error, put_bodies

from mqconsole.backends.base import BrowseCursor, QueueManager
from mqconsole.mq.queue import QueueAttrs, QueueType, Usage


def test_protocol_is_implemented(qm: QueueManager) -> None:
    assert isinstance(qm, QueueManager)


def test_inquire_qmgr(qm: QueueManager, backend) -> None:
    info = qm.inquire_qmgr()
    assert info.name == qm.name == backend.qmgr_name
    assert info.platform
    assert info.command_level >= 900
    if info.dead_letter_queue:
        dlq = qm.inquire_queue(info.dead_letter_queue)
        assert dlq.type is QueueType.LOCAL


def test_define_inquire_list(qm: QueueManager, make_queue) -> None:
    name = make_queue("A", max_depth=7, max_msg_length=1000, bothresh=3, boqname="X.BO",
                      hardenbo=True, description="app input", default_priority=4,
                      default_persistence=1)
    a = qm.inquire_queue(name)
    assert (a.name, a.type, a.depth, a.max_depth, a.max_msg_length) == \
        (name, QueueType.LOCAL, 0, 7, 1000)
    assert (a.bothresh, a.boqname, a.hardenbo, a.description) == (3, "X.BO", True, "app input")
    assert (a.default_priority, a.default_persistence) == (4, 1)
    assert not a.put_inhibited and not a.get_inhibited and a.usage is Usage.NORMAL
    prefix = name.rsplit(".", 1)[0]
    other = make_queue("B")
    listed = [q.name for q in qm.list_queues(prefix + ".*")]
    assert listed == sorted([name, other])
    assert {name, other} <= {q.name for q in qm.list_queues("*")}
    assert qm.list_queues(prefix + ".NOTHING*") == []
    assert [q.name for q in qm.list_queues(name)] == [name]


def test_depth_counts_messages(qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "a", "b", "c")
    assert qm.inquire_queue(queue).depth == 3
    assert [q.depth for q in qm.list_queues(queue)] == [3]


def test_define_existing_is_refused_unless_replace(qm: QueueManager, make_queue) -> None:
    name = make_queue("R", max_depth=5)
    put_bodies(qm, name, "kept")
    with mq_error(2100):
        qm.define_queue(QueueAttrs(name=name))
    qm.define_queue(QueueAttrs(name=name, max_depth=9), replace=True)
    after = qm.inquire_queue(name)
    assert after.max_depth == 9 and after.depth == 1


def test_change_queue(qm: QueueManager, queue: str) -> None:
    new = qm.change_queue(queue, max_depth=42, put_inhibited=True, description="changed")
    assert (new.max_depth, new.put_inhibited, new.description) == (42, True, "changed")
    assert qm.inquire_queue(queue).max_depth == 42
    assert qm.change_queue(queue).max_depth == 42  # nothing to change


def test_change_queue_rejects_unknown_attribute(qm: QueueManager, queue: str) -> None:
    with mq_error(2067):
        qm.change_queue(queue, colour="blue")
    with mq_error(2067):
        qm.change_queue(queue, target_q="X")  # an alias attribute on a local queue


@pytest.mark.parametrize("attr,value", [("max_depth", -1), ("bothresh", -5),
                                        ("default_priority", 10), ("max_msg_length", "big")])
def test_change_queue_rejects_bad_values(qm: QueueManager, queue: str, attr: str,
                                         value: object) -> None:
    with pytest.raises(ValueError, match=attr):
        qm.change_queue(queue, **{attr: value})


def test_max_depth_may_go_below_depth(qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "a", "b", "c")
    assert qm.change_queue(queue, max_depth=1).depth == 3


def test_unknown_queue_everywhere(qm: QueueManager) -> None:
    missing = "CT.NO.SUCH.QUEUE"
    for call in (lambda: qm.inquire_queue(missing), lambda: qm.queue_status(missing),
                 lambda: qm.change_queue(missing, max_depth=1),
                 lambda: qm.delete_queue(missing), lambda: qm.browse(missing),
                 lambda: qm.get(missing), lambda: qm.get_by_msgid(missing, b"x" * 24),
                 lambda: put_bodies(qm, missing, "x")):
        with mq_error(2085):
            call()


def test_delete_queue(qm: QueueManager, make_queue) -> None:
    name = make_queue("D")
    put_bodies(qm, name, "x")
    with mq_error(2055):
        qm.delete_queue(name)
    qm.get(name, syncpoint=False)
    qm.delete_queue(name)
    with mq_error(2085):
        qm.inquire_queue(name)


def test_delete_refuses_uncommitted_messages(qm: QueueManager, make_queue) -> None:
    name = make_queue("U")
    put_bodies(qm, name, "pending", commit=False)
    with mq_error(2055):
        qm.delete_queue(name)
    qm.backout()


def test_non_local_queues_have_no_depth(qm: QueueManager, make_queue, queue: str) -> None:
    alias = make_queue("AL", type=QueueType.ALIAS, target_q=queue)
    remote = make_queue("RM", type=QueueType.REMOTE, remote_q_name="X",
                        remote_qmgr_name="QMX", xmit_q="QMX.XMIT")
    a, r = qm.inquire_queue(alias), qm.inquire_queue(remote)
    assert (a.type, a.depth, a.target_q) == (QueueType.ALIAS, None, queue)
    assert (r.type, r.depth) == (QueueType.REMOTE, None)
    assert (r.remote_q_name, r.remote_qmgr_name, r.xmit_q) == ("X", "QMX", "QMX.XMIT")


def test_xmitq_usage(qm: QueueManager, make_queue) -> None:
    name = make_queue("XQ", usage=Usage.XMITQ)
    assert qm.inquire_queue(name).usage is Usage.XMITQ


def test_queue_status(qm: QueueManager, queue: str) -> None:
    st = qm.queue_status(queue)
    assert (st.name, st.depth, st.uncommitted_messages, st.oldest_message_age) == \
        (queue, 0, 0, None)
    before = time.time()
    put_bodies(qm, queue, "a", "b")
    st = qm.queue_status(queue)
    assert st.depth == 2 and st.oldest_message_age is not None and st.oldest_message_age >= 0
    assert st.last_put is not None and st.last_put.timestamp() >= before - 1
    with qm.browse(queue, for_get=True) as cur:
        assert isinstance(cur, BrowseCursor)
        assert qm.queue_status(queue).open_input_count >= 1
    qm.get(queue)  # under syncpoint: uncommitted
    st = qm.queue_status(queue)
    assert st.uncommitted_messages == 1 and st.depth == 1
    assert st.last_get is not None
    qm.commit()
    assert qm.queue_status(queue).uncommitted_messages == 0

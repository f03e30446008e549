"""Contract: name resolution on put — alias queues, remote queue definitions, transmission
queues and queue manager aliases (ObjectQMgrName); no route is 2087."""

from __future__ import annotations

import uuid

from contract_support import browse_all, mq_error, msg, put_bodies

from mqconsole.backends.base import Context, QueueManager
from mqconsole.mq.queue import QueueType, Usage
from mqconsole.mq.xqh import MQXQH


def _qmgr_name() -> str:
    return "CTQM" + uuid.uuid4().hex[:8].upper()


def _xqh(m) -> tuple[MQXQH, bytes]:
    assert m.md.format == "MQXMIT  "
    head = MQXQH.unpack(m.body, 0, big_endian=None, ccsid=819)
    return head, m.body[MQXQH.LENGTH:]


def test_alias_puts_and_gets_through_to_its_target(qm: QueueManager, make_queue,
                                                   queue: str) -> None:
    alias = make_queue("ALIAS", type=QueueType.ALIAS, target_q=queue)
    put_bodies(qm, alias, "via alias")
    assert [m.body for m in browse_all(qm, queue)] == [b"via alias"]
    assert qm.get(alias, syncpoint=False).body == b"via alias"


def test_alias_inhibits_are_its_own(qm: QueueManager, make_queue, queue: str) -> None:
    alias = make_queue("ALIAS", type=QueueType.ALIAS, target_q=queue, put_inhibited=True,
                       get_inhibited=True)
    put_bodies(qm, queue, "direct")
    with mq_error(2051):
        qm.put(alias, msg("x"))
    with mq_error(2016):
        qm.get(alias)
    assert qm.get(queue, syncpoint=False).body == b"direct"


def test_alias_to_missing_target_2082(qm: QueueManager, make_queue) -> None:
    alias = make_queue("DANGLING", type=QueueType.ALIAS, target_q="CT.NO.SUCH.TARGET")
    with mq_error(2082):
        qm.put(alias, msg("x"))


def test_remote_definition_goes_to_its_xmitq_with_a_header(qm: QueueManager,
                                                           make_queue) -> None:
    rqm = _qmgr_name()
    xmitq = make_queue("XMIT", usage=Usage.XMITQ)
    remote = make_queue("REMOTE", type=QueueType.REMOTE, remote_q_name="APP.THERE",
                        remote_qmgr_name=rqm, xmit_q=xmitq)
    qm.put(remote, msg("payload", msg_id=b"R" * 24, user_identifier="alice"),
           context=Context.SET_ALL, syncpoint=False)
    [stored] = browse_all(qm, xmitq)
    head, rest = _xqh(stored)
    assert (head.remote_q, head.remote_qmgr) == ("APP.THERE", rqm)
    assert head.md.format == "MQSTR   " and head.md.msg_id == b"R" * 24
    assert head.md.user_identifier.strip() == "alice"
    assert rest == b"payload"
    assert stored.md.msg_id == b"R" * 24


def test_object_qmgr_name_resolves_through_a_transmission_queue(qm: QueueManager,
                                                                make_queue) -> None:
    rqm = make_queue("QMB", usage=Usage.XMITQ)  # a transmission queue named like the qmgr
    qm.put("APP.ON.B", msg("to b"), qmgr_name=rqm, syncpoint=False)
    [stored] = browse_all(qm, rqm)
    head, rest = _xqh(stored)
    assert (head.remote_q, head.remote_qmgr, rest) == ("APP.ON.B", rqm, b"to b")


def test_queue_manager_alias(qm: QueueManager, make_queue) -> None:
    target = _qmgr_name()
    xmitq = make_queue("XQ", usage=Usage.XMITQ)
    alias = make_queue("QMALIAS", type=QueueType.REMOTE, remote_q_name="",
                       remote_qmgr_name=target, xmit_q=xmitq)
    qm.put("APP.X", msg("via qmgr alias"), qmgr_name=alias, syncpoint=False)
    head, rest = _xqh(browse_all(qm, xmitq)[0])
    assert (head.remote_q, head.remote_qmgr, rest) == ("APP.X", target, b"via qmgr alias")


def test_own_qmgr_name_is_local(qm: QueueManager, queue: str) -> None:
    qm.put(queue, msg("local"), qmgr_name=qm.name, syncpoint=False)
    qm.put(queue, msg("blank"), qmgr_name="", syncpoint=False)
    assert [m.body for m in browse_all(qm, queue)] == [b"local", b"blank"]


def test_no_route_2087(qm: QueueManager, queue: str) -> None:
    with mq_error(2087):
        qm.put(queue, msg("lost"), qmgr_name=_qmgr_name())


def test_uncommitted_put_to_xmitq_backs_out(qm: QueueManager, make_queue) -> None:
    rqm = make_queue("QMC", usage=Usage.XMITQ)
    qm.put("APP.Y", msg("x"), qmgr_name=rqm)
    assert browse_all(qm, rqm) == []
    qm.backout()
    assert qm.inquire_queue(rqm).depth == 0

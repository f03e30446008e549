"""ops.landing: the local queue a put lands on, through the embedded queue manager's own
name resolution and through inquiries (as on an MQI connection), which must agree; a
refused inquiry leaves the name unresolved."""

from __future__ import annotations

import pytest

from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueAttrs, QueueType, Usage
from mqconsole.mq.reasons import MQRC_CONNECTION_BROKEN, MQRC_NOT_AUTHORIZED
from mqconsole.ops.landing import Landing, lands_on

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.fixture
def qm(make_qm):
    return make_qm(
        "APP.IN",
        QueueAttrs("DLQ.ALIAS", type=QueueType.ALIAS, target_q=DLQ),
        QueueAttrs("DLQ.BACK", type=QueueType.REMOTE, remote_q_name=DLQ,
                   remote_qmgr_name="QM1"),
        QueueAttrs("DLQ.HERE", type=QueueType.REMOTE, remote_q_name=DLQ),
        QueueAttrs("BACK.ALIAS", type=QueueType.ALIAS, target_q="DLQ.BACK"),
        QueueAttrs("QM1.AGAIN", type=QueueType.REMOTE, remote_qmgr_name="QM1"),
        QueueAttrs("QM2", usage=Usage.XMITQ),
        QueueAttrs("AWAY", type=QueueType.REMOTE, remote_q_name=DLQ, remote_qmgr_name="QM2",
                   xmit_q="QM2"),
        QueueAttrs("AWAY.ALIAS", type=QueueType.ALIAS, target_q="AWAY"),
        QueueAttrs("QM2.ALIAS", type=QueueType.REMOTE, remote_qmgr_name="QM2"),
        QueueAttrs("DANGLING", type=QueueType.ALIAS, target_q="NO.SUCH.QUEUE"))


class ByInquiry:
    """The queue manager without its own name resolution, as an MQI connection is; the
    names in ``refused`` cannot be inquired (2035), ``broken`` fails every inquiry."""

    def __init__(self, inner, refused: tuple[str, ...] = (), broken: bool = False) -> None:
        self._inner, self._refused, self._broken = inner, refused, broken

    def __getattr__(self, name: str):
        if name == "resolve_put":
            raise AttributeError(name)
        return getattr(self._inner, name)

    def inquire_queue(self, name: str) -> QueueAttrs:
        if self._broken:
            raise MQError(MQRC_CONNECTION_BROKEN, "the connection broke")
        if name in self._refused:
            raise MQError(MQRC_NOT_AUTHORIZED, f"not authorized to inquire {name}")
        return self._inner.inquire_queue(name)


CASES = [
    (("APP.IN", ""), "APP.IN"),
    ((DLQ, ""), DLQ),
    (("DLQ.ALIAS", ""), DLQ),
    (("DLQ.BACK", ""), DLQ),
    (("DLQ.HERE", ""), DLQ),
    (("BACK.ALIAS", ""), DLQ),
    ((DLQ, "QM1"), DLQ),
    ((DLQ, "QM1.AGAIN"), DLQ),
    (("DLQ.ALIAS", "QM1.AGAIN"), DLQ),
    (("DLQ.ALIAS   ", "QM1 "), DLQ),  # MQ names are blank-padded: the same name
    (("DLQ.ALIAS\0\0", ""), DLQ),
    (("AWAY", ""), None),  # to QM2 through its transmission queue
    (("AWAY.ALIAS", ""), None),
    ((DLQ, "QM2"), None),
    ((DLQ, "QM2.ALIAS"), None),
    (("NO.SUCH.QUEUE", ""), None),  # the put would fail: it lands nowhere
    (("DANGLING", ""), None),
    (("QM1.AGAIN", ""), None),  # a queue manager alias named as a queue: 2085
]


@pytest.mark.parametrize("inquiring", [False, True], ids=["resolution", "inquiry"])
@pytest.mark.parametrize(("where", "lands"), CASES, ids=[f"{q.strip()}@{m}" for (q, m), _ in
                                                         CASES])
def test_where_a_put_lands(qm, inquiring, where, lands) -> None:
    target = ByInquiry(qm) if inquiring else qm
    assert lands_on(target, *where, local="QM1") == Landing(lands)


def test_a_refused_inquiry_leaves_the_name_unresolved(qm) -> None:
    refusing = ByInquiry(qm, refused=("DLQ.ALIAS", "QM1.AGAIN"))
    assert lands_on(refusing, "DLQ.ALIAS ", local="QM1") == Landing("DLQ.ALIAS", known=False)
    assert lands_on(refusing, DLQ, "QM1.AGAIN", local="QM1") == Landing(None, known=False)
    assert lands_on(refusing, "DLQ.BACK", local="QM1") == Landing(DLQ)  # not in the way
    # the embedded queue manager resolves names for itself: no +inq needed
    assert lands_on(qm, "DLQ.ALIAS", local="QM1") == Landing(DLQ)


def test_a_broken_connection_leaves_the_name_unresolved(qm) -> None:
    assert lands_on(ByInquiry(qm, broken=True), "DLQ.ALIAS", local="QM1") == Landing(
        "DLQ.ALIAS", known=False)

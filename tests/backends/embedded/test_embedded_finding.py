"""The embedded cursor finds one message by its token or MsgId and says where it is
(``backends.base.FindsMessages``), as a browse from the start would find it."""

from __future__ import annotations

import time

from mqconsole.backends.base import FindsMessages
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs

Q = "APP.Q"


def _qm():
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs(Q, max_depth=1000))
    return qm


def _put(qm, msg_id: bytes, body: bytes, *, priority: int = 0, expiry: int = -1) -> None:
    qm.put(Q, Message(MQMD(msg_id=msg_id.ljust(24, b"\0"), priority=priority, expiry=expiry,
                           persistence=0), body), syncpoint=False)


def _browsed(qm) -> list:
    with qm.browse(Q) as c:
        return c.next_batch(1000)


def test_a_token_puts_the_cursor_on_its_message_and_the_browse_goes_on_after_it():
    qm = _qm()
    for i in range(10):
        _put(qm, b"ID%d" % (i % 3), b"body %d" % i, priority=9 if i == 7 else 0)
    order = _browsed(qm)
    assert order[0].body == b"body 7"  # priority first, as MQ browses
    with qm.browse(Q, for_get=True) as c:
        assert isinstance(c, FindsMessages)
        m = c.browse_token(order[5].token)
        assert m.body == order[5].body and c.position_of_current() == 6
        assert c.next().body == order[6].body  # BROWSE_NEXT goes on after it
        assert c.browse_token(order[2].token).body == order[2].body
        got = c.get_current()  # the message under the cursor, exactly it
        assert got.body == order[2].body
        assert c.browse_token(order[2].token) is None  # it left: 2033
        assert c.browse_token(b"\xff" * 16) is None
    qm.commit()
    assert [m.body for m in _browsed(qm)] == [m.body for m in order if m is not order[2]]


def test_by_msg_id_every_message_carrying_it_in_browse_order_with_its_position():
    qm = _qm()
    for i in range(12):
        _put(qm, b"ID%d" % (i % 3), b"body %d" % i, priority=5 if i == 10 else 0)
    order = _browsed(qm)
    expected = [(n, m.body) for n, m in enumerate(order, 1) if m.md.msg_id[:3] == b"ID1"]
    seen = []
    with qm.browse(Q) as c:
        m = c.browse_msg_id(b"ID1".ljust(24, b"\0"), True)
        while m is not None:
            seen.append((c.position_of_current(), m.body))
            m = c.browse_msg_id(b"ID1".ljust(24, b"\0"), False)
    assert seen == expected and len(seen) == 4


def test_a_position_does_not_count_expired_messages_and_an_expired_one_is_not_found():
    qm = _qm()
    _put(qm, b"A", b"a")
    _put(qm, b"GONE", b"expires", expiry=1)  # a tenth of a second
    _put(qm, b"B", b"b")
    with qm.browse(Q) as c:
        token_gone = c.browse_msg_id(b"GONE".ljust(24, b"\0"), True).token
    time.sleep(0.3)  # (the expiry itself is what is tested, not a synchronisation)
    with qm.browse(Q) as c:
        assert c.browse_token(token_gone) is None
        m = c.browse_msg_id(b"B".ljust(24, b"\0"), True)
        assert m.body == b"b" and c.position_of_current() == 2
    assert [m.body for m in _browsed(qm)] == [b"a", b"b"]


def test_positions_from_either_end_agree_with_a_browse():
    qm = _qm()
    for i in range(200):
        _put(qm, b"N%d" % i, b"%d" % i, priority=i % 3)
    order = _browsed(qm)
    with qm.browse(Q) as c:
        for n in (1, 2, 67, 100, 101, 150, 199, 200):
            c.browse_token(order[n - 1].token)
            assert c.position_of_current() == n

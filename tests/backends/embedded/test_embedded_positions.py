"""A page read at a position (``ReadsByPosition.page_at``, the console's End and PageDown)
holds exactly the messages a plain browse from the start meets at those positions, and
its count is the number a browse meets: on generated queues with priorities, expired
messages, and other connections' uncommitted puts and gets."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqconsole.backends.base import ReadsByPosition
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message


def _browse(qm, queue: str) -> list[tuple[bytes, bytes]]:
    with qm.browse(queue) as cursor:
        return [(bytes(m.md.msg_id), m.body) for m in cursor.next_batch(10_000)]


def _seen(page) -> list[tuple[bytes, bytes]]:
    return [(bytes(m.md.msg_id), m.body) for m in page.messages]


MESSAGES = st.lists(st.tuples(st.integers(0, 9), st.booleans()), max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(batch=MESSAGES, expired=st.sets(st.integers(0, 40)), pending=st.integers(0, 3),
       taken=st.integers(0, 3), asks=st.lists(st.tuples(st.integers(-45, 45),
                                                      st.integers(0, 12)), max_size=6))
def test_a_page_at_a_position_is_what_a_browse_meets_there(make_qm, batch, expired, pending,
                                                          taken, asks) -> None:
    qm = make_qm("Q")
    assert isinstance(qm, ReadsByPosition)
    for n, (priority, _) in enumerate(batch):
        qm.put("Q", Message(MQMD(format="MQSTR", priority=priority), b"m%d" % n),
               syncpoint=False)
    ids = [r[0] for r in qm._db.execute("SELECT id FROM messages ORDER BY id")]
    with qm._guard(), qm._write() as db:
        for i in expired:
            if i < len(ids):
                db.execute("UPDATE messages SET expires_at = 1.0 WHERE id = ?", (ids[i],))
    other = qm.new_connection()  # its unit of work stays open: invisible to a browse
    for n in range(pending):
        other.put("Q", Message(MQMD(format="MQSTR", priority=n * 3), b"pending"),
                  syncpoint=True)
    for _ in range(taken):
        try:
            other.get("Q", syncpoint=True)
        except MQError:  # the queue is empty: nothing more taken
            break
    pages = [(position, n, qm.page_at("Q", position, n)) for position, n in asks]
    whole = qm.page_at("Q", 1, 100)
    browsed = _browse(qm, "Q")
    assert whole is not None and whole.total == len(browsed) and _seen(whole) == browsed
    for position, n, page in pages:
        assert page is not None and page.total == len(browsed)
        start = position - 1 if position > 0 else max(0, len(browsed) + position)
        assert page.first == start + 1
        assert _seen(page) == browsed[start:start + n]
    other.backout()
    other.close()
    assert qm.page_at("Q", -1, 1).total == len(_browse(qm, "Q"))


def test_the_end_of_a_queue_without_reading_it(make_qm) -> None:
    qm = make_qm("Q")
    for n in range(500):
        qm.put("Q", Message(MQMD(format="MQSTR", priority=(n * 7) % 10), b"%d" % n),
               syncpoint=False)
    browsed = _browse(qm, "Q")
    last = qm.page_at("Q", -20, 20)
    assert last.total == 500 and last.first == 481 and _seen(last) == browsed[-20:]
    middle = qm.page_at("Q", 300, 5)
    assert _seen(middle) == browsed[299:304]
    past = qm.page_at("Q", 501, 5)
    assert past.total == 500 and past.messages == []
    # a message under a page's cursor is named by its token, as a browse names it
    assert [m.token for m in last.messages] == [m.token for m in _messages(qm)[-20:]]


def _messages(qm) -> list[Message]:
    with qm.browse("Q") as cursor:
        return cursor.next_batch(10_000)


def test_a_file_made_before_the_expiry_index_gets_it(make_qm, tmp_path) -> None:
    qm = make_qm("Q", path=tmp_path / "qm.sqlite")
    for n in range(10):
        qm.put("Q", Message(MQMD(format="MQSTR"), b"%d" % n), syncpoint=False)
    with qm._guard(), qm._write() as db:
        db.execute("DROP INDEX messages_expiry")
    assert not qm._has_expiry_index()
    page = qm.page_at("Q", -3, 3)
    assert page.total == 10 and [m.body for m in page.messages] == [b"7", b"8", b"9"]
    assert qm._has_expiry_index()

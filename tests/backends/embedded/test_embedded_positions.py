"""A page read at a position (``ReadsByPosition.page_at``, the console's End and PageDown)
holds exactly the messages a plain browse from the start meets at those positions, and
its count is the number a browse meets: on generated queues with priorities, expired
messages, and other connections' uncommitted puts and gets; and the rows listed there
(``ListsByPosition.rows_at``) are those messages' facts."""

from __future__ import annotations

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from mqconsole.backends.base import ListedRow, ListsByPosition, ReadsByPosition
from mqconsole.mq.errors import MQError
from mqconsole.mq.facts import facts
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from tests.ops.test_summary_routes import messages as hostile_messages
from tests.support.examples import examples


def _browse(qm, queue: str) -> list[tuple[bytes, bytes]]:
    with qm.browse(queue) as cursor:
        return [(bytes(m.md.msg_id), m.body) for m in cursor.next_batch(10_000)]


def _seen(page) -> list[tuple[bytes, bytes]]:
    return [(bytes(m.md.msg_id), m.body) for m in page.messages]


MESSAGES = st.lists(st.tuples(st.integers(0, 9), st.booleans()), max_size=40)


@examples(60, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
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


@examples(60, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(batch=st.lists(hostile_messages(), max_size=25), forget=st.sets(st.integers(0, 30)),
       older=st.sets(st.integers(0, 30)),
       backouts=st.dictionaries(st.integers(0, 30), st.integers(1, 5)),
       asks=st.lists(st.tuples(st.integers(-30, 30), st.integers(0, 12)), max_size=4))
def test_listed_rows_are_the_facts_of_the_messages_at_those_positions(make_qm, batch, forget,
                                                                       older, backouts, asks
                                                                       ) -> None:
    """``rows_at`` (``ListsByPosition``) lists, for the messages ``page_at`` reads at the same
    positions, their token, MsgId, body length, BackoutCount and ``mq.facts.facts``: on
    hostile dead-letter headers and put times, other formats, and rows whose facts an older
    mqconsole never kept (filled in from the MD and body)."""
    qm = make_qm("Q")
    assert isinstance(qm, ListsByPosition)
    for m in batch:
        qm.put("Q", m, syncpoint=False)
    ids = [r[0] for r in qm._db.execute("SELECT id FROM messages ORDER BY id")]
    with qm._guard(), qm._write() as db:
        for i in forget:
            if i < len(ids):
                db.execute("UPDATE messages SET f_format = NULL WHERE id = ?", (ids[i],))
        for i in older:  # written before the destination's queue manager was kept
            if i < len(ids):
                db.execute("UPDATE messages SET f_dest_qm = NULL WHERE id = ?", (ids[i],))
        for i, n in backouts.items():
            if i < len(ids):
                db.execute("UPDATE messages SET backout_count = ? WHERE id = ?", (n, ids[i]))
    for position, n in [(1, 100), *asks]:
        page, listed = qm.page_at("Q", position, n), qm.rows_at("Q", position, n)
        assert listed is not None and page is not None
        assert (listed.total, listed.first) == (page.total, page.first)
        expected = []
        for m in page.messages:
            f = facts(m.md, m.body)
            expected.append(ListedRow(m.token, bytes(m.md.msg_id), f.put_us, len(m.body),
                                      m.md.backout_count, f.reason, f.dest_q, f.dest_qmgr,
                                      f.format))
        assert listed.rows == expected

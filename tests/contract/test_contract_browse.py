"""Contract: browse cursors (BROWSE_FIRST/NEXT) and the get under the cursor."""

from __future__ import annotations

from contract_support import bodies, mq_error, msg, put_bodies

from mqconsole.backends.base import QueueManager
from mqconsole.mq.queue import QueueType


def test_browse_forward_to_the_end(qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, *[f"m{i}" for i in range(7)])
    with qm.browse(queue) as cur:
        assert cur.queue == queue
        assert cur.next().body == b"m0"
        assert [m.body for m in cur.next_batch(3)] == [b"m1", b"m2", b"m3"]
        assert [m.body for m in cur.next_batch(10)] == [b"m4", b"m5", b"m6"]
        assert cur.next() is None
        assert cur.next_batch(5) == []
    assert qm.inquire_queue(queue).depth == 7  # browsing takes nothing


def test_browse_is_forward_only_and_independent(qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "a", "b", "c")
    with qm.browse(queue) as one, qm.browse(queue) as two:
        assert one.next().body == b"a"
        assert one.next().body == b"b"
        assert two.next().body == b"a"  # each cursor starts at the beginning
        assert one.next().body == b"c"


def test_browse_empty_queue(qm: QueueManager, queue: str) -> None:
    with qm.browse(queue) as cur:
        assert cur.next() is None


def test_cursor_survives_puts(qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "a", "b")
    with qm.browse(queue) as cur:
        assert cur.next().body == b"a"
        put_bodies(qm, queue, "c")  # arrives after the cursor: seen
        qm.put(queue, msg("urgent", priority=9), syncpoint=False)  # sorts before the cursor
        assert [m.body for m in cur.next_batch(10)] == [b"b", b"c"]
        put_bodies(qm, queue, "d")
        assert cur.next().body == b"d"


def test_cursor_survives_gets_by_others(qm: QueueManager, qm2: QueueManager,
                                        queue: str) -> None:
    put_bodies(qm, queue, "a", "b", "c", "d")
    with qm.browse(queue, for_get=True) as cur:
        assert cur.next().body == b"a"
        assert qm2.get(queue, syncpoint=False).body == b"a"  # the one under the cursor
        assert qm2.get(queue, syncpoint=False).body == b"b"  # the next one
        assert cur.next().body == b"c"
        assert qm2.get(queue, syncpoint=False).body == b"c"  # taken from under the cursor
        with mq_error(2034):
            cur.get_current()
        assert cur.next().body == b"d"


def test_get_current_takes_exactly_the_browsed_message(qm: QueueManager, queue: str) -> None:
    same = b"DUP".ljust(24, b"\0")
    for body in ("one", "two", "three"):
        qm.put(queue, msg(body, msg_id=same), syncpoint=False)
    with qm.browse(queue, for_get=True) as cur:
        cur.next()
        assert cur.next().body == b"two"
        got = cur.get_current()
        assert got.body == b"two" and got.md.msg_id == same
        assert cur.next().body == b"three"
    qm.commit()
    assert bodies(qm, queue) == [b"one", b"three"]


def test_get_current_after_a_batch_takes_the_last(qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "a", "b", "c")
    with qm.browse(queue, for_get=True) as cur:
        assert len(cur.next_batch(2)) == 2
        assert cur.get_current(syncpoint=False).body == b"b"
    assert bodies(qm, queue) == [b"a", b"c"]


def test_get_current_is_under_syncpoint_by_default(qm: QueueManager, qm2: QueueManager,
                                                   queue: str) -> None:
    put_bodies(qm, queue, "a", "b")
    with qm.browse(queue, for_get=True) as cur:
        cur.next()
        cur.get_current()
        assert qm.in_unit_of_work
        assert bodies(qm2, queue) == [b"b"]  # invisible to others while uncommitted
    qm.backout()
    got = qm2.get(queue, syncpoint=False)
    assert got.body == b"a" and got.md.backout_count == 1


def test_no_message_under_cursor_2034(qm: QueueManager, qm2: QueueManager,
                                      queue: str) -> None:
    put_bodies(qm, queue, "a", "b")
    with qm.browse(queue, for_get=True) as cur:
        with mq_error(2034):  # nothing browsed yet
            cur.get_current()
        cur.next()
        qm2.get(queue, syncpoint=False)  # another consumer takes it
        with mq_error(2034):
            cur.get_current()
        cur.next()
        cur.get_current(syncpoint=False)
        with mq_error(2034):  # already taken by this cursor
            cur.get_current()
    assert qm.inquire_queue(queue).depth == 0


def test_get_current_refused_when_taken_under_syncpoint_elsewhere(
        qm: QueueManager, qm2: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "a")
    with qm.browse(queue, for_get=True) as cur:
        cur.next()
        qm2.get(queue)  # uncommitted get by another connection
        with mq_error(2034):
            cur.get_current()
        qm2.backout()


def test_browse_through_an_alias(qm: QueueManager, make_queue, queue: str) -> None:
    alias = make_queue("AL", type=QueueType.ALIAS, target_q=queue)
    put_bodies(qm, alias, "via alias")
    with qm.browse(alias, for_get=True) as cur:
        assert cur.next().body == b"via alias"
        assert cur.get_current(syncpoint=False).body == b"via alias"
    assert qm.inquire_queue(queue).depth == 0


def test_large_batch_in_order(qm: QueueManager, make_queue) -> None:
    name = make_queue("BIG", max_depth=5000)
    for i in range(600):
        qm.put(name, msg(f"{i:04d}", priority=i % 3), syncpoint=True)
    qm.commit()
    with qm.browse(name) as cur:
        seen = []
        while batch := cur.next_batch(128):
            seen.extend(m.body for m in batch)
    expected = sorted((f"{i:04d}".encode() for i in range(600)),
                      key=lambda b: (-(int(b) % 3), int(b)))
    assert seen == expected


def test_a_browse_opens_for_browsing_only(qm: QueueManager, queue: str) -> None:
    """Browsing opens no input handle (IPPROCS stays 0: a FIRST/DEPTH trigger still fires,
    and a SHARE(NO) queue stays open to its consumer); getting under the cursor needs a
    cursor opened for_get (2037 otherwise)."""
    put_bodies(qm, queue, "a")
    with qm.browse(queue) as cur:
        assert cur.next().body == b"a"
        assert qm.queue_status(queue).open_input_count == 0
        with mq_error(2037):
            cur.get_current(syncpoint=False)
    with qm.browse(queue, for_get=True) as cur:
        assert qm.queue_status(queue).open_input_count == 1
        cur.next()
        assert cur.get_current(syncpoint=False).body == b"a"
    assert qm.queue_status(queue).open_input_count == 0

"""Contract: units of work per connection (MQCMIT, MQBACK), two connections at once."""

from __future__ import annotations

from contract_support import bodies, browse_all, mq_error, msg, put_bodies

from mqconsole.backends.base import QueueManager


def test_uncommitted_puts_are_invisible_until_commit(qm: QueueManager, qm2: QueueManager,
                                                     queue: str) -> None:
    qm.put(queue, msg("pending"))
    assert qm.in_unit_of_work
    assert bodies(qm2, queue) == []
    with mq_error(2033):
        qm2.get(queue)
    assert bodies(qm, queue) == []  # not even the putter can get it before commit
    assert qm.inquire_queue(queue).depth == 1  # but it counts toward the depth
    qm.commit()
    assert not qm.in_unit_of_work
    assert bodies(qm2, queue) == [b"pending"]


def test_backout_removes_uncommitted_puts(qm: QueueManager, qm2: QueueManager,
                                          queue: str) -> None:
    qm.put(queue, msg("never"))
    qm.backout()
    assert not qm.in_unit_of_work
    assert bodies(qm2, queue) == []
    assert qm.inquire_queue(queue).depth == 0


def test_uncommitted_gets_are_invisible_to_others(qm: QueueManager, qm2: QueueManager,
                                                  queue: str) -> None:
    put_bodies(qm, queue, "a", "b")
    assert qm.get(queue).body == b"a"
    assert bodies(qm2, queue) == [b"b"]
    assert qm2.get(queue, syncpoint=False).body == b"b"
    with mq_error(2033):
        qm2.get(queue)
    qm.commit()
    assert bodies(qm2, queue) == []


def test_backout_raises_backout_count_of_got_messages_only(qm: QueueManager, queue: str,
                                                           make_queue) -> None:
    other = make_queue("OUT")
    put_bodies(qm, queue, "a", "b", "c")
    qm.get(queue)  # a
    qm.get(queue)  # b
    qm.put(other, msg("moved"))
    qm.backout()
    got = {m.body: m.md.backout_count for m in browse_all(qm, queue)}
    assert got == {b"a": 1, b"b": 1, b"c": 0}
    assert bodies(qm, queue) == [b"a", b"b", b"c"]  # back in their places
    assert bodies(qm, other) == []
    qm.get(queue)
    qm.backout()
    assert qm.get(queue, syncpoint=False).md.backout_count == 2


def test_commit_after_move(qm: QueueManager, qm2: QueueManager, queue: str,
                           make_queue) -> None:
    target = make_queue("TGT")
    put_bodies(qm, queue, "m1", "m2")
    with qm.browse(queue, for_get=True) as cur:
        while (m := cur.next()) is not None:
            qm.put(target, m)  # put first, then take the original
            cur.get_current()
    assert bodies(qm2, queue) == [] and bodies(qm2, target) == []  # all in flight
    assert qm2.inquire_queue(target).depth == 2
    qm.commit()
    assert bodies(qm2, queue) == [] and bodies(qm2, target) == [b"m1", b"m2"]
    assert all(m.md.backout_count == 0 for m in browse_all(qm2, target))


def test_non_syncpoint_work_is_independent_of_the_unit_of_work(
        qm: QueueManager, qm2: QueueManager, queue: str) -> None:
    qm.put(queue, msg("in uow"))
    qm.put(queue, msg("outside"), syncpoint=False)
    assert bodies(qm2, queue) == [b"outside"]
    qm.backout()
    assert bodies(qm2, queue) == [b"outside"]


def test_commit_and_backout_without_work(qm: QueueManager) -> None:
    qm.commit()
    qm.backout()
    assert not qm.in_unit_of_work


def test_failed_get_leaves_no_unit_of_work(qm: QueueManager, queue: str) -> None:
    with mq_error(2033):
        qm.get(queue)
    assert not qm.in_unit_of_work


def test_close_backs_out(qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "x")
    other = qm.new_connection()
    other.get(queue)
    other.put(queue, msg("lost"))
    other.close()
    got = browse_all(qm, queue)
    assert [(m.body, m.md.backout_count) for m in got] == [(b"x", 1)]


def test_two_connections_hold_units_of_work_at_once(qm: QueueManager, qm2: QueueManager,
                                                    queue: str) -> None:
    put_bodies(qm, queue, "a", "b", "c")
    assert qm.get(queue).body == b"a"
    assert qm2.get(queue).body == b"b"
    qm.put(queue, msg("from 1"))
    qm2.put(queue, msg("from 2"))
    qm2.commit()
    assert bodies(qm, queue) == [b"c", b"from 2"]
    qm.backout()
    assert bodies(qm2, queue) == [b"a", b"c", b"from 2"]
    assert browse_all(qm2, queue)[0].md.backout_count == 1


def test_connections_see_each_others_queues(qm: QueueManager, qm2: QueueManager,
                                            make_queue) -> None:
    name = make_queue("SHARED")
    assert qm2.inquire_queue(name).name == name
    qm2.change_queue(name, description="by two")
    assert qm.inquire_queue(name).description == "by two"


def test_closed_connection_refuses_calls(qm: QueueManager, queue: str) -> None:
    other = qm.new_connection()
    other.close()
    other.close()  # twice is fine
    with mq_error(2018):
        other.inquire_queue(queue)


def test_two_connections_interleave_units_of_work_in_one_thread(
        qm: QueueManager, qm2: QueueManager, queue: str, make_queue) -> None:
    """One thread drives both connections, each with a unit of work open: neither call
    waits for the other's commit (the embedded queue manager holds SQLite's write lock
    per unit of work, and hands it over between connections of one process)."""
    other = make_queue("OTHER")
    put_bodies(qm, queue, "a", "b", "c", "d")
    qm.put(other, msg("1-first"))
    assert qm.get(queue).body == b"a"
    qm2.put(other, msg("2-first"))  # qm's unit of work is open: qm2 must not wait for it
    assert qm2.get(queue).body == b"b"
    qm.put(other, msg("1-second"))
    assert qm.get(queue).body == b"c"
    assert bodies(qm2, other) == []  # nothing committed yet
    assert qm.inquire_queue(other).depth == 3  # uncommitted puts count in CURDEPTH
    qm2.commit()
    assert bodies(qm, other) == [b"2-first"]
    assert bodies(qm, queue) == [b"d"]
    qm.put(other, msg("1-third"))
    qm.backout()
    assert bodies(qm2, other) == [b"2-first"]
    assert [(m.body, m.md.backout_count) for m in browse_all(qm2, queue)] == \
        [(b"a", 1), (b"c", 1), (b"d", 0)]
    assert not qm.in_unit_of_work and not qm2.in_unit_of_work


def test_non_syncpoint_call_inside_a_unit_of_work_keeps_both(qm: QueueManager,
                                                            qm2: QueueManager,
                                                            queue: str, make_queue) -> None:
    log = make_queue("LOG")
    put_bodies(qm, queue, "a", "b")
    assert qm.get(queue).body == b"a"
    qm.put(log, msg("noted"), syncpoint=False)  # takes effect now, whatever happens next
    assert qm.get(queue).body == b"b"
    assert bodies(qm2, log) == [b"noted"] and bodies(qm2, queue) == []
    qm.backout()
    assert [(m.body, m.md.backout_count) for m in browse_all(qm2, queue)] == \
        [(b"a", 1), (b"b", 1)]
    assert bodies(qm2, log) == [b"noted"]
    assert qm.get(queue).body == b"a"
    qm.put(log, msg("again"), syncpoint=False)
    qm.commit()
    assert bodies(qm2, queue) == [b"b"] and bodies(qm2, log) == [b"noted", b"again"]

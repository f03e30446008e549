"""Acting on a few named messages of a deep queue finds exactly those, never browsing the
queue from its start (issue 23 item 1): marks by token, ``--msgid --position``, ``--msgid``."""

from __future__ import annotations

import pytest

from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.operation import Copy, Move, Operation
from mqconsole.ops.selection import Mark, Selection
from tests.support.counting import CountingQueueManager, bulk_fill, msg_id_of

# issue 22 item 12: once more with every optional capability off (tests/support/plain.py)
pytestmark = pytest.mark.capabilities_off_too

SRC, DST = "APP.DLQ", "APP.HOLD"
N = 20_000


@pytest.fixture
def deep():
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs(SRC, max_depth=N + 10))
    qm.define_queue(QueueAttrs(DST, max_depth=N + 10))
    bulk_fill(qm, SRC, N)
    yield qm
    qm.close()


def _token_of(qm, i: int) -> bytes:
    with qm.browse(SRC) as c:
        return c.browse_msg_id(msg_id_of(i), True).token


def _run(qm, kind, *, dry_run=False):
    counting = CountingQueueManager(qm)
    summary = Operation(kind, journal=None).run(counting, dry_run=dry_run)
    return summary, counting.counts


@pytest.mark.parametrize("dry_run", [True, False])
def test_one_marked_message_deep_in_the_queue_is_moved_without_browsing_the_others(
        deep, dry_run):
    i = N - 7
    mark = Mark(msg_id_of(i), token=_token_of(deep, i), position=i)
    summary, counts = _run(deep, Move(SRC, DST, Selection(marks=frozenset([mark]))),
                           dry_run=dry_run)
    assert counts.browsed[SRC] == 0  # not one message browsed: it was found by its token
    assert summary.counts["selected"] == 1
    if dry_run:
        assert [p["position"] for p in summary.result.plan] == [i]
        assert deep.inquire_queue(SRC).depth == N
    else:
        assert summary.counts["done"] == 1
        with deep.browse(DST) as c:
            assert [m.body for m in c.next_batch(10)] == [b"message %d" % i]
        assert deep.inquire_queue(SRC).depth == N - 1


@pytest.mark.parametrize("dry_run", [True, False])
def test_msgid_with_position_is_checked_there_without_browsing(deep, dry_run):
    i = N - 100
    sel = Selection.build(msgids=[msg_id_of(i).hex()], positions=[i])
    summary, counts = _run(deep, Copy(SRC, DST, sel), dry_run=dry_run)
    assert counts.browsed[SRC] == 0 and summary.counts["selected"] == 1
    wrong = Selection.build(msgids=[msg_id_of(i).hex()], positions=[i + 1])
    summary, counts = _run(deep, Copy(SRC, DST, wrong), dry_run=dry_run)
    assert counts.browsed[SRC] == 0 and summary.counts["selected"] == 0
    assert any("1 of the marked messages is no longer there" in w
               for w in summary.result.warnings)


def test_a_msgid_is_checked_unique_and_moved_without_browsing(deep):
    counting = CountingQueueManager(deep)
    op = Operation(Move(SRC, DST, Selection.build(msgids=[msg_id_of(N).hex()])), journal=None)
    op.validate(counting)
    summary = op.run(counting)
    assert counting.counts.browsed[SRC] == 0
    assert summary.counts["done"] == 1 and deep.inquire_queue(DST).depth == 1


def test_marks_that_left_are_said_before_the_question_and_the_rest_move(deep):
    marks = [Mark(msg_id_of(i), token=_token_of(deep, i), position=i) for i in (5, N - 3)]
    other = deep.new_connection()
    other.get_by_msgid(SRC, msg_id_of(5), syncpoint=False)  # another application took one
    other.close()
    kind = Move(SRC, DST, Selection(marks=frozenset(marks)))
    plan, _ = _run(deep, kind, dry_run=True)
    assert "1 of the marked messages is no longer there" in " ".join(plan.result.warnings)
    summary, counts = _run(deep, kind)
    assert counts.browsed[SRC] == 0 and summary.counts["done"] == 1


def test_a_marked_message_is_resubmitted_without_browsing(deep):
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message
    from mqconsole.ops.operation import Resubmit

    md, body = add_dead_letter_header(MQMD(format="MQSTR", persistence=0), b"late",
                                      reason=2053, dest_q_name=DST, dest_qmgr_name="")
    deep.put(SRC, Message(md, body), syncpoint=False)
    with deep.browse(SRC) as c:
        c.browse_token(_token_of(deep, N))
        last = c.next()
    mark = Mark(bytes(last.md.msg_id), token=last.token, position=N + 1)
    summary, counts = _run(deep, Resubmit(SRC, Selection(marks=frozenset([mark]))))
    assert counts.browsed[SRC] == 0 and summary.counts["done"] == 1
    with deep.browse(DST) as c:
        assert [m.body for m in c.next_batch(10)] == [b"late"]

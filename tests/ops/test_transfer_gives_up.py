"""A move stops browsing once its destination has given up (issue 15, trust 6): a 2,000-
message queue moved to a put-inhibited queue is not browsed to its end to skip each one."""

from __future__ import annotations

import pytest

from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import REFUSALS_BEFORE_STOP
from tests.support.faulty import make_message

# issue 22 item 12: once more with every optional capability off (tests/support/plain.py)
pytestmark = pytest.mark.capabilities_off_too


def test_a_move_stops_browsing_when_its_destination_gives_up():
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs(name="IN", max_depth=100_000))
    qm.define_queue(QueueAttrs(name="OUT", put_inhibited=True))
    for i in range(2000):
        qm.put("IN", make_message(i), syncpoint=True)
    qm.commit()
    summary = Operation(Move("IN", "OUT", Selection(all=True)), journal=None).run(qm)
    r = summary.result
    assert len(r.failed) == REFUSALS_BEFORE_STOP and r.done == 0
    assert r.stopped_early == ("OUT refused 10 messages in a row (last: MQRC_PUT_INHIBITED "
                               "(2051)), so it was given up")
    # the rest were never tried: a count of their own, in the selected (issue 24 item 2)
    assert r.not_tried == 2000 - REFUSALS_BEFORE_STOP and r.selected == 2000
    assert r.selected == r.done + len(r.failed) + r.skipped + r.not_tried
    assert r.to_json()["not_tried"] == 1990
    assert any("were not examined" in w for w in r.warnings)
    assert summary.exit_code != ExitCode.OK
    assert qm.inquire_queue("IN").depth == 2000
    qm.close()


def test_a_dry_run_still_plans_every_message():
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs(name="IN"))
    qm.define_queue(QueueAttrs(name="OUT", put_inhibited=True))
    for i in range(30):
        qm.put("IN", make_message(i), syncpoint=False)
    plan = Operation(Move("IN", "OUT", Selection(all=True)), journal=None).plan(qm)
    assert len(plan.result.plan) == 30
    assert all(p["would_fail"]["reason"] == 2051 for p in plan.result.plan)
    qm.close()


def _queue_of(n: int, out: QueueAttrs):
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs(name="IN", max_depth=100_000))
    qm.define_queue(out)
    for i in range(n):
        qm.put("IN", make_message(i), syncpoint=True)
    qm.commit()
    return qm


def test_the_selected_messages_not_tried_are_counted_when_a_full_queue_stops_a_move():
    """Issue 24 item 2 (the trial's `move APP.ORDERS.BOQ APP.SMALL --all`): the destination
    fills after 5; selected = done + failed + skipped + not tried, the untried ones by the
    selection (--where), within --limit."""
    qm = _queue_of(60, QueueAttrs(name="OUT", max_depth=5))
    r = Operation(Move("IN", "OUT", Selection.build(where="priority < 5")),
                  journal=None).run(qm).result
    assert r.done == 5 and len(r.failed) == REFUSALS_BEFORE_STOP and r.stopped_early
    assert r.selected == 30 and r.not_tried == 30 - 5 - REFUSALS_BEFORE_STOP
    assert r.selected == r.done + len(r.failed) + r.skipped + r.not_tried
    assert qm.inquire_queue("IN").depth == 55
    qm.close()
    qm = _queue_of(60, QueueAttrs(name="OUT", max_depth=5))
    r = Operation(Move("IN", "OUT", Selection.build(where="priority < 5", limit=20)),
                  journal=None).run(qm).result
    assert (r.selected, r.done, len(r.failed), r.not_tried) == (20, 5, 10, 5)
    qm.close()


def test_marked_messages_not_reached_are_counted():
    """Marks are found without browsing (FindsMessages): the marks after the stop."""
    qm = _queue_of(40, QueueAttrs(name="OUT", put_inhibited=True))
    ids = [make_message(i).md.msg_id.hex() for i in range(25)]
    r = Operation(Move("IN", "OUT", Selection.build(msgids=ids)), journal=None).run(qm).result
    assert len(r.failed) == REFUSALS_BEFORE_STOP and r.done == 0
    assert r.selected == 25 and r.not_tried == 15
    qm.close()


def test_nothing_not_tried_when_nothing_stopped():
    qm = _queue_of(12, QueueAttrs(name="OUT"))
    r = Operation(Move("IN", "OUT", Selection(all=True)), journal=None).run(qm).result
    assert (r.selected, r.done, r.not_tried, r.stopped_early) == (12, 12, 0, None)
    assert r.complete
    qm.close()

"""A move stops browsing once its destination has given up (issue 15, trust 6): a 2,000-
message queue moved to a put-inhibited queue is not browsed to its end to skip each one."""

from __future__ import annotations

from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import REFUSALS_BEFORE_STOP
from tests.support.faulty import make_message


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
    assert r.stopped_early == ("OUT refused 10 messages in a row (last: MQRC_PUT_INHIBITED, "
                               "2051), so it was given up")
    assert r.selected == REFUSALS_BEFORE_STOP  # the rest were never looked at
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

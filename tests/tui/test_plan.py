"""The console's plan predicts what the command line's dry run predicts (issue 15, trust 6):
one planner. A queue whose depth runs out: the confirmation names the messages that would
fail there with the reason, as `move --dry-run` does, and the move then fails exactly those."""

from __future__ import annotations

from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.selection import Selection
from mqconsole.tui.screens.dialogs import ChoiceDialog, ConfirmDialog, InputDialog, TextDialog

from .conftest import DLQ, depth, open_queue, settle, wait_for

ROOM = "APP.ROOM.FOR.TWO"


async def test_the_plan_says_where_the_depth_runs_out_as_the_dry_run_does(make_app, qm):
    qm.define_queue(QueueAttrs(name=ROOM, max_depth=2))
    first_five = Selection(msgids=frozenset(bytes.fromhex(v.msgid) for v in _first(qm, 5)))
    dry = Operation(Move(DLQ, ROOM, first_five, strip_dlh=True), journal=None).plan(qm)
    would_fail = [p["position"] for p in dry.result.plan if "would_fail" in p]
    assert would_fail == [3, 4, 5]  # the command line's dry run: room for two
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await settle(app, pilot)
        await pilot.press(*["space", "down"] * 5, "m")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        app.screen.query_one("#value").value = ROOM
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog))
        await pilot.press("enter")  # strip the dead-letter header
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        asked = str(app.screen.body)
        assert f"✗ 3 on {ROOM}: MQRC_Q_FULL (2053)" in asked, asked
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        said = str(app.screen.body)
    assert "Failed: 3" in said and "MQRC_Q_FULL (2053)" in said, said
    assert depth(qm, ROOM) == 2 and depth(qm, DLQ) == 238


def _first(qm, n: int) -> list:
    from mqconsole.ops.browse import iter_views

    out = []
    for view in iter_views(qm, DLQ):
        out.append(view)
        if len(out) == n:
            break
    return out

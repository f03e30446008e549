"""The replay lists messages by the end of their MsgIds, where they differ (issue 15,
screens 9): MsgIds of one queue manager share their first 32 digits."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from mqconsole.tui.screens.replay import ReplayScreen

from .conftest import settle, wait_for

ENDPOINTS = Path(__file__).resolve().parents[2] / "examples" / "endpoints" / "demo.yaml"


async def test_replay_lists_msgids_by_the_end_that_differs(make_app, qm):
    from mqconsole.ops.replay import short_label

    label = short_label("414D5120514D31202020202020202020A1B2C3D4E5F60718", 14)
    assert label == "…2C3D4E5F60718"  # 14 cells: the end, where MsgIds differ
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.open_replay("APP.ORDERS")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                       and bool(app.screen.query("#r-events")))
        app.screen.query_one("#r-endpoints", Input).value = str(ENDPOINTS)
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: app.screen.view is not None)
        listed = [line.split()[0] for line in str(app.screen.query_one("#r-contents").content)
                  .split("\n") if " bo=" in line]
        assert len(listed) > 3 and len(set(listed)) == len(listed)  # no two look the same

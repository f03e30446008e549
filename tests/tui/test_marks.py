"""Marks and filters (issue 15, trust 2): marks a new filter hides are named — in the status
line and in the confirmation — and still acted on, never silently."""

from __future__ import annotations

from mqconsole.tui.screens.dialogs import ConfirmDialog

from .conftest import DLQ, depth, open_queue, screen_text, settle, wait_for


async def test_marks_hidden_by_a_filter_are_named_in_the_dialog(make_app, qm):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await wait_for(app, pilot, lambda: app.screen.model.done)
        model = app.screen.model
        others = [i for i in range(model.count) if model.row(i).dest != "ZOS.INBOUND"][:2]
        lst = app.screen.query_one("#messages")
        for i in others:
            lst.cursor = i
            await pilot.press("space")
        await pilot.press("slash")
        app.screen.query_one("#filter-input").value = "dest = ZOS.INBOUND"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text is not None
                       and app.screen.model.done)
        await pilot.press("space")  # one shown by the filter
        await wait_for(app, pilot, lambda: "3 marked (2 hidden by the filter)"
                       in screen_text(app))
        await pilot.press("d")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert "Delete 3 marked messages" in body
        assert "2 marked, not shown by the current filter (dest = ZOS.INBOUND)" in body
        await pilot.press("n")
    assert depth(qm, DLQ) == 240

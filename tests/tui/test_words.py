"""Words (issue 15 item 14): what the console says matches what happens."""

from __future__ import annotations

from mqconsole.tui.screens.dialogs import ConfirmDialog, InputDialog

from .conftest import open_queue, screen_text, settle, wait_for


async def test_read_only_d_says_why_nothing_happens(make_app):
    app = make_app(read_only=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("d")
        await wait_for(app, pilot, lambda: any(
            "is read-only: delete is not available here" in str(n.message)
            for n in app._notifications))
        assert not isinstance(app.screen, ConfirmDialog)


async def test_resubmit_from_a_backout_queue_says_no_dead_letter_header(make_app):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS.BOQ")
        await settle(app, pilot)
        await pilot.press("R")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert "each back to its destination" in body
        assert "Dead-letter headers are removed" not in body and "Context is kept" in body


async def test_copy_says_the_messages_stay(make_app):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("c")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        app.screen.query_one("#value").value = "APP.AUDIT"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert "the messages stay on APP.ORDERS (browsed, never got)" in body
        assert "get and put" not in body
        assert screen_text(app)


async def test_mqmd_names_come_before_numbers(make_app):
    from textual.widgets import DataTable

    from mqconsole.tui.screens.detail import DetailScreen

    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        await pilot.press("2")
        await pilot.pause()
        table = app.screen.query_one("#mqmd-table", DataTable)
        rows = {str(table.get_row_at(i)[0]): str(table.get_row_at(i)[1])
                for i in range(table.row_count)}
        assert rows["MsgType"] == "MQMT_DATAGRAM (8)"
        assert rows["Persistence"].endswith(("PERSISTENT (1)", "PERSISTENT (0)"))
        assert "MsgTypeName" not in rows and "PersistenceName" not in rows


async def test_w_saves_the_payload_and_help_says_so(make_app, tmp_path):
    """W's name in the keys (?) says it saves the payload, w's that it saves messages; W
    asks for a file and writes the payload's bytes there."""
    from textual.widgets import DataTable

    from mqconsole.tui.screens.detail import DetailScreen
    from mqconsole.tui.screens.misc import HelpDialog

    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        payload = bytes(app.screen.view.payload)
        await pilot.press("question_mark")
        await wait_for(app, pilot, lambda: isinstance(app.screen, HelpDialog))
        table = app.screen.query_one("#keys", DataTable)
        rows = {str(table.get_row_at(i)[0]): str(table.get_row_at(i)[1])
                for i in range(table.row_count)}
        assert rows["W"] == "Save payload to a file" and rows["w"] == "Save messages"
        await pilot.press("escape")
        await pilot.press("W")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        assert "Save the payload (its bytes as they are) to:" in screen_text(app)
        target = tmp_path / "payload.bin"
        app.screen.query_one("#value").value = str(target)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: any(
            f"Wrote {len(payload):,} bytes to {target}" in str(n.message)
            for n in app._notifications))
    assert target.read_bytes() == payload

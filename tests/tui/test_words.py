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
        # the context is chosen in the confirmation since issue 22 item 7 (f4547ed)
        assert "Dead-letter headers are removed" not in body
        assert "The context is chosen below" in body


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


async def test_one_message_is_one_message(make_app, qm):
    """The summary panel of a queue holding one message says '1 message' (issue 15 item 14)."""
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message
    from mqconsole.mq.queue import QueueAttrs

    qm.define_queue(QueueAttrs("ONE.Q"))
    qm.put("ONE.Q", Message(MQMD(format="MQSTR"), b"x"), syncpoint=False)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "ONE.Q")
        await settle(app, pilot)
        text = screen_text(app)
        assert "1 message ·" in text and "1 messages" not in text


async def test_on_and_off_read_without_colour(make_app, monkeypatch):
    """NO_COLOR: the attribute form's switches say on and off by a mark (X or blank), not by
    colour alone (issue 15 item 14)."""
    from mqconsole.tui.screens.dialogs import FormDialog

    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        from textual.widgets import DataTable
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.ORDERS"))
        await pilot.press("a")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))

        def mark(key: str) -> str:
            return str(app.screen.query_one(f"#f_{key}").render()).split()[0]

        assert app.screen.query_one("#f_hardenbo").value is True
        assert mark("hardenbo").startswith("▐X▌")
        assert "X" not in str(app.screen.query_one("#f_put_inhibited").render())[:3]
        app.screen.query_one("#f_put_inhibited").focus()
        await pilot.press("space")
        await pilot.pause()
        assert str(app.screen.query_one("#f_put_inhibited").render())[:3] == "▐X▌"


async def test_the_hex_tab_can_include_the_headers(make_app):
    """h: the Hex tab dumps the whole body, the dead-letter header's bytes first, and says
    where the payload starts; h again: the payload only (issue 15 item 14)."""
    from mqconsole.tui.screens.detail import DetailScreen
    from mqconsole.tui.widgets.payload import PayloadView

    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "SYSTEM.DEAD.LETTER.QUEUE")
        await settle(app, pilot)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        screen = app.screen
        view = screen.query_one("#hex-view", PayloadView)
        offset = screen.view.payload_offset
        assert offset > 0  # a dead-letter header
        await pilot.press("5")
        await pilot.pause()
        assert not view.text.startswith("00000000  44 4c 48 20")  # the payload's bytes
        assert f"after {offset:,} bytes of MQ headers · h: with the headers" in \
            screen_text(app)
        await pilot.press("h")
        await pilot.pause()
        assert view.text.startswith("00000000  44 4c 48 20")  # "DLH ": MQDLH's StrucId
        assert f"the payload starts at byte {offset:,}" in screen_text(app)
        assert len(view.text.splitlines()) == -(-len(screen.view.message.body) // 16)
        await pilot.press("h")
        await pilot.pause()
        assert not view.text.startswith("00000000  44 4c 48 20")

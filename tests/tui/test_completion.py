"""Completion (issue 15 item 13): a move's or copy's destination picked from a list of the
queues (as resubmit's), file paths completed in save and load."""

from __future__ import annotations

from textual.widgets import DataTable, Input, OptionList

from mqconsole.tui.screens.dialogs import ConfirmDialog, FormDialog, InputDialog, TextDialog

from .conftest import depth, open_queue, screen_text, settle, wait_for


async def test_a_copy_destination_is_picked_from_the_list(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("c")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        picks = app.screen.query_one("#picks", OptionList)
        names = [str(picks.get_option_at_index(i).id) for i in range(picks.option_count)]
        assert "APP.AUDIT" in names and "APP.ORDERS" not in names  # not the source
        await pilot.press(*"udi")  # narrowed as typed: names holding it
        await pilot.pause()
        names = [str(picks.get_option_at_index(i).id) for i in range(picks.option_count)]
        assert names == ["APP.AUDIT"]
        assert "local" in str(picks.get_option_at_index(0).prompt)  # its type and depth
        await pilot.press("down", "enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "to APP.AUDIT" in str(app.screen.body)
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        assert "Copied 1 of 1 message" in str(app.screen.body)
    assert depth(qm, "APP.AUDIT") == 1


async def test_a_queue_that_is_not_there_is_said_in_the_dialog(make_app, qm):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("m")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        await pilot.press(*"NO.SUCH.Q")
        assert app.screen.query_one("#picks", OptionList).option_count == 0
        await pilot.press("down", "enter")  # nothing to pick: enter takes what is typed
        await pilot.pause()
        assert isinstance(app.screen, InputDialog)
        assert "There is no queue named NO.SUCH.Q here." in screen_text(app)
    assert depth(qm, "APP.ORDERS") == 40


async def test_save_and_load_complete_file_paths(make_app, qm, tmp_path):
    folder = tmp_path / "dumps-of-today"
    folder.mkdir()
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SHIPPING")
        await settle(app, pilot)
        await pilot.press("asterisk", "w")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        box = app.screen.query_one("#value", Input)
        box.value = ""
        # the folder typed but its last letter put in at once (a key press each costs a
        # pilot round: the test's long folder took most of the test's time)
        box.insert_text_at_cursor(f"{tmp_path}/dumps-o")
        await pilot.press("f")
        await settle(app, pilot)  # (the suggestion is a worker's)
        await pilot.press("right")  # the folder completes, with its /
        await pilot.pause()
        assert box.value == f"{folder}/"
        await pilot.press(*"ship.dmp", "enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        assert "Saved 8 of 8 messages" in str(app.screen.body)
        await pilot.press("enter")
        await pilot.press("escape")
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.AUDIT"))
        await pilot.press("l")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        box = app.screen.query_one("#value", Input)
        box.value = ""
        box.insert_text_at_cursor(f"{folder}/s")
        await pilot.press("h")
        await settle(app, pilot)
        await pilot.press("right")
        await pilot.pause()
        assert box.value == f"{folder}/ship.dmp"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        assert "Put 8 messages" in str(app.screen.note)

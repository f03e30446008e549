"""The console's face of a journal that cannot be written (issue 17 item 1): the change is
refused before anything is asked or changed, with the journal's file named in a
notification, as the command line does with exit code 6."""

from __future__ import annotations

from textual.widgets import DataTable

from mqconsole.tui.screens.dialogs import ConfirmDialog, InputDialog

from .conftest import depth, settle, wait_for


async def test_a_folder_in_place_of_the_journal_is_said_and_nothing_moves(make_app, qm,
                                                                          tmp_path):
    blocked = tmp_path / "journal-folder"
    blocked.mkdir()
    app = make_app(journal_path=blocked)
    before = depth(qm, "APP.SHIPPING")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.SHIPPING"))
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("asterisk", "m")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        app.screen.query_one("Input").value = "APP.AUDIT"
        await pilot.press("enter")
        sentence = f"the journal {blocked} could not be written: a folder is in its place"
        await wait_for(app, pilot, lambda: any(sentence in str(n.message)
                                               for n in app._notifications))
        assert not isinstance(app.screen, ConfirmDialog)  # nothing asked
    assert depth(qm, "APP.SHIPPING") == before and depth(qm, "APP.AUDIT") == 0


async def test_a_journal_that_cannot_be_read_is_said_not_shown_empty(make_app, tmp_path):
    """The journal screen over a folder in place of the journal names the file and why in a
    notification (the command line: exit 2), instead of an empty list."""
    from .conftest import screen_text

    blocked = tmp_path / "journal-folder"
    blocked.mkdir()
    app = make_app(journal_path=blocked)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        sentence = f"{blocked}: cannot be read (Is a directory), skipped"
        await wait_for(app, pilot, lambda: any(sentence in str(n.message)
                                               for n in app._notifications))
        assert "0 of 0 records" in screen_text(app)

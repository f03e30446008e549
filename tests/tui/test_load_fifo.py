"""The console tells a FIFO from a missing file when asked for a file to load (issue 17
item 12), as the command line does."""

from __future__ import annotations

import os

from textual.widgets import DataTable, Input, Label

from mqconsole.tui.screens.dialogs import InputDialog

from .conftest import settle, wait_for


async def test_load_names_a_fifo_and_a_missing_file(make_app, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.AUDIT"))
        await pilot.press("l")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
        for value, said in ((str(fifo), f"{fifo} is a FIFO (a named pipe), not a file."),
                            (str(tmp_path / "none.dmp"),
                             f"There is no file {tmp_path / 'none.dmp'}."),
                            (str(tmp_path), f"{tmp_path} is a folder, not a file.")):
            app.screen.query_one(Input).value = value
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, InputDialog)  # still asking
            assert str(app.screen.query_one("#problem", Label).content) == said

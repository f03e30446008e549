"""Home and End go to the first and last row of every list (issue 15 item 10)."""

from __future__ import annotations

from textual.widgets import DataTable

from mqconsole.tui.screens.doctor import DoctorScreen
from mqconsole.tui.widgets.lists import ListTable

from .conftest import settle, wait_for


async def _home_end(app, pilot, table: DataTable) -> None:
    assert isinstance(table, ListTable) and table.row_count > 2
    table.focus()
    await pilot.press("end")
    await pilot.pause()
    assert table.cursor_row == table.row_count - 1
    await pilot.press("home")
    await pilot.pause()
    assert table.cursor_row == 0


async def test_home_and_end_in_the_queue_list_and_the_doctor(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _home_end(app, pilot, app.screen.query_one("#queues", DataTable))
        await pilot.press("D")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DoctorScreen)
                       and app.screen.report is not None)
        await _home_end(app, pilot, app.screen.query_one("#diagnoses", DataTable))


def test_every_row_list_of_the_console_is_a_list_table():
    """A DataTable made directly in a screen would have DataTable's home/end (columns)."""
    import re
    from pathlib import Path

    import mqconsole.tui as tui

    made = [(p.name, line.strip()) for p in Path(tui.__file__).parent.rglob("*.py")
            for line in p.read_text().splitlines() if re.search(r"\bDataTable\(", line)]
    assert made == [], made

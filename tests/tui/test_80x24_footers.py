"""At 80x24 every screen's footer keeps its keys (`?`) and quit (issue 15, screens 9): the
screens test_80x24.py does not open — the journal record, the doctor, the replay, the
dead-letter handler, the audit and the editor — each opened as an operator does. Where a
text field has the focus, `q` and `?` are typed into it: the footer then shows ctrl+q and
f1, which do the same."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input, TextArea

from mqconsole.ops.journal import Journal
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.selection import Selection
from mqconsole.tui.screens.misc import HelpDialog

from .conftest import DLQ, screen_text, settle, wait_for

SCREENS = {  # steps from the dead-letter queue (in the list of queues): keys -> the screen
    "journal record": [(["J"], "JournalScreen"), (["enter"], "JournalRecordScreen")],
    "doctor": [(["D"], "DoctorScreen")],
    "replay": [(["M"], "ReplayScreen")],
    "dead-letter handler": [(["H"], "DlqHandlerScreen")],
    "audit": [(["A"], "AuditScreen")],
    # each step waits for its screen and the screen's workers: the message list's second
    # enter opens a message only once the list has its rows (pressed together, the second
    # came before the rows on a busy machine and opened nothing)
    "editor": [(["enter"], "MessagesScreen"), (["enter"], "DetailScreen"),
               (["e"], "EditScreen")],
}
HELP = ("? Keys", "f1 Keys")
QUIT = ("q Quit", "^q Quit")


@pytest.mark.parametrize("name", list(SCREENS))
async def test_the_footer_keeps_help_and_quit(make_app, qm, tmp_path, name):
    Operation(Move("APP.ORDERS", "APP.LEGACY", Selection(all=True)),
              journal=Journal(tmp_path / "journal.jsonl"), profile="test").run(qm)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index(DLQ))
        for keys, screen in SCREENS[name]:
            await pilot.press(*keys)
            await wait_for(app, pilot, lambda screen=screen: type(app.screen).__name__ == screen)
            await settle(app, pilot)
        footer = screen_text(app).split("\n")[-1]
        assert any(k in footer for k in HELP) and any(k in footer for k in QUIT), footer
        typing = isinstance(app.focused, Input | TextArea)
        assert ("f1 Keys" in footer) == typing, footer
        await pilot.press("f1" if typing else "question_mark")
        await wait_for(app, pilot, lambda: isinstance(app.screen, HelpDialog))
        rows = [r[0] for r in app.screen.rows]
        assert "f1" in rows and "^q" in rows  # the keys that work here now: while typing
        assert ("?" in rows and "q" in rows) != typing  # in a field, not ? and q

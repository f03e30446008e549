"""A large replay's result stays where it was made (issue 23 item 3): the screen holds its
summary and a few pages of rows, asks for the rows that come into view and for the step
under the cursor, and shows the same rows and steps as the result itself."""

from __future__ import annotations

from mqconsole.ops.replay import event_text
from mqconsole.ops.replayview import NOTABLE
from mqconsole.tui.pages import KEEP, PAGE
from mqconsole.tui.widgets.rowlist import RowList
from tests.support.counting import bulk_fill

from .conftest import screen_text, wait_for
from .test_replay_one_path import ADDED, QUEUE, _open


def _expected(events: list[dict], names: dict[str, str], n: int) -> list[str]:
    ev = events[n]
    return [str(n + 1), str(ev.get("t_ms", "")), event_text(ev, names=names)]


async def test_scrolling_a_large_replay_shows_the_right_rows(make_app, qm):
    bulk_fill(qm, QUEUE, ADDED)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await _open(app, pilot, "position=2")
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: screen.view is not None)
        view = screen.view
        events = view.to_json()["events"]
        names = view.shown.names
        count = view.shown.count
        assert count == len(events) > KEEP * PAGE  # more rows than the screen ever holds
        assert len(view.shown.first) == PAGE  # the first page came with the summary
        table = screen.query_one("#r-events", RowList)
        assert table.cells(0) == _expected(events, names, 0)
        for target in (count - 1, count // 2, PAGE * 3 + 7, 1, count - PAGE - 1):
            table.move_cursor(target)
            await wait_for(app, pilot, lambda t=target: table.cells(t)[0] == str(t + 1)
                           and table.cells(t)[2] != "…")
            assert table.cells(target) == _expected(events, names, target)
            # the pane beside the list says the step under the cursor
            await wait_for(app, pilot, lambda t=target: f"after event {t + 1}:"
                           in " ".join(screen_text(app).split()))
            assert screen.pages.held <= KEEP * PAGE
        await pilot.press("end")
        await wait_for(app, pilot, lambda: str(count) in screen_text(app)
                       and table.cells(count - 1)[2] != "…")
        shown = screen_text(app)
        last = event_text(events[-1], names=names)
        assert last[:40] in shown  # the last row drawn with its event
        await pilot.press("p")  # the notable event before the last one (none: it stays)
        notable = [n for n, ev in enumerate(events) if ev["type"] in NOTABLE]
        assert list(view.shown.notable) == notable
        assert table.cursor == max((n for n in notable if n < count - 1), default=count - 1)

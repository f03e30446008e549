"""Issue 15, trust 1: mark one of three messages that share a MsgId (and CorrelId and put
time, as after a replay), press ``d``, and exactly that one goes — the scenario, shared by
the embedded backend's test (tests/tui) and the real-MQ stand-in's (tests/backends/mqi)."""

from __future__ import annotations

from typing import Any

from tests.support.faulty import make_message

SHARED_ID = b"REPLAYED" + bytes(16)
BODIES = [b"copy one", b"copy two", b"copy three"]


def fill(qm: Any, queue: str) -> None:
    """A message of its own, then three sharing one MsgId, CorrelId and put time."""
    qm.put(queue, make_message(17), syncpoint=False)  # priority 7, as the copies
    for body in BODIES:
        qm.put(queue, make_message(7, msg_id=SHARED_ID, body=body), syncpoint=False)


def bodies(qm: Any, queue: str) -> list[bytes]:
    out = []
    with qm.browse(queue) as cursor:
        while (m := cursor.next()) is not None:
            out.append(m.body)
    return out


async def delete_the_second_copy(app: Any, pilot: Any, queue: str) -> tuple[str, str]:
    """On the console: open ``queue``, mark the second copy, delete. Returns the
    confirmation's text and the result's."""
    from textual.widgets import DataTable

    from mqconsole.tui.screens.dialogs import ConfirmDialog, TextDialog
    from tests.tui.conftest import settle, wait_for

    await settle(app, pilot)
    table = app.screen.query_one("#queues", DataTable)
    names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
    table.move_cursor(row=names.index(queue))
    await pilot.press("enter")
    await wait_for(app, pilot, lambda: getattr(app.screen, "queue", None) == queue
                   and app.screen.model is not None and app.screen.model.done
                   and app.screen.model.count == 4)
    await pilot.press("down", "down", "space", "d")  # rows: own, copy one, copy two, ...
    await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
    asked = str(app.screen.body)
    await pilot.press("y")
    await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
    said = str(app.screen.body)
    await pilot.press("enter")
    await settle(app, pilot)
    return asked, said


__all__ = ["BODIES", "SHARED_ID", "bodies", "delete_the_second_copy", "fill"]

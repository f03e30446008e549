"""The console's face of issue 17 items 8 and 9: a save onto the queue manager's own
database (or a device) is refused with the sentence the command line says, and a dmpmqmsg
file cut in the middle of a message is refused before anything is put."""

from __future__ import annotations

from textual.widgets import DataTable

from mqconsole.tui.screens.dialogs import ConfirmDialog, InputDialog, TextDialog

from .conftest import depth, open_queue, settle, wait_for
from .test_actions import answer, result


def _said(app, words: str) -> bool:
    return any(words in str(n.message) for n in app._notifications) or (
        isinstance(app.screen, (TextDialog, InputDialog))
        and words in str(getattr(app.screen, "body", "")) + str(
            [str(w.render()) for w in app.screen.query("Label")]))


async def test_save_onto_the_open_database_or_a_device_is_refused(make_app, qm, demo_file):
    before = demo_file.read_bytes()[:100]
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SHIPPING")
        await settle(app, pilot)
        for target, words in ((str(demo_file), "is a queue manager database: a save never "
                               "overwrites it"),
                              (str(demo_file) + "-wal", "belongs to the queue manager "
                               "database"),
                              ("/dev/null", "/dev/null is a character device, not a regular "
                               "file")):
            await pilot.press("asterisk", "w")
            await answer(app, pilot, InputDialog, "enter", value=target)
            await wait_for(app, pilot, lambda w=words: _said(app, w))
            assert not isinstance(app.screen, ConfirmDialog)
            while not hasattr(app.screen, "model"):  # back to the messages
                await pilot.press("escape")
                await settle(app, pilot)
    assert depth(qm, "APP.SHIPPING") == 8 and qm.inquire_queue("APP.AUDIT") is not None
    assert demo_file.read_bytes()[:100] == before


async def test_a_file_cut_inside_a_message_is_refused_before_anything_is_put(make_app, qm,
                                                                           tmp_path):
    app = make_app()
    saved = tmp_path / "shipping.dmp"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SHIPPING")
        await settle(app, pilot)
        await pilot.press("asterisk", "w")
        await answer(app, pilot, InputDialog, "enter", value=str(saved))
        assert "Saved 8 of 8 messages" in await result(app, pilot)
        text = saved.read_text(encoding="latin-1")
        cut = tmp_path / "cut.dmp"
        # whole lines, the last message's data cut short: well-formed, but a message short
        cut.write_text(text[:text.rindex("\nX ") + 1], encoding="latin-1")
        await pilot.press("escape")
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.AUDIT"))
        await pilot.press("l")
        await answer(app, pilot, InputDialog, "enter", value=str(cut))
        await wait_for(app, pilot, lambda: _said(app, "has no empty line after its data: the "
                                                 "file looks cut short"))
        assert not isinstance(app.screen, ConfirmDialog)
    assert depth(qm, "APP.AUDIT") == 0

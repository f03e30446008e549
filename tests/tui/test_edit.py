"""Edit never loses work or changes bytes silently (issue 15, trust 4): a failed check keeps
the editor open with its sentence and offers force; escape with changes asks; the
confirmation shows the difference and the byte counts; an external editor's final newline
is said and can be dropped; the original is saved to a backup first, named by the journal."""

from __future__ import annotations

from mqconsole.ops.browse import iter_views
from mqconsole.ops.dmpfile import read_messages
from mqconsole.ops.journal import Journal
from mqconsole.tui.screens.dialogs import ChoiceDialog, ConfirmDialog, TextDialog
from mqconsole.tui.screens.edit import EditScreen
from mqconsole.tui.widgets.payload import PayloadView

from .conftest import open_queue, screen_text, settle, wait_for


async def open_editor(app, pilot) -> bytes:
    await settle(app, pilot)
    await open_queue(app, pilot, "APP.ORDERS")
    await settle(app, pilot)
    target = app.screen.model.row(0).msgid
    await pilot.press("e")
    await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen))
    return target


def payload_of(qm, msgid: bytes) -> str:
    return next(v.text for v in iter_views(qm, "APP.ORDERS") if bytes(v.md.msg_id) == msgid)


async def test_a_failed_check_keeps_the_editor_open_and_offers_force(make_app, qm, tmp_path):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        target = await open_editor(app, pilot)
        before = payload_of(qm, target)
        app.screen.query_one("#payload", PayloadView).load_text('{"order": broken')
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen)
                       and app.screen.can_force)
        said = str(app.screen.query_one("#problem").content)
        assert "the original payload was JSON" in said and "ctrl+f: apply anyway" in said
        assert "Apply anyway" in screen_text(app)  # and the footer offers it
        assert app.screen.query_one("#payload", PayloadView).text == '{"order": broken'
        await pilot.press("ctrl+f")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert '+{"order": broken' in body and "bytes" in body
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        assert "Replaced 1 of 1 message" in str(app.screen.body)
    assert payload_of(qm, target) == '{"order": broken'
    [entry] = list(Journal(tmp_path / "journal.jsonl").read())
    assert entry.operation == "edit" and entry.backup
    [saved] = read_messages(entry.backup)
    assert saved.body.decode() .endswith(before) and bytes(saved.md.msg_id) == target


async def test_escape_with_changes_asks_and_keeps_the_work(make_app, qm):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        target = await open_editor(app, pilot)
        before = payload_of(qm, target)
        app.screen.query_one("#payload", PayloadView).load_text('{"order": "new"}')
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "lost" in str(app.screen.body)
        await pilot.press("n")  # stay: nothing typed is lost
        await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen))
        assert app.screen.query_one("#payload", PayloadView).text == '{"order": "new"}'
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(app, pilot, lambda: not isinstance(app.screen, (EditScreen,
                                                                        ConfirmDialog)))
    assert payload_of(qm, target) == before


async def test_an_external_editors_final_newline_is_said_and_can_be_dropped(make_app, qm):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        view = app.screen.model.view(0)
        target = bytes(view.md.msg_id)
        text = view.text
        actions = app.screen.actions
        actions.edited_externally("APP.ORDERS", view, text, text + "\n", "json")
        await pilot.pause()
        assert any("only added a final newline" in str(n.message) for n in app._notifications)
        edited = text.replace("ORD-", "ORDER-", 1)
        actions.edited_externally("APP.ORDERS", view, text, edited + "\n", "json")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog))
        await pilot.press("enter")  # drop it
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert f"{len(text.encode())} → {len(edited.encode())} bytes" in body
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
    assert payload_of(qm, target) == edited


async def test_at_80x24_a_failed_checks_reason_is_whole_and_names_the_key(make_app, qm):
    """The reason wraps instead of being cut at the screen's edge, and the way on is the
    console's key (ctrl+f), not the command line's --force (issue 24)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_editor(app, pilot)
        app.screen.query_one("#payload", PayloadView).load_text('{"order": broken')
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen)
                       and app.screen.can_force)
        said = str(app.screen.query_one("#problem").content)
        assert "--force" not in said and "ctrl+f: apply anyway" in said
        shown = " ".join(screen_text(app).split())  # the screen's words, lines joined
        reason = " ".join(said.split("\n")[0].split())
        assert reason in shown, (reason, shown)

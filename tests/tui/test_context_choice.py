"""The console offers the CLI's ``--context`` (issue 22 item 7): a move, copy or resubmit
chooses the context in its confirmation (set-all first, as the CLI's default), a load in its
form. Chosen ``default``, the messages arrive with the operator's own context (the embedded
queue manager's put application, mqconsole) and the journal says so; left alone, each keeps
its own."""

from __future__ import annotations

from textual.widgets import Checkbox, RadioSet

from mqconsole.ops.browse import iter_views
from mqconsole.tui.screens.dialogs import ConfirmDialog, FormDialog, InputDialog

from .conftest import DLQ, open_queue, settle, wait_for
from .test_actions import answer, journal, result


def _apps(qm, queue: str) -> set[str]:
    return {v.md.put_appl_name.strip() for v in iter_views(qm, queue)}


async def _choose(app, pilot, context: str) -> None:
    """In the confirmation: the context radio set, then ``context`` pressed."""
    await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
    radios = app.screen.query_one("#context", RadioSet)
    assert radios.pressed_button is not None and radios.pressed_button.id == "ctx-set-all"
    await pilot.click(f"#ctx-{context}")
    await pilot.pause()
    assert app.screen.context == context


async def test_move_and_copy_with_the_operators_context(make_app, qm, tmp_path):
    before = _apps(qm, "APP.ORDERS")
    assert "mqconsole" not in before
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("space", "space", "m")
        await answer(app, pilot, InputDialog, "enter", value="APP.AUDIT")
        await _choose(app, pilot, "default")
        await pilot.press("y")
        assert "Moved 2 of 2 messages" in await result(app, pilot)
        await pilot.press("c")  # the message under the cursor, its context left alone
        await answer(app, pilot, InputDialog, "enter", value="APP.SHIPPING")
        await answer(app, pilot, ConfirmDialog, "y")
        assert "Copied 1 of 1 message" in await result(app, pilot)
    assert _apps(qm, "APP.AUDIT") == {"mqconsole"}  # the mover's
    moved, copied = journal(tmp_path)[-2:]
    assert moved.operation == "move" and moved.details["new_context"] is True
    assert copied.operation == "copy" and copied.details["new_context"] is False
    assert "mqconsole" not in _apps(qm, "APP.SHIPPING")  # set-all: its own kept


async def test_a_move_passes_the_context_a_copy_cannot(make_app, qm, tmp_path):
    """Pass-all (--context pass) is offered for a move, whose messages keep their own
    context, and not for a copy (it only browses: nothing to pass)."""
    before = {bytes(v.md.msg_id): v.md.put_appl_name for v in iter_views(qm, "APP.ORDERS")}
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("c")
        await answer(app, pilot, InputDialog, "enter", value="APP.SHIPPING")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert not app.screen.query("#ctx-pass")
        await pilot.press("n")
        await settle(app, pilot)
        await pilot.press("space", "space", "space", "m")
        await answer(app, pilot, InputDialog, "enter", value="APP.AUDIT")
        await _choose(app, pilot, "pass")
        await pilot.press("y")
        assert "Moved 3 of 3 messages" in await result(app, pilot)
    moved = list(iter_views(qm, "APP.AUDIT"))
    assert len(moved) == 3
    assert all(v.md.put_appl_name == before[bytes(v.md.msg_id)] for v in moved)
    assert journal(tmp_path)[-1].details["context"] == "pass_all"


async def test_resubmit_and_load_with_the_operators_context(make_app, qm, tmp_path):
    from mqconsole.ops.operation import Operation, Save
    from mqconsole.ops.selection import Selection

    target = tmp_path / "shipping.dmp"
    Operation(Save("APP.SHIPPING", str(target), Selection(all=True)), journal=None).run(qm)
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await pilot.press("slash")
        app.screen.query_one("#filter-input").value = "dest = ZOS.INBOUND"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text is not None
                       and app.screen.model.done)
        await pilot.press("asterisk", "R")
        await _choose(app, pilot, "default")
        await pilot.press("y")
        assert "Resubmitted 20 of 20 messages" in await result(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.AUDIT")
        await settle(app, pilot)
        await pilot.press("l")
        await answer(app, pilot, InputDialog, "enter", value=str(target))
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        app.screen.query_one("#f_new_context", Checkbox).value = True
        await pilot.press("ctrl+o")
        assert "Loaded 8 of 8 messages" in await result(app, pilot)
    assert _apps(qm, "ZOS.INBOUND") == {"mqconsole"}
    assert _apps(qm, "APP.AUDIT") == {"mqconsole"}
    resubmitted, loaded = journal(tmp_path)[-2:]
    assert resubmitted.operation == "resubmit" and resubmitted.details["context"] == "new"
    assert loaded.operation == "load" and loaded.details["context"] == "new"

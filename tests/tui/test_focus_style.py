"""Issue 24 item 5: each field shows where the operator types — a one-line field without a
border (the dead-letter handler's, the replay's, the editor's, the audit's, the filter)
looks different with the focus than without it, not only by its cursor."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from .conftest import DLQ, settle, wait_for


async def _looks(app, pilot, field: Input) -> tuple:
    field.focus()
    await pilot.pause()
    return field.styles.background, field.styles.text_style


async def test_a_focused_field_looks_focused_on_every_screen(make_app):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        home = app.screen
        table = home.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index(DLQ))
        screens = {"H": ("#d-rules", "#d-queue"), "M": ("#r-queue", "#r-fail"),
                   "A": None}
        for key, pair in screens.items():
            await pilot.press(key)
            await wait_for(app, pilot, lambda: len(app.screen.query(Input)) >= 2)
            await settle(app, pilot)
            fields = list(app.screen.query(Input)) if pair is None else [
                app.screen.query_one(p, Input) for p in pair]
            one, other = fields[0], fields[1]
            focused = await _looks(app, pilot, one)
            assert app.focused is one
            unfocused = one.styles.background, one.styles.text_style
            other.focus()
            await pilot.pause()
            unfocused = one.styles.background, one.styles.text_style
            assert focused != unfocused, (type(app.screen).__name__, focused)
            await pilot.press("escape")
            await wait_for(app, pilot, lambda: app.screen is home)
            await settle(app, pilot)


async def test_the_editors_fields_look_focused(make_app):
    from mqconsole.tui.screens.edit import EditScreen

    from .conftest import open_queue

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("e")
        await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen))
        await settle(app, pilot)
        one, other = list(app.screen.query("#fields Input"))[:2]
        focused = await _looks(app, pilot, one)
        other.focus()
        await pilot.pause()
        assert focused != (one.styles.background, one.styles.text_style)

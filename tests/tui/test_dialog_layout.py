"""Every dialog centred at any size and every button showing its whole label (issue 15,
screens 8), checked on the laid-out widgets at sizes between and beyond the two snapshots."""

from __future__ import annotations

import pytest
from textual.containers import Vertical
from textual.widgets import Button

from .conftest import screen_text
from .test_dialog_snapshots import DIALOGS, DialogApp

SIZES = [(80, 24), (81, 25), (97, 31), (123, 37), (200, 50), (240, 70)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", [n for n in DIALOGS if n != "operation"])
async def test_centred_with_whole_buttons(name, size):
    app = DialogApp(DIALOGS[name])
    width, height = size
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        box = app.screen.query(".dialog").first(Vertical) if app.screen.query(".dialog") \
            else app.screen.query_one("#box")
        r = box.region
        assert r.width <= width and r.height <= height, (r, size)
        assert abs(r.x - (width - r.right)) <= 1, (r, size)  # as much room left as right
        assert abs(r.y - (height - r.bottom)) <= 1, (r, size)  # above as below
        text = screen_text(app)
        for button in app.screen.query(Button):
            label = str(button.label)
            assert button.region.width >= len(label) + 2, (label, button.region)
            assert label in text, label


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
async def test_help_uses_the_height_it_has(size):
    from textual.widgets import DataTable

    app = DialogApp(DIALOGS["help"])  # 30 keys, a header, a title and a hint: 33 lines
    height = size[1]
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        box = app.screen.query(".dialog").first(Vertical).region
        if height >= 33 + 2:  # room for every key: shown whole, no scrolling
            assert table.region.height == 31 and box.height == 35
        else:  # the whole height, the keys scroll
            assert box.height == height and table.region.height == height - 4


@pytest.mark.parametrize("typed", [False, True], ids=["confirm", "type_name"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_confirmation_choosing_the_context_fits(typed, size):
    """The context choice of a move's confirmation (issue 22 item 7) under a long plan:
    the box fits, every choice and the buttons (or the name's input) stay on screen."""
    from textual.widgets import Input, RadioButton

    from mqconsole.tui.actions import CONTEXTS_PASSING as CONTEXTS
    from mqconsole.tui.screens.dialogs import ConfirmDialog, TypeNameDialog

    from .test_dialog_snapshots import body

    def make(app):
        if typed:
            return TypeNameDialog("Move messages", body(60), "APP.ORDERS", contexts=CONTEXTS)
        return ConfirmDialog("Move messages", body(60), confirm="Move", danger=True,
                             contexts=CONTEXTS)

    app = DialogApp(make)
    width, height = size
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        box = app.screen.query(".dialog").first(Vertical).region
        assert box.width <= width and box.height <= height, (box, size)
        shown = [*app.screen.query(RadioButton), *app.screen.query(Button),
                 *app.screen.query(Input)]
        assert len(app.screen.query(RadioButton)) == len(CONTEXTS)
        for w in shown:
            r = w.region
            assert r.height >= 1 and box.y <= r.y and r.bottom <= box.bottom, (w, r, box)
        text = screen_text(app)
        for _, label in CONTEXTS:  # each choice whole, never cut with an ellipsis
            assert label in text, label

"""Every key has an action behind it, an id the keymap can use, and a line in docs/tui.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.tui import keys as K
from mqconsole.tui.app import MQConsoleApp
from mqconsole.tui.screens.detail import DetailScreen
from mqconsole.tui.screens.dlq import DlqHandlerScreen
from mqconsole.tui.screens.doctor import DoctorScreen
from mqconsole.tui.screens.journal import JournalScreen
from mqconsole.tui.screens.messages import MessagesScreen
from mqconsole.tui.screens.queues import QueuesScreen
from mqconsole.tui.screens.replay import ReplayScreen

DOC = (Path(__file__).resolve().parents[2] / "docs" / "tui.md").read_text()


@pytest.mark.parametrize("screen", [QueuesScreen, MessagesScreen, DetailScreen, JournalScreen,
                                    DoctorScreen, ReplayScreen, DlqHandlerScreen,
                                    MQConsoleApp])
def test_every_binding_has_an_action_and_an_id(screen):
    for binding in screen.BINDINGS:
        name = binding.action.split("(")[0]
        assert hasattr(screen, f"action_{name}") or hasattr(MQConsoleApp, f"action_{name}"), \
            (screen.__name__, binding.action)
        assert binding.id, binding


def test_every_key_id_is_documented():
    missing = [k.id for k in K.ALL_KEYS if f"`{k.id}`" not in DOC
               and not k.id.startswith("tab_")]
    assert not missing, missing


def test_changing_actions_are_the_ones_that_change_queues():
    expected = {"move", "copy", "resubmit", "delete", "edit", "edit_external", "load",
                "set_attrs", "run_handler", "put", "define_queue"}
    assert set(K.CHANGING) == expected


def _every_binding_under_tui():
    """(class, Binding) of every class under mqconsole/tui that declares BINDINGS, and of
    each console screen's read-only class (made at run time: its refused stand-ins)."""
    import importlib
    import inspect
    import pkgutil

    from textual.binding import Binding

    import mqconsole.tui as tui
    from mqconsole.tui.screens.base import ConsoleScreen, read_only_class

    for info in pkgutil.walk_packages(tui.__path__, "mqconsole.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            classes = [cls, read_only_class(cls)] if issubclass(cls, ConsoleScreen) else [cls]
            for each in classes:
                for b in vars(each).get("BINDINGS", ()):
                    yield each, b if isinstance(b, Binding) else Binding(*b)


def test_every_binding_under_tui_has_an_id_the_keymap_takes():
    """A key an operator cannot remap is a key the keymap refuses: each one has an id and
    the id is one ``keymap:`` accepts (the ids ``?`` lists, the list keys j/k/g/G too)."""
    found = list(_every_binding_under_tui())
    assert len(found) > 50  # the walk reached the screens, dialogs and widgets
    assert sum(b.action == K.REFUSED for _, b in found) > 10  # and the read-only stand-ins
    without = [f"{cls.__name__}: {b.key}" for cls, b in found if not b.id]
    assert not without, without
    refused = K.unknown_keymap_ids({b.id: "x" for _, b in found})
    assert not refused, refused


def test_a_read_only_stand_in_has_the_id_of_the_key_it_stands_in_for():
    """A read-only screen binds each changing key to the refused stand-in, under the id of
    the changing binding it replaces (so the keymap moves it with that binding)."""
    from mqconsole.tui.screens.base import read_only_class

    for screen in (QueuesScreen, MessagesScreen, DetailScreen, DlqHandlerScreen):
        changing: dict[str, str | None] = {}  # key: the id of the binding it has (its class's)
        for cls in screen.__mro__:
            for b in vars(cls).get("BINDINGS", ()):
                if K.is_changing(b.action):
                    for key in b.key.split(","):
                        changing.setdefault(key.strip(), b.id)
        stand_ins = {b.key: b.id for b in read_only_class(screen).BINDINGS}
        assert changing and stand_ins == changing, screen
        assert set(stand_ins.values()) <= K.KNOWN_IDS, screen


async def test_on_a_read_only_screen_the_remapped_key_says_why_nothing_happens(make_app):
    """keymap delete: ctrl+y on a read-only profile: ctrl+y (the operator's delete) says
    delete is not available; d, no longer delete, says nothing (was the other way round:
    the stand-in had no id, so it stayed on d and ctrl+y did nothing)."""
    from .conftest import open_queue, settle

    app = make_app(read_only=True, keymap={"delete": "ctrl+y"})
    refused = "Profile test is read-only: delete is not available here."
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert [str(n.message) for n in app._notifications] == [refused]
        await pilot.press("d")
        await pilot.pause()
        assert [str(n.message) for n in app._notifications] == [refused]
        assert isinstance(app.screen, MessagesScreen)


async def test_the_message_lists_keys_are_remapped_by_their_id(make_app):
    """list_down (j and down in every list) remapped to x: x moves the queue list's cursor."""
    from textual.widgets import DataTable

    from .conftest import settle

    app = make_app(keymap={"list_down": "x"})
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert not [n for n in app._notifications if "keymap" in str(n.message)]
        table = app.screen.query_one(DataTable)
        table.focus()
        await pilot.pause()
        before = table.cursor_row
        await pilot.press("x")
        await pilot.pause()
        assert table.cursor_row == before + 1 or app.screen.focused is not table

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

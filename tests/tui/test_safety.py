"""Operator safety: payloads are data, and a read-only profile cannot change anything.

1. Messages whose payloads and descriptor fields hold ANSI escape sequences, ``[bold red]``
   markup, OSC 52 clipboard writes, bidi overrides and control characters are opened in every
   view (list, summary, detail tabs, editor, menus, notifications): no such character reaches
   the terminal, and the markup is shown as the characters it is.
2. With a read-only profile no changing action is reachable by key, palette or menu, and the
   queues stay as they were.
"""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.tui.keys import CHANGING, is_changing
from mqconsole.tui.screens.detail import DetailScreen
from mqconsole.tui.screens.dialogs import ChoiceDialog
from mqconsole.tui.screens.edit import EditScreen
from mqconsole.tui.screens.messages import MessagesScreen

from .conftest import DLQ, all_segments, depth, open_queue, screen_text, settle, wait_for

HOSTILE_TEXT = ("\x1b[31mRED\x1b[0m [bold red]markup[/bold red] [link=http://x]l[/link] "
                "\x07bell\x08\x00nul \u202eevil\u202c \x1b]52;c;SGVsbG8=\x07 \x1b[2J\x9b31m "
                "\x1bP+q\x1b\\ end")
CONTROL = {chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)]} | {
    "\u202e", "\u202c", "\u2066", "\u200b"}


def hostile_messages(qm) -> None:
    qm.define_queue(QueueAttrs(name="EVIL.Q"))
    md = MQMD(format="MQSTR", ccsid=1208, put_appl_name="[blink]\x1b[5mapp",
              user_identifier="\x1b]0;pwn\x07", reply_to_q="[red]RQ")
    qm.put("EVIL.Q", Message(md, HOSTILE_TEXT.encode()), context=Context.SET_ALL,
           syncpoint=False)
    dmd, body = add_dead_letter_header(MQMD(format="MQSTR", ccsid=1208),
                                       HOSTILE_TEXT.encode(), reason=2053,
                                       dest_q_name="[bold]Q\x1b[2J", dest_qmgr_name="QM\x07",
                                       put_appl_name="[i]\x1b[8m")
    qm.put("EVIL.Q", Message(dmd, body), context=Context.SET_ALL, syncpoint=False)
    js = '{"x": "\\u001b[2J[bold red]json[/bold red]\\u0007", "y": "\\u202e"}'
    qm.put("EVIL.Q", Message(MQMD(format="MQSTR", ccsid=1208), js.encode()),
           context=Context.SET_ALL, syncpoint=False)
    xml = "<a b='[red]'>[bold]x[/bold]\x1b[1m</a>"
    qm.put("EVIL.Q", Message(MQMD(format="MQSTR", ccsid=1208), xml.encode()),
           context=Context.SET_ALL, syncpoint=False)
    qm.put("EVIL.Q", Message(MQMD(format="        "), b"\x1b[2J\x00\xff[bold]\x9b"),
           context=Context.SET_ALL, syncpoint=False)


def assert_safe(app, where: str) -> None:
    for segment in all_segments(app):
        bad = set(segment.text) & CONTROL
        assert not bad, f"{where}: {sorted(map(hex, map(ord, bad)))} in {segment.text!r}"
    for note in app._notifications:
        assert not set(str(note.message)) & CONTROL, where
        assert not set(str(note.title)) & CONTROL, where


async def test_hostile_payloads_are_shown_literally_everywhere(make_app, qm):
    hostile_messages(qm)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "EVIL.Q")
        await wait_for(app, pilot, lambda: app.screen.model.done)
        assert_safe(app, "list")
        text = screen_text(app)
        assert "[bold]Q\\x1b[2J" in text  # the DLH destination, escaped and literal
        # every tab of the first two; the tabs that matter for the others
        for row, tabs in ((0, "123456"), (1, "1234"), (2, "46"), (3, "46"), (4, "45")):
            app.screen.query_one("MessageList").cursor = row
            await pilot.press("enter")
            await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
            seen = ""
            for tab in tabs:
                await pilot.press(tab)
                await pilot.pause()
                assert_safe(app, f"message {row + 1} tab {tab}")
                seen += screen_text(app)
            if row in (0, 1):
                assert "[bold red]markup[/bold red]" in seen and "\\x1b[31mRED" in seen
                assert "\\u202eevil" in seen and "\\x1b]52;c;" in seen
            if row == 2:
                assert "\\u001b[2J[bold red]json[/bold red]\\u0007" in seen
            if row == 3:
                assert "[bold]x[/bold]\\x1b[1m" in seen
            if row in (0, 4):
                await pilot.press("y")  # copy the MsgId: a notification
                await pilot.press("e")  # the editor shows a payload that is not clean as hex
                await wait_for(app, pilot, lambda: isinstance(app.screen, EditScreen))
                assert_safe(app, f"editor {row + 1}")
                assert app.screen.kind == "hex"
                if row == 0:
                    assert "1b 5b 33 31 6d" in screen_text(app)
                await pilot.press("escape")
                await pilot.press("x")  # the actions menu
                await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog))
                assert_safe(app, "menu")
                await pilot.press("escape")
            await pilot.press("escape")
            await wait_for(app, pilot, lambda: isinstance(app.screen, MessagesScreen))
        app.report_error(MQError(2035, "\x1b[2J[bold]denied\x07"), queue="EVIL.Q",
                         what="[red]\x1b[1mx")
        await pilot.press("z")  # hide the summary: the toast gets drawn over the list
        await pilot.pause()
        assert_safe(app, "notification")
        assert any("\\x1b[2J[bold]denied\\x07" in str(n.message) for n in app._notifications)


@pytest.mark.parametrize("start", ["queues", "messages", "detail"])
async def test_read_only_profile_reaches_no_changing_action(make_app, qm, start):
    app = make_app(read_only=True)
    before = {q: depth(qm, q) for q in (DLQ, "APP.ORDERS", "APP.AUDIT")}
    attrs_before = qm.inquire_queue("APP.ORDERS")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert "READ-ONLY" in screen_text(app)
        if start != "queues":
            await open_queue(app, pilot, DLQ)
            await settle(app, pilot)
        if start == "detail":
            await pilot.press("enter")
            await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        screen = app.screen
        # 1. bindings: none of the screen's bindings starts a changing action
        for _key, binding in screen._bindings:
            assert not is_changing(binding.action), binding
        for key, active in screen.active_bindings.items():
            assert not is_changing(active.binding.action), key
        # 2. palette: no changing command is offered
        titles = [c.title for c in app.get_system_commands(screen)]
        assert titles and not any(t in ("Move", "Copy", "Resubmit", "Delete", "Edit",
                                        "Edit in $EDITOR", "Load", "Attributes")
                                  for t in titles)
        for command in screen.commands():
            assert command.action not in CHANGING
        # 3. keys: pressing every changing key does nothing
        await pilot.press("m", "c", "R", "d", "e", "v", "l", "a")
        await settle(app, pilot)
        assert app.screen is screen
        # ... and a stray run_action is refused too
        for action in ("move", "delete", "edit", "set_attrs", "load"):
            await app.run_action(action, screen)
        await settle(app, pilot)
        assert app.screen is screen
        # 4. menu: the action menu lists no changing action
        if start != "queues":
            await pilot.press("x")
            await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog))
            options = app.screen.options
            assert options and all(oid in ("save", "copy_msgid", "copy_payload")
                                   for oid, _ in options)
            await pilot.press("escape")
    assert {q: depth(qm, q) for q in before} == before
    assert qm.inquire_queue("APP.ORDERS") == attrs_before

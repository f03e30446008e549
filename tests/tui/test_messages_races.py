"""The message list's background work and what the operator does meanwhile (issue 26 item 4):
a result that comes after the screen moved on is dropped, and a key typed before the
console handled the end of a read does what the screen then shows."""

from __future__ import annotations

import threading

from textual.widgets import DataTable

from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.messages import put_messages
from mqconsole.tui.browsing import BrowseModel
from mqconsole.tui.screens.detail import DetailScreen
from mqconsole.tui.screens.messages import MessagesScreen
from mqconsole.tui.screens.queues import QueuesScreen
from mqconsole.tui.widgets.message_list import MessageList

from .conftest import open_queue, settle, wait_for
from .test_hostile_payloads import _Gated


def _said(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def _enter_queue(app, pilot, name: str) -> None:
    """Open ``name`` without waiting for the workers (one of them is held by the test)."""
    table = app.screen.query_one("#queues", DataTable)
    names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
    table.move_cursor(row=names.index(name))
    await pilot.press("enter")


async def test_escape_stops_a_filter_typed_before_the_end_of_the_reading_was_handled(
        make_app, qm, monkeypatch):
    """The reader's thread has read the queue to its end (the model says done) but its end
    is not yet handled on the event loop when the operator filters: the filter runs on the
    messages read, and escape stops that filter — it does not leave the screen, nor start a
    new browse. (Before: the filter took the browse route, where escape could leave the
    screen; the pty test saw the queue list come back.)"""
    from mqconsole.ops.where import compile_where
    from mqconsole.tui.screens import messages

    closing, reader_gate = threading.Event(), threading.Event()
    close_cursor = BrowseModel._close_cursor

    def held_close(self) -> None:  # the reader's last step, after done=True
        closing.set()
        assert reader_gate.wait(120), "the test never let the reader end"
        close_cursor(self)

    monkeypatch.setattr(BrowseModel, "_close_cursor", held_close)
    filter_gate, matching = threading.Event(), threading.Event()
    monkeypatch.setattr(messages, "compile_where", lambda text, columns=None: _Gated(
        compile_where(text, columns), filter_gate, matching))
    qm.define_queue(QueueAttrs(name="APP.RACE"))
    put_messages(qm, "APP.RACE", MQMD(format="MQSTR", ccsid=1208), b"a" * 30 + b"!",
                 count=20)
    app = make_app()
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(app, pilot)
            await _enter_queue(app, pilot, "APP.RACE")
            await wait_for(app, pilot, lambda: isinstance(app.screen, MessagesScreen)
                           and app.screen.model is not None and app.screen.model.done
                           and closing.is_set(), workers=False)
            screen = app.screen
            assert screen._reading  # the end of the reading is not handled yet
            await pilot.press("slash", *"text ~ 'a+!$'", "enter")
            await wait_for(app, pilot, matching.is_set, workers=False)
            await pilot.press("escape")
            filter_gate.set()
            await wait_for(app, pilot, lambda: any("Stopped filtering" in s
                                                   for s in _said(app)), workers=False)
            assert app.screen is screen
            assert screen.model.where_text is None and screen.model.count == 20
            assert screen.query_one(MessageList).virtual_size.height == 20
            assert not any("Stopped reading" in s for s in _said(app))
            reader_gate.set()
            await settle(app, pilot)
            assert app.screen is screen and not screen._reading
            assert screen.model.count == 20 and screen.model.where_text is None
    finally:
        reader_gate.set()
        filter_gate.set()


async def test_a_message_read_again_after_the_screen_was_left_is_not_shown(
        make_app, qm, monkeypatch):
    """enter on a message whose payload is not kept reads it again in a worker; escape
    leaves the list meanwhile: the message read is dropped, never shown over the queue
    list. (Before: the worker was the app's, and its result opened the message there.)"""
    fetching, gate, returned = threading.Event(), threading.Event(), threading.Event()
    fetch = BrowseModel.fetch

    def held_fetch(self, row: int):
        view = fetch(self, row)  # read while the list is open; handed back after it closed
        fetching.set()
        assert gate.wait(120), "the test never let the read end"
        returned.set()
        return view

    monkeypatch.setattr(BrowseModel, "view", lambda self, row: None)  # nothing kept
    monkeypatch.setattr(BrowseModel, "fetch", held_fetch)
    qm.define_queue(QueueAttrs(name="APP.GONE"))
    put_messages(qm, "APP.GONE", MQMD(format="MQSTR", ccsid=1208), b"hello", count=3)
    app = make_app()
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(app, pilot)
            await open_queue(app, pilot, "APP.GONE")
            screen = app.screen
            await wait_for(app, pilot, lambda: screen.model.done and not screen._reading)
            await pilot.press("enter")
            await wait_for(app, pilot, fetching.is_set, workers=False)
            await pilot.press("escape")
            await wait_for(app, pilot, lambda: isinstance(app.screen, QueuesScreen),
                           workers=False)
            gate.set()
            await wait_for(app, pilot, returned.is_set, workers=False)
            await settle(app, pilot)
            assert isinstance(app.screen, QueuesScreen)
            assert not any(isinstance(s, DetailScreen) for s in app.screen_stack)
            assert not [n for n in app._notifications if n.severity == "error"]
    finally:
        gate.set()


async def test_escape_stops_a_filtered_browse_still_looking_for_its_first_screen(
        make_app, qm, monkeypatch):
    """A queue entered with a remembered filter browses for its matches; on a queue deeper
    than ``AUTO_READ`` (5,000) with few of them the first screenful is a long search.
    escape stops that search and keeps the list (the matches so far) — it does not leave
    the screen. (Before: the
    first screen's read was not "reading on", so escape went back to the queue list.)"""
    from mqconsole.ops.where import compile_where
    from mqconsole.tui.screens import messages

    gate, matching = threading.Event(), threading.Event()
    class Browsed(_Gated):  # tested here, message by message, not selected by the backend
        fact_test = None

    monkeypatch.setattr(messages, "AUTO_READ", 10)  # "deep": not read whole at once
    monkeypatch.setattr(messages, "compile_where", lambda text, columns=None: Browsed(
        compile_where(text, columns), gate, matching))
    qm.define_queue(QueueAttrs(name="APP.DEEP"))
    put_messages(qm, "APP.DEEP", MQMD(format="MQSTR", ccsid=1208), b"nothing to see",
                 count=40)
    app = make_app()
    app.ctx.remember_filter("APP.DEEP", "text ~ 'needle'")
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(app, pilot)
            await _enter_queue(app, pilot, "APP.DEEP")
            await wait_for(app, pilot, matching.is_set, workers=False)
            screen = app.screen
            assert isinstance(screen, MessagesScreen) and screen._reading
            await pilot.press("escape")
            gate.set()
            await wait_for(app, pilot, lambda: not screen._reading, workers=False)
            await settle(app, pilot)
            assert app.screen is screen
            assert any("Stopped reading" in s for s in _said(app))
            assert screen.model.where_text == "text ~ 'needle'" and screen.model.count == 0
            await pilot.press("escape")  # nothing is read now: escape leaves
            await wait_for(app, pilot, lambda: isinstance(app.screen, QueuesScreen),
                           workers=False)
    finally:
        gate.set()


async def test_a_row_read_as_escape_stops_the_read_keeps_the_cursor_on_the_last_row(
        make_app, qm, monkeypatch):
    """End, then escape while the reader's thread is between its cancel check and listing
    the row it has just read: that row is listed after the stop, and the cursor, put on
    the last row by the stop, is still on the last row (it stayed one above: the loaded
    run's flake of test_escape_on_a_long_read_shows_what_was_read)."""
    from mqconsole.tui import browsing
    from mqconsole.tui.screens import messages as messages_screen

    monkeypatch.setattr(messages_screen, "page_reader", lambda qm, queue: None)  # as real MQ
    qm.define_queue(QueueAttrs(name="APP.STOP", max_depth=10_000))
    put_messages(qm, "APP.STOP", MQMD(format="MQSTR", ccsid=1208), b"m", count=6000)
    armed, reached, gate = threading.Event(), threading.Event(), threading.Event()
    view_of = browsing.MessageView

    def held_view(*args, **kwargs):  # the reader's first row after End, past its check
        if armed.is_set() and threading.current_thread() is not threading.main_thread() \
                and not reached.is_set():
            reached.set()
            assert gate.wait(120), "the test never let the reader on"
        return view_of(*args, **kwargs)

    monkeypatch.setattr(browsing, "MessageView", held_view)
    app = make_app(page_size=100)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.STOP")
        await settle(app, pilot)
        model, lst = app.screen.model, app.screen.query_one(MessageList)
        armed.set()
        await pilot.press("end")
        await wait_for(app, pilot, reached.is_set, workers=False)
        before = model.count
        await pilot.press("escape")
        assert model.stopped and lst.cursor == before - 1
        gate.set()  # the row read before the stop is listed; the next check stops the read
        await wait_for(app, pilot, lambda: not app.screen._reading)
        await settle(app, pilot)
        assert model.count == before + 1 and not model.done
        assert lst.virtual_size.height == model.count and lst.cursor == model.count - 1

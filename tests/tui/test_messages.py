"""The messages screen and the message detail, driven by keys on the embedded demo."""

from __future__ import annotations

import pytest
from textual.widgets import TabbedContent

from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.messages import put_messages
from mqconsole.tui.paging import PagedModel
from mqconsole.tui.screens.detail import DetailScreen
from mqconsole.tui.screens.messages import MessagesScreen
from mqconsole.tui.widgets.message_list import MessageList

from .conftest import DLQ, open_queue, screen_text, settle, wait_for


async def test_dead_letter_queue_opens_with_summary_and_rows(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await wait_for(app, pilot, lambda: app.screen.model.done)
        screen = app.screen
        assert isinstance(screen, MessagesScreen)
        text = screen_text(app)
        assert "240 messages" in text and "Q_FULL→APP.SMALL 60" in text
        assert "showing 240 of 240" in text
        assert "POS PUT (UTC)" in text and "REASON" in text and "DESTINATION" in text
        first = screen.model.row(0)
        assert first.reason == 2053 and first.dest == "APP.SMALL"


@pytest.fixture
def big_queue(qm):
    qm.define_queue(QueueAttrs(name="APP.BIG", max_depth=100_000))
    put_messages(qm, "APP.BIG", MQMD(format="MQSTR", ccsid=1208), b"hello", count=6000)
    return "APP.BIG"


async def test_a_deep_queue_opens_at_once_and_jumps_to_its_end(make_app, big_queue):
    """The embedded backend reads a page at a position: End reads the last screenful only."""
    app = make_app(page_size=100)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, big_queue)
        await settle(app, pilot)
        model = app.screen.model
        assert isinstance(model, PagedModel) and model.count == 6000
        assert model.has_row(0) and not model.has_row(3000)  # only the rows in view read
        assert "showing 6,000 of 6,000" in screen_text(app)
        lst = app.screen.query_one(MessageList)
        assert lst.virtual_size.height == 6000  # the scrollbar stands for the whole queue
        await pilot.press("end")
        await wait_for(app, pilot, lambda: model.has_row(5999))
        await settle(app, pilot)
        assert lst.cursor == 5999 and not model.has_row(3000)
        assert "  6000 " in screen_text(app)  # the last row is on screen
        assert model.row(5999).position == 6000
        await pilot.press("pageup")
        await settle(app, pilot)
        assert lst.cursor < 5999 and model.has_row(lst.cursor)
        await pilot.press("home")
        assert lst.cursor == 0
        await pilot.press("pagedown", "pagedown")
        await settle(app, pilot)
        assert lst.cursor > 0 and model.has_row(lst.cursor)
        assert f"  {lst.cursor + 1} " in screen_text(app)


async def test_filter_with_the_where_language(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await pilot.press("slash", *"reason = bogus", "enter")
        await pilot.pause()
        assert "Bad --where expression" in screen_text(app)
        bar = app.screen.query_one("#filter-input")
        bar.value = "reason = Q_FULL"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text == "reason = Q_FULL"
                       and app.screen.model.done)
        model = app.screen.model
        assert model.count == 80 and model.scanned == 240
        assert all(model.row(i).reason == 2053 for i in range(model.count))
        assert "showing 80 of 240 · matching reason = Q_FULL" in screen_text(app)


async def test_marks_and_mark_all(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await settle(app, pilot)
        lst = app.screen.query_one(MessageList)
        await pilot.press("space", "space", "down", "space")
        assert lst.marked_count == 3 and lst.cursor == 4
        assert "3 marked" in screen_text(app)
        assert screen_text(app).count("✓") == 3
        await pilot.press("space")  # on the fourth row... then unmark it again
        await pilot.press("up", "space")
        assert lst.marked_count == 3
        await pilot.press("asterisk")
        assert lst.all_marked and "all marked" in screen_text(app)
        await pilot.press("U")
        assert lst.marked_count == 0


async def test_message_detail_tabs(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await settle(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        text = screen_text(app)
        assert "MQRC_Q_FULL (2053)" in text and "APP.SMALL@QM1" in text
        assert "Expiry" in text
        tabs = app.screen.query_one(TabbedContent)
        for key, tab, expect in (("2", "mqmd", "BackoutCount"), ("3", "headers", "MQDLH"),
                                 ("5", "hex", "00000000"), ("6", "pretty", "<payment")):
            await pilot.press(key)
            await pilot.pause()
            assert tabs.active == tab
            if key != "2":
                assert expect in screen_text(app), (tab, screen_text(app))
        await pilot.press("4")
        await pilot.pause()
        assert "CCSID 1208 read as utf-8" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, MessagesScreen)


async def test_detail_of_an_ebcdic_message_and_an_rfh2(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "ZOS.INBOUND.BOQ")
        await settle(app, pilot)
        await pilot.press("enter")
        await pilot.press("4")
        await pilot.pause()
        text = screen_text(app)
        assert "CCSID 500 read as cp500" in text and "DEBIT" in text  # EBCDIC decoded
        await pilot.press("escape", "escape")
        await open_queue(app, pilot, "APP.INVOICES")
        await settle(app, pilot)
        await pilot.press("enter", "3")
        await pilot.pause()
        assert "MQRFH2" in screen_text(app) and "folder jms" in screen_text(app)


async def test_escape_on_a_long_read_shows_what_was_read(make_app, big_queue, monkeypatch):
    """Issue 15 item 10: End on a deep queue, then Escape: the list is what was read, the
    cursor on its last row (not on an unread row far below), and End reads on. Forward
    only, as on real MQ (a backend that cannot read a page at a position)."""
    import threading

    from mqconsole.backends.embedded import cursor as embedded_cursor
    from mqconsole.tui.screens import messages as messages_screen

    monkeypatch.setattr(messages_screen, "page_reader", lambda qm, queue: None)

    real = embedded_cursor.EmbeddedCursor.next_batch
    gate, returned = threading.Event(), [0]

    def next_batch(self, n):  # past 1,000 messages the read waits for the gate: mid-read
        if returned[0] >= 1000:
            assert gate.wait(120), "the test never opened the gate"
        batch = real(self, n)
        returned[0] += len(batch)
        return batch

    monkeypatch.setattr(embedded_cursor.EmbeddedCursor, "next_batch", next_batch)
    app = make_app(page_size=100)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, big_queue)
        await settle(app, pilot)
        model = app.screen.model
        lst = app.screen.query_one(MessageList)
        await pilot.press("end")
        await wait_for(app, pilot, lambda: model.count >= 1000 and app.screen._reading,
                       workers=False)
        await pilot.press("escape")
        assert model.stopped  # while the read still waits
        gate.set()
        await wait_for(app, pilot, lambda: not app.screen._reading)
        await pilot.pause()
        assert isinstance(app.screen, MessagesScreen) and not model.done and model.stopped
        read = model.count
        assert lst.virtual_size.height == read and lst.cursor == read - 1
        text = screen_text(app)
        assert f"showing {read:,} of ~6,000" in text and "End or E reads on" in text
        assert f"  {read} " in text  # the last row read is on screen
        await pilot.pause(0.3)
        assert model.count == read  # and the read does not go on by itself
        await pilot.press("end")
        await wait_for(app, pilot, lambda: model.done, timeout=60)
        await settle(app, pilot)
        assert model.count == 6000 and lst.cursor == 5999


async def test_the_list_says_when_the_queue_changed_under_it(make_app, qm):
    """Issue 15 item 11: a list read to its end says '+3 new, r to refresh' (or how many
    are gone) when the queue's depth moved, rather than showing an old picture as it is."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.AUDIT")  # empty
        await wait_for(app, pilot, lambda: app.screen.model.done)
        put_messages(qm, "APP.AUDIT", MQMD(format="MQSTR", ccsid=1208), b"late", count=3)
        qm.commit()
        app.screen.check_fresh()  # (on a timer every tui.refresh_seconds; 0 in tests)
        await wait_for(app, pilot, lambda: "+3 new, r to refresh" in screen_text(app))
        assert "showing 0 of 0 · the queue changed" in screen_text(app)
        assert "The queue is empty" not in screen_text(app)
        assert "it holds 3 now: r reads them" in screen_text(app)
        await pilot.press("r")
        await wait_for(app, pilot, lambda: "showing 3 of 3" in screen_text(app))
        assert "changed" not in screen_text(app)


async def test_a_filter_on_a_fully_read_queue_filters_what_was_read(make_app, qm):
    """Issue 15 item 10: no new browse (a message put since is not listed until r), and the
    summary follows the filter; clearing the filter gives the whole list back."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await wait_for(app, pilot, lambda: app.screen.model.done)
        whole = app.screen.model
        assert whole.count == 240
        put_messages(qm, DLQ, MQMD(format="MQSTR", ccsid=1208), b"late", count=1)
        qm.commit()
        await pilot.press("slash", *"reason = Q_FULL", "enter")
        await wait_for(app, pilot, lambda: app.screen.model is not whole
                       and app.screen.model.done)
        await settle(app, pilot)
        model = app.screen.model
        assert model.source is whole and model.scanned == 240  # what was read, no browse
        full = [r for r in range(240) if whole.row(r).reason == 2053]
        assert model.count == len(full) and model.summary.result()["total"] == len(full)
        text = screen_text(app)
        assert f"{len(full)} messages" in text  # the summary panel: the filter's messages
        assert f"showing {len(full)} of 240" in text
        await pilot.press("slash", *["backspace"] * 20, "enter")
        await wait_for(app, pilot, lambda: app.screen.model is whole)
        await pilot.press("r")  # a refresh browses again: the late message is there
        await wait_for(app, pilot, lambda: app.screen.model is not whole
                       and app.screen.model.done)
        assert app.screen.model.count == 241

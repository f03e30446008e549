"""Hostile payloads in the console (issue 17): nested JSON never takes the console down."""

from __future__ import annotations

from textual.widgets import TabbedContent

from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.messages import put_messages
from mqconsole.tui.screens.detail import DetailScreen

from .conftest import open_queue, screen_text, settle, wait_for

NESTED = b"[" * 1000 + b"]" * 1000


async def test_deeply_nested_json_shows_as_text(make_app, qm):
    qm.define_queue(QueueAttrs(name="APP.HOSTILE"))
    put_messages(qm, "APP.HOSTILE", MQMD(format="MQSTR", ccsid=1208), NESTED)
    put_messages(qm, "APP.HOSTILE", MQMD(format="MQSTR", ccsid=1208),
                 b"<a>" * 900 + b"</a>" * 900)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.HOSTILE")
        await settle(app, pilot)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        await pilot.press("6")
        await pilot.pause()
        assert app.screen.query_one(TabbedContent).active == "pretty"
        assert "(the JSON nests too deeply to read: shown as text)" in screen_text(app)
        assert "[[[[[[" in screen_text(app)
        await pilot.press("4")
        await pilot.pause()
        assert "[[[[[[" in screen_text(app)
        await pilot.press("escape", "down", "enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen)
                       and app.screen.view.position == 2)
        await pilot.press("6")
        await pilot.pause()
        assert "(the XML nests deeper than 100 levels: shown as text)" in screen_text(app)
        await pilot.press("escape")
        assert app.return_code is None  # still running: no crash
    assert app.return_code in (None, 0)


async def test_journal_screen_with_a_nested_line(make_app, tmp_path):
    from mqconsole.ops.journal import Journal, JournalEntry

    journal = tmp_path / "journal.jsonl"
    Journal(journal).append(JournalEntry(operation="copy", source="APP.A"))
    with open(journal, "a") as fp:
        fp.write(NESTED.decode() + "\n")
    app = make_app()
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: "1 of 1 records" in screen_text(app))
        assert "1 unreadable line(s) skipped" in screen_text(app)


async def test_a_catastrophic_filter_is_reported_and_the_console_answers(make_app, qm,
                                                                        monkeypatch):
    from mqconsole.ops import where

    monkeypatch.setattr(where, "REGEX_SECONDS", 0.2)  # the same path, a quicker suite
    qm.define_queue(QueueAttrs(name="APP.SLOW"))
    put_messages(qm, "APP.SLOW", MQMD(format="MQSTR", ccsid=1208), b"a" * 5000 + b"!",
                 count=3)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SLOW")
        await settle(app, pilot)
        await pilot.press("slash", *"text ~ '(a|aa)+$'", "enter")
        await wait_for(app, pilot, lambda: any(
            "took more than 0.2 s on one message (position 1)" in str(n.message)
            for n in app._notifications))
        model = app.screen.model
        assert model.where_text == "text ~ '(a|aa)+$'" and model.count == 0
        await pilot.press("slash")  # the console answers: a new filter replaces it
        app.screen.query_one("#filter-input").value = "text ~ '!$'"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text == "text ~ '!$'"
                       and app.screen.model.done)
        assert app.screen.model.count == 3
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (None, 0)

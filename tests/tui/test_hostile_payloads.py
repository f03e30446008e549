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


async def test_a_catastrophic_filter_ends_and_the_console_answers(make_app, qm):
    """Issue 27: '(a|aa)+$' made the old engine backtrack without end on 5,000 a's and a
    '!' (it stopped at a time bound, with an error); RE2 answers at once: nothing matches."""
    qm.define_queue(QueueAttrs(name="APP.SLOW"))
    put_messages(qm, "APP.SLOW", MQMD(format="MQSTR", ccsid=1208), b"a" * 5000 + b"!",
                 count=3)
    put_messages(qm, "APP.SLOW", MQMD(format="MQSTR", ccsid=1208), b"!" + b"a" * 5000)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SLOW")
        await settle(app, pilot)
        await pilot.press("slash", *"text ~ '(a|aa)+$'", "enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text == "text ~ '(a|aa)+$'"
                       and app.screen.model.done)
        model = app.screen.model
        assert model.count == 1 and model.row(0).position == 4  # the one ending in a's
        assert not [n for n in app._notifications if "regular expression" in str(n.message)]
        await pilot.press("slash")  # the console answers: a new filter replaces it
        app.screen.query_one("#filter-input").value = "text ~ '!$'"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen.model.where_text == "text ~ '!$'"
                       and app.screen.model.done)
        assert app.screen.model.count == 3
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (None, 0)


class _Gated:
    """A filter whose every match waits for ``gate`` (a filter over many messages that takes
    a while): where the console runs it shows. The slowness is the gate's, not the
    expression's (RE2 matches in linear time)."""

    def __init__(self, real, gate, started):
        self.real, self.gate, self.started = real, gate, started

    def __getattr__(self, name):
        return getattr(self.real, name)

    def matches(self, view):
        self.started.set()
        assert self.gate.wait(120), "the test never opened the gate"
        return self.real.matches(view)


async def test_filtering_a_read_queue_leaves_the_console_answering(make_app, qm, monkeypatch):
    """Issue 17 item 6: a queue read to its end is filtered in a worker, not on the event
    loop, so keys (and the signals the loop handles) are answered while a slow filter runs;
    escape stops it and leaves the list as it was."""
    import threading

    from textual.widgets import Static

    from mqconsole.ops.where import compile_where
    from mqconsole.tui.screens import messages

    gate, started = threading.Event(), threading.Event()
    monkeypatch.setattr(messages, "compile_where", lambda text, columns=None: _Gated(
        compile_where(text, columns), gate, started))
    qm.define_queue(QueueAttrs(name="APP.SLOWF"))
    put_messages(qm, "APP.SLOWF", MQMD(format="MQSTR", ccsid=1208), b"a" * 30 + b"!",
                 count=20)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.SLOWF")
        await settle(app, pilot)
        screen = app.screen
        # read to its end, and the reader's end handled on the event loop: the model says
        # done in the reader's thread first, and a filter before that browses instead
        await wait_for(app, pilot, lambda: screen.model.done and not screen._reading)
        assert screen.model.count == 20
        await pilot.press("slash", *"text ~ 'a+!$'", "enter")
        await wait_for(app, pilot, started.is_set, workers=False)
        await pilot.pause()
        # the event loop answers while the first match waits: the status says so
        assert "filtering… (esc stops)" in str(screen.query_one("#status", Static).render())
        await pilot.press("escape")
        # escape was handled while the first match still waits (the gate is shut)
        assert screen._cancel.is_set() and not gate.is_set()
        gate.set()
        await wait_for(app, pilot, lambda: any("Stopped filtering" in str(n.message)
                                               for n in app._notifications))
        assert app.screen is screen and screen.model.where_text is None
        assert screen.model.count == 20  # the list as it was
        await pilot.press("slash")
        screen.query_one("#filter-input").value = "text ~ '!$'"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: screen.model.where_text == "text ~ '!$'"
                       and screen.model.done)
        assert screen.model.count == 20
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (None, 0)

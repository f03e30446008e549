"""Snapshots of the main screens at 80x24 (``pytest --snapshot-update`` after a deliberate
change; look at the SVGs in ``__snapshots__`` before committing them).

Deterministic: the demo is seeded and stamped with a fixed clock, ages are measured from that
clock, the refresh timer is off and no notification is on screen.
"""

from __future__ import annotations

from .conftest import DLQ, open_queue, settle, steady_cursors, wait_for


def test_queues_screen(snap_compare, make_app):
    async def ready(pilot):
        await settle(pilot.app, pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=ready)


def test_messages_screen(snap_compare, make_app):
    async def ready(pilot):
        app = pilot.app
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await wait_for(app, pilot, lambda: app.screen.model.done)
        await pilot.press("space", "down", "space")

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=ready)


def test_message_detail(snap_compare, make_app):
    async def ready(pilot):
        app = pilot.app
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await wait_for(app, pilot, lambda: app.screen.model.done)
        await pilot.press("enter")
        await settle(app, pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=ready)


def test_read_only_production_look(snap_compare, demo_file, tmp_path):
    from mqconsole.backends.open import open_embedded
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings

    from .conftest import NOW

    app = MQConsoleApp(lambda: open_embedded(str(demo_file)),
                       profile=ProfileInfo("prod", read_only=True, environment="production",
                                           theme="mqconsole-high-contrast"),
                       settings=Settings(refresh_seconds=0, clock=lambda: NOW,
                                         themes_dirs=[REPO_THEMES],
                                         journal_path=tmp_path / "j.jsonl"))

    async def ready(pilot):
        await settle(pilot.app, pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def _dlq_handler(rules_text: str, tmp_path, monkeypatch):
    """The dead-letter handler screen on the demo DLQ with ``rules_text`` planned (the file
    named relatively, so the picture does not depend on the test's folder)."""
    from textual.widgets import Input

    from mqconsole.tui.screens.dlq import DlqHandlerScreen

    (tmp_path / "site.rules").write_text(rules_text)
    monkeypatch.chdir(tmp_path)

    async def ready(pilot):
        app = pilot.app
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await settle(app, pilot)
        await pilot.press("H")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DlqHandlerScreen))
        app.screen.query_one("#d-rules", Input).value = "site.rules"
        app.screen.query_one("#d-rules", Input).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        app.clear_notifications()
        await settle(app, pilot)
        await steady_cursors(pilot)

    return ready


def test_dlq_handler_plan(snap_compare, make_app, tmp_path, monkeypatch):
    rules = ("* site rules\nINPUTQ(' ') RETRYINT(60) WAIT(NO)\n"
             "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\n"
             "DESTQ(APP.*) ACTION(FWD) FWDQ(APP.ERRORS) +\n  HEADER(NO)\nACTION(IGNORE)\n")
    assert snap_compare(make_app(), terminal_size=(80, 24),
                        run_before=_dlq_handler(rules, tmp_path, monkeypatch))


def test_dlq_handler_problems_at_their_lines(snap_compare, make_app, tmp_path, monkeypatch):
    rules = ("* site rules\nREASON(MQRC_Q_FUL) ACTION(RETRY)\n"
             "DESTQ(APP.*) ACTION(FWD) FWQ(X)\nACTION(IGNORE) RETRY(-1)\n")
    assert snap_compare(make_app(), terminal_size=(80, 24),
                        run_before=_dlq_handler(rules, tmp_path, monkeypatch))

"""Screens that hold large results keep them bounded and let them go when they close
(issue 23 item 3): the dead-letter handler's plan and run list a page of messages and count
the rest; the handler, the replay and a journal record are garbage once the operator leaves
them (nothing else keeps them, so neither do their results). A journal record was kept one
run in three by the pool thread that had read it: its context kept the worker, and the worker
the context it was started in (the screen); mqconsole.tui.threads gives each job a new one."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from textual.widgets import Input

from mqconsole.tui.screens.dialogs import ConfirmDialog, TextDialog
from mqconsole.tui.screens.dlq import DlqHandlerScreen
from mqconsole.tui.screens.journal import JournalScreen
from mqconsole.tui.screens.journal_record import JournalRecordScreen
from mqconsole.tui.screens.messages import MessagesScreen
from mqconsole.tui.screens.queues import QueuesScreen
from mqconsole.tui.screens.replay import ReplayScreen
from mqconsole.tui.widgets.rowlist import RowList

from .conftest import DLQ, open_queue, settle, wait_for

ENDPOINTS = Path(__file__).resolve().parents[2] / "examples" / "endpoints" / "demo.yaml"
PAGE = 50


async def _gone(app, pilot, ref: weakref.ref, back_to: type) -> bool:
    """Back to ``back_to``, then until nothing holds what ``ref`` names (Textual removes a
    popped screen on a later turn of the loop: waited for, never slept)."""
    while not isinstance(app.screen, back_to):
        await pilot.press("escape")
        await settle(app, pilot)

    def collected() -> bool:
        gc.collect()
        return ref() is None

    await wait_for(app, pilot, collected, timeout=60)
    return True


async def test_the_handlers_plan_and_run_hold_a_page_and_let_go(make_app, qm, tmp_path,
                                                                monkeypatch):
    import mqconsole.tui.screens.dlq as dlq_screen

    monkeypatch.setattr(dlq_screen, "MAX_ROWS", PAGE)
    rules = tmp_path / "ignore.rules"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(APP.HOLD) HEADER(NO)\n"
                     "ACTION(IGNORE)\n")
    from mqconsole.mq.queue import QueueAttrs

    qm.define_queue(QueueAttrs("APP.HOLD"))
    total = qm.inquire_queue(DLQ).depth
    assert total > 4 * PAGE
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await pilot.press("H")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DlqHandlerScreen))
        screen = app.screen
        screen.query_one("#d-rules", Input).value = str(rules)
        screen.query_one("#d-rules", Input).focus()
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        plan = screen.plan
        assert plan.extra["listed"].count == PAGE  # listed: a page, kept by the runner
        assert "messages" not in plan.extra
        assert plan.extra["message_count"] == total  # counted: all
        assert sum(plan.extra["outcome_counts"].values()) == total
        report = screen.op.spec.report
        assert len(report.messages.kept) == PAGE and len(list(report.messages)) < 1_000
        assert screen.query_one("#d-plan", RowList).row_count == PAGE
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: app.screen is screen and screen.outcome is not None)
        ran = screen.outcome
        assert ran.extra["listed"].count == PAGE and "messages" not in ran.extra
        assert sum(ran.extra["outcome_counts"].values()) == total
        refs = [weakref.ref(screen), weakref.ref(plan), weakref.ref(ran),
                weakref.ref(report)]
        screen = plan = ran = report = None  # the test's own references gone
        assert await _gone(app, pilot, refs[0], MessagesScreen)
        assert all(r() is None for r in refs)


async def test_a_replay_lets_go_when_it_closes(make_app, qm):
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(app, pilot)
        app.open_replay("APP.ORDERS")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                       and bool(app.screen.query("#r-events")))
        app.screen.query_one("#r-endpoints", Input).value = str(ENDPOINTS)
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: app.screen.view is not None)
        refs = [weakref.ref(app.screen), weakref.ref(app.screen.view)]
        assert await _gone(app, pilot, refs[0], QueuesScreen)
        assert refs[1]() is None


async def test_a_journal_record_lets_go_when_it_closes(make_app, qm):
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await pilot.press("space", "d")  # one change to journal
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: isinstance(app.screen, QueuesScreen))
        await pilot.press("J")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                       and app.screen.query_one("#journal").row_count > 0)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalRecordScreen)
                       and app.screen.outcomes is not None)  # read by a thread worker
        refs = [weakref.ref(app.screen), weakref.ref(app.screen.ids)]  # and its ids
        assert await _gone(app, pilot, refs[0], QueuesScreen)
        assert refs[1]() is None

"""Fixtures for the console's pilot tests: a demo queue manager per test, a fixed clock."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mqconsole.audit.runner import InProcessRunner
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.ops.demo import DLQ, build_demo
from mqconsole.ops.dlq.child import InProcess
from mqconsole.ops.replaychild import InProcess as ReplayInProcess
from mqconsole.tui.app import MQConsoleApp
from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings
from tests.support import cell_cache, css_cache, headless_frames, rule_cache, settled_steps

STOCK_TEXTUAL = "MQCONSOLE_TEST_STOCK_TEXTUAL"
"""Set, the pilot tests run on Textual as operators run it: none of the five speed-ups below
(tests/tui/test_stock_textual.py runs the snapshot tests so, in a pytest of their own)."""

if not os.environ.get(STOCK_TEXTUAL):  # (set: the Textual operators run, nothing replaced)
    css_cache.install()  # Textual's CSS parsed once per test process, not once per app
    rule_cache.install()  # the CSS rules a node matches worked out once per test process
    headless_frames.install()  # no frame rendered that a headless app would drop unwritten
    settled_steps.install()  # a pilot's key or pause ends when the app has done its work
    cell_cache.install()  # a DataTable's cell rendered once per test process, not per table

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
DEMO_SEED = 20260922

__all__ = ["DLQ", "NOW"]


@pytest.fixture(autouse=True)
def _notifications_outlive_a_busy_step(request, monkeypatch) -> None:
    """A notification lives 8 s, and Textual drops it from ``app._notifications`` when it
    expires: on two busy cores a step of a test can take longer than that, and a test
    waiting to see a notification would then never see it. Pilot tests keep them 10
    minutes; snapshot tests keep the console's own timeout (what they draw is the screen)."""
    if "snap_compare" not in request.fixturenames:
        monkeypatch.setattr(MQConsoleApp, "NOTIFICATION_TIMEOUT", 600)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory) -> Path:
    """The demo scene, built once per worker (tests copy it)."""
    path = tmp_path_factory.mktemp("template") / "qm.sqlite"
    qm = create_queue_manager(str(path), name="QM1")
    build_demo(qm, seed=DEMO_SEED, now=NOW)
    qm.close()
    return path


@pytest.fixture
def demo_file(demo_template: Path, tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("MQCONSOLE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MQCONSOLE_CONFIG", raising=False)
    target = tmp_path / "qm.sqlite"
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(demo_template) + suffix)
        if src.exists():
            shutil.copy(src, str(target) + suffix)
    return target


@pytest.fixture
def make_app(demo_file: Path, tmp_path: Path) -> Callable[..., MQConsoleApp]:
    def make(*, read_only: bool = False, path: Path | None = None, plugins=None,
             **settings) -> MQConsoleApp:
        file = str(path or demo_file)
        # the audit screen's jobs in this process, on its one Spark session (the ``spark``
        # fixture): a JVM per test would be minutes (the console's default, a child process
        # of their own, has tests of its own: test_audit_child.py)
        opts = dict(refresh_seconds=0, clock=lambda: NOW, themes_dirs=[REPO_THEMES],
                    journal_path=tmp_path / "journal.jsonl", backup_dir=tmp_path / "backups",
                    save_dir=tmp_path, audit_runner=InProcessRunner,
                    handler_runner=InProcess, replay_runner=ReplayInProcess)
        opts.update(settings)
        return MQConsoleApp(lambda: open_embedded(file),
                            profile=ProfileInfo(name="test", read_only=read_only),
                            settings=Settings(**opts), plugins=plugins)
    return make


@pytest.fixture
def qm(demo_file: Path):
    """A connection of the test's own to look at the queues (and to put test messages)."""
    conn = open_embedded(str(demo_file))
    yield conn
    conn.close()


async def _workers_done(app) -> None:
    """Wait for the workers; one cancelled meanwhile (an exclusive worker replaced by a newer
    one, as a live refresh does on a busy machine) is not a failure of the test."""
    from textual.worker import WorkerCancelled

    with contextlib.suppress(WorkerCancelled):
        await app.workers.wait_for_complete()


async def settle(app, pilot, rounds: int = 3) -> None:
    """Let workers finish and their results reach the screen."""
    for _ in range(rounds):
        await _workers_done(app)
        await headless_frames.pause_unrendered(pilot)
    headless_frames.frame(app)  # the screen as it is now drawn (one frame, not one a round)


def _screen_mounted(app) -> bool:
    """The screen on top has its widgets mounted: a dialog is the screen before its fields
    are there, and on a busy machine a test's next step came between (NoMatches 'Input' in
    the loaded run)."""
    from textual.app import ScreenStackError

    try:
        return app.screen.is_mounted
    except ScreenStackError:
        return True


async def wait_for(app, pilot, condition: Callable[[], bool], timeout: float = 120.0, *,
                   workers: bool = True) -> None:
    """Until ``condition()``; ``workers=False`` while a long worker must keep running. The
    timeout is generous: the whole suite on two busy cores once took over 10 s for a step
    that takes 5 ms alone (and ``make test-loaded`` runs it beside a CPU hog); a hang still
    fails, here or at pytest-timeout's bound. The screen on top is also waited for until it
    is mounted (its widgets there)."""
    import asyncio
    import time

    end = time.monotonic() + timeout
    while not (condition() and _screen_mounted(app)):
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for the console")
        if workers:
            await _workers_done(app)
        await settled_steps.settled(app)  # what came in handled (nothing sent to the idle)
        await asyncio.sleep(0.01)
    await settled_steps.settled(app)  # what the app was sent meanwhile, handled
    headless_frames.frame(app)  # the screen as it is now drawn (one frame, not one a poll)


async def audit_screen(app, pilot, folder: Path, **kwargs: Any):
    """The audit screen of the demo's DLQ for the snapshot ``folder`` (``kwargs``: the
    screen's own, a report to show, a Spark starter), pushed once the console has settled."""
    from mqconsole.tui.screens.audit import AuditScreen

    await settle(app, pilot)
    screen = AuditScreen(app.ctx, DLQ, folder=folder, **kwargs)
    await app.push_screen(screen)
    return screen


async def audit_done(app, pilot, screen, timeout: float = 300.0) -> dict:
    """The audit screen's running job (export or report) until it has ended, and its
    report; a job that failed fails the test at once with what the console said (it gives
    no report: waiting for one would sit out the whole guard)."""
    await wait_for(app, pilot, lambda: not screen.running, timeout=timeout, workers=False)
    assert screen.report is not None, (
        [str(n.message) for n in app._notifications],
        str(screen.query_one("#status").content))
    return screen.report


async def steady_cursors(pilot) -> None:
    """Every text field's cursor on the screen shown steadily, not blinking: a picture taken
    while a cursor blinks has it on or off by chance (on a busy machine half a second passes
    between focusing a field and the picture)."""
    from textual.widgets import Input, TextArea

    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    for area in pilot.app.screen.query(TextArea):
        area.cursor_blink = False
    await pilot.pause()


def screen_text(app) -> str:
    """The current screen as plain text (what the operator sees, without colours)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def all_segments(app):
    """Every rendered segment of the screen on top (dialogs included)."""
    for strip in app.screen._compositor.render_strips():
        yield from strip


def depth(qm, queue: str) -> int:
    return qm.inquire_queue(queue).depth


async def open_queue(app, pilot, name: str) -> None:
    from textual.widgets import DataTable

    table = app.screen.query_one("#queues", DataTable)
    names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
    table.move_cursor(row=names.index(name))
    await pilot.press("enter")
    def opened() -> bool:
        screen = app.screen
        model = getattr(screen, "model", None)
        return getattr(screen, "queue", None) == name and model is not None and (
            model.count > 0 or model.done)

    await wait_for(app, pilot, opened)

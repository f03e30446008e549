"""The dead-letter handler screen's default runner: its plan and run in the handler's own
process (ops/dlq/child.py), the console holding the same embedded queue manager open.

The other handler screen tests plan and run in process (``InProcess``, tests/tui/conftest.py);
these drive the real child end to end: the same plan, summary, journal entry and attempt
counts; a child killed mid-run leaves each message exactly once, and the console says so
in one sentence; the child ends when the screen closes.
"""

from __future__ import annotations

import os
import signal

import pytest
from textual.widgets import Static

from mqconsole.ops.dlq.attempts import AttemptStore, default_path
from mqconsole.ops.dlq.child import HandlerChild
from mqconsole.ops.journal import Journal
from mqconsole.tui.screens.dialogs import ConfirmDialog, TextDialog
from mqconsole.tui.screens.operation import OperationDialog

from .conftest import DLQ, depth, settle, wait_for
from .test_dlq_screen import (
    _browse,
    define_ibm_queues,
    open_handler,
    plan_rows,
    rules_dir,  # noqa: F401  (the fixture)
    status,
)

pytestmark = pytest.mark.subprocess


def _notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_the_handlers_process_plans_and_runs_ibms_table(make_app, qm, rules_dir,  # noqa: F811
                                                             tmp_path, monkeypatch):
    import mqconsole.ops.dlq.handler as handler_mod

    def not_here(*_args, **_kw):
        raise AssertionError("the handler ran in the console's process")

    monkeypatch.setattr(handler_mod, "run_handler", not_here)  # this process's only
    define_ibm_queues(qm)
    before = depth(qm, DLQ)
    app = make_app(handler_runner=None)  # the console's default
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "ibm.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        runner = screen.runner
        assert isinstance(runner, HandlerChild) and runner.process is not None
        child = runner.process
        rows = plan_rows(screen)
        assert len(rows) == before == 240
        assert {r[1] for r in rows} == {"1", "2", "3", "4"}
        assert "Plan of one pass over SYSTEM.DEAD.LETTER.QUEUE" in status(screen)
        assert "← rule 1: 25 messages" in str(screen.query_one("#d-text", Static).content)
        assert depth(qm, DLQ) == before and not list(Journal(tmp_path / "journal.jsonl")
                                                    .read())
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        summary = str(app.screen.body)
        assert "Handled 140 of 240 messages from SYSTEM.DEAD.LETTER.QUEUE" in summary
        assert "→ DEADQ.MANUAL.SECURITY: 25" in summary and "Failed: 100" in summary
        assert runner.process is child  # one process for the screen's plan and run
        await pilot.press("enter")
        await settle(app, pilot)
        failed = [r for r in plan_rows(screen) if r[5].startswith("failed")]
        assert failed and all(r[3] == "1" for r in failed)
        assert "Ran one pass" in status(screen)
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: app.screen is not screen and not screen.is_attached)
        assert child.wait(timeout=120) == 0  # the screen closed: its process ended
        assert _notes(app) == []
    assert depth(qm, "DEADQ.MANUAL.SECURITY") == 25
    assert depth(qm, DLQ) == len(failed)
    [entry] = Journal(tmp_path / "journal.jsonl").read()
    assert entry.operation == "dlq-handler" and entry.details["rules"] == "ibm.rules"
    assert entry.details["tui"] is True and entry.profile == "test"
    store = AttemptStore(default_path(), "QM1", DLQ)
    assert len(store) == len(failed)
    store.close()


GATE = '''"""A test's plugin: once ARMED exists, its 150th put check (the second unit of work of
the handler's run) says so in MARK and waits there until its process is killed."""

import threading
from pathlib import Path

ARMED, MARK = Path({armed!r}), Path({mark!r})
_seen = [0]


def mqconsole_check_put(operation, message, destination):
    if ARMED.exists():
        _seen[0] += 1
        if _seen[0] == 150:
            MARK.write_text(str(__import__("os").getpid()))
            threading.Event().wait()
    return None
'''


async def test_a_handlers_process_killed_mid_run_leaves_each_message_once(
        make_app, qm, rules_dir, tmp_path):  # noqa: F811
    """The child is killed (SIGKILL) with its second unit of work open: the first unit's
    100 messages are on APP.DEADQ, the rest on the dead-letter queue, none on both and none
    lost; the console says it in one sentence and goes on."""
    from mqconsole.backends.open import open_embedded
    from mqconsole.plugins.testing import import_plugin, plugin_host

    (rules_dir / "fwd.rules").write_text("ACTION(FWD) FWDQ(APP.DEADQ)\n")
    define_ibm_queues(qm)
    before = {m.md.msg_id for m in _browse(qm, DLQ)}
    armed, mark = tmp_path / "armed", tmp_path / "mark"
    plugin = tmp_path / "gate" / "gate.py"
    plugin.parent.mkdir()
    plugin.write_text(GATE.format(armed=str(armed), mark=str(mark)))
    app = make_app(handler_runner=None, plugins=plugin_host(("gate", import_plugin(plugin))))
    child = None
    try:
        async with app.run_test(size=(120, 34)) as pilot:
            screen = await open_handler(app, pilot, "fwd.rules")
            await wait_for(app, pilot, lambda: screen.plan is not None)
            child = screen.runner.process
            armed.write_text("")
            await pilot.press("ctrl+o")
            await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("y")
            await wait_for(app, pilot, mark.exists, workers=False)
            assert int(mark.read_text()) == child.pid
            os.kill(child.pid, signal.SIGKILL)
            await wait_for(app, pilot, lambda: not isinstance(app.screen, OperationDialog)
                           and bool(_notes(app)), workers=False)
            notes = _notes(app)
            assert notes == ["SYSTEM.DEAD.LETTER.QUEUE: the dead-letter handler's process "
                             "ended before answering (signal 9): its open unit of work is "
                             "backed out, what it committed stays done and is in the journal"]
            assert app.is_running and app.screen is screen
    finally:
        if child is not None and child.poll() is None:
            child.kill()
    fresh = open_embedded(qm.path)  # a connection that backs out what the dead one left
    try:
        moved = [m.md.msg_id for m in _browse(fresh, "APP.DEADQ")]
        left = [m.md.msg_id for m in _browse(fresh, DLQ)]
    finally:
        fresh.close()
    assert len(moved) == 100 and len(left) == 140
    assert set(moved) | set(left) == before and not set(moved) & set(left)
    assert len(set(moved)) == len(moved) and len(set(left)) == len(left)

"""An operator's audit in the console, in a fresh interpreter (run by test_audit_child.py):
what the console process imports is then the console's alone.

``python audit_child_session.py DEMO_FILE HOME OUT [--fake REPORT LOG] [--plugin]``: the
console on the embedded file DEMO_FILE, its default audit runner (the audit's own process;
``--fake``: tests/tui/audit_fake_child.py instead, the cheap stand-in), ``A`` on the dead-letter
queue, the queues ``SYSTEM.DEAD.LETTER.QUEUE,APP.*.BOQ``, ``ctrl+e`` (an export into
HOME/snap and its report), ``enter`` on the first reason (the queues holding it are asked of
the audit's process), back to the audit screen, back to the queue list; then the audit's
process is waited for. What was seen is written to OUT as JSON, with the Spark libraries the
console process had imported by then.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pyspark", "py4j", "pandas", "numpy", "pyarrow")
PATTERNS = "SYSTEM.DEAD.LETTER.QUEUE,APP.*.BOQ"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


async def until(app, pilot, condition: Callable[[], bool], timeout: float = 600.0) -> None:
    """Until ``condition()`` (a hang fails the run, and the test with it)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError(f"waited {timeout:.0f} s; the screen is {app.screen!r}; "
                               f"notifications: {[str(n.message) for n in app._notifications]}")
        await pilot.pause(0.05)


async def session(args: argparse.Namespace, seen: dict) -> None:
    from textual.widgets import DataTable, Input

    from mqconsole.backends.open import open_embedded
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings
    from mqconsole.tui.screens.audit import AuditScreen
    from mqconsole.tui.screens.messages import MessagesScreen
    from mqconsole.tui.screens.queues import QueuesScreen

    home = Path(args.home)
    plugins = None
    if args.plugin:  # the json_field example's audit column, loaded from its file
        from mqconsole.plugins.testing import import_plugin, plugin_host

        plugins = plugin_host(("json_field", import_plugin(
            ROOT / "plugins" / "json_field" / "json_field.py")))
    settings = Settings(refresh_seconds=0, themes_dirs=[REPO_THEMES],
                        journal_path=home / "journal.jsonl", save_dir=home,
                        audit_master="local[2]", audit_dir=home,
                        audit_connection={"backend": "embedded", "path": args.demo})
    app = MQConsoleApp(lambda: open_embedded(args.demo), profile=ProfileInfo(name="test"),
                       settings=settings, plugins=plugins)
    # a busy machine's step outlasts 8 s (tests/tui/conftest.py); and a notification outlives
    # the longest wait, so that a wait that gives up still names it
    app.NOTIFICATION_TIMEOUT = 3600
    async with app.run_test(size=(100, 34)) as pilot:
        await until(app, pilot, lambda: isinstance(app.screen, QueuesScreen)
                    and app.screen.query_one("#queues", DataTable).row_count > 0)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index(DLQ))
        await pilot.press("A")
        await until(app, pilot, lambda: isinstance(app.screen, AuditScreen)
                    and app.screen.is_mounted)
        screen = app.screen
        runner = screen.runner
        seen["runner"] = type(runner).__name__
        screen.query_one("#patterns", Input).value = PATTERNS
        screen.query_one("#folder", Input).value = str(home / "snap")
        bar = screen.query_one("#progress")
        totals: list[object] = []
        screen.watch(bar, "total", lambda total: totals.append(total), init=False)
        await pilot.press("ctrl+e")
        await until(app, pilot, lambda: screen.report is not None and not screen.running)
        seen.update(status=str(screen.query_one("#status").content),
                    messages=screen.report["messages"], by_queue=screen.report["by_queue"],
                    bar_totals=totals, bar_progress=bar.progress,
                    bar_hidden=bar.has_class("-hidden"),
                    notes=[str(n.message) for n in app._notifications])
        reasons = screen.query_one("#list-by_reason", DataTable)
        await pilot.pause()
        reasons.focus()
        await pilot.pause()
        seen["reason_row"] = screen._tables["by_reason"][0]
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, MessagesScreen)
                    and app.screen.model is not None)
        shown = app.screen
        seen.update(opened_queue=shown.queue, opened_where=shown.model.where_text)
        # read to the end, then leave: escape while a filtered browse still reads stops the
        # read and stays (it is how an operator stops a long search) - pressed as soon as the
        # browse began, it left or stayed by the machine's speed (stayed after the audit
        # screen's tests: the session then waited for the audit screen until it gave up)
        await pilot.press("end")
        await until(app, pilot, lambda: shown.model is not None and shown.model.done)
        await pilot.press("escape")
        await until(app, pilot, lambda: app.screen is screen)
        await pilot.press("escape")
        await until(app, pilot, lambda: isinstance(app.screen, QueuesScreen))
        process = runner.process
        seen["child_exit"] = None if process is None else \
            await asyncio.to_thread(process.wait, 300)
        seen["heavy_modules"] = sorted({n.split(".")[0] for n in sys.modules
                                        if n.split(".")[0] in HEAVY})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("demo")
    parser.add_argument("home")
    parser.add_argument("out")
    parser.add_argument("--fake", nargs=2, metavar=("REPORT", "LOG"))
    parser.add_argument("--plugin", action="store_true")
    args = parser.parse_args()
    os.environ["MQCONSOLE_HOME"] = args.home
    os.environ.pop("MQCONSOLE_CONFIG", None)
    if args.fake:  # the console's default runner, starting the stand-in instead
        import mqconsole.audit.child as child

        fake = [sys.executable, str(Path(__file__).with_name("audit_fake_child.py")),
                *args.fake]
        child.child_command = lambda: fake
    seen: dict = {}
    try:
        asyncio.run(session(args, seen))
    finally:
        Path(args.out).write_text(json.dumps(seen, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

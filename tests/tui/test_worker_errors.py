"""One pattern for background work in the console (issue 26 item 4): every worker runs with
``exit_on_error=False``, and a worker that fails — the app's or a screen's — becomes one
notification through one router (``ConsoleContext.worker_changed``), never a crashed app."""

from __future__ import annotations

import ast
from pathlib import Path

import mqconsole.tui

from .conftest import settle, wait_for

TUI = Path(mqconsole.tui.__file__).parent


def _said(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def test_a_failed_worker_of_the_app_or_a_screen_is_a_notification(make_app):
    def broken() -> None:
        raise RuntimeError("the disk went away")

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.run_worker(broken, thread=True, name="check the disk", exit_on_error=False)
        await wait_for(app, pilot, lambda: any("the disk went away" in s for s in _said(app)),
                       workers=False)  # (waiting for the workers raises their error)
        screen = app.screen
        screen.run_worker(broken, thread=True, name="read the thing", exit_on_error=False)
        await wait_for(app, pilot, lambda: sum("the disk went away" in s
                                               for s in _said(app)) == 2, workers=False)
        said = [s for s in _said(app) if "the disk went away" in s]
        assert [s.split(":")[0] for s in said] == ["Check the disk", "Read the thing"]
        assert app.is_running and app.screen is screen and app.return_code is None


def test_every_worker_of_the_console_leaves_errors_to_the_router() -> None:
    """No ``@work`` or ``run_worker`` under tui/ keeps Textual's ``exit_on_error=True``
    (a failure would end the app)."""
    found = []
    for file in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                getattr(node.func, "id", "")
            if name not in ("work", "run_worker"):
                continue
            off = any(k.arg == "exit_on_error" and isinstance(k.value, ast.Constant)
                      and k.value.value is False for k in node.keywords)
            if not off:
                found.append(f"{file.relative_to(TUI)}:{node.lineno}")
    assert not found, f"workers that would end the app on an error: {found}"


def test_backend_work_has_one_pattern() -> None:
    """Backend work is a flow awaiting ``flow.in_thread`` (or a ``@work`` method): the old
    callback style — ``ctx.backend(fn, done=..., failed=...)`` with a generation counter to
    drop stale results — does not come back. No ``backend`` method is defined or called
    under tui/, no ``_generation`` counter is kept, and ``run_worker`` is called only by
    ``flow.py`` (stale results are dropped by cancelling worker groups)."""
    from mqconsole.tui.context import ConsoleContext

    assert not hasattr(ConsoleContext, "backend")
    found = []
    for file in sorted(TUI.rglob("*.py")):
        where = file.relative_to(TUI).as_posix()
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                    and node.name == "backend":
                found.append(f"{where}:{node.lineno} def backend")
            elif isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                    getattr(node.func, "id", "")
                if name == "backend":
                    found.append(f"{where}:{node.lineno} backend(...)")
                elif name == "run_worker" and where != "flow.py":
                    found.append(f"{where}:{node.lineno} run_worker(...)")
            elif isinstance(node, ast.Attribute) and "generation" in node.attr:
                found.append(f"{where}:{node.lineno} .{node.attr}")
    assert not found, f"the callback style of backend work is back: {found}"

"""Straight-line console flows: an action is one ``async`` function that asks its questions
(``await ask(...)``), reads in threads (``await in_thread(...)``) and ends by starting its
operation — instead of a pyramid of callbacks. The console's one way to run backend work
(``tests/tui/test_worker_errors.py`` keeps it so).

A flow that asks the operator runs as an asyncio task of the event loop (:func:`launch`), not
as a Textual worker: it waits for the operator, and whoever waits for "every worker" (a
refresh, a pilot test's ``settle``) must not wait for an operator too. A flow that asks
nothing and belongs to a screen (a browse, a read of pages) runs as an async worker of that
screen (:func:`start`): it exists at once in its group, so a newer browse cancels it with
the group (``workers.cancel_group``) even before it ran, and the screen's going cancels it.
Blocking reads are thread workers, so they are waited for as every backend call is; a result
that arrives for a flow cancelled meanwhile, or for a screen no longer shown, is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerCancelled

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

FLOW = "flow"  # the description of in_thread's workers: their flow reports their errors

R = TypeVar("R")
T = TypeVar("T")

_RUNNING: set[asyncio.Task[None]] = set()  # strong references: the loop keeps weak ones


class Console(Protocol):
    """What a flow needs of the console (``ConsoleContext``): its app and where errors go."""

    @property
    def app(self) -> App[Any]: ...

    def report_error(self, exc: BaseException, *, queue: str | None = None,
                     what: str = "") -> None: ...


class Reported(Exception):
    """An error already shown to the operator: the flow ends here, nothing more is said."""


def launch(ctx: Console, flow: Coroutine[Any, Any, None], *, what: str) -> None:
    """Run ``flow`` on the event loop; an error it did not expect is reported, never raised."""
    task = asyncio.get_running_loop().create_task(flow, name=what)
    _RUNNING.add(task)

    def finished(done: asyncio.Task[None]) -> None:
        _RUNNING.discard(done)
        if done.cancelled():
            return
        exc = done.exception()
        if exc is not None and not isinstance(exc, Reported | WorkerCancelled):
            ctx.report_error(exc, what=what)

    task.add_done_callback(finished)


async def ask(ctx: Console, screen: Screen[R]) -> R | None:
    """Open ``screen`` (a question) and wait for its answer (``None``: escape)."""
    answer: asyncio.Future[R | None] = asyncio.get_running_loop().create_future()

    def answered(value: R | None) -> None:
        if not answer.done():
            answer.set_result(value)

    ctx.app.push_screen(screen, answered)
    return await answer


async def in_thread(ctx: Console, fn: Callable[[], T], *, queue: str | None,
                    what: str, quiet: tuple[type[BaseException], ...] = (),
                    group: str = "backend", exclusive: bool = False,
                    node: DOMNode | None = None) -> T:
    """``fn()`` in a thread worker of ``node`` (the app by default; a screen's go with it):
    blocking I/O stays off the event loop. An error is reported (one notification) and ends
    the flow (:class:`Reported`); one in ``quiet`` is raised for the flow to handle.
    ``exclusive``: a newer worker of ``group`` cancels this one. A cancelled worker, or one
    whose screen has gone, ends the flow quietly (``WorkerCancelled``) — also when its
    result came in before the flow went on."""
    owner = node if node is not None else ctx.app

    def job() -> tuple[bool, Any]:
        try:  # the error is the flow's to say: the worker itself succeeds
            return True, fn()
        except BaseException as exc:  # (a thread's: never the operator's interrupt)
            return False, exc

    worker = owner.run_worker(job, thread=True, group=group, name=what or "backend",
                              description=FLOW, exclusive=exclusive, exit_on_error=False)
    ok, out = await worker.wait()
    if worker.is_cancelled or _gone(owner):
        raise WorkerCancelled(f"{what}: cancelled")
    if ok:
        return out
    if isinstance(out, quiet):
        raise out
    ctx.report_error(out, queue=queue, what=what)
    raise Reported(str(out)) from out


def start(node: DOMNode, flow: Callable[[], Awaitable[None]], *, what: str, group: str,
          exclusive: bool = False) -> Worker[None]:
    """Run ``flow()`` now as an async worker of ``node`` (a screen, or the app) in ``group``:
    for a flow that asks the operator nothing. ``exclusive``: it cancels the group's other
    workers. It ends quietly when cancelled or when an error it met was reported; an error
    it did not expect goes to the router of failed workers (``ConsoleContext.worker_changed``)."""

    async def run() -> None:
        with contextlib.suppress(Reported, WorkerCancelled):
            await flow()

    return node.run_worker(run, group=group, name=what, exclusive=exclusive,
                           exit_on_error=False)


def _gone(node: DOMNode) -> bool:
    """``node`` has left the console: a screen popped (its removal may still be under way)
    or a widget removed."""
    if isinstance(node, Screen):
        return node not in node.app.screen_stack
    return isinstance(node, Widget) and not node.is_attached


__all__ = ["FLOW", "Console", "Reported", "ask", "in_thread", "launch", "start"]

"""Straight-line console flows: an action is one ``async`` function that asks its questions
(``await ask(...)``), reads in threads (``await in_thread(...)``) and ends by starting its
operation — instead of a pyramid of callbacks.

A flow runs as an asyncio task of the event loop (:func:`launch`), not as a Textual worker:
it waits for the operator, and whoever waits for "every worker" (a refresh, a pilot test's
``settle``) must not wait for an operator too. Its blocking reads are thread workers, so they
are waited for as every backend call is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from textual.worker import WorkerCancelled, WorkerFailed

from mqconsole.tui.context import FLOW

if TYPE_CHECKING:
    from textual.screen import Screen

    from mqconsole.tui.context import ConsoleContext

R = TypeVar("R")
T = TypeVar("T")

_RUNNING: set[asyncio.Task[None]] = set()  # strong references: the loop keeps weak ones


class Reported(Exception):
    """An error already shown to the operator: the flow ends here, nothing more is said."""


def launch(ctx: ConsoleContext, flow: Coroutine[Any, Any, None], *, what: str) -> None:
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


async def ask(ctx: ConsoleContext, screen: Screen[R]) -> R | None:
    """Open ``screen`` (a question) and wait for its answer (``None``: escape)."""
    answer: asyncio.Future[R | None] = asyncio.get_running_loop().create_future()

    def answered(value: R | None) -> None:
        if not answer.done():
            answer.set_result(value)

    ctx.app.push_screen(screen, answered)
    return await answer


async def in_thread(ctx: ConsoleContext, fn: Callable[[], T], *, queue: str | None,
                    what: str, quiet: tuple[type[BaseException], ...] = (),
                    group: str = "backend", exclusive: bool = False) -> T:
    """``fn()`` in a thread worker (blocking I/O stays off the event loop). An error is
    reported (one notification) and ends the flow (:class:`Reported`); one in ``quiet`` is
    raised for the flow to handle. ``exclusive``: a newer worker of ``group`` cancels this
    one (the flow ends quietly)."""
    worker = ctx.app.run_worker(fn, thread=True, group=group, name=what or "backend",
                                description=FLOW, exclusive=exclusive, exit_on_error=False)
    try:
        return await worker.wait()
    except WorkerFailed as failed:
        exc = failed.error
        if isinstance(exc, quiet):
            raise exc from None
        ctx.report_error(exc, queue=queue, what=what)
        raise Reported(str(exc)) from exc


__all__ = ["FLOW", "Reported", "ask", "in_thread", "launch"]

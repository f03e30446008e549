"""The thread pool the console's thread workers run in: each job in a context of its own.

Textual runs a thread worker with ``loop.run_in_executor(None, ...)`` and sets its
``active_worker`` context variable in the pool thread. A pool thread keeps its context from
job to job, so it kept the last worker it ran — and through that worker's task the context it
was started from, whose ``active_message_pump`` is the screen that started it: a closed screen
(and whatever it holds: a journal record's ids, a handler's plan) stayed alive until that
thread happened to run another worker. Here each job runs in a new, empty context (what a new
thread starts with), dropped when the job ends.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
_LOOPS: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()  # given one already


class FreshContextExecutor(ThreadPoolExecutor):
    """A :class:`ThreadPoolExecutor` whose jobs keep nothing in their thread's context."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return super().submit(contextvars.Context().run, fn, *args, **kwargs)


def use_fresh_contexts(loop: asyncio.AbstractEventLoop) -> None:
    """Make ``loop``'s default executor (the one thread workers use) a
    :class:`FreshContextExecutor`, once."""
    if loop not in _LOOPS:
        loop.set_default_executor(FreshContextExecutor(thread_name_prefix="mqconsole"))
        _LOOPS.add(loop)


__all__ = ["FreshContextExecutor", "use_fresh_contexts"]

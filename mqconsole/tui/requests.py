"""What screens and actions ask of the console, as Textual messages.

Screens and actions do not import the app (:mod:`mqconsole.tui.app` imports them): they
post one of these with :meth:`mqconsole.tui.context.ConsoleContext.request`, and the app
handles it. Each message says what is wanted, not which screen class does it.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from textual.message import Message


class OpenQueue(Message):
    """Browse the messages of a queue (those matching ``where``, a --where text, if given)."""

    def __init__(self, name: str, where: str | None = None) -> None:
        super().__init__()
        self.name = name
        self.where = where


class ShowMessage(Message):
    """Show one message (a ``MessageView``) of ``queue``."""

    def __init__(self, queue: str, view: Any) -> None:
        super().__init__()
        self.queue = queue
        self.view = view


class LeaveDetail(Message):
    """The message shown is gone (moved, deleted, replaced): leave its view if it is open."""


class ShowQueueInfo(Message):
    """Show every attribute of a queue."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class OpenDoctor(Message):
    """Open the doctor (what a poison message would do on each queue)."""


class OpenReplay(Message):
    """Open the delivery model's replay, on ``queue`` if given."""

    def __init__(self, queue: str | None) -> None:
        super().__init__()
        self.queue = queue


class QueueChanged(Message):
    """An operation changed ``queue`` (``ConsoleContext.mark_dirty`` says how): its
    message list is updated or read again now, if it is shown."""

    def __init__(self, queue: str) -> None:
        super().__init__()
        self.queue = queue


class QueuesChanged(Message):
    """Depths or attributes changed: read the queues again soon."""


class QueuesLoaded(Message):
    """The queue manager and its queues were read: banners show the new figures."""


class CheckSize(Message):
    """The terminal was resized: say so if it is too small."""


@runtime_checkable
class StopsWork(Protocol):
    """A screen with work in a worker (a browse, an operation) that can stop at its next safe
    point; the console stops them all when it quits or switches profile."""

    def stop_work(self) -> None: ...


__all__ = ["CheckSize", "LeaveDetail", "OpenDoctor", "OpenQueue", "OpenReplay", "QueueChanged",
           "QueuesChanged", "QueuesLoaded", "ShowMessage", "ShowQueueInfo", "StopsWork"]

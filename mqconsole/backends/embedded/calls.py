"""The guard of every call on an embedded connection or one of its cursors.

A call takes the connection's lock (calls are serialised), is refused when the connection
is closed, first flushes another idle connection of this process holding the write lock
(so its work is seen), and turns an SQLite error into the MQError that says what failed.
The decorators are that guard written out once for a hot path (a move calls it twice a
message); ``Call`` is the same as a context manager for the rest. Every call but a bulk
move step and a commit first settles the bulk moves noted before it (``Session.moves``,
moved.py), so that nothing else sees their rows still on the source.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import wraps
from time import monotonic
from typing import Any, Protocol, TypeVar

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import MQRC_HCONN_ERROR

from .session import Session
from .store import sqlite_error


class Guarded(Protocol):
    """What the guard needs of a connection (``storage.Storage`` has it)."""

    _s: Session
    _closed: bool
    _busy: float

    @property
    def location(self) -> str: ...

T = TypeVar("T")
_CLOSED = "this connection to the embedded queue manager is closed"


def _guarded(fn: Callable[..., T], of_cursor: bool, settles: bool = True
             ) -> Callable[..., T]:
    @wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> T:
        qm = self._qm if of_cursor else self
        s = qm._s
        s.lock.acquire()
        try:
            if qm._closed:
                raise MQError(MQRC_HCONN_ERROR, _CLOSED)
            s.depth += 1
            try:
                if s.depth == 1:
                    owner = s.file.owner
                    if owner is not None and owner is not s:
                        s.flush_others()
                if settles and s.moves:
                    s.settle_moves()
                return fn(self, *args, **kwargs)
            except sqlite3.Error as exc:
                s.rolled_back()
                raise sqlite_error(exc, qm.location, qm._busy) from exc
            finally:
                s.depth -= 1
                if s.depth == 0:
                    s.idle_since = monotonic()  # Session.call_ended, inlined
                    if s.file.waiters:
                        s.call_ended()
        finally:
            s.lock.release()

    return wrapper


def api(fn: Callable[..., T]) -> Callable[..., T]:
    """A method of the connection, guarded."""
    return _guarded(fn, False)


def cursor_call(fn: Callable[..., T]) -> Callable[..., T]:
    """A method of a cursor (``self._qm`` its connection), guarded."""
    return _guarded(fn, True)


def keeping_moves(fn: Callable[..., T]) -> Callable[..., T]:
    """``api``, for the commit, which does the bulk moves noted (not settled first)."""
    return _guarded(fn, False, settles=False)


def cursor_keeping_moves(fn: Callable[..., T]) -> Callable[..., T]:
    """``cursor_call``, for the bulk move step, which notes more of them."""
    return _guarded(fn, True, settles=False)


class Call:
    """The guard as a context manager: ``with qm._guard():``."""

    __slots__ = ("qm",)

    def __init__(self, qm: Guarded) -> None:
        self.qm = qm

    def __enter__(self) -> None:
        qm = self.qm
        s = qm._s
        s.lock.acquire()
        if qm._closed:
            s.lock.release()
            raise MQError(MQRC_HCONN_ERROR, _CLOSED)
        s.depth += 1
        if s.depth == 1 and s.file.owner is not None:
            s.flush_others()
        if s.moves:
            try:
                s.settle_moves()
            except BaseException as exc:
                self.__exit__(type(exc), exc, None)
                raise

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        qm = self.qm
        s = qm._s
        try:
            if exc is not None and isinstance(exc, sqlite3.Error):
                s.rolled_back()
                raise sqlite_error(exc, qm.location, qm._busy) from exc
        finally:
            s.depth -= 1
            if s.depth == 0:
                s.call_ended()
            s.lock.release()

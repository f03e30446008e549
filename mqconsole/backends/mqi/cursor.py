"""Browse cursors over MQI: MQOPEN browse (+input only for_get), MQGET BROWSE_FIRST/NEXT,
and the get of the message under the cursor (MQGMO_MSG_UNDER_CURSOR).

Every MQGET gets a fresh MD (a reused one narrows matching by its MsgId/CorrelId), a GMO of
version 2 with ``MQMO_NONE``, ``MQGMO_NO_WAIT`` and ``MQGMO_PROPERTIES_FORCE_MQRFH2``. A
message longer than the buffer (2080, MQRC_TRUNCATED_MSG_FAILED) leaves the cursor where it
was: the buffer grows to the message's length and the same call is made again.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from mqconsole.mq.errors import MQError
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import MQRC_HOBJ_ERROR, MQRC_NOT_OPEN_FOR_INPUT


class CursorConnection(Protocol):
    """What a cursor uses of its :class:`~.connection.MQIQueueManager` (which imports this
    module to make cursors): the library, the guarded call, one MQGET, closing a handle and
    the open unit-of-work flag."""

    lib: Any
    _uow: bool

    def _call(self, what: str, *, auth: str = "", obj: str = "", hint: str = ""
              ) -> AbstractContextManager[None]: ...

    def _get(self, handle: Any, options: int, match: int, *, size: int | None = None,
             msg_id: bytes | None = None, correl_id: bytes | None = None,
             empty_ok: bool = False, wait_ms: int = 0) -> Message | None: ...

    def _close_handle(self, handle: Any) -> None: ...


class MQICursor:
    """One browse handle (protocol ``BrowseCursor``). Calls go through its connection's lock,
    so a cursor may be used from any thread."""

    def __init__(self, qm: CursorConnection, queue: str, handle: Any, *, can_get: bool) -> None:
        self.queue = queue
        self._qm = qm
        self._handle = handle
        self._can_get = can_get  # opened MQOO_INPUT_SHARED too (for_get; needs +get)
        self._started = False  # a BROWSE_FIRST has found a message
        self._last_length: int | None = None
        self._closed = False

    def _check(self) -> None:
        if self._closed:
            raise MQError(MQRC_HOBJ_ERROR, f"the browse cursor on {self.queue!r} is closed")

    def next(self) -> Message | None:
        qm = self._qm
        C = qm.lib.CMQC
        with qm._call(f"browse {self.queue!r}", auth="+browse", obj=self.queue):
            self._check()
            first = not self._started
            options = (C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT) | C.MQGMO_NO_WAIT
            msg = qm._get(self._handle, options, C.MQMO_NONE, empty_ok=True)
            if msg is None:
                return None  # 2033: the end (the cursor stays on the last message)
            self._started = True
            self._last_length = len(msg.body)
            return msg

    def next_waiting(self, seconds: float) -> Message | None:
        """BROWSE_NEXT (BROWSE_FIRST before any message) with MQGMO_WAIT: the message that
        arrives past the cursor within ``seconds``, or None (2033 after the wait)."""
        qm = self._qm
        C = qm.lib.CMQC
        with qm._call(f"browse {self.queue!r}", auth="+browse", obj=self.queue):
            self._check()
            first = not self._started
            options = (C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT) | C.MQGMO_WAIT
            msg = qm._get(self._handle, options, C.MQMO_NONE, empty_ok=True,
                          wait_ms=max(0, int(seconds * 1000)))
            if msg is None:
                return None
            self._started = True
            self._last_length = len(msg.body)
            return msg

    def next_batch(self, n: int) -> list[Message]:
        out: list[Message] = []
        while len(out) < n:
            m = self.next()
            if m is None:
                break
            out.append(m)
        return out

    def get_current(self, *, syncpoint: bool = True) -> Message:
        qm = self._qm
        C = qm.lib.CMQC
        with qm._call(f"get the message under the cursor on {self.queue!r}", auth="+get",
                      obj=self.queue):
            self._check()
            if not self._can_get:
                raise MQError(
                    MQRC_NOT_OPEN_FOR_INPUT,
                    f"cannot get from {self.queue!r} under this cursor: it "
                    "was opened for browsing only (browse(for_get=True) "
                    "opens it for input)",
                )
            options = C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_NO_WAIT | (
                C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT)
            msg = qm._get(self._handle, options, C.MQMO_NONE, size=self._last_length)
            assert msg is not None
            if syncpoint:
                qm._uow = True
            return msg

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._qm._close_handle(self._handle)

    def __enter__(self) -> MQICursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<MQICursor {self.queue!r} {'closed' if self._closed else 'open'}>"

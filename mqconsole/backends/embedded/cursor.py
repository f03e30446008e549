"""Browse cursors of the embedded queue manager (MQOPEN browse+input, BROWSE_FIRST/NEXT).

A cursor remembers the ``(npri, id)`` of the last row it passed and asks for the rows
after it (keyset pagination, never an offset), so every page costs the same on a queue of
a million messages. Each page is one read in a fresh snapshot: messages committed since
show up if they sort after the cursor, as in MQ. ``get_current`` takes exactly the row
last browsed, by its row id, so duplicate MsgIds never take the wrong message.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message

from .auth import QUEUE

if TYPE_CHECKING:
    from .connection import EmbeddedQueueManager

MQRC_HOBJ_ERROR = 2019
MQRC_NO_MSG_UNDER_CURSOR = 2034


def message_from_row(md_blob: bytes, body: bytes, backout_count: int,
                     expires_at: float | None, now: float) -> Message:
    """The message as MQGET returns it: stored MD, BackoutCount, Expiry left (tenths)."""
    md = MQMD.unpack(md_blob, ccsid=819)
    md.backout_count = backout_count
    if expires_at is not None:
        md.expiry = max(1, math.ceil((expires_at - now) * 10))
    return Message(md, bytes(body))


class EmbeddedCursor:
    """One browse handle. Use it from the thread that owns the connection, or any: calls
    are serialised with the connection's own."""

    def __init__(self, qm: EmbeddedQueueManager, queue: str, objects: list[str],
                 handle: int) -> None:
        self.queue = queue
        self._qm = qm
        self._objects = objects  # the opened object, then the local queue behind an alias
        self._local = objects[-1]
        self._handle = handle
        self._after: tuple[int, int] | None = None  # (npri, id) of the last row passed
        self._current: int | None = None  # row id of the message under the cursor
        self._closed = False

    def _check(self) -> None:
        if self._closed:
            raise MQError(MQRC_HOBJ_ERROR, f"the browse cursor on {self.queue!r} is closed")

    def next(self) -> Message | None:
        batch = self.next_batch(1)
        return batch[0] if batch else None

    def next_batch(self, n: int) -> list[Message]:
        if n <= 0:
            return []
        qm = self._qm
        with qm._guard():
            self._check()
            qm._check_get_inhibited(self._objects)
            now = time.time()
            out: list[Message] = []
            expired: list[int] = []
            last: int | None = None
            while len(out) < n:
                want = n - len(out)
                rows = qm._browse_rows(self._local, self._after, want)
                for r in rows:
                    self._after = (r["npri"], r["id"])
                    if r["expires_at"] is not None and r["expires_at"] <= now:
                        expired.append(r["id"])  # MQ discards what a browse finds expired
                        continue
                    out.append(message_from_row(r["md"], r["body"], r["backout_count"],
                                                r["expires_at"], now))
                    last = r["id"]
                if len(rows) < want:
                    break
            if expired:
                qm._discard_expired(expired, now)
            if last is not None:
                self._current = last
            return out

    def get_current(self, *, syncpoint: bool = True) -> Message:
        qm = self._qm
        with qm._guard():
            self._check()
            qm._require(qm._auth_records(), "get", QUEUE, self.queue)
            if self._current is None:
                raise MQError(MQRC_NO_MSG_UNDER_CURSOR,
                              f"no message under the browse cursor on {self.queue!r}")
            row_id, self._current = self._current, None
            msg = qm._take_under_cursor(self._objects, row_id, syncpoint)
            if msg is None:
                raise MQError(MQRC_NO_MSG_UNDER_CURSOR,
                              f"the browsed message is no longer on {self.queue!r} "
                              "(another consumer took it, or it expired)")
            return msg

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        qm = self._qm
        if qm._closed:
            return  # the connection's close removed its handles
        with qm._guard():
            qm._close_handle(self._handle)

    def __enter__(self) -> EmbeddedCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<EmbeddedCursor {self.queue!r} {'closed' if self._closed else 'open'}>"

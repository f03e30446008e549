"""A queue manager that counts what its browse cursors read, and a fast way to fill a deep
queue (issue 23: acting on one marked message must not browse the messages before it).

``CountingQueueManager(real)`` passes every call through; each cursor it opens counts in
``browsed`` the messages its ``next``/``next_batch``/``next_packed`` returned and in
``found`` those its ``browse_token``/``browse_msg_id`` returned, per queue (and
``selected`` those the connection's ``select_page`` returned: a filter's read). The cursor
offers exactly the optional capabilities of the real one (``FindsMessages`` included),
so the code under test takes the same path it takes on the real connection.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mqconsole.mq.md import MQMD, OFFSETS

_MSG_ID_AT = OFFSETS["msg_id"]


class _Counts:
    def __init__(self) -> None:
        self.browsed: Counter[str] = Counter()
        self.found: Counter[str] = Counter()
        self.selected: Counter[str] = Counter()  # messages select_page returned

    def reset(self) -> None:
        self.browsed.clear()
        self.found.clear()
        self.selected.clear()


class CountingCursor:
    def __init__(self, real: Any, queue: str, counts: _Counts) -> None:
        self._real = real
        self._queue = queue
        self._counts = counts

    def next(self) -> Any:
        m = self._real.next()
        if m is not None:
            self._counts.browsed[self._queue] += 1
        return m

    def next_batch(self, n: int) -> Any:
        out = self._real.next_batch(n)
        self._counts.browsed[self._queue] += len(out)
        return out

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)  # AttributeError: the real cursor lacks it
        if name == "next_packed":
            def packed(n: int) -> Any:
                out = attr(n)
                self._counts.browsed[self._queue] += len(out)
                return out
            return packed
        if name in ("browse_token", "browse_msg_id"):
            def finding(*args: Any) -> Any:
                m = attr(*args)
                if m is not None:
                    self._counts.found[self._queue] += 1
                return m
            return finding
        return attr

    def __enter__(self) -> CountingCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self._real.close()


class CountingQueueManager:
    """Every call passed to ``real``; the cursors it opens count what they read."""

    def __init__(self, real: Any, counts: _Counts | None = None) -> None:
        self._real = real
        self.counts = counts or _Counts()

    @property
    def name(self) -> str:
        return self._real.name

    def browse(self, queue: str, **kw: Any) -> CountingCursor:
        return CountingCursor(self._real.browse(queue, **kw), queue, self.counts)

    def new_connection(self) -> CountingQueueManager:
        return CountingQueueManager(self._real.new_connection(), self.counts)

    def select_page(self, queue: str, *args: Any) -> Any:
        found, after = self._real.select_page(queue, *args)
        self.counts.selected[queue] += len(found)
        return found, after

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def bulk_fill(qm: Any, queue: str, n: int, *, start: int = 1, batch: int = 20_000) -> None:
    """Put ``n`` messages on ``queue`` fast: one MQMD packed once, its MsgId patched to the
    message's number (``start`` on, big-endian in 24 bytes; 0 would be a blank MsgId), put
    packed a unit of work at a time (``backends.base.PutsPacked``); the body says the
    number."""
    packed = bytearray(MQMD(format="MQSTR", persistence=0).pack(ccsid=819))
    for first in range(start, start + n, batch):
        page = []
        for i in range(first, min(start + n, first + batch)):
            packed[_MSG_ID_AT:_MSG_ID_AT + 24] = i.to_bytes(24, "big")
            page.append((bytes(packed), b"message %d" % i))
        _, refused = qm.put_packed(queue, page)
        if refused is not None:
            raise refused
        qm.commit()


def msg_id_of(i: int) -> bytes:
    """The MsgId ``bulk_fill`` gives message ``i``."""
    return i.to_bytes(24, "big")

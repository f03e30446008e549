"""Browsing a queue forward (the only way MQ allows) into MessageViews, filtered and limited."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial

from mqconsole.backends.base import (
    ListedPage,
    ListsByPosition,
    PositionedPage,
    QueueManager,
    ReadsByPosition,
    SelectsByFacts,
)
from mqconsole.mq.message import Message
from mqconsole.ops.views import MessageView
from mqconsole.ops.where import Where

BATCH = 200


def iter_views(qm: QueueManager, queue: str, *, where: Where | None = None,
               limit: int | None = None, now: datetime | None = None,
               batch: int = BATCH, start: int = 1) -> Iterator[MessageView]:
    """Browse ``queue`` from its start, yielding views that match ``where``, at most ``limit``,
    from position ``start`` on (1: the first).

    When the backend can test facts where the messages are (``SelectsByFacts``) and
    ``where`` holds only for messages that pass such a test, only those are read; each is
    still tested by ``where`` (``fast=False`` in ``iter_views_plain``: every message).
    Without ``where``, a backend that reads at positions (``ReadsByPosition``) starts at
    ``start`` without reading what lies before it; others browse to it."""
    now = now or datetime.now(UTC)
    if limit is not None and limit <= 0:
        return
    if start > 1 and where is None and isinstance(qm, ReadsByPosition):
        first = qm.page_at(queue, start, 0)
        if first is not None:
            yield from _iter_positioned(qm, queue, start, limit, now, batch)
            return
    test = None if where is None else where.fact_test
    if test is not None and isinstance(qm, SelectsByFacts):
        views = _iter_selected(qm, queue, where, test, None, now, batch)  # type: ignore[arg-type]
    else:
        views = iter_views_plain(qm, queue, where=where, now=now, batch=batch)
    yielded = 0
    for view in views:
        if view.position < start:
            continue
        yield view
        yielded += 1
        if limit is not None and yielded >= limit:
            return


def _iter_positioned(qm: ReadsByPosition, queue: str, start: int, limit: int | None,
                     now: datetime, batch: int) -> Iterator[MessageView]:
    """Pages read at positions from ``start`` on (each page counted anew: a message put or
    got meanwhile moves the later ones, as it would under a browse's cursor)."""
    position, yielded = start, 0
    while limit is None or yielded < limit:
        want = batch if limit is None else min(batch, limit - yielded)
        page = qm.page_at(queue, position, want)
        if page is None or not page.messages:
            return
        for n, message in enumerate(page.messages):
            yield MessageView(page.first + n, message, now)
        yielded += len(page.messages)
        position = page.first + len(page.messages)
        if len(page.messages) < want:
            return


def last_views(qm: QueueManager, queue: str, n: int, *, where: Where | None = None,
               now: datetime | None = None) -> list[MessageView]:
    """The last ``n`` messages of ``queue`` that match ``where``, in browse order: read at
    their positions when the backend can (``ReadsByPosition``, no filter), else by
    browsing to the end."""
    now = now or datetime.now(UTC)
    if n <= 0:
        return []
    if where is None and isinstance(qm, ReadsByPosition):
        page = qm.page_at(queue, -n, n)
        if page is not None:
            return [MessageView(page.first + i, m, now) for i, m in enumerate(page.messages)]
    return list(deque(iter_views(qm, queue, where=where, now=now), maxlen=n))


def _iter_selected(qm: SelectsByFacts, queue: str, where: Where, test: tuple,
                   limit: int | None, now: datetime, batch: int) -> Iterator[MessageView]:
    yielded = 0
    after: object | None = None
    while True:
        found, after = qm.select_page(queue, test, after, batch)
        for position, message in found:
            view = MessageView(position, message, now)
            if not where.matches(view):
                continue
            yield view
            yielded += 1
            if limit is not None and yielded >= limit:
                return
        if after is None:
            return


PageReader = Callable[[int, int], PositionedPage | None]
RowReader = Callable[[int, int], ListedPage | None]
Selector = Callable[[object | None, int], tuple[list[tuple[int, Message]], object | None]]


def page_reader(qm: QueueManager, queue: str) -> PageReader | None:
    """``read(position, n)``: the messages at a position of ``queue`` and the queue's
    count (``ReadsByPosition.page_at``), when the backend reads at positions; else None
    (browse forward)."""
    if isinstance(qm, ReadsByPosition):
        return partial(qm.page_at, queue)
    return None


def row_reader(qm: QueueManager, queue: str) -> RowReader | None:
    """``read(position, n)``: what a list shows of the messages at a position of ``queue``
    (no bodies) and the queue's count (``ListsByPosition.rows_at``), when the backend
    lists rows at positions; else None (read the messages: ``page_reader``)."""
    if isinstance(qm, ListsByPosition):
        return partial(qm.rows_at, queue)
    return None


def selector(qm: QueueManager, queue: str, where: Where | None) -> Selector | None:
    """``select(after, n)``: pages of the messages of ``queue`` that may match ``where``,
    with their positions (``SelectsByFacts.select_page``; test each again), when ``where``
    holds only for messages passing a test on facts and the backend can run it; else
    None (browse and test every message)."""
    test = None if where is None else where.fact_test
    if test is None or not isinstance(qm, SelectsByFacts):
        return None
    return partial(qm.select_page, queue, test)


def iter_views_plain(qm: QueueManager, queue: str, *, where: Where | None = None,
                     limit: int | None = None, now: datetime | None = None,
                     batch: int = BATCH) -> Iterator[MessageView]:
    """``iter_views`` by browsing and testing every message (what any backend can do)."""
    now = now or datetime.now(UTC)
    yielded = 0
    position = 0
    if limit is not None and limit <= 0:
        return
    with qm.browse(queue) as cursor:
        while True:
            messages = cursor.next_batch(batch)
            for message in messages:
                position += 1
                view = MessageView(position, message, now)
                if where is not None and not where.matches(view):
                    continue
                yield view
                yielded += 1
                if limit is not None and yielded >= limit:
                    return
            if len(messages) < batch:
                return


def find_by_msgid(qm: QueueManager, queue: str, msg_id: bytes, *,
                  now: datetime | None = None) -> list[MessageView]:
    """Every message on ``queue`` with this MsgId (MsgIds need not be unique), by browsing."""
    return [v for v in iter_views(qm, queue, now=now) if v.message.md.msg_id == msg_id]


def find_by_msgid_end(qm: QueueManager, queue: str, hex_text: str, *,
                      now: datetime | None = None) -> list[MessageView]:
    """Every message on ``queue`` whose MsgId's hex ends with ``hex_text`` (the end a browse
    shows), or equals it padded with zero bytes (a short MsgId as given to ``--msgid``); the
    caller decides what several distinct MsgIds mean."""
    end = hex_text.upper()
    padded = end.ljust(48, "0") if len(end) % 2 == 0 else None
    out = []
    for v in iter_views(qm, queue, now=now):
        full = v.message.md.msg_id.hex().upper()
        if full.endswith(end) or full == padded:
            out.append(v)
    return out

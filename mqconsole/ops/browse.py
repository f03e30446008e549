"""Browsing a queue forward (the only way MQ allows) into MessageViews, filtered and limited."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial

from mqconsole.backends.base import PositionedPage, QueueManager, ReadsByPosition, SelectsByFacts
from mqconsole.mq.message import Message
from mqconsole.ops.views import MessageView
from mqconsole.ops.where import Where

BATCH = 200


def iter_views(qm: QueueManager, queue: str, *, where: Where | None = None,
               limit: int | None = None, now: datetime | None = None,
               batch: int = BATCH) -> Iterator[MessageView]:
    """Browse ``queue`` from its start, yielding views that match ``where``, at most ``limit``.

    When the backend can test facts where the messages are (``SelectsByFacts``) and
    ``where`` holds only for messages that pass such a test, only those are read; each is
    still tested by ``where`` (``fast=False`` in ``iter_views_plain``: every message)."""
    now = now or datetime.now(UTC)
    if limit is not None and limit <= 0:
        return
    test = None if where is None else where.fact_test
    if test is not None and isinstance(qm, SelectsByFacts):
        yield from _iter_selected(qm, queue, where, test, limit, now, batch)  # type: ignore[arg-type]
        return
    yield from iter_views_plain(qm, queue, where=where, limit=limit, now=now, batch=batch)


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
Selector = Callable[[object | None, int], tuple[list[tuple[int, Message]], object | None]]


def page_reader(qm: QueueManager, queue: str) -> PageReader | None:
    """``read(position, n)``: the messages at a position of ``queue`` and the queue's
    count (``ReadsByPosition.page_at``), when the backend reads at positions; else None
    (browse forward)."""
    if isinstance(qm, ReadsByPosition):
        return partial(qm.page_at, queue)
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

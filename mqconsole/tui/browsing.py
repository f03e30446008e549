"""Browsing a queue for the console: forward only, in pages, with a light index.

MQ can only browse a queue forward from its start (no offsets, no random access), yet an
operator must be able to open a queue of a million messages at once and scroll it. The
:class:`BrowseModel` keeps:

* a **light index**: for every row read so far a handful of numbers in typed arrays
  (position, MsgId, token, put time, length, backout count, reason, format and destination
  as indexes into small tables of interned strings) — 80 bytes a row (docs/tui.md), enough to draw
  the list, the summary and the marks (which name messages by token) without keeping any
  message;
* a bounded **window** of full :class:`~mqconsole.ops.views.MessageView` objects (payloads
  included), the most recently read ones, limited in count and in bytes;
* one forward **cursor**, read only as far as the screen needs (plus a page), or to the end
  when the operator asks for it (``End``, mark all, the whole-queue summary).

A message that has left the window (the operator scrolled back a long way) is fetched again
by browsing a fresh cursor from the start to its position and checking its MsgId there.

This module has no Textual in it: the screen calls :meth:`read_until` in a thread worker and
reads :attr:`count` and :meth:`row` on the event loop (arrays are only ever appended to, and
``count`` is raised after a row is complete, so a reader never sees half a row).
"""

from __future__ import annotations

import bisect
import contextlib
import math
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mqconsole.ops.browse import Selector
from mqconsole.ops.selection import Mark
from mqconsole.ops.summary import SummaryBuilder
from mqconsole.ops.views import MessageView
from mqconsole.ops.where import Where

MSGID_LEN = 24
TOKEN_LEN = 16
NO_TOKEN = bytes(TOKEN_LEN)
NO_REASON = -1


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the list, as the light index holds it."""

    index: int  # row number in this listing (0-based)
    position: int  # position on the queue (1-based)
    msgid: bytes
    put: float | None  # epoch seconds (UTC) or None
    length: int
    backout: int
    reason: int | None
    format: str
    dest: str

    @property
    def msgid_hex(self) -> str:
        return self.msgid.hex().upper()


class _Interned:
    """Strings kept once, referred to by number (formats and destinations repeat a lot)."""

    __slots__ = ("_ids", "values")

    def __init__(self) -> None:
        self.values: list[str] = [""]
        self._ids: dict[str, int] = {"": 0}

    def id(self, value: str | None) -> int:
        value = value or ""
        n = self._ids.get(value)
        if n is None:
            n = len(self.values)
            self.values.append(value)
            self._ids[value] = n
        return n


class LightIndex:
    """Column arrays: a few dozen bytes per message, whatever the payload size."""

    def __init__(self, local_qmgr: str | None = None) -> None:
        self.local_qmgr = local_qmgr  # destinations on other queue managers: QUEUE@QMGR
        self.positions = array("Q")
        self.msgids = bytearray()
        self.tokens = bytearray()  # the message's token (zeros: the browse gave none)
        self.untokened: dict[int, tuple[bytes, str]] = {}  # row -> (CorrelId, put time)
        self.put = array("d")
        self.length = array("Q")
        self.backout = array("I")
        self.reason = array("i")
        self.fmt = array("I")
        self.dest = array("I")
        self.formats = _Interned()
        self.dests = _Interned()
        self.count = 0

    def append(self, view: MessageView) -> None:
        dt = view.put_datetime
        reason = view.reason
        self.positions.append(view.position)
        self.msgids += bytes(view.md.msg_id)[:MSGID_LEN].ljust(MSGID_LEN, b"\x00")
        token = view.message.token
        if token:
            self.tokens += bytes(token)[:TOKEN_LEN].ljust(TOKEN_LEN, b"\x00")
        else:  # a mark of it is checked by position, MsgId, CorrelId and put time
            self.tokens += NO_TOKEN
            md = view.md
            self.untokened[self.count] = (bytes(md.correl_id), md.put_date + md.put_time)
        self.put.append(dt.timestamp() if dt is not None else math.nan)
        self.length.append(view.length)
        self.backout.append(max(0, min(view.backout_count, 0xFFFFFFFF)))
        self.reason.append(NO_REASON if reason is None else max(-(2**31), min(reason, 2**31 - 1)))
        self.fmt.append(self.formats.id(view.original_format))
        self.dest.append(self.dests.id(view.destination(self.local_qmgr)))
        self.count += 1  # last: the row is complete

    def row(self, i: int) -> Row:
        put = self.put[i]
        reason = self.reason[i]
        return Row(index=i, position=self.positions[i],
                   msgid=bytes(self.msgids[i * MSGID_LEN:(i + 1) * MSGID_LEN]),
                   put=None if math.isnan(put) else put, length=self.length[i],
                   backout=self.backout[i], reason=None if reason == NO_REASON else reason,
                   format=self.formats.values[self.fmt[i]], dest=self.dests.values[self.dest[i]])

    def msgid(self, i: int) -> bytes:
        return bytes(self.msgids[i * MSGID_LEN:(i + 1) * MSGID_LEN])

    def mark(self, i: int) -> Mark:
        """What names row ``i``'s message exactly (its token, else its position checked)."""
        token = bytes(self.tokens[i * TOKEN_LEN:(i + 1) * TOKEN_LEN])
        if token != NO_TOKEN:
            return Mark(self.msgid(i), token=token)
        correlid, put = self.untokened[i]
        return Mark(self.msgid(i), position=self.positions[i], correlid=correlid, put=put)

    def without(self, rows: set[int], moved: Callable[[int], int]) -> LightIndex:
        """A copy without ``rows`` (messages that left the queue), each kept row's position
        given by ``moved(old position)`` (the messages before it that left, counted out)."""
        out = LightIndex(self.local_qmgr)
        out.formats, out.dests = self.formats, self.dests
        for i in range(self.count):
            if i in rows:
                continue
            n = out.count
            out.positions.append(moved(self.positions[i]))
            out.msgids += self.msgids[i * MSGID_LEN:(i + 1) * MSGID_LEN]
            out.tokens += self.tokens[i * TOKEN_LEN:(i + 1) * TOKEN_LEN]
            if i in self.untokened:
                out.untokened[n] = self.untokened[i]
            out.put.append(self.put[i])
            out.length.append(self.length[i])
            out.backout.append(self.backout[i])
            out.reason.append(self.reason[i])
            out.fmt.append(self.fmt[i])
            out.dest.append(self.dest[i])
            out.count += 1
        return out

    def nbytes(self) -> int:
        arrays = (self.positions, self.put, self.length, self.backout, self.reason, self.fmt,
                  self.dest)
        return len(self.msgids) + len(self.tokens) + sum(a.itemsize * len(a) for a in arrays)


class Cancelled(Exception):
    """The operator stopped a long read."""


class BrowseModel:
    """The rows of one queue (optionally filtered by a ``--where`` expression).

    ``open_cursor`` opens a new browse cursor on the queue (a callable so a fresh one can be
    opened to fetch a message that left the window). ``now`` is the reference time of ages.
    """

    def __init__(self, open_cursor: Callable[[], Any], queue: str, *,
                 where: Where | None = None, where_text: str | None = None,
                 now: datetime | None = None, page_size: int = 200,
                 window_rows: int = 1000, window_bytes: int = 64 * 1024 * 1024,
                 local_qmgr: str | None = None, select: Selector | None = None,
                 total: Callable[[], int | None] | None = None) -> None:
        self._open_cursor = open_cursor
        # the backend selects the messages that may match (``ops.browse.selector``): only
        # those are read, each with its position; ``total`` gives the queue's count at the end
        self._select = select
        self._after: object | None = None
        self._total = total
        self.queue = queue
        self.where = where
        self.where_text = where_text
        self.now = now or datetime.now(UTC)
        self.page_size = max(1, page_size)
        self.window_rows = max(self.page_size * 2, window_rows)
        self.window_bytes = window_bytes
        self.local_qmgr = local_qmgr
        self.source: BrowseModel | None = None  # the model this one filters without a browse
        self.index = LightIndex(local_qmgr or "")  # "": not known yet, so always shown
        self.summary = SummaryBuilder(queue, now=self.now, local_qmgr=local_qmgr or "")
        self.scanned = 0  # messages read from the queue (matching or not; selecting: the
        # position reached)
        self.done = False  # the cursor reached the end of the queue
        self.stopped = False  # the operator stopped the read: the list is what was read
        self.depth_hint: int | None = None  # CURDEPTH when the listing started
        self._cursor: Any = None
        self._window: OrderedDict[int, MessageView] = OrderedDict()  # position -> view
        self._window_size = 0
        self._pending: list[Any] = []  # read from the cursor, not yet listed (a stopped read)
        self._pending_last = False  # ...and they were the queue's last batch
        self._lock = threading.Lock()  # one reader of the cursor at a time
        self.closed = False

    # -- reading (thread worker) ------------------------------------------------------------
    @property
    def count(self) -> int:
        return self.index.count

    def read_until(self, rows: int | None, *, cancel: threading.Event | None = None,
                   progress: Callable[[BrowseModel], None] | None = None) -> int:
        """Read forward until ``rows`` rows are listed (None: to the end of the queue).

        Returns the number of rows listed. Raises :class:`Cancelled` when ``cancel`` is set
        (the rows read so far stay listed) and ``MQError`` when the queue manager fails.
        """
        with self._lock:
            if self.closed:
                return self.count
            while not self.done and (rows is None or self.count < rows):
                if self.closed:
                    break
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                want = self.page_size if rows is None else max(1, min(self.page_size * 5,
                                                                       rows - self.count))
                if self.where is not None and self._select is None:
                    want = self.page_size  # messages browsed, of which some match
                if self._pending:
                    batch, last = self._pending, self._pending_last
                    self._pending = []
                else:
                    batch, last = self._next(want)
                for n, (position, message) in enumerate(batch):
                    if cancel is not None and cancel.is_set():
                        self._pending, self._pending_last = batch[n:], last
                        raise Cancelled()
                    position = position or self.scanned + 1
                    view = MessageView(position, message, self.now)
                    try:
                        keep = self.where is None or self.where.matches(view)
                    except BaseException:  # an interrupt: kept, so nothing is skipped unseen
                        self._pending, self._pending_last = batch[n:], last
                        raise
                    self.scanned = position
                    if keep:  # the summary follows the filter
                        self.summary.add(view)
                        self._remember(view)
                        self.index.append(view)
                if last:
                    if self._total is not None:  # selected: how many a browse met
                        self.scanned = max(self.scanned, self._total() or 0)
                    self.done = True
                    self._close_cursor()
                if progress is not None:
                    progress(self)
            return self.count

    def use_select(self, select: Selector, total: Callable[[], int | None] | None = None
                   ) -> None:
        """Read only what ``select`` selects (before anything is read)."""
        self._select, self._total = select, total

    def _next(self, want: int) -> tuple[list[tuple[int | None, Any]], bool]:
        """The next messages read (with their positions when selected), and whether they
        were the queue's last."""
        if self._select is not None:
            found, self._after = self._select(self._after, want)
            return list(found), self._after is None
        if self._cursor is None:
            self._cursor = self._open_cursor()
        batch = self._cursor.next_batch(want)
        return [(None, m) for m in batch], len(batch) < want

    # -- what the list asks of its rows (tui.rows.RowSource) ---------------------------------
    reads_in_order = True  # one browse from the start, read ahead as the list needs rows
    can_count_facts = False  # its summary is made from the rows read
    summary_pending = False
    quick = False

    @property
    def known(self) -> bool:
        return self.done

    def missing(self, first: int, last: int) -> list[int]:
        """No pages: the rows are read ahead (``read_until``)."""
        return []

    def load(self, pages: list[int]) -> None:
        """No pages to load (see :meth:`missing`)."""

    def load_now(self, pages: list[int]) -> bool:
        return False

    def count_facts(self, summarize: Callable[[Any], bool]) -> None:
        """Its summary is made from the rows read (``can_count_facts`` is False)."""

    def rows_before(self, row: int, positions: set[int]) -> int:
        """How many of the rows before ``row`` hold the messages at ``positions`` (a
        filtered list's rows are not its positions)."""
        listed = self.index.positions
        return sum(1 for i in range(min(row, self.count)) if listed[i] in positions)

    def has_row(self, i: int) -> bool:
        return 0 <= i < self.count

    def row_at(self, i: int) -> Row | None:
        return self.index.row(i) if 0 <= i < self.count else None

    def can_filter(self) -> bool:
        """Whether :meth:`filtered` can work from the messages already read."""
        base = self.source or self
        return base.done and base.where is None and len(base._window) == base.count

    def filtered(self, where: Where | None, where_text: str | None, *,
                 cancel: threading.Event | None = None,
                 progress: Callable[[int, int, int], None] | None = None
                 ) -> BrowseModel | None:
        """The rows ``where`` matches, made from the messages already read (no browse), with
        their own summary — when the unfiltered model was read to its end and every message
        is still in the window; None otherwise (browse again). ``where`` None: that model.
        A filter over many messages takes a while (a large queue's payloads searched):
        the console runs this in a worker, and ``cancel`` stops it between two messages
        (:class:`Cancelled`); ``progress(read, matched, of)`` is called after each."""
        base = self.source or self
        if not self.can_filter():
            return None
        if where is None:
            return base
        out = BrowseModel(base._open_cursor, base.queue, where=where, where_text=where_text,
                          now=base.now, page_size=base.page_size,
                          window_rows=base.window_rows, window_bytes=base.window_bytes,
                          local_qmgr=base.local_qmgr)
        out.source, out.depth_hint = base, base.depth_hint
        for i in range(base.count):
            if cancel is not None and cancel.is_set():
                raise Cancelled
            view = base._window[base.index.positions[i]]
            out.scanned += 1
            if where.matches(view):
                out.summary.add(view)
                out._remember(view)
                out.index.append(view)
            if progress is not None:  # (read, matched, of): the caller says it in time
                progress(out.scanned, out.count, base.count)
        out.done = True
        return out

    def _remember(self, view: MessageView) -> None:
        self._window[view.position] = view
        self._window_size += len(view.message.body)
        while self._window and (len(self._window) > self.window_rows
                                or self._window_size > self.window_bytes):
            _, old = self._window.popitem(last=False)
            self._window_size -= len(old.message.body)

    def view(self, i: int) -> MessageView | None:
        """The full view of row ``i`` when it is still in the window (no I/O)."""
        if not 0 <= i < self.count:
            return None
        return self._window.get(self.index.positions[i])

    def fetch(self, i: int, *, cancel: threading.Event | None = None) -> MessageView:
        """The full view of row ``i``: from the window, or by browsing again from the start.

        Raises ``LookupError`` when the queue changed so that the message is no longer at
        its position (the caller suggests a refresh).
        """
        cached = self.view(i)
        if cached is not None:
            return cached
        position = self.index.positions[i]
        msgid = self.index.msgid(i)
        seen = 0
        cursor = self._open_cursor()
        try:
            while seen < position:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                batch = cursor.next_batch(min(self.page_size * 5, position - seen))
                if not batch:
                    break
                for message in batch:
                    seen += 1
                    if seen == position:
                        view = MessageView(position, message, self.now)
                        if bytes(view.md.msg_id)[:MSGID_LEN].ljust(MSGID_LEN, b"\0") != msgid:
                            break
                        self._remember(view)
                        return view
        finally:
            cursor.close()
        raise LookupError(f"message {position} of {self.queue} is no longer where it was "
                          "listed (the queue changed): refresh the list")

    # -- an operation took messages away (update, don't read again) -------------------------
    def drop(self, left: set[int]) -> bool:
        """The messages at queue positions ``left`` left the queue (an operation of the
        console moved or deleted them): their rows go, the positions after them move up,
        the window and the summary follow — nothing is read. False when the model is being
        read (the caller reads the list again instead)."""
        if not left or not self._lock.acquire(blocking=False):
            return not left
        try:
            if not (self.done or self.stopped) or self._pending:
                return False
            if self.source is not None and not self.source.drop(left):
                self.source = None  # its filters browse again
            gone = sorted(left)
            rows = {i for i in range(self.count) if self.index.positions[i] in left}

            def moved(position: int) -> int:
                return position - bisect.bisect_left(gone, position)

            window: OrderedDict[int, MessageView] = OrderedDict()
            size = 0
            for position, view in self._window.items():
                if position in left:
                    continue
                view.position = moved(position)  # (idempotent: a filter shares the views)
                window[view.position] = view
                size += len(view.message.body)
            complete = len(self._window) == self.count
            self._window, self._window_size = window, size
            self.index = self.index.without(rows, moved)
            self.scanned = max(0, self.scanned - len(gone))
            if self.depth_hint is not None:
                self.depth_hint = max(0, self.depth_hint - len(gone))
            if complete:  # the summary made again of what is listed (else it stays as read)
                self.summary = SummaryBuilder(self.queue, now=self.now,
                                              local_qmgr=self.local_qmgr or "")
                for view in window.values():
                    self.summary.add(view)
            return True
        finally:
            self._lock.release()

    # -- what the screen shows --------------------------------------------------------------
    def row(self, i: int) -> Row:
        return self.index.row(i)

    def positions_of(self, msgid: bytes) -> list[int]:
        """Listed positions holding ``msgid`` (MsgIds need not be unique)."""
        out = []
        ids = self.index.msgids
        n = 0
        while True:
            at = ids.find(msgid, n)
            if at < 0:
                break
            if at % MSGID_LEN == 0:
                out.append(self.index.positions[at // MSGID_LEN])
            n = at + 1
        return out

    def total_label(self) -> str:
        """``M`` of "showing N of M": exact once read to the end, else the depth (about)."""
        if self.done:
            return f"{self.scanned:,}"
        if self.depth_hint is not None:
            return f"~{max(self.depth_hint, self.scanned):,}"
        return f"{self.scanned:,}+"

    def expected_rows(self) -> int:
        """Rows the list should make room for: all of them when known, else an estimate."""
        if self.done or self.where is not None or self.stopped:
            return self.count
        return max(self.count, self.depth_hint or 0)

    def close(self) -> None:
        self.closed = True
        if self._lock.acquire(timeout=5):
            try:
                self._close_cursor()
            finally:
                self._lock.release()
        self._window.clear()

    def _close_cursor(self) -> None:
        if self._cursor is not None:
            with contextlib.suppress(Exception):  # closing never masks the outcome
                self._cursor.close()
            self._cursor = None


__all__ = ["BrowseModel", "Cancelled", "LightIndex", "Row"]

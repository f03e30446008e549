"""The rows of a whole queue read page by page at any position, for a backend that can
(``backends.base.ReadsByPosition``: the embedded queue manager).

Where MQ can only browse forward (``browsing.BrowseModel``: End reads every message before
the last screen), a backend that reads a page at a position lets the list jump: the count
of messages is known from the first page, and only the pages that come into view are read
(End: the last screenful; PageDown: the next). Row ``i`` is the message at position
``i + 1``, counted as a browse from the start counts it. Pages are kept in a bounded
cache, so memory does not grow with the queue.

A backend that also lists rows at positions (``backends.base.ListsByPosition``: the
embedded one, from the facts it keeps beside each message) gives the pages as rows,
without bodies: the list draws them as read (:class:`ListedRows`), and a message's body
is read when it is opened (:meth:`PagedModel.fetch`). Otherwise the pages' messages are
made into views, kept as light indexes (``browsing.LightIndex``), the views in a bounded
window.

When a page says the queue's count changed, the other cached pages are dropped (their
positions may have moved); the count follows the queue.

The whole queue's summary comes from the backend's count of facts when asked (``E``), or
at once on a small queue; until then the panel says so. No Textual here: the screen calls
:meth:`load` in a thread worker and reads :attr:`count`, :meth:`has_row` and :meth:`row` on
the event loop.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from mqconsole.backends.base import ListedPage, PositionedPage
from mqconsole.mq.facts import destination_label
from mqconsole.ops.browse import PageReader, RowReader
from mqconsole.ops.selection import Mark
from mqconsole.ops.summary import SummaryBuilder
from mqconsole.ops.views import MessageView
from mqconsole.tui.browsing import MSGID_LEN, NO_REASON, TOKEN_LEN, LightIndex, Row

MAX_ROWS = 12_800  # rows kept, in whole pages (light rows only: a few dozen bytes a row)
LISTED_PAGE = 8  # rows a page of listed rows holds: the rows in view are read, and at most
# seven more at either end (consecutive pages in one read)


class ListedRows:
    """A page of rows as the backend listed them (``ListsByPosition.rows_at``), made into
    the list's rows when drawn, as a ``LightIndex`` of the same messages' views gives
    them (its MsgId and token widths, its clamps of reason and BackoutCount)."""

    __slots__ = ("count", "first", "local_qmgr", "positions", "rows")

    def __init__(self, page: ListedPage, local_qmgr: str) -> None:
        self.first = page.first
        self.rows = page.rows
        self.count = len(page.rows)
        self.positions = range(page.first, page.first + self.count)
        self.local_qmgr = local_qmgr

    def row(self, n: int, index: int | None = None) -> Row:
        """Row ``n`` of the page (``index``: its number in the whole list; else ``n``)."""
        r = self.rows[n]
        reason = r.reason
        if reason is not None:
            reason = max(-(2**31), min(reason, 2**31 - 1))
            if reason == NO_REASON:
                reason = None
        return Row(n if index is None else index, self.first + n, self.msgid(n),
                   None if r.put_us is None else r.put_us / 1_000_000, r.length,
                   max(0, min(r.backout_count, 0xFFFFFFFF)), reason, r.format or "",
                   destination_label(r.dest_q, r.dest_qmgr, self.local_qmgr) or "")

    def msgid(self, n: int) -> bytes:
        return bytes(self.rows[n].msg_id)[:MSGID_LEN].ljust(MSGID_LEN, b"\x00")

    def mark(self, n: int) -> Mark:
        return Mark(self.msgid(n), token=bytes(self.rows[n].token)[:TOKEN_LEN]
                    .ljust(TOKEN_LEN, b"\x00"))


class _Positions:
    """``index.positions[i]`` of the forward model: row ``i`` is position ``i + 1``."""

    def __init__(self, model: PagedModel) -> None:
        self._model = model

    def __getitem__(self, i: int) -> int:
        if isinstance(i, slice):
            return [n + 1 for n in range(*i.indices(self._model.count))]
        return i + 1


class _Index:
    """What the list and the targets ask of ``model.index`` (positions, marks)."""

    def __init__(self, model: PagedModel) -> None:
        self._model = model
        self.positions = _Positions(model)

    def mark(self, i: int) -> Mark:
        return self._model._light(i).mark(i % self._model.page_size)

    def msgid(self, i: int) -> bytes:
        return self._model._light(i).msgid(i % self._model.page_size)


class PagedModel:
    """Every message of one queue, unfiltered, read a page at a time where it is shown.

    ``read_page(position, n)`` is the backend's ``page_at`` on the queue (None: it cannot
    answer; :meth:`load` raises ``LookupError`` then); ``read_rows(position, n)`` its
    ``rows_at``, when it lists rows (pages are read with it then, consecutive ones at
    once, and ``read_page`` reads only the messages opened).
    """

    where = None
    where_text = None
    source = None
    stopped = False
    done = True  # the count is known: nothing to read forward to

    def __init__(self, read_page: PageReader, queue: str, *, read_rows: RowReader | None = None,
                 now: datetime | None = None, page_size: int = 200, window_rows: int = 1000,
                 window_bytes: int = 64 * 1024 * 1024, local_qmgr: str | None = None) -> None:
        self._read_page = read_page
        self._read_rows = read_rows
        # rows listed in process (the embedded backend): the screen may read a screenful on
        # the event loop (:meth:`load_now`); it stops when a read was slow
        self.quick = read_rows is not None
        self.queue = queue
        self.now = now or datetime.now(UTC)
        self.page_size = max(1, page_size)
        self.max_pages = max(2, MAX_ROWS // self.page_size)
        self.window_rows = max(self.page_size * 2, window_rows)
        self.window_bytes = window_bytes
        self.local_qmgr = local_qmgr
        self.count = 0
        self.known = False  # a page was read: ``count`` is the queue's
        self.depth_hint: int | None = None
        self.index = _Index(self)
        self.summary = SummaryBuilder(queue, now=self.now, local_qmgr=local_qmgr or "")
        self.counted = False  # the summary holds the whole queue's figures
        self._pages: OrderedDict[int, LightIndex | ListedRows] = OrderedDict()
        self._window: OrderedDict[int, MessageView] = OrderedDict()  # position -> view
        self._window_size = 0
        self._lock = threading.Lock()
        self.closed = False

    @property
    def scanned(self) -> int:
        return self.count

    # -- reading (thread worker) -----------------------------------------------------------
    def missing(self, first: int, last: int) -> list[int]:
        """Page numbers not read among rows ``first`` to ``last`` (exclusive)."""
        if not self.known:
            return [0]
        last = min(last, self.count)
        if first >= last:
            return []
        pages = range(first // self.page_size, (last - 1) // self.page_size + 1)
        return [p for p in pages if p not in self._pages]

    def load(self, pages: list[int]) -> None:
        """Read these pages (page ``p``: rows ``p * page_size`` on)."""
        with self._lock:
            self._load(pages)

    def load_now(self, pages: list[int]) -> bool:
        """:meth:`load`, unless another thread is reading (False: nothing read). For the
        event loop, when rows are listed (:attr:`quick`): a screenful's rows cost about
        what drawing them does, less than a hand-off to a thread and back."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            self._load(pages)
        finally:
            self._lock.release()
        return True

    def _load(self, pages: list[int]) -> None:
        if self._read_rows is not None:
            self._load_listed(pages)
            return
        for p in pages:
            if self.closed:
                return
            if self.known and p in self._pages:
                continue
            page = self._read_page(p * self.page_size + 1, self.page_size)
            if page is None:
                raise LookupError(self._cannot())
            self._store(p, page)

    def _cannot(self) -> str:
        return (f"{self.queue}: the queue manager cannot read a page at a position now: "
                "r browses it again")

    def _load_listed(self, pages: list[int]) -> None:
        """Each run of consecutive pages not read, in one ``rows_at``."""
        wanted = sorted({p for p in pages if not (self.known and p in self._pages)})
        runs: list[list[int]] = []
        for p in wanted:
            if runs and runs[-1][-1] == p - 1:
                runs[-1].append(p)
            else:
                runs.append([p])
        size = self.page_size
        for run in runs:
            if self.closed:
                return
            read = self._read_rows(run[0] * size + 1, len(run) * size)  # type: ignore[misc]
            if read is None:
                raise LookupError(self._cannot())
            self._changed(read.total)
            for n, p in enumerate(run):
                rows = read.rows[n * size:(n + 1) * size]
                self._keep(p, ListedRows(ListedPage(read.total, read.first + n * size, rows),
                                         self.local_qmgr or ""))
            self.count = read.total
            self.known = True

    def _changed(self, total: int) -> None:
        if self.known and total != self.count:
            self._pages.clear()  # the queue changed: other pages' positions may have moved
            self._window.clear()
            self._window_size = 0

    def _keep(self, p: int, page: LightIndex | ListedRows) -> None:
        self._pages[p] = page
        self._pages.move_to_end(p)
        while len(self._pages) > self.max_pages:
            self._pages.popitem(last=False)

    def _store(self, p: int, page: PositionedPage) -> None:
        light = LightIndex(self.local_qmgr or "")
        views = [MessageView(page.first + n, m, self.now) for n, m in enumerate(page.messages)]
        for view in views:
            light.append(view)
        self._changed(page.total)
        self._keep(p, light)
        for view in views:
            self._remember(view)
        self.count = page.total
        self.known = True

    def _remember(self, view: MessageView) -> None:
        old = self._window.pop(view.position, None)
        if old is not None:
            self._window_size -= len(old.message.body)
        self._window[view.position] = view
        self._window_size += len(view.message.body)
        while self._window and (len(self._window) > self.window_rows
                                or self._window_size > self.window_bytes):
            _, gone = self._window.popitem(last=False)
            self._window_size -= len(gone.message.body)

    def count_facts(self, summarize: Callable[[SummaryBuilder], bool]) -> None:
        """The whole queue's summary: ``summarize(builder)`` fills a new builder (False:
        the backend could not count)."""
        builder = SummaryBuilder(self.queue, now=self.now, local_qmgr=self.local_qmgr or "")
        if summarize(builder):
            self.summary, self.counted = builder, True

    # -- an operation took messages away (update, don't read again) -------------------------
    # -- what the list asks of its rows (tui.rows.RowSource) ---------------------------------
    reads_in_order = False  # a page is read where the list shows it

    def read_until(self, rows: int | None, *, cancel: threading.Event | None = None,
                   progress: Callable[[Any], None] | None = None) -> int:
        """Nothing is read ahead: a page is read where it is shown (:meth:`load`)."""
        return self.count

    @property
    def can_count_facts(self) -> bool:
        """The backend can count the whole queue's summary, and has not yet."""
        return not self.counted

    @property
    def summary_pending(self) -> bool:
        return not self.counted

    def rows_before(self, row: int, positions: set[int]) -> int:
        """Row ``i`` is position ``i + 1``: the positions up to the row's."""
        return sum(1 for p in positions if p <= row)

    def drop(self, left: set[int]) -> bool:
        """The messages at positions ``left`` left the queue: the pages read are forgotten
        (their positions moved) and only those shown are read again, a page each; the
        count goes down by as many. The whole queue's summary is no longer counted."""
        with self._lock:
            if not left:
                return True
            self._pages.clear()
            self._window.clear()
            self._window_size = 0
            self.count = max(0, self.count - len(left))
            if self.counted:
                self.summary = SummaryBuilder(self.queue, now=self.now,
                                              local_qmgr=self.local_qmgr or "")
                self.counted = False
            return True

    # -- what the screen shows -------------------------------------------------------------
    def _light(self, i: int) -> LightIndex | ListedRows:
        light = self._pages.get(i // self.page_size)
        if light is None or i % self.page_size >= light.count:
            raise LookupError(f"row {i} is not read")
        return light

    def has_row(self, i: int) -> bool:
        light = self._pages.get(i // self.page_size)
        return light is not None and i % self.page_size < light.count

    def row(self, i: int) -> Row:
        row = self.row_at(i)
        if row is None:
            raise LookupError(f"row {i} is not read")
        return row

    def row_at(self, i: int) -> Row | None:
        """Row ``i``, or None when its page is not read (one look: a worker may drop the
        page meanwhile, never change it)."""
        light = self._pages.get(i // self.page_size)
        n = i % self.page_size
        if light is None or n >= light.count:
            return None
        if isinstance(light, ListedRows):
            return light.row(n, i)
        r = light.row(n)
        return Row(i, r.position, r.msgid, r.put, r.length, r.backout, r.reason, r.format,
                   r.dest)

    def view(self, i: int) -> MessageView | None:
        if not 0 <= i < self.count:
            return None
        return self._window.get(i + 1)

    def fetch(self, i: int, *, cancel: threading.Event | None = None) -> MessageView:
        """Row ``i``'s full view, read again at its position (its MsgId checked)."""
        cached = self.view(i)
        if cached is not None:
            return cached
        msgid = self.index.msgid(i) if self.has_row(i) else None
        with self._lock:  # one reader of the connection at a time (see load_now)
            page = self._read_page(i + 1, 1)
        if page is not None and page.messages:
            view = MessageView(i + 1, page.messages[0], self.now)
            if msgid is None or bytes(view.md.msg_id)[:MSGID_LEN].ljust(
                    MSGID_LEN, b"\0") == msgid:
                self._remember(view)
                return view
        raise LookupError(f"message {i + 1} of {self.queue} is no longer where it was "
                          "listed (the queue changed): refresh the list")

    def positions_of(self, msgid: bytes) -> list[int]:
        out = []
        for light in self._pages.values():
            for n in range(light.count):
                if light.msgid(n) == msgid:
                    out.append(light.positions[n])
        return sorted(out)

    def total_label(self) -> str:
        return f"{self.count:,}" if self.known else "…"

    def expected_rows(self) -> int:
        return self.count

    def can_filter(self) -> bool:
        """No filtering of what was read: the backend selects (browse with it)."""
        return False

    def filtered(self, where: Any, where_text: str | None, *,
                 cancel: Any = None, progress: Any = None) -> PagedModel | None:
        """No filtering of what was read: the backend selects (None: browse with it)."""
        return self if where is None else None

    def close(self) -> None:
        self.closed = True
        if self._lock.acquire(timeout=5):
            self._lock.release()
        self._pages.clear()
        self._window.clear()


__all__ = ["PagedModel"]

"""The messages of one queue, browsed lazily, forward, in pages.

The list opens on the first page while the queue's depth sizes the scrollbar; pages are read
in a thread worker as rows come into view (``End`` reads to the end, with progress; ``escape``
stops a long read before it leaves the screen). ``/`` filters with the ``--where`` language
(docs/where.md): a new filter starts a new browse, since MQ can only browse forward.
``space`` marks, ``*`` marks every message the filter matches, ``U`` clears the marks.
"""

from __future__ import annotations

import bisect
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static
from textual.worker import WorkerCancelled, get_current_worker

from mqconsole.ops.browse import page_reader, row_reader, selector
from mqconsole.ops.selection import Mark
from mqconsole.ops.summary import add_queue_counts, format_bytes
from mqconsole.ops.timefmt import format_age
from mqconsole.ops.where import WhereError, compile_where
from mqconsole.ops.words import counted
from mqconsole.tui import clipboard
from mqconsole.tui import keys as K
from mqconsole.tui.browsing import BrowseModel, Cancelled
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import Reported, in_thread, start
from mqconsole.tui.paging import LISTED_PAGE, PagedModel
from mqconsole.tui.requests import ShowMessage
from mqconsole.tui.rows import RowSource
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.targets import hidden_marks
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.filter_bar import FilterBar
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.message_list import MessageList, header_text, short_reason

PROGRESS_EVERY = 0.15  # seconds between screen updates while reading
AUTO_READ = 5000  # queues up to this depth are read whole at once (complete summary)
AUTO_COUNT = 50_000  # read page by page: the summary is counted at once up to this depth
QUICK_READ = 0.02  # seconds: a page model's rows read on the event loop while reads are this fast
QUICK_ROWS = 200  # ... and no more rows at once than a tall screen shows
# the screen's worker groups: a new browse cancels BROWSE, DEPTH and FRESHNESS (their
# results, even those already in, are dropped), a filter of what was read BROWSE and
# FRESHNESS; the screen's going cancels them all (FETCH too)
BROWSE, DEPTH, FRESHNESS, FETCH = "browse", "depth", "freshness", "fetch"
T = TypeVar("T")


def summary_text(model: RowSource, width: int, depth_now: int | None = None,
                 counting: bool = False) -> Text:
    if model.summary_pending:
        out = Text(no_wrap=False)
        if not model.known:
            out.append("reading…")
        elif not model.count:
            out.append("The queue is empty.")
        else:
            out.append(counted(model.count, grouped=True), "bold")
            out.append(" · counting the summary…" if counting else
                       " · E counts the whole queue's summary", "dim")
        return out
    s = model.summary.result()
    total = s["total"]
    out = Text(no_wrap=False)
    scope = "" if model.done else f"  (of the first {model.scanned:,} read — E reads all)"
    if not total:
        if model.done and depth_now:  # read empty, and messages came since
            out.append(f"The queue was empty when read; it holds {depth_now:,} now: r reads "
                       "them.", "bold yellow")
        else:
            out.append("The queue is empty." if model.done else "reading…")
        return out
    out.append(counted(total, grouped=True), "bold")
    out.append(f" · {format_bytes(s['total_bytes'])}")
    if s["oldest"]:
        out.append(f" · oldest {format_age(s['oldest'].get('age_seconds'))}")
    if s["youngest"]:
        out.append(f" · youngest {format_age(s['youngest'].get('age_seconds'))}")
    out.append(f" · avg {format_bytes(s['average_bytes'])}")
    out.append(scope, "dim")
    groups = [g for g in s["by_reason_and_dest"] if g["reason"] is not None]
    if groups:
        out.append("\n")
        parts = []
        for g in groups[:6]:
            dest = clean(g["destination"]) or "-"
            parts.append(f"{short_reason(g['reason'])}→{dest} {g['count']}")
        if len(groups) > 6:
            parts.append(f"+{len(groups) - 6} more")
        out.append("Reasons: ", "bold")
        out.append(" · ".join(parts))
    out.append("\n")
    out.append("Age ", "bold")
    out.append(" ".join(f"{k}:{v}" for k, v in s["by_age"].items() if v) or "-")
    out.append("  Size ", "bold")
    out.append(" ".join(f"{k}:{v}" for k, v in s["by_size"].items() if v) or "-")
    out.append("  Backouts ", "bold")
    backouts = list(s["by_backout_count"].items())
    out.append(" ".join(f"{k}:{v}" for k, v in backouts[:5]) + (" …" if len(backouts) > 5 else ""))
    return out


FIXED_PANELS = frozenset({"#status"})
"""Panels whose size their text never changes (console.tcss: ``height: 1``, the screen's
width): updated without a layout."""


class MessagesScreen(ConsoleScreen):
    HELP_NAME = "messages"
    KEYS = [*K.MESSAGE_KEYS, K.BACK]
    BINDINGS = K.bindings([*K.MESSAGE_KEYS, K.BACK])
    AUTO_FOCUS = "#messages"

    def __init__(self, ctx: ConsoleContext, queue: str, *, where: str | None = None) -> None:
        super().__init__(ctx)
        self.queue = queue
        self._initial_where = where  # opened from the audit's report with a row's filter
        self.model: RowSource | None = None
        self._conn: Any = None
        self._want: int | None = 0
        self._reading = False
        self._cancel = threading.Event()
        self.depth: int | None = None
        self.depth_now: int | None = None  # the depth asked since the list was read
        self._paging: RowSource | None = None  # the PagedModel a worker reads pages of
        self._pages_wanted: list[int] = []
        self._counting: RowSource | None = None  # the model whose summary a worker counts
        self._filtering = False  # a worker filters the messages read (``_filter_read``)
        self._shown: dict[str, Text] = {}  # the panels' texts, as last updated
        self._remembered: str | None = None  # the filter it opened with, kept from before
        self._filtered_so_far: tuple[int, int, int] | None = None  # a filter's progress

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, self.queue)
        yield Static(Text("reading…"), id="summary")
        yield Static(Text(""), id="header")
        yield MessageList(id="messages")
        yield Static(Text(""), id="status")
        yield FilterBar("where", placeholder="reason = Q_FULL and age > 1h   (docs/where.md)",
                        id="filter")
        yield Footer()

    def _columns(self):
        """The site plugins' audit columns as filter fields (a report row's filter)."""
        from mqconsole.ops.where_columns import column_fields

        return column_fields(self.ctx.plugins)

    def on_mount(self) -> None:
        text = self._initial_where or self.ctx.remembered_filter(self.queue)
        if not self._initial_where:
            self._remembered = text
        where = None
        if text:
            try:
                where = compile_where(text, self._columns())
            except WhereError:  # a remembered filter whose plugin column went: none
                if self._initial_where:
                    raise
                text = None
                self.ctx.remember_filter(self.queue, None)
        self.start_browse(text, where)
        seconds = self.ctx.settings.refresh_seconds
        if seconds > 0:
            self.set_interval(seconds, self.check_fresh)

    def on_unmount(self) -> None:
        self._stop()

    def on_screen_resume(self) -> None:
        self.query_one(Banner).refresh()
        if not self.take_change():
            self.check_fresh()

    def take_change(self) -> bool:
        """The change an operation made to this queue, if any: the rows that left dropped
        (``update_after``) or the list read again. Whether there was one."""
        changed, left = self.ctx.take_change(self.queue)
        if changed:
            if left is None:
                self.action_refresh()
            else:
                self.update_after(left)
        return changed

    def check_fresh(self) -> None:
        """Ask the queue's depth (in a worker): a list read to its end says when the queue
        changed under it ('+3 new, r to refresh') instead of showing what is gone."""
        model = self.model
        if model is None or not model.done or self._reading:
            return
        self._start(self._check_fresh, what="inquire queue", group=FRESHNESS, exclusive=True)

    async def _check_fresh(self) -> None:
        ctx, queue = self.ctx, self.queue
        self.depth_now = await self._in_thread(
            lambda: ctx.conns.call(lambda qm: qm.inquire_queue(queue).depth),
            what="inquire queue", group=FRESHNESS)
        self._update_status()
        self._update_summary()

    # -- work off the event loop: flows of this screen's workers (mqconsole.tui.flow) ------
    def _start(self, flow: Callable[[], Awaitable[None]], *, what: str, group: str = BROWSE,
               exclusive: bool = False) -> None:
        start(self, flow, what=what, group=group, exclusive=exclusive)

    async def _in_thread(self, fn: Callable[[], T], *, what: str, group: str = BROWSE,
                         quiet: tuple[type[BaseException], ...] = ()) -> T:
        return await in_thread(self.ctx, fn, queue=self.queue, what=what, quiet=quiet,
                               group=group, node=self)

    def _cancel_work(self, *groups: str) -> None:
        """Cancel this screen's workers of ``groups``: their flows end where they wait,
        and a result they are given later is dropped."""
        for group in groups:
            self.workers.cancel_group(self, group)

    def _from_thread(self, fn: Callable[..., Any], *args: Any) -> None:
        """From a worker's thread: ``fn(*args)`` on the event loop soon, unless the worker
        has been cancelled by then (a newer browse, the screen gone)."""
        worker = get_current_worker()

        def run() -> None:
            if not worker.is_cancelled and self.is_attached:
                fn(*args)

        self.ctx.post_from_thread(run)

    def on_resize(self) -> None:
        self.query_one("#header", Static).update(
            Text(header_text(self.query_one(MessageList).scrollable_content_region.width)))
        self._update_summary()

    # -- browsing -----------------------------------------------------------------------------
    def stop_work(self) -> None:
        """Stop reading the queue (the console quits or switches profile)."""
        self._stop()

    def _stop(self) -> None:
        self._cancel.set()
        model = self.model
        conn = self._conn
        self.model = None
        self._conn = None
        if model is not None or conn is not None:
            ctx = self.ctx

            def close() -> None:
                if model is not None:
                    model.close()
                if conn is not None:
                    ctx.conns.release(conn)

            threading.Thread(target=close, name="close-browse", daemon=True).start()

    def start_browse(self, where_text: str | None, where) -> None:
        self.ctx.remember_filter(self.queue, where_text)
        self._stop()
        self._cancel_work(BROWSE, DEPTH, FRESHNESS)
        self._filtering = False
        self._cancel = threading.Event()
        ctx = self.ctx
        queue = self.queue
        holder: dict[str, Any] = {}
        self.depth_now = None

        def open_conn() -> Any:
            if holder.get("conn") is None:
                holder["conn"] = ctx.conns.new()
                self._conn = holder["conn"]
            return holder["conn"]

        model = BrowseModel(lambda: open_conn().browse(queue), queue, where=where,
                            where_text=where_text, now=ctx.settings.now(),
                            page_size=ctx.settings.page_size, local_qmgr=ctx.qmgr_name)
        self.model = model
        lst = self.query_one(MessageList)
        lst.set_model(model)
        first = max(lst.scrollable_content_region.height, 24) + model.page_size // 2
        self._want = first
        self._reading = True  # until the connection says how it reads (``_open``)
        self._update_status()
        self._update_summary()

        self._start(self._read_depth, what="inquire queue", group=DEPTH)
        cancel = self._cancel
        screenful = max(lst.scrollable_content_region.height, 24)  # then on to ``first``

        def how() -> PagedModel | None:
            """On the browse connection, before the first rows are read: a queue too deep
            to read whole at once, on a backend that reads pages at positions, becomes a
            ``PagedModel`` (its first page read here); a filter on facts is selected by the
            backend (its first screen read here); else the reader browses forward."""
            conn = open_conn()
            read = page_reader(conn, queue) if where is None else None
            page = read(1, 0) if read is not None else None  # the count a browse meets
            if read is not None and page is not None and page.total > AUTO_READ:
                rows = row_reader(conn, queue)  # a page's rows without their bodies
                paged = PagedModel(read, queue, read_rows=rows, now=model.now,
                                   page_size=model.page_size if rows is None else LISTED_PAGE,
                                   local_qmgr=ctx.qmgr_name)
                paged.load([0])
                if get_current_worker().is_cancelled:  # a newer browse, or the screen gone
                    paged.close()
                    return None
                return paged
            select = selector(conn, queue, where)
            if select is not None:
                model.use_select(select, lambda: self._count_of(conn))
            model.read_until(screenful, cancel=cancel)  # the first screen, in this worker
            return None

        self._start(lambda: self._open(model, how, lst), what="browse")

    async def _read_depth(self) -> None:
        """The queue's depth: it sizes the list; a queue this deep is read whole at once
        (or its summary counted)."""
        ctx, queue = self.ctx, self.queue
        d = await self._in_thread(lambda: ctx.conns.call(
            lambda qm: qm.inquire_queue(queue).depth), what="inquire queue", group=DEPTH)
        self.depth = d
        model = self.model
        if model is None:
            return
        model.depth_hint = d
        if d is not None and d <= AUTO_READ and model.reads_in_order:
            self._want = None
            self._ensure_reader()
        if not model.reads_in_order and d is not None and d <= AUTO_COUNT:
            self._count_facts()
        self.query_one(MessageList).rows_changed()
        self._update_status()

    async def _open(self, model: BrowseModel, how: Callable[[], PagedModel | None],
                    lst: MessageList) -> None:
        """Open the browse (``how``, on its connection) and read its first screen; a queue
        too deep to read whole becomes a ``PagedModel``."""
        try:
            paged = await self._in_thread(how, what="browse", quiet=(Cancelled,))
        except (Cancelled, Reported):
            self._reading = False
            self._want = 0
            self._rows_arrived()
            return
        self._reading = False
        if paged is not None:
            paged.depth_hint = model.depth_hint
            self.model = paged
            lst.set_model(paged)
            if self.depth is not None and self.depth <= AUTO_COUNT:
                self._count_facts()
        self._rows_arrived()
        self._ensure_reader()

    def _count_of(self, conn: Any) -> int | None:
        """How many messages a browse of the queue meets now (a selection's "of M")."""
        read = page_reader(conn, self.queue)
        page = read(1, 0) if read is not None else None
        return None if page is None else page.total

    def _count_facts(self) -> None:
        """The whole queue's summary, counted by the backend (a ``PagedModel``)."""
        model = self.model
        if model is None or not model.can_count_facts or self._counting is model:
            return
        self._counting = model
        self._update_summary()
        self._start(lambda: self._count(model), what="summary")

    async def _count(self, model: RowSource) -> None:
        ctx, queue = self.ctx, self.queue

        def count() -> None:
            conn = ctx.conns.new()  # its own: the main connection stays free meanwhile
            try:
                model.count_facts(lambda builder: add_queue_counts(conn, queue, builder))
            finally:
                ctx.conns.release(conn)

        try:
            await self._in_thread(count, what="summary")
        finally:
            if self._counting is model:
                self._counting = None
                if self.is_attached:
                    self._update_summary()

    def on_message_list_need_pages(self, event: MessageList.NeedPages) -> None:
        model = self.model
        if model is None or model.reads_in_order:
            return
        self._pages_wanted = event.pages
        if self._paging is model:
            return
        if model.quick and self._load_here(model, event.pages):
            return
        self._paging = model
        self._start(lambda: self._read_pages(model), what="browse")

    async def _read_pages(self, model: RowSource) -> None:
        """Read the pages the list wants until it wants none it has not (it may ask for
        more meanwhile); an error is reported once, and the same pages are asked again
        only when the view moves."""

        def read() -> None:
            worker = get_current_worker()
            while not worker.is_cancelled and not model.closed:
                pages = [p for p in self._pages_wanted if model.missing(
                    p * model.page_size, (p + 1) * model.page_size)]
                if not pages:
                    return
                model.load(pages)  # (listed rows: consecutive pages in one read)

        try:
            await self._in_thread(read, what="browse")
        except Reported:
            self._rows_arrived()
            return
        finally:
            if self._paging is model:
                self._paging = None
        self.query_one(MessageList).reset_asked()
        self._rows_arrived()

    def _load_here(self, model: RowSource, pages: list[int]) -> bool:
        """Read ``pages`` on the event loop, when the model lists rows in process: no hand-off
        to a thread and back before they are drawn. False when a worker reads it now (the
        screen hands the pages to a worker as before); a read slower than ``QUICK_READ``
        makes the model's later reads go to workers."""
        t0 = time.monotonic()
        try:
            if not model.load_now(pages[:max(1, QUICK_ROWS // model.page_size)]):
                return False
        except Exception as exc:  # reported once, as from a worker: asked again on a move
            self.ctx.report_error(exc, queue=self.queue, what="browse")
            self._rows_arrived()
            return True
        if time.monotonic() - t0 > QUICK_READ:
            model.quick = False
        self.query_one(MessageList).reset_asked()  # (asks for the rest, if any)
        self._rows_arrived()
        return True

    def on_message_list_need_rows(self, event: MessageList.NeedRows) -> None:
        if self.model is None:
            return
        if event.rows is None:
            self._want = None
            self.model.stopped = False
        elif self._want is not None:
            self._want = max(self._want, event.rows)
        self._ensure_reader()

    def _ensure_reader(self) -> None:
        model = self.model
        if model is None or not model.reads_in_order or self._reading or model.done:
            return
        if self._want is not None and model.count >= self._want:
            return
        self._reading = True
        cancel = self._cancel
        self._start(lambda: self._read(model, cancel), what="browse")

    async def _read(self, model: RowSource, cancel: threading.Event) -> None:
        """Read on until the list has the rows it wants (all: ``_want`` None), the rows
        shown as they come; ``escape`` stops it (``cancel``)."""
        last = [0.0]

        def progress(m: BrowseModel) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                self._from_thread(self._rows_arrived)

        def read() -> None:
            worker = get_current_worker()
            while not (worker.is_cancelled or cancel.is_set()):
                model.read_until(self._want, cancel=cancel, progress=progress)
                if model.done or (self._want is not None and model.count >= self._want):
                    return

        try:
            await self._in_thread(read, what="browse", quiet=(Cancelled,))
        except (Cancelled, Reported):
            self._reading = False
            self._want = model.count
            self._rows_arrived()
            return
        self._reading = False
        self._rows_arrived()
        self._ensure_reader()

    def _rows_arrived(self) -> None:
        if self.model is None or not self.is_attached:
            return
        self.query_one(MessageList).rows_changed()
        self._update_status()
        self._update_summary()

    def _update_status(self) -> None:
        model = self.model
        lst = self.query_one(MessageList)
        if model is None:
            return
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(f"showing {model.count:,} of {model.total_label()}", "bold")
        # the marks before the filter's text: a long filter (a MsgId's 48 digits) is what
        # the line's end cuts at 80 columns, never how many messages an action would take
        if lst.marked_count:
            marked = "all" if lst.all_marked else f"{lst.marked_count:,}"
            out.append(f" · {marked} marked", "bold")
            hidden = hidden_marks(lst, model)
            if hidden:
                out.append(f" ({hidden:,} hidden by the filter)", "bold yellow")
        if model.where_text:
            out.append(f" · matching {model.where_text}")
            out.append(f" ({model.scanned:,} read)")
            if self._remembered == model.where_text:
                out.append(" · the filter kept from before: F clears it", "bold")
        if self._filtering:
            so_far = self._filtered_so_far
            if so_far is None:
                out.append(" · filtering… (esc stops)")
            else:
                read, matched, of = so_far
                out.append(f" · filtering: {read:,} of {of:,} read, {matched:,} matched… "
                           "(esc stops)")
        elif self._reading and not model.done and not model.stopped:
            out.append(" · reading… (esc stops)")
        elif (model.done and model.where is None and self.depth_now is not None
              and self.depth_now != model.scanned):
            diff = self.depth_now - model.scanned
            said = f"+{diff:,} new" if diff > 0 else f"{-diff:,} gone"
            out.append(f" · the queue changed: {said}, r to refresh", "bold yellow")
        elif model.stopped and not model.done:
            out.append(f" · stopped after {model.scanned:,} read (End or E reads on)")
        self._show("#status", out)

    def _update_summary(self) -> None:
        if self.model is None:
            return
        self._show("#summary", summary_text(self.model, self.size.width, self.depth_now,
                                            self._counting is self.model))

    def _show(self, selector: str, text: Text) -> None:
        """Update a panel when its text changed: an update lays the screen out again, and
        a key that only moves through the list should repaint only the list. The status
        line is one line high and as wide as the screen whatever it says (console.tcss): its
        new text is only painted, the screen not laid out again."""
        if self._shown.get(selector) != text:
            self._shown[selector] = text
            self.query_one(selector, Static).update(text, layout=selector not in FIXED_PANELS)

    # -- keys ---------------------------------------------------------------------------------
    def action_dlq_handler(self) -> None:
        from mqconsole.tui.screens.dlq import DlqHandlerScreen

        self.app.push_screen(DlqHandlerScreen(self.ctx, self.queue))

    def action_back(self) -> None:
        bar = self.query_one(FilterBar)
        if bar.has_class("-open"):
            bar.action_close()
            return
        if self._filtering:
            self._cancel.set()  # the worker stops before its next message
            return
        if self._reading and self.model is not None and not self.model.done and (
                self._want is None or self.model.where_text is not None):
            # reading to the end, or a filtered browse still looking for its first screen
            # of matches (on a deep queue that is a search through the queue): stop it
            self._cancel.set()
            self._want = self.model.count
            self.model.stopped = True  # the list shrinks to what was read, the cursor on it
            self._cancel = threading.Event()
            self.query_one(MessageList).rows_changed()
            self._update_status()
            self.app.notify("Stopped reading; the rows read so far stay listed (End or E "
                            "reads on).", markup=False)
            return
        self.app.pop_screen()

    def action_refresh(self) -> None:
        model = self.model
        if model is None:
            self.start_browse(None, None)
            return
        self.query_one(MessageList).clear_marks()
        self.start_browse(model.where_text, model.where)

    def update_after(self, left: frozenset[Mark]) -> None:
        """An operation of this console took the marked messages ``left`` off the queue
        (and changed nothing else on it): their rows go, the positions after them move up,
        the cursor stays on its message (on the next row when its own went), the other
        marks and the filter stay — nothing is read again but the rows then shown of a
        queue read page by page. When the list cannot tell which rows they were, it is
        read again as before."""
        model = self.model
        lst = self.query_one(MessageList)
        if model is None or self._reading or self._filtering:
            self.action_refresh()
            return
        keys = {_key(m) for m in left}
        positions = {p for p, m in lst.marks.items() if _key(m) in keys}
        cursor = lst.cursor
        if model.has_row(cursor):
            with contextlib.suppress(LookupError):
                if _key(model.index.mark(cursor)) in keys:
                    positions.add(model.index.positions[cursor])
        if len(positions) != len(left):  # a message not listed here (or listed twice)
            self.action_refresh()
            return
        gone = sorted(positions)
        above = model.rows_before(cursor, positions)
        if not model.drop(positions):
            self.action_refresh()
            return

        def moved(p: int) -> int:
            return p - bisect.bisect_left(gone, p)

        lst.marks = {moved(p): m if m.position is None else replace(m, position=moved(p))
                     for p, m in lst.marks.items() if p not in positions}
        lst.cursor = max(0, cursor - above)
        lst.rows_changed()
        self._update_status()
        self._update_summary()
        if model.can_count_facts and self.depth is not None and self.depth <= AUTO_COUNT:
            self._count_facts()

    def action_clear_filter(self) -> None:
        """Clear the filter (and the one remembered for this queue): the whole queue."""
        model = self.model
        self.ctx.remember_filter(self.queue, None)
        if model is None or model.where is None:
            return
        if model.can_filter():
            self._filter_read(model, None, None)
            return
        self.start_browse(None, None)

    def action_filter(self) -> None:
        bar = self.query_one(FilterBar)
        bar.value = self.model.where_text or "" if self.model else ""
        bar.open()

    def on_filter_bar_changed(self, event: FilterBar.Changed) -> None:
        bar = self.query_one(FilterBar)
        if not event.submitted:
            self.query_one(MessageList).focus()
            return
        text = event.value.strip()
        if not text:
            where = None
        else:
            try:
                where = compile_where(text, self._columns())
            except WhereError as exc:
                bar.show_error(str(exc).splitlines()[0])
                return
        bar.close_quietly()
        self.query_one(MessageList).focus()
        model = self.model
        if model is not None and model.can_filter():
            self._filter_read(model, where, text or None)
            return
        self.start_browse(text or None, where)

    def _filter_read(self, model: RowSource, where: Any,
                     text: str | None) -> None:
        """A queue read to its end: filter the messages read, in a worker (a search through
        many large payloads takes a while, and the console must answer keys and signals
        meanwhile); ``escape`` stops it and leaves the list as it was. A filter that fails
        there browses as before, which says why. The reading has ended (the model says so,
        in the reader's thread): a reader whose end was not yet handled here is done with."""
        self._cancel_work(BROWSE, FRESHNESS)
        cancel = self._cancel = threading.Event()
        self._reading = False
        self._filtering = True
        self._filtered_so_far = None
        self._update_status()
        self._start(lambda: self._filter(model, where, text, cancel), what="filter")

    async def _filter(self, model: RowSource, where: Any, text: str | None,
                      cancel: threading.Event) -> None:
        last = [0.0]

        def progress(read: int, matched: int, of: int) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                self._from_thread(self._filter_progress, read, matched, of)

        try:
            quick = await self._in_thread(
                lambda: model.filtered(where, text, cancel=cancel, progress=progress),
                what="filter", quiet=(Exception,))
        except Cancelled:
            self._filtering = False
            self._update_status()
            self.app.notify("Stopped filtering; the list is as it was.", markup=False)
            return
        except WorkerCancelled:
            raise
        except Exception:  # the filter cannot run on what was read: a browse says why
            quick = None
        self._filtering = False
        if quick is None:
            self.start_browse(text, where)
            return
        self.model = quick
        self.ctx.remember_filter(self.queue, text)
        self.query_one(MessageList).set_model(quick)
        self._want, self._reading = None, False
        self._rows_arrived()

    def _filter_progress(self, read: int, matched: int, of: int) -> None:
        """How far a filter of the messages read has come (read and matched, said in the
        status line at least every ``PROGRESS_EVERY`` seconds)."""
        if self._filtering:
            self._filtered_so_far = (read, matched, of)
            self._update_status()

    def action_mark(self) -> None:
        lst = self.query_one(MessageList)
        if not lst.toggle_mark(lst.cursor):
            why = ("there are too many" if self.model is None or self.model.reads_in_order
                   else "not all of them are read")
            self.app.notify(f"Every message is marked; {why} to unmark one by one: U clears "
                            "the marks.", markup=False, severity="warning")
            return
        lst.action_cursor(1)
        self._update_status()

    def action_mark_all(self) -> None:
        model = self.model
        if model is None:
            return
        lst = self.query_one(MessageList)
        lst.all_marked = True
        lst.refresh()
        if not model.done:
            self._want = None
            self._ensure_reader()
        self._update_status()

    def action_unmark_all(self) -> None:
        self.query_one(MessageList).clear_marks()
        self._update_status()

    def action_summary(self) -> None:
        self.query_one("#summary").toggle_class("-hidden")

    def action_read_all(self) -> None:
        if self.model is not None and not self.model.reads_in_order:
            self._count_facts()
            return
        if self.model is not None and not self.model.done:
            self._want = None
            self.model.stopped = False
            self._ensure_reader()
            self._update_status()

    def action_open(self) -> None:
        lst = self.query_one(MessageList)
        self.open_row(lst.cursor)

    def on_message_list_opened(self, event: MessageList.Opened) -> None:
        self.open_row(event.row)

    def open_row(self, row: int) -> None:
        model = self.model
        if model is None or not model.has_row(row):
            return  # (a page not read yet: its rows are drawn as "reading")
        view = model.view(row)
        if view is not None:
            self.ctx.request(ShowMessage(self.queue, view))
            return
        if model.reads_in_order:  # (a page model reads at the position)
            self.app.notify(f"Browsing {self.queue} again to message "
                            f"{model.row(row).position:,}…", markup=False)
        self._fetch(model, row, lambda v: self.ctx.request(ShowMessage(self.queue, v)))

    def _fetch(self, model: RowSource, row: int, then: Callable[[Any], Any]) -> None:
        """The message at ``row`` read again (its view is not kept), then ``then(view)`` —
        unless the screen has gone meanwhile."""

        async def fetch() -> None:
            then(await self._in_thread(lambda: model.fetch(row), what="fetch message",
                                       group=FETCH))

        self._start(fetch, what="fetch message", group=FETCH)

    # -- actions ------------------------------------------------------------------------------
    def targets(self):
        from mqconsole.tui.targets import Targets

        return Targets.from_list(self.queue, self.query_one(MessageList), self.model)

    def plugin_targets(self, scope: str):
        """What a site plugin's action of ``scope`` would work on here."""
        from mqconsole.tui.targets import Targets

        if scope == "queue":
            return Targets.whole_queue(self.queue)
        if scope == "message":
            return Targets.under_cursor(self.queue, self.query_one(MessageList), self.model)
        return self.targets()

    def action_menu(self) -> None:
        t = self.targets()
        if t is not None:
            self.actions.menu(self, t)

    def _with_targets(self, fn) -> None:
        t = self.targets()
        if t is None:
            self.app.notify("No message under the cursor.", markup=False, severity="warning")
            return
        fn(t)

    def action_move(self) -> None:
        self._with_targets(lambda t: self.actions.transfer(t, copy=False))

    def action_copy(self) -> None:
        self._with_targets(lambda t: self.actions.transfer(t, copy=True))

    def action_resubmit(self) -> None:
        self._with_targets(self.actions.resubmit)

    def action_delete(self) -> None:
        self._with_targets(self.actions.delete)

    def action_save(self) -> None:
        self._with_targets(self.actions.save)

    def action_load(self) -> None:
        self.actions.load(self.queue)

    def action_put(self) -> None:
        self.actions.put(self.queue)

    def _current_view(self, then) -> None:
        model = self.model
        lst = self.query_one(MessageList)
        if model is None or not model.has_row(lst.cursor):
            self.app.notify("No message under the cursor.", markup=False, severity="warning")
            return
        row = lst.cursor
        view = model.view(row)
        if view is not None:
            then(view)
            return
        self._fetch(model, row, then)

    def action_edit(self) -> None:
        self._current_view(lambda v: self.actions.edit(self.queue, v))

    def action_edit_external(self) -> None:
        self._current_view(lambda v: self.actions.edit(self.queue, v,
                                                                   external=True))

    def action_copy_msgid(self) -> None:
        model = self.model
        lst = self.query_one(MessageList)
        if model is not None and model.has_row(lst.cursor):
            clipboard.copy_text(self.ctx, model.row(lst.cursor).msgid_hex, what="MsgId")

    def action_copy_payload(self) -> None:
        self._current_view(lambda v: clipboard.copy_payload(self.ctx, v))

    def action_save_payload(self) -> None:
        self._current_view(lambda v: clipboard.save_payload(self.ctx, v))


def _key(mark: Mark) -> object:
    """What names a mark's message: its token (with its MsgId) when it has one."""
    return (mark.msgid, mark.token) if mark.token is not None else mark


__all__ = ["MessagesScreen", "summary_text", "txt"]

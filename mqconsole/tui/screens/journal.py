"""The journal of changes: who did what, when, to which messages, and how it ended.

Newest first; ``enter`` shows a record (its counts and fields, then its MsgIds in a table
to page through: :mod:`journal_record`); ``/`` filters as you type by any text of a record
(operation, queue, operator, profile) or a MsgId (a hex text of 8 or more digits is also
looked for in the records' ids, in a worker, found by bytes without loading the file). The
files are only ever read in a worker, never on the event loop: the newest :data:`NEWEST`
changes first (the live file read backwards from its end, unit records counted, not
parsed), older ones as the cursor comes to the end of the list (four times as many each
time, up to :data:`MAX_ENTRIES`), and every change, rotated files included, for a filter
(issue 23 item 4). The list draws
only the rows in view (:class:`~mqconsole.tui.widgets.rowlist.RowList`), so showing or
filtering thousands of records costs what a screenful does.
"""

from __future__ import annotations

import re
from collections import deque

from rich.text import Text
from textual.app import ComposeResult
from textual.timer import Timer
from textual.widgets import Static

from mqconsole.ops.words import fit_count
from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import in_thread, launch
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.filter_bar import FilterBar
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.rowlist import RowColumn, RowList

MAX_ENTRIES = 5000
NEWEST = 60  # changes read first, from the end of the live file: at once however large
FILTER_DELAY = 0.12  # s: the list is filtered when typing pauses this long
_HEX_ID = re.compile(r"[0-9A-Fa-f]{8,48}")
FIXED_COLUMNS = (RowColumn("TIME (UTC)", 11), RowColumn("WHO", 8), RowColumn("OPERATION", 10))
COUNT_COLUMNS = (RowColumn("DONE", 5, right=True), RowColumn("FAIL", 4, right=True),
                 RowColumn("SKIPPED", 7, right=True))


def columns(width: int) -> list[RowColumn]:
    """The journal's columns for a terminal ``width`` wide: at 80 columns every count
    (done, failed, skipped) is on screen; the route takes what is left."""
    fixed = FIXED_COLUMNS + COUNT_COLUMNS
    used = sum(c.width for c in fixed) + len(fixed) + 1  # a space between, the scrollbar
    route = max(12, width - used)
    return [*FIXED_COLUMNS, RowColumn("SOURCE → DESTINATION", route), *COUNT_COLUMNS]


def shorten(name: str, width: int) -> str:
    """``name`` in ``width`` characters, its middle left out: both ends of a queue name
    tell it apart (APP.SETTLE…PRIORITY.BOQ1)."""
    if len(name) <= width:
        return name
    if width < 2:
        return "…"[:width]
    tail = (width - 1) // 2
    return name[:width - 1 - tail] + "…" + name[len(name) - tail:]


def fit_route(source: str, destinations: str, width: int) -> str:
    """``source → destinations`` in ``width`` characters: each side shortened in its middle,
    so the destination is never cut off the end (issue 15 item 9)."""
    if not destinations:
        return shorten(source, width)
    arrow = " → "
    if len(source) + len(arrow) + len(destinations) <= width:
        return source + arrow + destinations
    room = max(2, width - len(arrow))
    left = min(len(source), max(room // 2, room - len(destinations)))
    return shorten(source, left) + arrow + shorten(destinations, room - left)


def row(e, route_width: int = 200) -> list[Text]:
    """A record's cells in the list (every value made safe)."""
    counts = e.counts()
    skipped = counts["skipped"]
    interrupted = e.state == "interrupted"
    stopped = not interrupted and e.stopped() is not None
    lead = "INTERRUPTED " if interrupted else "STOPPED " if stopped else ""
    route = Text(no_wrap=True)
    route.append(lead, "bold red" if interrupted else "bold yellow")
    route.append(fit_route(clean(e.source or "-"), clean(",".join(e.destinations)),
                           route_width - len(lead)))
    return [Text(e.time.strftime("%m-%d %H:%M")), txt(e.operator),
            txt(("DRY " if e.dry_run else "") + e.operation,
                "italic" if e.dry_run else ""), route,
            Text(fit_count(counts["done"], COUNT_COLUMNS[0].width)),
            Text(fit_count(counts["failed"], COUNT_COLUMNS[1].width),
                 style="bold red" if counts["failed"] else ""),
            Text(fit_count(skipped, COUNT_COLUMNS[2].width),
                 style="bold yellow" if skipped else "")]


def haystack(entry) -> str:
    """The text of a record the filter looks in (lower case): not its JSON, which for a
    record of 21,600 MsgIds is a megabyte to build at each key."""
    parts = [entry.operation, entry.operator, entry.sudo_user or "", entry.profile or "",
             entry.qmgr or "", entry.source or "", *entry.destinations, entry.state,
             "dry run" if entry.dry_run else "", entry.backup or "",
             entry.time.strftime("%Y-%m-%d %H:%M:%S"), *entry.msgids, *entry.in_doubt]
    return "\n".join(parts).lower()


class JournalScreen(ConsoleScreen):
    HELP_NAME = "journal"
    KEYS = [K.FILTER, K.REFRESH, K.BACK]
    BINDINGS = K.bindings([K.FILTER, K.REFRESH, K.BACK])
    AUTO_FOCUS = "#journal"

    def __init__(self, ctx: ConsoleContext) -> None:
        super().__init__(ctx)
        self.entries: list = []
        self.haystacks: list[str] = []
        self.text_filter = ""
        self.problems: list[str] = []
        self.whole = False  # False while only the newest records are shown
        self.id_hits: set[str] = set()  # operations whose records hold the filter's hex
        self.shown: list[int] = []  # the entries listed (matching the filter), newest first
        self._reading = 0  # the read in progress (r starts another: older results are dropped)
        self.want = NEWEST  # the newest changes read (more as the cursor nears the end)
        self._more = False  # a read of more is under way
        self._filter_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, "journal")
        yield RowList(columns(self.app.size.width), id="journal")
        yield Static(Text(""), id="status")
        yield FilterBar("Text /", placeholder="operation, queue, MsgId or operator", live=True)
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.query_one("#journal", RowList), "cursor", self._near_the_end,
                   init=False)
        self.action_refresh()

    def on_resize(self) -> None:
        self.query_one("#journal", RowList).set_columns(columns(self.app.size.width))

    def action_refresh(self) -> None:
        self.want = NEWEST
        self._read()

    def _read(self, *, whole: bool = False) -> None:
        """Read the newest ``self.want`` changes (the live file backwards from its end),
        or ``whole``: every change, rotated files included — always in a worker, never on
        the event loop, however large the journal is."""
        ctx = self.ctx
        self._reading += 1
        reading = self._reading
        want = self.want
        self._more = True  # (while reading: no second read for the same scroll)

        def read():
            journal = ctx.settings.journal()
            entries = None if whole else journal.read_newest(want)
            everything = whole
            if entries is None or len(entries) < want:
                # the live file holds fewer: all of it and the rotated files, read whole
                # (with its unreadable lines said)
                entries = list(deque(journal.read(ids=False), maxlen=MAX_ENTRIES))
                everything = True
            entries = entries[-MAX_ENTRIES:]
            entries.reverse()
            return (entries, [haystack(e) for e in entries], list(journal.problems),
                    str(journal.path), everything, reading)

        async def load() -> None:
            self._show(await in_thread(ctx, read, queue=None, what="read the journal",
                                       group="journal"))

        launch(ctx, load(), what="read the journal")

    def _near_the_end(self, cursor: int) -> None:
        """Older changes are read as the cursor comes near the last one listed."""
        if self.whole or self._more or self.text_filter:
            return
        rows = self.query_one("#journal", RowList)
        if cursor >= rows.row_count - max(10, rows.size.height):
            self.want = min(MAX_ENTRIES, self.want * 4)
            self._read(whole=self.want >= MAX_ENTRIES)

    def _show(self, out) -> None:
        if not self.is_attached or out[-1] != self._reading:
            return
        self._more = False
        first = not self.entries
        self.entries, self.haystacks, self.problems, path, self.whole, _ = out
        self.journal_path = path
        self._fill(keep_cursor=not first)
        unreadable = [p for p in self.problems if ": cannot be read (" in p]
        if self.whole and unreadable:  # a whole file, not a line: an empty list would lie
            self.app.notify(clean(unreadable[0]) + (f" (and {len(unreadable) - 1} more)"
                                                    if len(unreadable) > 1 else ""),
                            title="Journal", severity="error", markup=False, timeout=15)

    def _matches(self, entry, n: int | None = None) -> bool:
        if not self.text_filter:
            return True
        if entry.op is not None and entry.op in self.id_hits:
            return True
        text = self.haystacks[n] if n is not None else haystack(entry)
        return self.text_filter.lower() in text

    def _fill(self, *, keep_cursor: bool = False) -> None:
        self.shown = [n for n, e in enumerate(self.entries) if self._matches(e, n)]
        entries, shown = self.entries, self.shown
        rows = self.query_one("#journal", RowList)
        rows.show(len(shown), lambda i: row(entries[shown[i]], rows.columns[3].width),
                  keep_cursor=keep_cursor)
        if self.whole:
            status = f"{len(shown)} of {len(entries)} records"
        else:
            status = (f"{len(shown)} of the newest {len(entries)} records (older ones are read "
                      "as the cursor comes to the end)")
        status += f" · {getattr(self, 'journal_path', '')}"
        if self.problems:
            status += f" · {len(self.problems)} unreadable line(s) skipped"
        # one line high and as wide as the screen whatever it says (console.tcss): only
        # painted, the screen not laid out again
        self.query_one("#status", Static).update(txt(status), layout=False)

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        from mqconsole.tui.screens.journal_record import JournalRecordScreen

        self.app.push_screen(JournalRecordScreen(self.ctx, self.entries[self.shown[event.row]]))

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    def on_filter_bar_changed(self, event: FilterBar.Changed) -> None:
        self.text_filter = event.value
        self.id_hits = set()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        if event.submitted or not self.query_one(FilterBar).has_class("-open"):
            self._filter_now()
            self.query_one(FilterBar).close_quietly()
            self.query_one("#journal", RowList).focus()
        else:  # as you type: when the typing pauses
            self._filter_timer = self.set_timer(FILTER_DELAY, self._filter_now)

    def _filter_now(self) -> None:
        self._filter_timer = None
        self._fill()
        text = self.text_filter.strip()
        if text and not self.whole and not self._more:
            self._read(whole=True)  # a filter looks at every change: read them (a worker)
        if _HEX_ID.fullmatch(text):  # a MsgId (or part): look in the units' ids too
            ctx = self.ctx

            def search() -> tuple[str, set[str]]:
                return text, ctx.settings.journal().ops_mentioning(text)

            async def find() -> None:
                self._show_id_hits(await in_thread(ctx, search, queue=None,
                                                   what="search the journal",
                                                   group="journal-search", exclusive=True))

            launch(ctx, find(), what="search the journal")

    def _show_id_hits(self, out: tuple[str, set[str]]) -> None:
        text, hits = out
        if self.is_attached and text == self.text_filter.strip():
            self.id_hits = hits
            self._fill()

    def action_back(self) -> None:
        self.app.pop_screen()


__all__ = ["JournalScreen"]

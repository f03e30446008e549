"""The journal of changes: who did what, when, to which messages, and how it ended.

Newest first; ``enter`` shows a record (its counts and fields, then its MsgIds in a table
to page through: :mod:`journal_record`); ``/`` filters as you type by any text of a record
(operation, queue, operator, profile) or a MsgId (a hex text of 8 or more digits is also
looked for in the records' ids, in a worker). The files are read in a worker: the newest
records first (the last :data:`TAIL_BYTES` of the live file), then the whole journal.
"""

from __future__ import annotations

import re
from collections import deque

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Footer, Static

from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.safe import txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.filter_bar import FilterBar
from mqconsole.tui.widgets.lists import ListTable

MAX_ENTRIES = 5000
MAX_ROWS = 500  # listed at once: a DataTable measures every cell, and the filter refills it
TAIL_BYTES = 1 << 20  # read first: the newest records, at once however large the journal
FILTER_DELAY = 0.12  # s: the list is filtered when typing pauses this long
_HEX_ID = re.compile(r"[0-9A-Fa-f]{8,48}")
FIXED_COLUMNS = (("TIME (UTC)", 11), ("WHO", 8), ("OPERATION", 10))
COUNT_COLUMNS = (("DONE", 5), ("FAIL", 4), ("SKIP", 4))


def columns(width: int) -> list[tuple[str, int]]:
    """The journal's columns for a terminal ``width`` wide: at 80 columns every count
    (done, failed, skipped) is on screen; the route takes what is left."""
    fixed = FIXED_COLUMNS + COUNT_COLUMNS
    used = sum(w for _, w in fixed) + 2 * (len(fixed) + 1) + 1  # cell padding, scrollbar
    route = max(12, width - used)
    return [*FIXED_COLUMNS, ("SOURCE → DESTINATION", route), *COUNT_COLUMNS]


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
        self._filter_timer = None

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, "journal")
        yield ListTable(id="journal", cursor_type="row", zebra_stripes=True)
        yield Static(Text(""), id="status")
        yield FilterBar("Text /", placeholder="operation, queue, MsgId or operator", live=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#journal", DataTable)
        for title, width in columns(self.app.size.width):
            justify = "right" if title in ("DONE", "FAIL", "SKIP") else "left"
            table.add_column(Text(title, justify=justify), width=width)
        self.action_refresh()

    def action_refresh(self) -> None:
        ctx = self.ctx
        self.whole = False

        def read_tail():
            journal = ctx.settings.journal()
            entries = journal.read_tail(TAIL_BYTES)[-MAX_ENTRIES:]
            entries.reverse()
            return entries, [haystack(e) for e in entries], [], str(journal.path), False

        def read_all():
            journal = ctx.settings.journal()
            entries = list(deque(journal.read(ids=False), maxlen=MAX_ENTRIES))
            entries.reverse()
            return (entries, [haystack(e) for e in entries], list(journal.problems),
                    str(journal.path), True)

        ctx.backend(read_tail, done=self._show, what="read the journal", group="journal")
        ctx.backend(read_all, done=self._show, what="read the journal", group="journal")

    def _show(self, out) -> None:
        if not self.is_attached or (self.whole and not out[4]):
            return  # the whole journal came first: the tail has nothing more
        self.entries, self.haystacks, self.problems, path, self.whole = out
        self.journal_path = path
        self._fill()

    def _matches(self, entry, n: int | None = None) -> bool:
        if not self.text_filter:
            return True
        if entry.op is not None and entry.op in self.id_hits:
            return True
        text = self.haystacks[n] if n is not None else haystack(entry)
        return self.text_filter.lower() in text

    def _fill(self) -> None:
        table = self.query_one("#journal", DataTable)
        table.clear()
        shown = listed = 0
        for n, e in enumerate(self.entries):
            if not self._matches(e, n):
                continue
            shown += 1
            if listed == MAX_ROWS:
                continue  # counted, not listed
            listed += 1
            counts = e.counts()
            skipped = max(counts.get("skipped", 0), int(e.details.get("skipped") or 0))
            dests = ",".join(e.destinations)
            route = e.source or "-"
            if dests:
                route += f" → {dests}"
            table.add_row(
                Text(e.time.strftime("%m-%d %H:%M")), txt(e.operator),
                txt(("DRY " if e.dry_run else "") + e.operation
                    + (" INTERRUPTED" if e.state == "interrupted" else ""),
                    "italic" if e.dry_run else ""), txt(route),
                Text(str(counts["done"]), justify="right"),
                Text(str(counts["failed"]), justify="right",
                     style="bold red" if counts["failed"] else ""),
                Text(str(skipped), justify="right", style="bold yellow" if skipped else ""),
                key=str(n))
        if self.whole:
            status = f"{shown} of {len(self.entries)} records"
        else:
            status = f"{shown} of the newest {len(self.entries)} records (reading the rest…)"
        if listed < shown:
            status += f" (the newest {listed} listed: the filter finds the others)"
        status += f" · {getattr(self, 'journal_path', '')}"
        if self.problems:
            status += f" · {len(self.problems)} unreadable line(s) skipped"
        self.query_one("#status", Static).update(txt(status))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        from mqconsole.tui.screens.journal_record import JournalRecordScreen

        n = int(str(event.row_key.value))
        self.app.push_screen(JournalRecordScreen(self.ctx, self.entries[n]))

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
            self.query_one("#journal", DataTable).focus()
        else:  # as you type: when the typing pauses
            self._filter_timer = self.set_timer(FILTER_DELAY, self._filter_now)

    def _filter_now(self) -> None:
        self._filter_timer = None
        self._fill()
        text = self.text_filter.strip()
        if _HEX_ID.fullmatch(text):  # a MsgId (or part): look in the units' ids too
            ctx = self.ctx

            def search() -> tuple[str, set[str]]:
                return text, ctx.settings.journal().ops_mentioning(text)

            self.ctx.backend(search, done=self._show_id_hits, what="search the journal",
                             group="journal-search", exclusive=True)

    def _show_id_hits(self, out: tuple[str, set[str]]) -> None:
        text, hits = out
        if self.is_attached and text == self.text_filter.strip():
            self.id_hits = hits
            self._fill()

    def action_back(self) -> None:
        self.app.pop_screen()


__all__ = ["JournalScreen"]

"""The journal of changes: who did what, when, to which messages, and how it ended.

Newest first; ``enter`` shows a record whole (every MsgId and outcome); ``/`` filters by any
text of a record (operation, queue, MsgId, operator). The file is read in a worker.
"""

from __future__ import annotations

import json
from collections import deque

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Footer, Static

from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.safe import block, clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.screens.dialogs import TextDialog
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.filter_bar import FilterBar

MAX_ENTRIES = 5000
FIXED_COLUMNS = (("TIME (UTC)", 11), ("WHO", 8), ("OPERATION", 10))
COUNT_COLUMNS = (("DONE", 5), ("FAIL", 4), ("SKIP", 4))


def columns(width: int) -> list[tuple[str, int]]:
    """The journal's columns for a terminal ``width`` wide: at 80 columns every count
    (done, failed, skipped) is on screen; the route takes what is left."""
    fixed = FIXED_COLUMNS + COUNT_COLUMNS
    used = sum(w for _, w in fixed) + 2 * (len(fixed) + 1) + 1  # cell padding, scrollbar
    route = max(12, width - used)
    return [*FIXED_COLUMNS, ("SOURCE → DESTINATION", route), *COUNT_COLUMNS]


class JournalScreen(ConsoleScreen):
    HELP_NAME = "journal"
    KEYS = [K.FILTER, K.REFRESH, K.BACK]
    BINDINGS = K.bindings([K.FILTER, K.REFRESH, K.BACK])
    AUTO_FOCUS = "#journal"

    def __init__(self, ctx: ConsoleContext) -> None:
        super().__init__(ctx)
        self.entries: list = []
        self.text_filter = ""
        self.problems: list[str] = []

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, "journal")
        yield DataTable(id="journal", cursor_type="row", zebra_stripes=True)
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

        def read():
            journal = ctx.settings.journal()
            entries = deque(journal.read(), maxlen=MAX_ENTRIES)
            return list(reversed(entries)), list(journal.problems), str(journal.path)

        ctx.backend(read, done=self._show, what="read the journal")

    def _show(self, out) -> None:
        if not self.is_attached:
            return
        self.entries, self.problems, path = out
        self.journal_path = path
        self._fill()

    def _matches(self, entry) -> bool:
        if not self.text_filter:
            return True
        return self.text_filter.lower() in json.dumps(entry.to_dict()).lower()

    def _fill(self) -> None:
        table = self.query_one("#journal", DataTable)
        table.clear()
        shown = 0
        for n, e in enumerate(self.entries):
            if not self._matches(e):
                continue
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
            shown += 1
        status = f"{shown} of {len(self.entries)} records · {getattr(self, 'journal_path', '')}"
        if self.problems:
            status += f" · {len(self.problems)} unreadable line(s) skipped"
        self.query_one("#status", Static).update(txt(status))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        n = int(str(event.row_key.value))
        entry = self.entries[n]
        body = block(json.dumps(entry.to_dict(), indent=2, ensure_ascii=False))
        self.app.push_screen(TextDialog(Text(f"{clean(entry.operation)} at "
                                             f"{entry.time.isoformat()}"), body))

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    def on_filter_bar_changed(self, event: FilterBar.Changed) -> None:
        self.text_filter = event.value
        self._fill()
        if event.submitted or not self.query_one(FilterBar).has_class("-open"):
            self.query_one(FilterBar).close_quietly()
            self.query_one("#journal", DataTable).focus()

    def action_back(self) -> None:
        self.app.pop_screen()


__all__ = ["JournalScreen"]

"""One journal record, readable however many messages it names: who, when, what and how it
ended, the counts, the failures; then its MsgIds with their outcome and destination, a
page of :data:`PAGE` at a time (``n``/``p``), each read in a worker from the unit records it
covers (:class:`~mqconsole.ops.journal.pages.RecordIds`): the screen holds one page, never
every id of a change of 200,000 messages.
The ids are drawn as they come into view (:class:`~mqconsole.tui.widgets.rowlist.RowList`):
a DataTable measured each cell, 30 s for 21,600 and a second for a page of 500.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from mqconsole.ops.journal import RecordIds, format_time
from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import in_thread, launch
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.rowlist import RowColumn, RowList

PAGE = 500  # ids on a page
COLUMNS = (RowColumn("#", 6, right=True), RowColumn("MSGID", 48), RowColumn("OUTCOME", 8),
           RowColumn("DESTINATION", 24), RowColumn("REASON", 24))
_OUTCOME_STYLE = {"failed": "bold red", "skipped": "yellow"}


def describe(entry: Any) -> Text:
    """The record's head as lines of text (every value made safe)."""
    counts = entry.counts()
    out = Text()
    out.append(f"{entry.operation}{' (dry run)' if entry.dry_run else ''}", "bold")
    out.append(f" · {format_time(entry.time)}")  # the one style (ops.timefmt.iso_utc)
    if entry.ended is not None:
        out.append(f" → {format_time(entry.ended)}")
    stopped = entry.stopped() if entry.state != "interrupted" else None
    state = ("INTERRUPTED" if entry.state == "interrupted" else
             f"stopped early ({clean(stopped)})" if stopped is not None else entry.state)
    out.append(f" · {state}\n", "bold red" if entry.state == "interrupted"
               else "bold yellow" if stopped is not None else "")
    who = entry.operator + (f" (sudo {entry.sudo_user})" if entry.sudo_user else "")
    out.append_text(txt(f"by {who} · profile {entry.profile or '-'} · "
                        f"queue manager {entry.qmgr or '-'}"))
    out.append("\n")
    route = entry.source or "-"
    if entry.destinations:
        route += " → " + ", ".join(entry.destinations)
    out.append_text(txt(route))
    out.append("\n")
    out.append(f"{counts['done']:,} done", "bold")
    out.append(f" · {counts['failed']:,} failed", "bold red" if counts["failed"] else "")
    not_tried = entry.details.get("not_tried")  # stopped early: never tried, they stayed
    if not (isinstance(not_tried, int) and not isinstance(not_tried, bool) and not_tried > 0):
        not_tried = 0
    out.append(f" · {counts['skipped']:,} skipped", "bold yellow" if counts["skipped"] else "")
    if not_tried:
        why = entry.details.get("not_tried_why")  # why and where, as the result said it
        if not isinstance(why, str) or not why:
            why = "not put" if entry.operation == "load" else "they stayed"
        out.append(f" · {not_tried:,} not tried (", "bold yellow")
        out.append_text(txt(why))
        out.append(")", "bold yellow")
    out.append("\n")
    if entry.in_doubt:
        out.append(f"{len(entry.in_doubt):,} in doubt (their last unit's commit is not "
                   "recorded: check the queues)\n", "bold red")
    if entry.backup:
        out.append_text(txt(f"backup: {entry.backup}"))
        out.append("\n")
    details = {k: v for k, v in entry.details.items()
               if not isinstance(v, dict | list) and k not in ("not_tried", "not_tried_why")}
    if details:
        out.append_text(txt(" · ".join(f"{k.replace('_', ' ')}: {_said(v)}"
                                       for k, v in details.items())))
    return out


def _said(value: object) -> str:
    """A detail's value in words: yes/no, not Python's True/False."""
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


class JournalRecordScreen(ConsoleScreen):
    HELP_NAME = "journal record"
    KEYS = [*K.RECORD_KEYS, K.BACK]
    BINDINGS = K.bindings([*K.RECORD_KEYS, K.BACK])
    AUTO_FOCUS = "#jr-ids"

    def __init__(self, ctx: ConsoleContext, entry: Any) -> None:
        super().__init__(ctx)
        self.entry = entry
        self.ids: RecordIds | None = None  # where its ids are, once found
        self.outcomes: list[Any] | None = None  # the page shown, once read (never them all)
        self.page = 0

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, "journal record")
        yield Static(describe(self.entry), id="jr-head")
        yield Static(Text("reading its MsgIds…"), id="jr-count")
        yield RowList(COLUMNS, id="jr-ids")
        yield Footer()

    def on_mount(self) -> None:
        self._load(0)

    def _load(self, page: int) -> None:
        """Page ``page`` read in a worker (with, the first time, where the units are), then
        shown; a page asked for meanwhile wins (``exclusive``)."""
        ctx, entry, known = self.ctx, self.entry, self.ids

        def read() -> tuple[RecordIds, list[Any]]:
            ids = known or ctx.settings.journal().record_ids(entry)
            return ids, ids.page(page * PAGE, PAGE)

        async def load() -> None:
            ids, shown = await in_thread(ctx, read, queue=None, what="read the journal record",
                                         group="journal-record", exclusive=True)
            if self.is_attached and page == self.page:
                self.ids = ids
                self._show_page(page, shown)

        launch(ctx, load(), what="read the journal record")

    def _last(self) -> int:
        return 0 if self.ids is None else max(0, (self.ids.total - 1) // PAGE)

    def _show_page(self, page: int, shown: list[Any]) -> None:
        assert self.ids is not None
        self.outcomes = shown
        total, last, start = self.ids.total, self._last(), page * PAGE
        note = (f"MsgIds {start + 1:,}–{start + len(shown):,} of {total:,}"
                if shown else "no MsgId")
        if last:
            note += f" · page {page + 1} of {last + 1} (n/p)"
        if self.ids.missing > 0:
            note += f" · {self.ids.missing:,} done without their ids (rotated away?)"
        self.query_one("#jr-count", Static).update(txt(note))

        def cells(i: int) -> list[Text]:
            o = shown[i]
            reason = o.reason_text()
            return [Text(str(start + i + 1)), txt(o.msgid),
                    Text(o.outcome, style=_OUTCOME_STYLE.get(o.outcome, "")),
                    txt(o.destination or ""), txt(reason)]

        self.query_one("#jr-ids", RowList).show(len(shown), cells)

    def _turn(self, by: int) -> None:
        if self.ids is None:
            return
        page = min(max(self.page + by, 0), self._last())
        if page != self.page:
            self.page = page
            self._load(page)

    def action_next_page(self) -> None:
        self._turn(1)

    def action_previous_page(self) -> None:
        self._turn(-1)

    def action_back(self) -> None:
        self.app.pop_screen()


__all__ = ["JournalRecordScreen", "describe"]

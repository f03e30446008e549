"""The queues of the queue manager: depth (and share of max depth), handles, inhibits, backout
settings, which queue is the dead-letter queue and which are backout queues.

Refreshed on a timer (``tui.refresh_seconds``; 0 = only on demand) and with ``r``; sorted by
any column (``s`` next column, ``S`` reverse, or a click on a heading); filtered by name
with ``/`` (``*`` and ``?`` wildcards, else a substring, case-insensitive).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.timer import Timer
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from mqconsole.tui import heap
from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.requests import OpenDoctor, OpenQueue, OpenReplay, ShowQueueInfo
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import Command, ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.filter_bar import FilterBar
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.lists import ListTable


@dataclass(frozen=True)
class Col:
    key: str
    title: str
    width: int | None = None
    numeric: bool = False


MAX_NAME = 48  # MQ's longest queue name

COLUMNS = [
    Col("name", "QUEUE", None),
    Col("depth", "DEPTH", 6, numeric=True),
    Col("share", "%MAX", 4, numeric=True),
    Col("handles", "I/O", 4, numeric=True),
    Col("inhibit", "INH", 3),
    Col("bothresh", "BOTHR", 5, numeric=True),
    Col("boqname", "BOQNAME", 14),
    Col("hardenbo", "HBO", 3),
    Col("role", "ROLE", None),
]
# every column is one cell wider than its content (a space before it); 1 for the scrollbar
FIXED = sum(c.width or 0 for c in COLUMNS) + len(COLUMNS) + 1


def flexible_widths(width: int) -> tuple[int, int]:
    """Widths of the name and role columns for a terminal ``width`` cells wide."""
    spare = max(0, width - FIXED)
    role = max(7, min(30, spare // 4))
    name = max(16, min(48, spare - role))
    return name, role


def share(row: dict[str, Any]) -> float | None:
    depth, mx = row.get("depth"), row.get("max_depth")
    if depth is None or not mx:
        return None
    return depth / mx


def role(row: dict[str, Any], wide: bool = True) -> str:
    parts = []
    if row.get("is_dead_letter_queue"):
        parts.append("DLQ")
    if row.get("backout_queue_for"):
        parts.append("BOQ:" + ",".join(row["backout_queue_for"]) if wide else "BOQ")
    qtype = row.get("type", "local")
    if qtype == "alias":
        parts.append(f"alias→{row.get('target_q', '')}".rstrip("→"))
    elif qtype == "remote":
        parts.append("remote")
    elif qtype == "model":
        parts.append("model")
    if row.get("usage") == "xmitq":
        parts.append("xmitq")
    return " ".join(parts)


def sort_value(row: dict[str, Any], key: str) -> Any:
    if key == "share":
        v = share(row)
        return -1.0 if v is None else v
    if key == "inhibit":
        return (bool(row.get("put_inhibited")), bool(row.get("get_inhibited")))
    if key == "role":
        return role(row)
    if key == "handles":
        return (row.get("ipprocs") or 0) + (row.get("opprocs") or 0)
    if key in ("depth", "bothresh"):
        v = row.get(key)
        return -1 if v is None else v
    if key == "hardenbo":
        return bool(row.get("hardenbo"))
    return str(row.get(key) or "")


def name_matches(name: str, pattern: str) -> bool:
    pattern = pattern.strip()
    if not pattern:
        return True
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(name.upper(), pattern.upper())
    return pattern.upper() in name.upper()


class QueuesScreen(ConsoleScreen):
    HELP_NAME = "queues"
    KEYS = K.QUEUE_KEYS
    BINDINGS = K.bindings(K.QUEUE_KEYS)
    AUTO_FOCUS = "#queues"

    def __init__(self, ctx: ConsoleContext) -> None:
        super().__init__(ctx)
        self.rows: list[dict[str, Any]] = []
        self.sort_key = "name"
        self.sort_reverse = False
        self.name_filter = ""
        self._timer: Timer | None = None
        self._told_note: str | None = None  # the listing note last notified
        self._filled: Any = None  # what the table shows (see _fill)
        self._texts: dict[str, tuple[Any, ...]] = {}  # what #dlq and #status show

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx)
        yield Static(Text("reading queues…"), id="dlq")
        yield ListTable(id="queues", cursor_type="row", zebra_stripes=True, cell_padding=0)
        yield Static(Text(""), id="status")
        yield FilterBar("Queue name /", placeholder="part of a name, or a pattern like APP.*",
                        live=True, id="filter")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#queues", DataTable)
        name_w, role_w = flexible_widths(self.app.size.width)
        for c in COLUMNS:
            w = c.width or (name_w if c.key == "name" else role_w)
            table.add_column(_head(c), key=c.key, width=w + 1)
        self.action_refresh()
        seconds = self.ctx.settings.refresh_seconds
        if seconds and seconds > 0:
            self._timer = self.set_interval(seconds, self._tick)

    def on_resize(self) -> None:
        table = self.query_one("#queues", DataTable)
        name_w, role_w = flexible_widths(self.size.width)
        changed = False
        for key, w in (("name", name_w), ("role", role_w)):
            col = table.columns.get(key)  # type: ignore[call-overload]
            if col is not None and col.width != w + 1:
                col.width = w + 1
                changed = True
        if changed and self.rows:
            self._fill()

    def _tick(self) -> None:
        # also while another screen is on top: the banner's dead-letter depth stays live
        if self.is_attached:
            self.action_refresh()

    def on_screen_resume(self) -> None:
        if not self.is_attached:
            return
        # the screen closed above (a handler run, an audit, a replay) is removed by now or
        # at the next refresh: what it freed in the C heap goes back to the system then
        self.call_after_refresh(heap.give_back_freed)
        self.query_one(Banner).refresh()
        if self.rows:
            self.action_refresh()

    # -- data -----------------------------------------------------------------------------
    def action_refresh(self) -> None:
        self.ctx.load_queues(self._show)

    def _show(self, rows: list[dict[str, Any]]) -> None:
        if not self.is_attached:  # the screen was closed while the worker ran
            return
        self.rows = rows
        self.query_one(Banner).refresh()
        ctx = self.ctx
        info = ctx.qmgr_info
        dlq = info.dead_letter_queue.strip() if info is not None else ""
        line = Text()
        if dlq:
            depth = ctx.dlq_depth
            style = f"bold {self.app.current_theme.error}" if depth else "bold"
            line.append("Dead-letter queue ", "bold")
            line.append(clean(dlq))
            line.append(": ")
            line.append(f"{depth:,}" if depth is not None else "?", style)
            line.append(" messages")
        else:
            line.append("This queue manager has no dead-letter queue (DEADQ is blank): "
                        "undeliverable messages stay on transmission queues or are lost.",
                        f"bold {self.app.current_theme.warning}")
        note = ctx.listing_note
        if note:  # the list is the profile's queues: say so under the DLQ line, and once aloud
            line.append("\n")
            line.append(clean(note), self.app.current_theme.warning)
            if note != self._told_note:
                self.app.notify(clean(note), title="Queue list without the command server",
                                severity="warning", markup=False)
        self._told_note = note
        self._set_text("dlq", line)
        self._fill()

    def visible_rows(self) -> list[dict[str, Any]]:
        rows = [r for r in self.rows if name_matches(r["name"], self.name_filter)]
        rows.sort(key=lambda r: (sort_value(r, self.sort_key), r["name"]),
                  reverse=self.sort_reverse)
        return rows

    def _fill(self) -> None:
        """The table's rows, headings and widths, and the status line. A refresh that reads
        the same queues as shown (the timer's, one back from another screen, after an action
        that changed nothing here) leaves the table as it is: clearing and adding the rows
        again would have Textual draw it all again and lay out the screen for nothing."""
        table = self.query_one("#queues", DataTable)
        theme = self.app.current_theme
        rows = self.visible_rows()
        role_col = table.columns.get("role")  # type: ignore[call-overload]
        role_wide = role_col is not None and role_col.width >= 20
        name_col = table.columns.get("name")  # type: ignore[call-overload]
        if name_col is not None:  # whole names: the table scrolls sideways rather than cut
            name_w, _ = flexible_widths(self.size.width or self.app.size.width)
            longest = max((len(r["name"]) for r in rows), default=0)
            name_col.width = max(name_w, min(MAX_NAME, longest)) + 1
        cells = [(r["name"], _cells(r, theme, role_wide)) for r in rows]
        heads = [_head(c, (" ▼" if self.sort_reverse else " ▲") if c.key == self.sort_key
                       else "") for c in COLUMNS]
        filled = ([_same(t) for t in heads], [c.width for c in table.columns.values()],
                  [(key, [_same(t) for t in row]) for key, row in cells])
        if filled != self._filled:
            self._filled = filled
            current = self.current_queue()
            table.clear()
            for key, row in cells:
                table.add_row(*row, key=key)
            for c, head in zip(COLUMNS, heads, strict=True):
                table.columns[ColumnKey(c.key)].label = head
            if current is not None and current in table.rows:
                table.move_cursor(row=table.get_row_index(current))
        total = len(self.rows)
        shown = len(rows)
        status = f"{shown} of {total} queues" if shown != total else f"{total} queues"
        if self.name_filter:
            status += f" · name {self.name_filter}"
        status += f" · sorted by {self.sort_key}{' (reversed)' if self.sort_reverse else ''}"
        self._set_text("status", txt(status))

    def _set_text(self, name: str, content: Text) -> None:
        """The line ``#name`` shows ``content``; not told again what it shows already (each
        update lays the screen out again)."""
        if self._texts.get(name) == _same(content):
            return
        self._texts[name] = _same(content)
        # the status line is one line high and as wide as the screen whatever it says
        # (console.tcss): only painted, the screen not laid out again
        self.query_one(f"#{name}", Static).update(content, layout=name != "status")

    def current_queue(self) -> str | None:
        table = self.query_one("#queues", DataTable)
        if table.row_count == 0:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:
            return None
        return None if key is None else str(key.value)

    def current_row(self) -> dict[str, Any] | None:
        name = self.current_queue()
        return next((r for r in self.rows if r["name"] == name), None)

    # -- actions --------------------------------------------------------------------------
    def action_open(self) -> None:
        name = self.current_queue()
        if name is None:
            return
        row = self.current_row()
        if row is not None and row.get("type") not in ("local", None):
            self.app.notify(f"{name} is a {row.get('type')} queue: only local queues hold "
                            "messages to browse", markup=False, severity="warning")
            return
        self.ctx.request(OpenQueue(name))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        key = str(event.column_key.value)
        if key == self.sort_key:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_key, self.sort_reverse = key, key in ("depth", "share")
        self._fill()

    def action_sort(self) -> None:
        keys = [c.key for c in COLUMNS]
        self.sort_key = keys[(keys.index(self.sort_key) + 1) % len(keys)]
        self.sort_reverse = self.sort_key in ("depth", "share")
        self._fill()

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._fill()

    def sort_by(self, key: str) -> None:
        self.sort_key = key
        self.sort_reverse = key in ("depth", "share")
        self._fill()

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()

    def on_filter_bar_changed(self, event: FilterBar.Changed) -> None:
        self.name_filter = event.value
        self._fill()
        if event.submitted or not self.query_one(FilterBar).has_class("-open"):
            self.query_one(FilterBar).close_quietly()
            self.query_one("#queues", DataTable).focus()

    def action_queue_info(self) -> None:
        name = self.current_queue()
        if name is not None:
            self.ctx.request(ShowQueueInfo(name))

    def action_set_attrs(self) -> None:
        row = self.current_row()
        if row is not None:
            self.actions.set_attributes(row)

    def action_load(self) -> None:
        name = self.current_queue()
        if name is not None:
            self.actions.load(name)

    def action_put(self) -> None:
        name = self.current_queue()
        if name is not None:
            self.actions.put(name)

    def action_define_queue(self) -> None:
        self.actions.define_queue()

    def plugin_targets(self, scope: str):
        """A site plugin's action of scope ``queue`` works on the local queue under the
        cursor; there are no messages to choose here."""
        from mqconsole.tui.targets import Targets

        row = self.current_row()
        if scope != "queue" or row is None or row.get("type") not in ("local", None):
            return None
        return Targets.whole_queue(row["name"])

    def action_doctor(self) -> None:
        self.ctx.request(OpenDoctor())

    def action_replay(self) -> None:
        self.ctx.request(OpenReplay(self.current_queue()))

    def action_audit(self) -> None:
        from mqconsole.tui.screens.audit import AuditScreen

        pattern = self.query_one(FilterBar).value.strip()
        default = pattern if "*" in pattern else self.current_queue() or ""
        self.app.push_screen(AuditScreen(self.ctx, default))

    def action_dlq_handler(self) -> None:
        from mqconsole.tui.screens.dlq import DlqHandlerScreen

        self.app.push_screen(DlqHandlerScreen(self.ctx, self.current_queue()))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = super().check_action(action, parameters)
        if not allowed:
            return allowed
        if action == "doctor":
            return self.ctx.has_doctor
        if action == "replay":
            return self.ctx.has_replay
        return True

    def commands(self) -> list[Command]:
        out = super().commands()
        for c in COLUMNS:
            out.append(Command(f"Sort queues by {c.title}", f"Sort the queue list by {c.title}",
                               f"sort_by('{c.key}')"))
        return out

    def action_sort_by(self, key: str) -> None:
        self.sort_by(key)


def _cells(r: dict[str, Any], theme: Any, role_wide: bool) -> tuple[Text, ...]:
    """One queue's row of the table."""
    s = share(r)
    share_text = Text("-" if s is None else f"{s * 100:.0f}%", justify="right")
    if s is not None and s >= 0.9:
        share_text.stylize(f"bold {theme.error}")
    elif s is not None and s >= 0.7:
        share_text.stylize(f"bold {theme.warning}")
    depth = r.get("depth")
    depth_text = Text(_depth(depth), justify="right")
    if r.get("is_dead_letter_queue") and depth:
        depth_text.stylize(f"bold {theme.error}")
    inh = ("P" if r.get("put_inhibited") else "-") + ("G" if r.get("get_inhibited") else "-")
    bothresh = r.get("bothresh")
    return (
        _left(r["name"]), depth_text, share_text,
        Text(_handles(r), justify="right"),
        Text(" " + inh, style=f"bold {theme.warning}" if "P" in inh or "G" in inh else ""),
        Text(_num(bothresh) if r.get("type") in ("local", "model") else "", justify="right"),
        _left(r.get("boqname") or ""),
        Text(" Y" if r.get("hardenbo") else " N" if r.get("type") == "local" else ""),
        _left(role(r, wide=role_wide)))


def _same(t: Text) -> tuple[Any, ...]:
    """What a cell draws (rich's ``Text.__eq__`` leaves out its style and justification)."""
    return (t.plain, tuple(t.spans), str(t.style), t.justify, t.no_wrap, t.overflow)


def _depth(depth: int | None) -> str:
    if depth is None:
        return "-"
    if depth >= 1_000_000:
        return f"{depth / 1_000_000:.1f}M"
    return str(depth)


def _left(value: Any) -> Text:
    return txt(" " + clean(value))


def _head(c: Col, arrow: str = "") -> Text:
    title = c.title + arrow
    return Text(title, justify="right") if c.numeric else Text(" " + title)


def _handles(row: dict[str, Any]) -> str:
    if row.get("ipprocs") is None:
        return "-"
    return f"{row['ipprocs']}/{row['opprocs']}"


def _num(v: Any) -> str:
    return "-" if v is None else str(v)


__all__ = ["QueuesScreen"]

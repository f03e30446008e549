"""The list of messages: a Line API view (like Toolong's) that draws only the visible rows.

Rows come from a :class:`~mqconsole.tui.rows.RowSource` (a browse's or a page model's light
index); the widget
never holds messages. Its height is the number of rows the queue is expected to have (the
depth, until the browse reaches the end), so the scrollbar means what it says; rows not read
yet are drawn as placeholders and the widget asks its screen for them (``NeedRows``) when
they come into view. Every cell that comes from message bytes passes through ``safe.clean``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mqconsole.mq.names import known_reason_name
from mqconsole.ops.selection import Mark
from mqconsole.ops.summary import format_bytes
from mqconsole.ops.timefmt import format_age
from mqconsole.ops.words import counted
from mqconsole.tui import keys as K
from mqconsole.tui.browsing import Row
from mqconsole.tui.rows import RowSource
from mqconsole.tui.safe import clean, fit

MAX_EXPLICIT_MARKS = 100_000  # "all marked" is not turned into more single marks than this


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    width: int
    right: bool = False
    grow: int = 0  # share of the spare width


COLUMNS = [
    Column("mark", " ", 1),
    Column("position", "POS", 7, right=True),
    Column("put", "PUT (UTC)", 11),
    Column("age", "AGE", 4, right=True),
    Column("msgid", "MSGID", 8),
    Column("format", "FORMAT", 6),
    Column("length", "LENGTH", 6, right=True),
    Column("backout", "BO", 3, right=True),
    Column("reason", "REASON", 10, grow=1),
    Column("dest", "DESTINATION", 10, grow=1),
]


_REASON = [c.key for c in COLUMNS].index("reason")


@lru_cache(maxsize=16)
def layout(width: int) -> list[tuple[Column, int]]:
    """Column widths for ``width`` cells (one space between columns)."""
    fixed = sum(c.width for c in COLUMNS) + len(COLUMNS) - 1
    spare = max(0, width - fixed)
    growers = [c for c in COLUMNS if c.grow]
    out = []
    for c in COLUMNS:
        w = c.width
        if c.grow:
            w += spare // len(growers)
        out.append((c, w))
    if growers and spare % len(growers):
        c, w = out[-1]
        out[-1] = (c, w + spare % len(growers))
    return out


def short_age(seconds: float | None) -> str:
    if seconds is None or math.isnan(seconds):
        return "-"
    return format_age(seconds).split(" ")[0]


def short_reason(code: int | None) -> str:
    """MQ's name without MQRC_/MQFB_ (``Q_FULL``); a number MQ has no name for alone
    (``65535``, as ``mq.names.reason_label`` says it: never ``UNKNOWN_65535``)."""
    if code is None:
        return "-"
    name = known_reason_name(code)
    if name is None:
        return str(code)
    for prefix in ("MQRC_", "MQFB_"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def cells(row: Row, now: datetime) -> dict[str, str]:
    """The text of each column for one row (safe: no control characters)."""
    if row.put is None:
        put, age = "-", "-"
    else:
        dt = datetime.fromtimestamp(row.put, UTC)
        put = dt.strftime("%m-%d %H:%M")
        age = short_age(now.timestamp() - row.put)
    return {
        "position": f"{row.position}",
        "put": put,
        "age": age,
        "msgid": row.msgid.hex().upper()[-8:],
        "format": clean(row.format) or "-",
        "length": format_bytes(row.length).replace(" ", "").replace("KB", "K")
        .replace("MB", "M").replace("GB", "G"),
        "backout": str(row.backout),
        "reason": short_reason(row.reason),
        "dest": clean(row.dest) or "-",
    }


def header_text(width: int) -> str:
    parts = []
    for col, w in layout(width):
        parts.append(fit(col.title, w).rjust(w) if col.right else fit(col.title, w).ljust(w))
    return " ".join(parts)


class MessageList(ScrollView, can_focus=True):
    """The rows of a :class:`~mqconsole.tui.rows.RowSource`, with a cursor and marks."""

    BINDINGS = K.bindings(K.MESSAGE_LIST_KEYS)

    COMPONENT_CLASSES = {
        "message-list--cursor",
        "message-list--marked",
        "message-list--placeholder",
        "message-list--reason",
    }

    cursor: reactive[int] = reactive(0, always_update=True)

    class NeedRows(Message):
        """The list shows rows that are not read yet: read up to ``rows`` of them."""

        def __init__(self, rows: int | None) -> None:
            super().__init__()
            self.rows = rows

    class NeedPages(Message):
        """The list shows rows of a ``PagedModel`` that are not read: read these pages."""

        def __init__(self, pages: list[int]) -> None:
            super().__init__()
            self.pages = pages

    class CursorMoved(Message):
        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    class Opened(Message):
        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: RowSource | None = None
        self.marks: dict[int, Mark] = {}  # queue position -> the message, exactly
        self.all_marked = False
        self._asked = 0
        self._asked_pages: list[int] = []
        self._follow_end = False  # End on a list still reading: the cursor stays on its last row
        self._paint: tuple[Style, int, int, int, int] | None = None  # while painting

    # -- data --------------------------------------------------------------------------------
    def set_model(self, model: RowSource | None) -> None:
        self.model = model
        self._asked = 0
        self._asked_pages = []
        self._follow_end = False
        self.cursor = 0
        self.scroll_to(y=0, animate=False, immediate=True)
        self.rows_changed()

    def rows_changed(self) -> None:
        """The model has more rows (or is done): resize and redraw."""
        rows = self.model.expected_rows() if self.model is not None else 0
        if not self.model or not (self.model.done or self.model.stopped):
            rows = max(rows, self.model.count + 1 if self.model else 0)
        self.virtual_size = Size(self.size.width, rows)
        if self.model is not None and (self.cursor >= rows > 0 or (self._follow_end and rows)):
            self.cursor = rows - 1
        # a stopped read still lists the row its thread had in hand: End's cursor follows
        # it there (the operator's own move ends the following; a stopped read does not go
        # on by itself), so the cursor stays on the last row read
        if self.model is None or self.model.done:
            self._follow_end = False
        self.refresh()
        self._check_needed()

    @property
    def row_count(self) -> int:
        return self.model.count if self.model is not None else 0

    def is_marked(self, i: int) -> bool:
        if self.model is None or i >= self.model.count:
            return False
        return self.all_marked or self.model.index.positions[i] in self.marks

    @property
    def marked_count(self) -> int:
        if self.all_marked and self.model is not None:
            return self.model.count
        return len(self.marks)

    def toggle_mark(self, i: int) -> bool:
        """Mark or unmark row ``i``; False when "all marked" is too large to split up."""
        if self.model is None or not self.model.has_row(i):
            return True
        if self.all_marked:
            if self.model.count > MAX_EXPLICIT_MARKS:
                return False
            try:
                marks = {self.model.index.positions[n]: self.model.index.mark(n)
                         for n in range(self.model.count)}
            except LookupError:  # rows not read (a queue read page by page)
                return False
            self.all_marked = False
            self.marks = marks
        pos = self.model.index.positions[i]
        if pos in self.marks:
            del self.marks[pos]
        else:
            try:
                self.marks[pos] = self.model.index.mark(i)
            except LookupError:  # its page was dropped meanwhile: nothing marked
                return True
        self.refresh()
        return True

    def clear_marks(self) -> None:
        self.marks.clear()
        self.all_marked = False
        self.refresh()

    # -- drawing -----------------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of one paint: what every line asks (the style, an ancestor walk; the
        width, the scroll offset, the cursor, reactive reads) asked once for all of them."""
        self._paint = self._paint_values()
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def _paint_values(self) -> tuple[Style, int, int, int, int]:
        return (self.rich_style, self.scrollable_content_region.width, self.scroll_offset.y,
                self.cursor, self.virtual_size.height)

    def render_line(self, y: int) -> Strip:
        base, width, top, cursor, height = self._paint or self._paint_values()
        i = top + y
        model = self.model
        if model is None or i >= height:
            return Strip.blank(width, base)
        style = base
        if i == cursor:
            style = style + self.get_component_rich_style("message-list--cursor")
        row = model.row_at(i)
        if row is None:
            label = "  ··· reading ···" if not model.done or i < model.count else ""
            if i == model.count and model.where is not None and not model.done:
                label = f"  ··· filtering: {counted(model.scanned, grouped=True)} read ···"
            if i != cursor:
                style = style + self.get_component_rich_style("message-list--placeholder")
            return Strip([Segment(fit(label, width).ljust(width), style)], width)
        values = cells(row, model.now)
        marked = self.is_marked(i)
        values["mark"] = "✓" if marked else " "
        if marked:
            style = style + self.get_component_rich_style("message-list--marked")
        reason_style = style
        if row.reason is not None and i != cursor:
            reason_style = style + self.get_component_rich_style("message-list--reason")
        # three segments (before the reason, the reason, after it): each segment of a line
        # costs its share of every paint
        texts = []
        for col, w in layout(width):
            text = fit(values[col.key], w)
            texts.append(text.rjust(w) if col.right else text.ljust(w))
        segments = [Segment(" ".join(texts[:_REASON]) + " ", style),
                    Segment(texts[_REASON], reason_style),
                    Segment(" " + " ".join(texts[_REASON + 1:]), style)]
        return Strip(segments).adjust_cell_length(width, style)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()

    # -- cursor and scrolling -----------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        height = self.scrollable_content_region.height or 1
        top = self.scroll_offset.y
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + height:
            self.scroll_to(y=new - height + 1, animate=False, immediate=True)
        self.refresh()
        self.post_message(self.CursorMoved(new))
        self._check_needed()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._check_needed()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, self.virtual_size.height)
        self._check_needed()

    def _check_needed(self) -> None:
        model = self.model
        if model is not None and not model.reads_in_order:  # pages where they are shown
            height = self.scrollable_content_region.height or 24
            top = self.scroll_offset.y
            first, last = min(top, self.cursor), max(top + height, self.cursor + 1)
            pages = model.missing(first, last)
            if pages and pages != self._asked_pages:
                self._asked_pages = pages
                self.post_message(self.NeedPages(pages))
            return
        if model is None or model.done or model.stopped:
            return  # a stopped read goes on when asked (End, E), not by itself
        height = self.scrollable_content_region.height or 24
        want = max(self.scroll_offset.y + height, self.cursor + 1) + model.page_size // 2
        if want > model.count and want > self._asked:
            self._asked = want
            self.post_message(self.NeedRows(want))

    def reset_asked(self) -> None:
        self._asked = 0
        self._asked_pages = []
        self._check_needed()

    def _rows(self) -> int:
        return max(1, self.virtual_size.height)

    def action_cursor(self, delta: int) -> None:
        self._follow_end = False
        self.cursor = max(0, min(self._rows() - 1, self.cursor + delta))

    def action_page(self, delta: int) -> None:
        self._follow_end = False
        height = max(1, self.scrollable_content_region.height - 1)
        self.cursor = max(0, min(self._rows() - 1, self.cursor + delta * height))

    def action_first(self) -> None:
        self._follow_end = False
        self.cursor = 0

    def action_last(self) -> None:
        model = self.model
        if model is not None and not model.done:
            model.stopped = False  # End reads on after a stopped read
            self._follow_end = True
            self.post_message(self.NeedRows(None))
            self.rows_changed()
        self.cursor = self._rows() - 1

    def on_click(self, event) -> None:  # the mouse is optional, but works
        row = self.scroll_offset.y + event.y
        if 0 <= row < self._rows():
            if row == self.cursor and event.chain >= 2:
                self.post_message(self.Opened(row))
            self._follow_end = False
            self.cursor = row


__all__ = ["COLUMNS", "MessageList", "cells", "header_text", "layout"]

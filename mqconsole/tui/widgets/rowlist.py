"""A list of rows drawn only when on screen: the journal's records, a record's 21,600 ids,
the replay's events, the dead-letter handler's plan and run (5,000 messages).

A ``DataTable`` builds and measures every cell when rows are added (500 records took a
second on a loaded machine, 21,600 ids tens of seconds). :class:`RowList` holds a row count
and a function that gives row ``i``'s cells; it asks for the rows in view only (Textual's
line API), so filling or refilling it costs nothing however many rows it has. Columns have
fixed widths; a cell too long for its column ends in "…". Cells are ``Text`` made safe by
whoever made them (``safe.txt``). Its styles are in ``tui/styles/widgets.tcss``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mqconsole.tui import keys as K


@dataclass(frozen=True)
class RowColumn:
    title: str
    width: int
    right: bool = False  # justified to the right (counts)


class RowList(ScrollView, can_focus=True):
    """Rows given by a function, a header line above them, a cursor; ``enter`` selects."""

    BINDINGS = K.bindings(K.ROW_LIST_KEYS)
    COMPONENT_CLASSES = {"row-list--header", "row-list--cursor", "row-list--odd"}

    cursor: reactive[int] = reactive(0, always_update=True)

    class Selected(Message):
        """``enter`` (or a double click) on row ``row``."""

        def __init__(self, rows: RowList, row: int) -> None:
            super().__init__()
            self.rows = rows
            self.row = row

        @property
        def control(self) -> RowList:
            return self.rows

    def __init__(self, columns: Sequence[RowColumn] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.columns = list(columns)
        self.count = 0
        self._cells: Callable[[int], Sequence[Text]] = lambda i: ()
        self._styles: dict[str, Style] = {}

    # -- data --------------------------------------------------------------------------------
    def set_columns(self, columns: Sequence[RowColumn]) -> None:
        self.columns = list(columns)
        self.virtual_size = Size(self._width(), self.count + 1)
        self.refresh()

    def show(self, count: int, cells: Callable[[int], Sequence[Text]], *,
             keep_cursor: bool = False) -> None:
        """Show ``count`` rows, row ``i``'s cells being ``cells(i)`` (asked when drawn)."""
        self.count = count
        self._cells = cells
        self.virtual_size = Size(self._width(), count + 1)  # + the header
        if keep_cursor:
            self.cursor = min(self.cursor, max(0, count - 1))
        else:
            self.scroll_to(0, 0, animate=False, immediate=True)
            self.cursor = 0
        self.refresh()

    @property
    def row_count(self) -> int:
        return self.count

    def cells(self, i: int) -> list[str]:
        """Row ``i``'s cells as plain text (what the operator reads)."""
        return [c.plain for c in self._cells(i)]

    def _width(self) -> int:
        return sum(c.width for c in self.columns) + max(0, len(self.columns) - 1)

    # -- drawing -----------------------------------------------------------------------------
    def _style(self, style: str | Style) -> Style:
        if isinstance(style, Style):
            return style
        found = self._styles.get(style)
        if found is None:
            found = self._styles[style] = self.app.console.get_style(style) if style \
                else Style()
        return found

    def _line(self, cells: Sequence[Text], style: Style) -> list[Segment]:
        segments: list[Segment] = []
        for n, col in enumerate(self.columns):
            cell = cells[n] if n < len(cells) else Text("")
            if n:
                segments.append(Segment(" ", style))
            if cell.spans:  # several styles: Rich lays it out
                cell = cell.copy()
                cell.truncate(col.width, overflow="ellipsis", pad=False)
                if col.right:
                    cell.pad_left(col.width - cell.cell_len)
                else:
                    cell.pad_right(col.width - cell.cell_len)
                segments.extend(Segment.apply_style(cell.render(self.app.console), style))
                continue
            plain = cell.plain
            if cell_len(plain) > col.width:
                plain = set_cell_size(plain, col.width - 1) + "…"
            pad = " " * (col.width - cell_len(plain))
            plain = pad + plain if col.right else plain + pad
            segments.append(Segment(plain, style + self._style(cell.style)))
        return segments

    def render_line(self, y: int) -> Strip:
        sx, sy = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            style = base + self.get_component_rich_style("row-list--header")
            line = self._line([Text(c.title) for c in self.columns], style)
            return Strip(line).crop_extend(sx, sx + width, style)
        i = sy + y - 1
        if i >= self.count:
            return Strip.blank(width, base)
        style = base
        if i % 2:
            style = style + self.get_component_rich_style("row-list--odd")
        if i == self.cursor:
            style = style + self.get_component_rich_style("row-list--cursor")
        return Strip(self._line(self._cells(i), style)).crop_extend(sx, sx + width, style)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()

    # -- cursor and scrolling -----------------------------------------------------------------
    def _rows_on_screen(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def watch_cursor(self, old: int, new: int) -> None:
        height = self._rows_on_screen()
        top = self.scroll_offset.y
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + height:
            self.scroll_to(y=new - height + 1, animate=False, immediate=True)
        self.refresh()

    def move_cursor(self, row: int) -> None:
        self.cursor = max(0, min(self.count - 1, row))

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta)

    def action_page(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta * max(1, self._rows_on_screen() - 1))

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self.count - 1)

    def action_select(self) -> None:
        if 0 <= self.cursor < self.count:
            self.post_message(self.Selected(self, self.cursor))

    def on_click(self, event: events.Click) -> None:  # the mouse works too
        row = self.scroll_offset.y + event.y - 1
        if 0 <= row < self.count:
            if row == self.cursor and event.chain >= 2:
                self.post_message(self.Selected(self, row))
            self.cursor = row


__all__ = ["RowColumn", "RowList"]

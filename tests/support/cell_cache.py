"""One rendering of each DataTable cell per test process, not one per table (issue 26).

A DataTable renders each cell it shows through Rich (a ``Padding`` of the cell's text,
styled, cut into lines): at a pilot test's first frame of the queue list that was a fifth
of the whole test's CPU (the frame itself a third), and the next test drew the very same
cells again, as every test starts on the same demo queue manager. Textual keeps what it
rendered in the table's own cache, keyed on the table's row and column keys: a new table
starts empty. The console draws one table of a kind per process, so it gains nothing
there; the suite draws one per test.

:func:`install` gives every DataTable of this process a second, shared cache keyed on what
the rendering is made of: the cell's text (its characters, spans and style, as Textual
formatted it), its row and column index (Textual puts them into the styles, for the mouse),
the base style, the cursor's and hover's component styles, whether the cell is a header,
row label or fixed cell, the cell's width and height, the padding, and the console's
options. A table that finds its cell there takes the lines (a list of lists of immutable
segments, which Textual itself hands out again from its own cache, never changes) and keeps
them in its own cache as Textual would have. Cells that are not plain ``rich.text.Text``
(or a string) are rendered as before, by the table.

Textual 8.2's ``DataTable._render_cell`` (private: Textual is pinned to one minor,
tests/tui/test_no_textual_internals.py keeps the console itself off such names); when it
is not there, nothing is installed and every table renders its own cells, as before.
"""

from __future__ import annotations

import functools
from typing import Any

_SIZE = 50_000  # cells kept (least recently used dropped): a few MB


def install() -> bool:
    """Share rendered cells between this process's DataTables; False if Textual has no
    such method (or it is installed already)."""
    from rich.text import Text
    from textual.cache import LRUCache
    from textual.widgets import DataTable

    original = getattr(DataTable, "_render_cell", None)
    if original is None or getattr(original, "shared_cells", False) \
            or not hasattr(DataTable, "_get_styles_to_render_cell"):
        return False
    shared: LRUCache[tuple[Any, ...], Any] = LRUCache(_SIZE)

    def content(cell: Any) -> Any:
        """A hashable value equal for cells Rich renders alike (None: not cached)."""
        if type(cell) is str:
            return cell
        if type(cell) is Text:
            return (cell.plain, tuple(cell.spans), cell.style, cell.justify, cell.overflow,
                    cell.no_wrap, cell.end, cell.tab_size)
        return None

    @functools.wraps(original)
    def render_cell(self: DataTable[Any], row_index: int, column_index: int,
                    base_style: Any, width: int, cursor: bool = False,
                    hover: bool = False) -> Any:
        is_header_cell = row_index == -1
        is_row_label_cell = column_index == -1
        row_key = self._header_row_key if is_header_cell \
            else self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        own_key = (row_key, column_key, base_style, cursor, hover, self._show_hover_cursor,
                   self._update_count, self._pseudo_class_state)  # (Textual's own key)
        own = self._cell_render_cache
        if own_key in own:
            return own[own_key]
        key = _key(self, content, row_index, column_index, row_key, base_style, width,
                   cursor, hover, is_header_cell, is_row_label_cell)
        if key is None:
            return original(self, row_index, column_index, base_style, width, cursor, hover)
        lines = shared.get(key)
        if lines is None:
            lines = original(self, row_index, column_index, base_style, width, cursor, hover)
            shared[key] = lines
        else:
            own[own_key] = lines
        return lines

    render_cell.shared_cells = True  # type: ignore[attr-defined]
    DataTable._render_cell = render_cell  # type: ignore[method-assign]
    return True


def _key(table: Any, content: Any, row_index: int, column_index: int, row_key: Any,
         base_style: Any, width: int, cursor: bool, hover: bool, is_header_cell: bool,
         is_row_label_cell: bool) -> tuple[Any, ...] | None:
    """What DataTable._render_cell's rendering depends on, as one hashable value (None: a
    cell it does not know how to compare)."""
    is_fixed_style_cell = (not is_header_cell and not is_row_label_cell
                           and (row_index < table.fixed_rows
                                or column_index < table.fixed_columns))
    row_label, row_cells = table._get_row_renderables(row_index)
    if is_row_label_cell:
        cell = row_label if row_label is not None else ""
    else:
        cell = row_cells[column_index]
    text = content(cell)
    if text is None:
        return None
    styles = table._get_styles_to_render_cell(
        is_header_cell, is_row_label_cell, is_fixed_style_cell, hover, cursor,
        table.show_cursor, table._show_hover_cursor,
        table.cursor_foreground_priority == "css",
        table.cursor_background_priority == "css")
    if is_header_cell:
        height: Any = ("header", table.header_height)
    else:
        row = table.rows[row_key]
        height = ("row", row.height, row.auto_height)
    app = table.app
    console = app.console
    options = tuple(vars(app.console_options).items())
    return (text, row_index, column_index, base_style, styles, width, height,
            table.cell_padding, options, type(console), console.tab_size,
            console.legacy_windows)

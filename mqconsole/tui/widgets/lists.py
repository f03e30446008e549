"""A row list: Textual's DataTable with ``home``/``end`` going to the first and last row.

DataTable binds ``home``/``end`` to the leftmost and rightmost column, which in a row list
scrolls sideways or does nothing: an operator pressing End on a list expects its end (as
the message list and k9s do). ``ctrl+home``/``ctrl+end`` do the same.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import DataTable


class ListTable(DataTable[Any]):
    BINDINGS = [
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]


__all__ = ["ListTable"]

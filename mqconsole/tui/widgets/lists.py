"""A row list: Textual's DataTable with ``home``/``end`` going to the first and last row.

DataTable binds ``home``/``end`` to the leftmost and rightmost column, which in a row list
scrolls sideways or does nothing: an operator pressing End on a list expects its end (as
the message list and k9s do). ``ctrl+home``/``ctrl+end`` do the same.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable

from mqconsole.tui import keys as K


class ListTable(DataTable[Any]):
    BINDINGS = K.bindings(K.TABLE_KEYS)


__all__ = ["ListTable"]

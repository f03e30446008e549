"""Payloads are data: the one way text from a queue manager reaches a widget.

Anything that may come from message bytes, queue names or MQ replies is turned into a Rich
``Text`` (never parsed as markup) after :func:`mqconsole.mq.payload.safe_text` has made
escape sequences, control characters, bidi overrides and invisible characters visible as
``\\x1b``-style escapes. Widgets that parse strings as markup (DataTable cells, Static,
Label, notifications) are always handed a ``Text`` or called with ``markup=False``.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from mqconsole.mq.payload import safe_text


def clean(value: object) -> str:
    """A string safe for a terminal, on one line (newlines and tabs shown as ⏎ and →)."""
    if value is None:
        return ""
    if isinstance(value, bytes | bytearray):
        value = bytes(value).decode("latin-1")
    text = safe_text(str(value))
    return text.replace("\r\n", "⏎").replace("\n", "⏎").replace("\t", "→")


def clean_block(value: object) -> str:
    """Like :func:`clean` but keeps newlines and tabs (for multi-line views)."""
    if value is None:
        return ""
    return safe_text(str(value))


def txt(value: object, style: str | Style = "") -> Text:
    """A one-line ``Text`` of ``value``, never markup."""
    return Text(clean(value), style=style, no_wrap=True, overflow="ellipsis")


def block(value: object, style: str | Style = "") -> Text:
    """A multi-line ``Text`` of ``value``, never markup."""
    return Text(clean_block(value), style=style)


def fit(text: str, width: int) -> str:
    """Cut ``text`` to ``width`` cells with '…' (cells, not characters: CJK is 2 wide)."""
    if width <= 0:
        return ""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…"


__all__ = ["block", "clean", "clean_block", "fit", "txt"]

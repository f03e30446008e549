"""Read-only lines drawn only when on screen: a payload of any size in a few lines' time.

A ``TextArea`` lays out (and soft-wraps) its whole text on the event loop: 2 MB of text took
seconds and a 100 MB message froze the console for minutes. :class:`LazyLines` holds a line
count and a function that gives line ``i``; it asks for the lines in view only. The text is
cut into lines off the event loop (:func:`text_lines`); the hex dump's lines are made from the
bytes as they are shown (:func:`hex_line`). Every line passes through ``safe.clean``.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mqconsole.mq.payload import hex_dump
from mqconsole.tui.safe import clean

WRAP = 400  # characters: a longer line is cut into pieces of this length
HEX_WIDTH = 16  # bytes a hex line shows


def text_lines(text: str, wrap: int = WRAP) -> list[str]:
    """``text`` as lines no longer than ``wrap`` (run it in a worker: it reads all of it)."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= wrap:
            out.append(line)
        else:
            out.extend(line[i:i + wrap] for i in range(0, len(line), wrap))
    return out


def hex_line(data: bytes, i: int, ccsid: int | None) -> str:
    """Line ``i`` of ``data``'s hex dump (as :func:`hex_dump` writes it)."""
    off = i * HEX_WIDTH
    line = hex_dump(data[off:off + HEX_WIDTH], HEX_WIDTH, ccsid=ccsid)
    return f"{off:08x}{line[8:]}"


class LazyLines(ScrollView, can_focus=True):
    """Lines given by a function, drawn as they come into view (no wrapping: long lines
    were cut by whoever made them; the view scrolls sideways)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.count = 0
        self._line: Callable[[int], str] = lambda i: ""

    def show(self, count: int, line: Callable[[int], str], width: int = WRAP) -> None:
        """Show ``count`` lines, line ``i`` being ``line(i)``, at most ``width`` wide."""
        self.count = count
        self._line = line
        self.virtual_size = Size(width, count)
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def line(self, i: int) -> str:
        """Line ``i`` as shown (made safe)."""
        return clean(self._line(i))

    def render_line(self, y: int) -> Strip:
        sx, sy = self.scroll_offset
        width = self.size.width
        i = sy + y
        if i >= self.count:
            return Strip.blank(width, self.rich_style)
        strip = Strip([Segment(self.line(i), self.rich_style)])
        return strip.crop_extend(sx, sx + width, self.rich_style)


__all__ = ["HEX_WIDTH", "WRAP", "LazyLines", "hex_line", "text_lines"]

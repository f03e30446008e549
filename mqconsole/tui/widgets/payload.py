"""A read-only ``TextArea`` for payloads, with JSON/XML highlighting that needs no tree-sitter.

Textual highlights through tree-sitter when ``textual[syntax]`` is installed; without it this
widget highlights JSON and XML itself with a small tokenizer (strings, numbers, keywords,
keys, tags, attributes, comments). Text put here has been through ``safe.clean_block``:
escape sequences and control characters appear as ``\\x1b``-style escapes.
"""

from __future__ import annotations

import re
from collections import defaultdict

from textual.widgets import TextArea

_JSON = re.compile(r'(?P<key>"(?:[^"\\]|\\.)*"(?=\s*:))|(?P<string>"(?:[^"\\]|\\.)*")'
                   r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
                   r"|(?P<constant>\btrue\b|\bfalse\b|\bnull\b)")
_XML = re.compile(r"(?P<comment><!--.*?-->)|(?P<tag></?[\w:.-]+|/?>|<\?[\w:.-]*|\?>)"
                  r"|(?P<attr>[\w:.-]+(?==))|(?P<string>\"[^\"]*\"|'[^']*')")
_NAMES = {"key": "json.label", "string": "string", "number": "number",
          "constant": "constant.builtin", "comment": "comment", "tag": "tag",
          "attr": "property"}


def highlights(text: str, kind: str) -> dict[int, list[tuple[int, int | None, str]]]:
    """Line number -> (start byte, end byte, highlight name), as TextArea keeps them."""
    pattern = _JSON if kind == "json" else _XML if kind == "xml" else None
    out: dict[int, list[tuple[int, int | None, str]]] = defaultdict(list)
    if pattern is None:
        return out
    for n, line in enumerate(text.split("\n")):
        if len(line) > 10_000:  # a huge single line: do not spend seconds on colours
            continue
        for m in pattern.finditer(line):
            name = m.lastgroup
            if name is None:
                continue
            start = len(line[:m.start()].encode("utf-8"))
            end = start + len(m.group().encode("utf-8"))
            out[n].append((start, end, _NAMES[name]))
    return out


class PayloadView(TextArea):
    """Read-only text with highlighting by payload kind (``json``, ``xml`` or plain)."""

    def __init__(self, text: str = "", *, kind: str = "text", id: str | None = None,
                 read_only: bool = True) -> None:
        self.kind = kind
        super().__init__(text, read_only=read_only, id=id, soft_wrap=True,
                         show_line_numbers=False, tab_behavior="focus")

    def set_payload(self, text: str, kind: str = "text") -> None:
        self.kind = kind
        self.load_text(text)

    def _build_highlight_map(self) -> None:
        if self._highlight_query:
            super()._build_highlight_map()
            return
        self._line_cache.clear()
        self._highlights.clear()
        for line, marks in highlights(self.text, getattr(self, "kind", "text")).items():
            self._highlights[line].extend(marks)


__all__ = ["PayloadView", "highlights"]

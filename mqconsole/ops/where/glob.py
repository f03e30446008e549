"""The wildcards of ``=``, ``!=`` and ``in`` on text and ids: ``*`` and ``?`` over the
whole value, matched in time linear in the text."""

from __future__ import annotations

import re


class _Segment:
    """A piece of a wildcard between two ``*``: literal text, ``?`` matching any one character.

    Its length is fixed, so finding it never backtracks: ``str.find`` when it has no ``?``,
    else a regular expression of literals and ``.`` (no repetition in it)."""

    __slots__ = ("length", "rx", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.length = len(text)
        self.rx = None if "?" not in text else re.compile(
            "".join("." if c == "?" else re.escape(c) for c in text), re.DOTALL)

    def at(self, s: str, i: int) -> bool:
        if self.rx is None:
            return s.startswith(self.text, i)
        return i + self.length <= len(s) and self.rx.match(s, i) is not None

    def find(self, s: str, start: int, end: int) -> int:
        if self.rx is None:
            return s.find(self.text, start, end)
        m = self.rx.search(s, start, end)
        return -1 if m is None else m.start()


class Glob:
    """``fnmatch``-style ``*`` and ``?`` over the whole value, in time linear in the text.

    A run of ``*`` is one ``*`` (``'*****Z'`` is ``'*Z'``); the pieces between stars are found
    leftmost-first, which is all a wildcard needs, so no input makes matching backtrack (a
    regular expression ``.*.*.*…Z`` takes minutes on a long value without a Z)."""

    __slots__ = ("first", "last", "middle", "single")

    def __init__(self, pattern: str) -> None:
        parts = pattern.split("*")
        self.single = len(parts) == 1
        self.first = _Segment(parts[0])
        self.last = _Segment(parts[-1])
        self.middle = [_Segment(p) for p in parts[1:-1] if p]

    def fullmatch(self, s: str) -> bool:
        first, last = self.first, self.last
        if self.single:
            return len(s) == first.length and first.at(s, 0)
        end = len(s) - last.length  # where the last piece must start
        if end < first.length or not first.at(s, 0):
            return False
        pos = first.length
        for seg in self.middle:
            at = seg.find(s, pos, end)
            if at < 0:
                return False
            pos = at + seg.length
        return pos <= end and last.at(s, end)

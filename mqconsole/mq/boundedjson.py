"""JSON from untrusted text (payloads, journal lines) that never raises ``RecursionError``.

``json.loads('[' * 1000 + ']' * 1000)`` (2 KB) raises ``RecursionError``, which is not a
``ValueError``; and a document a few hundred levels deep still loads, but pretty-printing it
(``json.dumps(indent=2)`` recurses in Python) or walking it overflows the stack later, far
from the input. :func:`loads` turns both into a ``ValueError`` at the input: too deep is
simply "not JSON we show", and callers fall back to text.
"""

from __future__ import annotations

import gc
import json
from typing import Any

MAX_DEPTH = 100  # deeper documents are shown as text, never pretty-printed


class TooDeep(ValueError):
    """The document nests deeper than allowed."""


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply ``value`` nests lists and dicts (a scalar is 0), counting up to ``limit + 1``
    at most. Iterative, so any depth is safe."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        level += 1
        if level > deepest:
            deepest = level
            if deepest > limit:
                return deepest
        stack.extend((child, level) for child in children)
    return deepest


def check_depth(value: Any, limit: int = MAX_DEPTH, what: str = "the JSON") -> Any:
    """``value`` unchanged, or :class:`TooDeep` when it nests deeper than ``limit``."""
    if depth(value, limit) > limit:
        raise TooDeep(f"{what} nests deeper than {limit} levels")
    return value


BRACKETS = 200
"""Texts with at least this many opening brackets may nest deep enough to reach the
interpreter's recursion limit in the parser: they are parsed with the collector paused."""


def _parse(text: str | bytes) -> Any:
    """``json.loads``; for a text that may nest deeply, with Python's cyclic garbage
    collector paused while it parses. A collection that starts while the parser is a
    thousand levels deep runs the finalisers of whatever garbage the process holds there,
    with no stack left: their own ``RecursionError`` goes to ``sys.unraisablehook``
    (a stray "Exception ignored" on stderr; a failed test under pytest, which reports it).
    The garbage is collected after, at the caller's depth."""
    if len(text) < BRACKETS:
        return json.loads(text)
    opens = (b"[", b"{") if isinstance(text, bytes) else ("[", "{")
    if text.count(opens[0]) + text.count(opens[1]) < BRACKETS:  # type: ignore[arg-type]
        return json.loads(text)
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return json.loads(text)
    finally:
        if collecting:
            gc.enable()


def loads(text: str | bytes, *, limit: int | None = MAX_DEPTH) -> Any:
    """``json.loads`` raising only ``ValueError`` (:class:`TooDeep` for too deep input).

    ``limit=None`` checks nothing past what the parser itself survives (for large records
    whose depth the caller checks where it matters).
    """
    try:
        value = _parse(text)
    except RecursionError:
        raise TooDeep("the JSON nests too deeply to read") from None
    if limit is not None:
        check_depth(value, limit)
    return value


__all__ = ["MAX_DEPTH", "TooDeep", "check_depth", "depth", "loads"]

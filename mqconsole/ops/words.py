"""Counts in sentences, for every face: "1 message", "2 messages", never "1 messages" or
"message(s)" (issue 15 item 14)."""

from __future__ import annotations


def counted(n: int, word: str = "message", *, plural: str | None = None,
            grouped: bool = False) -> str:
    """``n`` and ``word``, in the plural unless ``n`` is 1 (``grouped``: 1,234)."""
    number = f"{n:,}" if grouped else str(n)
    return f"{number} {word if n == 1 else plural or word + 's'}"


def agree(n: int, one: str, many: str) -> str:
    """The verb (or word) that agrees with ``n``: ``agree(n, "was", "were")``."""
    return one if n == 1 else many


def note(template: str, n: int) -> str:
    """A note's template filled in for ``n`` messages: ``{messages}`` ("1 message"), ``{n}``,
    and verbs that agree: ``{were}``, ``{have}``, ``{ask}``, ``{are}``."""
    return template.format(n=n, messages=counted(n), were=agree(n, "was", "were"),
                           have=agree(n, "has", "have"), ask=agree(n, "asks", "ask"),
                           are=agree(n, "is", "are"))


def fit_count(n: int, width: int) -> str:
    """``n`` in at most ``width`` characters, never cut: 180000 → ``180000``, or ``180k``,
    ``1.2M``, ``3G`` when the column is narrower (a count is never shown as ``1800…``)."""
    text = str(n)
    if len(text) <= width:
        return text
    for size, unit in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
        if abs(n) >= size:
            for digits in (1, 0):
                short = f"{n / size:.{digits}f}".rstrip("0").rstrip(".") + unit
                if len(short) <= width:
                    return short
    return text  # wider than the column rather than wrong


__all__ = ["agree", "counted", "fit_count", "note"]

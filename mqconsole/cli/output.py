"""Output helpers: JSON on stdout, narration on stderr, text made safe for a terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from mqconsole.mq.payload import safe_text

_json_written = [False]  # whether this run printed its JSON (an error then prints none)


def emit_json(data: Any) -> None:
    # ensure_ascii escapes every control character: message bytes never reach the terminal raw
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=True, default=str) + "\n")
    _json_written[0] = True


def json_written() -> bool:
    return _json_written[0]


def forget_json() -> None:
    """A new run (``cli.main.main`` called again in one process) has printed nothing."""
    _json_written[0] = False


def emit_json_error(message: str, code: int) -> None:
    """With --json, an error is a JSON object on stdout too (its sentence is on stderr):
    ``{"error": SENTENCE, "exit": CODE}`` — unless the command already printed its JSON."""
    if not json_written():
        emit_json({"error": message, "exit": int(code)})


def say(text: str) -> None:
    """Narration for a human, on stderr."""
    print(text, file=sys.stderr)


def safe(value: object) -> str:
    """Any value that may come from message bytes, made safe to print."""
    return safe_text("" if value is None else str(value))


def _to_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed stdout
        return False


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], *,
          max_width: dict[int, int] | None = None) -> str:
    """A plain text table (cells made safe, long cells cut with …)."""
    lines, _ = table_lines(headers, rows, max_width=max_width)
    return "\n".join(lines)


def table_lines(headers: Sequence[str], rows: Sequence[Sequence[object]], *,
                max_width: dict[int, int] | None = None, widths: list[int] | None = None
                ) -> tuple[list[str], list[int]]:
    """The header line and one line per row, and the column widths used: at least
    ``widths`` (a table printed in blocks keeps its first block's columns). Long cells are
    cut to ``max_width`` only for a terminal: into a file or a pipe nothing is cut."""
    max_width = (max_width or {}) if _to_terminal() else {}
    cells = [[safe(c) for c in r] for r in rows]
    for r in cells:
        for i, c in enumerate(r):
            w = max_width.get(i)
            if w and len(c) > w:
                r[i] = c[: w - 1] + "…"
    widths = list(widths) if widths else [len(h) for h in headers]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    lines = ["  ".join(h.ljust(widths[i]) for i, h in enumerate(headers)).rstrip()]
    for r in cells:
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
    return lines, widths

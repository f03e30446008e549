"""The handler's listed messages as the console's table draws them, kept where the plan or
the run was made (issue 23 item 3).

A plan or a run lists its first messages (``DlqPass.listed``: 5,000 in the console), and its
result's plan holds a step for each of them. Unpickled in the console they were about 9 MB of
small objects, which Python's arenas kept after the screen closed (docs/benchmarks.md). So
:func:`present` takes them out of the summary where it was made (the handler's process, or
the console's in process): the messages become plain rows (:data:`Row`) kept there
(:class:`HeldRows`), the summary carries a :class:`Listed` (how many, the formats, the first
rows) and its plan keeps every step that would fail and one step a destination for the rest
(``count``: how many it stands for, as the plan past ``listed`` already does). The console
asks for the other rows as they come into view.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqconsole.ops.dlq.handler import first_the_failure

if TYPE_CHECKING:
    from mqconsole.ops.operation import Summary

FIRST = 500  # rows the summary carries (a screenful and more: a small plan has all of them)

#: a listed message: its MsgId (hex), RULE, ACTION, ATT, FORMAT (:func:`format_cell`),
#: OUTCOME (:func:`outcome_text`) and whether it failed or would fail; plain values, made
#: safe by the console when it draws them
Row = tuple[str, str, str, int, str, str, bool]


def outcome_text(m: Mapping[str, Any]) -> str:
    """A message's outcome as the table says it: what would fail first, then its reason
    when the outcome does not name it."""
    return first_the_failure(m["outcome"]) + (
        f" ({m['reason']})" if m.get("reason") and m["reason"] not in m["outcome"] else "")


def format_cell(m: Mapping[str, Any]) -> str:
    """The format FORMAT rules matched, and the dead-letter header's in brackets when it
    differs (an RFH2 of message properties between them: ``MQSTR (MQHRF2)``)."""
    data, header = m.get("format") or "", m.get("header_format") or ""
    if not data and not header:
        return "-"
    return data if header in ("", data) else f"{data} ({header})"


def is_bad(outcome: str) -> bool:
    """The message failed, or would fail (first or after its action)."""
    return outcome.startswith(("failed", "would fail")) or " — would fail" in outcome


def message_rows(messages: Iterable[Mapping[str, Any]]) -> list[Row]:
    """The rows of the listed messages; the texts many rows share are held once."""
    shared: dict[str, str] = {}

    def one(text: str) -> str:
        return shared.setdefault(text, text)

    return [(str(m["msg_id"]), one(str(m["rule"] or "-")), one(str(m["action"] or "-")),
             int(m["attempts"] or 0), one(format_cell(m)), one(outcome_text(m)),
             is_bad(m["outcome"]))
            for m in messages]


@dataclass(frozen=True)
class Listed:
    """What the console holds of a plan's or a run's listed messages."""

    count: int
    formats: tuple[str, ...]  # every FORMAT cell among them, sorted (the column's width)
    first: tuple[Row, ...]  # rows 0.. (the first FIRST)
    token: int  # which rows are kept (a newer plan or run replaces them)


class HeldRows:
    """The latest plan's or run's rows, kept for the console's questions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: list[Row] = []
        self.token = 0

    def hold(self, rows: list[Row]) -> int:
        with self._lock:
            self.token += 1
            self._rows = rows  # the rows before go
            return self.token

    def rows(self, token: int, start: int, stop: int) -> list[Row] | None:
        """Rows ``start`` to ``stop`` of ``token``'s (None: newer ones replaced them)."""
        with self._lock:
            if token != self.token:
                return None
            return self._rows[max(0, start):max(0, stop)]


def compact_plan(plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every step that would fail as it is, then one step a destination (or action) for the
    others, its ``count`` how many it stands for: what the console says of a plan
    (``would_fail``, its groups, how many go where) is the same."""
    out = [step for step in plan if step.get("would_fail")]
    alike: dict[str, dict[str, Any]] = {}
    for step in plan:
        if step.get("would_fail"):
            continue
        key = str(step.get("destination") or step.get("action") or "?")
        n = int(step.get("count", 1))
        if key in alike:
            alike[key]["count"] += n
        else:
            alike[key] = {"destination": step.get("destination"),
                          "action": step.get("action"), "count": n}
    return out + list(alike.values())


def present(summary: Summary, held: HeldRows) -> Summary:
    """``summary`` as the console holds it: its listed messages kept in ``held`` as rows
    (``extra["listed"]``: a :class:`Listed`; ``extra["messages"]`` gone), its plan compact."""
    messages = summary.extra.pop("messages", None)
    if messages is None:
        return summary
    rows = message_rows(messages)
    token = held.hold(rows)
    summary.extra["listed"] = Listed(count=len(rows),
                                     formats=tuple(sorted({r[4] for r in rows})),
                                     first=tuple(rows[:FIRST]), token=token)
    summary.extra.setdefault("message_count", len(rows))
    if summary.extra.get("outcome_counts") is None:
        summary.extra["outcome_counts"] = dict(_counts(messages))
    summary.result.plan = compact_plan(summary.result.plan)
    return summary


def _counts(messages: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in messages:
        out[m["outcome"]] = out.get(m["outcome"], 0) + 1
    return out


__all__ = ["FIRST", "HeldRows", "Listed", "Row", "compact_plan", "format_cell", "is_bad",
           "message_rows", "outcome_text", "present"]

"""How the report's lists are shown — once, for the CLI's text, the HTML page and the console.

Each list has a title, its key columns and a count; :func:`tables` yields them in the order
an operator reads them (plugin lists last), the first ``top`` rows of each when asked (the
text and the HTML page show ``TOP_ROWS`` and say how many more; ``--json`` keeps every row),
with the list's total and each count's share of the messages; :func:`bar` draws a
horizontal bar with eighth blocks so 1 and 1,000,000 can sit on the same chart. Cells are
plain strings: the faces make them safe for their medium (Rich text, HTML escapes).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mqconsole.mq.names import reason_label
from mqconsole.ops.words import counted

BLOCKS = " ▏▎▍▌▋▊▉█"
TOP_ROWS = 25  # rows of a list the text and the HTML page show; the rest are "N more"


@dataclass(frozen=True)
class Table:
    """One list of the report, ready to show."""

    key: str
    title: str
    headers: tuple[str, ...]
    rows: list[list[str]]
    counts: list[int]
    source: list[dict[str, Any]]  # the report's rows, for opening the messages behind one
    total: int = 0  # the counts of every row of the list, shown or not
    more: int = 0  # rows left out (``top``)
    messages: int = 0  # the report's messages, for each count's share

    def share(self, count: int) -> str:
        """``count`` as a percentage of the report's messages."""
        if self.messages <= 0:
            return "-"
        value = 100.0 * count / self.messages
        return "<0.1%" if 0 < value < 0.05 else f"{value:.1f}%"


TITLES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "by_queue": ("Messages by queue", (("qmgr", "QMGR"), ("queue", "QUEUE"),
                                      ("bytes", "BYTES"))),
    "by_reason": ("By dead-letter reason", (("reason", "REASON"),)),
    "by_destination": ("By destination", (("qmgr", "QMGR"), ("queue", "QUEUE"))),
    "by_reason_destination": ("By reason and destination queue",
                              (("reason", "REASON"), ("queue", "QUEUE"))),
    "by_age": ("By age", (("bucket", "AGE"),)),
    "by_put_application": ("By put application", (("name", "APPLICATION"),)),
    "backout_counts": ("By backout count", (("backout_count", "BACKOUT COUNT"),)),
    "duplicate_msg_ids": ("Duplicate MsgIds", (("msg_id", "MSGID"), ("queues", "QUEUES"))),
}


def cell(value: Any, field: str = "") -> str:
    """One value as text: a reason as every face says one (``MQRC_Q_FULL (2053)``, a number
    MQ has no name for alone: ``mq.names.reason_label``), ``-`` for another null, lists
    joined."""
    if field == "reason" and (value is None or isinstance(value, int)):
        return reason_label(value)
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, int) and field == "bytes":
        return f"{value:,}"
    return str(value)


def tables(report: dict[str, Any], top: int | None = None) -> Iterator[Table]:
    """The report's lists in reading order, each with its rows as text (the first ``top``
    rows when given)."""
    keys = [*TITLES, *sorted(k for k in report if k.startswith("by_") and k not in TITLES)]
    for key in keys:
        if key not in report:
            continue
        title, columns = TITLES.get(key, (f"By {key.removeprefix('by_')}",
                                          (("value", key.removeprefix("by_").upper()),)))
        every = list(report[key])
        source = every if top is None else every[:top]
        rows = [[cell(row.get(field), field) for field, _ in columns] for row in source]
        yield Table(key=key, title=title, headers=(*(h for _, h in columns), "COUNT"),
                    rows=rows, counts=[int(row["count"]) for row in source], source=source,
                    total=sum(int(row["count"]) for row in every),
                    more=len(every) - len(source), messages=int(report.get("messages") or 0))


def bar(count: int, largest: int, width: int = 30) -> str:
    """A horizontal bar of ``count`` against ``largest`` in ``width`` cells (eighths)."""
    if largest <= 0 or count <= 0:
        return ""
    eighths = max(1, round(count / largest * width * 8))
    full, rest = divmod(eighths, 8)
    return "█" * full + (BLOCKS[rest] if rest else "")


def headline(report: dict[str, Any]) -> str:
    """One line: how many messages, bytes and unparsed, as of when."""
    text = (f"{counted(report['messages'], grouped=True)}, "
            f"{counted(report['bytes'], 'byte', grouped=True)}"
            f" as of {report['as_of']}")
    if report.get("unparsed"):
        text += f"; {report['unparsed']:,} with headers that do not parse"
    return text


def extremes(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The oldest and youngest message as (label, text) lines."""
    lines = []
    for label in ("oldest", "youngest"):
        value = report.get(label)
        if value:
            lines.append((label, f"{value['put_time']}  {value['qmgr']} {value['queue']}  "
                                 f"MsgId {value['msg_id']}"))
    return lines

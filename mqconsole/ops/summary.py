"""``mqconsole summary``: what is on a queue at a glance, computed in one browse pass.

:func:`summarize` reads each :class:`~mqconsole.ops.views.MessageView` once and keeps only
counters (memory grows with the number of distinct reasons, destinations, formats and
backout counts, never with the number of messages). It reads the descriptor and the
dead-letter header only: payloads are never decoded, so a summary of a million messages
costs one browse.

Fixed buckets, every one present even when empty, in order — the ages are the audit
report's (``ops.timefmt.AGE_BUCKETS``, one set for every face)::

    by_age:  <1h  1h-24h  1d-7d  7d-30d  >30d   (+ "unknown" when a put time is unreadable)
    by_size: <1KB <10KB <100KB <1MB >=1MB       (of the whole body; 1KB = 1024 bytes)

The result (the JSON of ``mqconsole summary --json``)::

    {"queue", "now", "total", "total_bytes", "dead_lettered",
     "by_reason_and_dest": [{"reason", "reason_name", "dest_q", "dest_qmgr", "destination",
                             "count"}, ...],
     "by_reason": {reason_name: count}, "by_format": {format: count},
     (a reason MQ has no name for: its number, "65535", and reason_name null)
     "by_age": {bucket: count}, "by_size": {bucket: count},
     "by_backout_count": {"0": count, ...},
     "oldest": null | {"position", "msgid", "put_time", "age_seconds"}, "youngest": ...,
     "average_age_seconds", "smallest_bytes", "largest_bytes", "average_bytes"}

Lists and dicts of counts are sorted by count (largest first), then by key. Messages without
a dead-letter header count under the reason ``"(none)"`` (and have ``null`` reason and
destination in ``by_reason_and_dest``). Destinations are told apart by queue *and* queue
manager: ``destination`` is ``QUEUE``, or ``QUEUE@QMGR`` when the header names another
queue manager than the one the queue is on (``mq.facts.destination_label``), ``dest_qmgr``
that queue manager (the local one's name for a blank or local one). ``by_format`` counts
the format *under* the dead-letter header when there is one (``MQSTR``, ``MQHRF2``, ...),
else the MQMD Format, with ``"(none)"`` for a blank one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from mqconsole.backends.base import CountsFacts, FactCounts, FactPoint, QueueManager
from mqconsole.mq.facts import destination_label, from_micros, to_micros
from mqconsole.mq.names import (
    FEEDBACK_BY_NAME,
    REASON_BY_NAME,
    known_reason_name,
    reason_label,
)
from mqconsole.mq.payload import safe_text

from .browse import iter_views
from .timefmt import AGE_BUCKETS, age_seconds, format_age, iso_utc, to_utc, utcnow
from .timefmt import age_bucket as _age_bucket
from .views import MessageView

__all__ = [
    "AGE_BUCKETS",
    "NONE_KEY",
    "SIZE_BUCKETS",
    "SummaryBuilder",
    "age_bucket",
    "format_bytes",
    "format_summary_text",
    "size_bucket",
    "summarize",
    "summarize_queue",
]

NONE_KEY = "(none)"
UNKNOWN_AGE = "unknown"

SIZE_BUCKETS: tuple[tuple[str, float], ...] = (
    ("<1KB", 1024), ("<10KB", 10 * 1024), ("<100KB", 100 * 1024), ("<1MB", 1024 * 1024),
    (">=1MB", math.inf),
)


AGE_EDGES_US = tuple(int(limit * 1_000_000) for _, limit in AGE_BUCKETS[:-1])
SIZE_EDGES = tuple(int(limit) for _, limit in SIZE_BUCKETS[:-1])


def age_bucket(seconds: float | None) -> str:
    """The age bucket of an age in seconds (``ops.timefmt``'s; a negative age, from clock
    skew, is ``<1h``), ``unknown`` for an unreadable put time."""
    return _age_bucket(seconds) or UNKNOWN_AGE


def _reason_key(reason: int | None) -> str:
    """``by_reason``'s key: MQ's name, a number MQ has no name for as the number."""
    if reason is None:
        return NONE_KEY
    return known_reason_name(reason) or str(reason)


def _said_reason(key: str) -> str:
    """A ``by_reason`` key as every face says a reason: ``MQRC_Q_FULL (2053)``; a number
    MQ has no name for, and ``(none)``, as they are."""
    for prefix, codes in (("MQRC_", REASON_BY_NAME), ("MQFB_", FEEDBACK_BY_NAME)):
        code = codes.get(key[len(prefix):]) if key.startswith(prefix) else None
        if code is not None:
            return f"{key} ({code})"
    return key


def size_bucket(length: int) -> str:
    for name, limit in SIZE_BUCKETS:
        if length < limit:
            return name
    return SIZE_BUCKETS[-1][0]


def _by_count(counter: Counter) -> list[tuple[Any, int]]:
    return sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))


class SummaryBuilder:
    """Accumulates a summary one message at a time (``add``), for callers that browse in
    pages (the TUI) and want the figures as they go; ``result()`` may be called any time."""

    def __init__(self, queue: str | None = None, *, now: datetime | None = None,
                 local_qmgr: str | None = None) -> None:
        self.queue = queue
        self.local_qmgr = local_qmgr  # given: destinations elsewhere read QUEUE@QMGR
        self.now = utcnow() if now is None else to_utc(now)
        self.now_us = to_micros(self.now)
        self.total = 0
        self.total_bytes = 0
        self.dead_lettered = 0
        self.smallest: int | None = None
        self.largest: int | None = None
        self._age_sum_us = 0  # exact: the average is the same however the ages are summed
        self._aged = 0
        # (reason, queue, the other queue manager or "") -> count
        self._reason_dest: Counter[tuple[int | None, str | None, str | None]] = Counter()
        self._reason: Counter[str] = Counter()
        self._format: Counter[str] = Counter()
        self._age: Counter[str] = Counter()
        self._size: Counter[str] = Counter()
        self._backout: Counter[int] = Counter()
        self._oldest: tuple[datetime, dict[str, Any]] | None = None
        self._youngest: tuple[datetime, dict[str, Any]] | None = None

    def add(self, view: MessageView) -> None:
        length = view.length
        self.total += 1
        self.total_bytes += length
        self.smallest = length if self.smallest is None else min(self.smallest, length)
        self.largest = length if self.largest is None else max(self.largest, length)

        reason = view.reason
        if reason is not None:
            self.dead_lettered += 1
        self._reason_dest[(reason, *self._dest(view.dest_q, view.dest_qmgr))] += 1
        self._reason[_reason_key(reason)] += 1
        self._format[view.original_format or NONE_KEY] += 1
        self._size[size_bucket(length)] += 1
        self._backout[view.backout_count] += 1

        put = view.put_datetime
        age = age_seconds(put, self.now)
        self._age[age_bucket(age)] += 1
        if put is not None and age is not None:
            self._age_sum_us += self.now_us - to_micros(put)
            self._aged += 1
            if self._oldest is None or put < self._oldest[0]:
                self._oldest = (put, self._point(view))
            if self._youngest is None or put > self._youngest[0]:
                self._youngest = (put, self._point(view))

    def add_counts(self, counts: FactCounts) -> None:
        """Add what a backend counted (``backends.base.CountsFacts``): the same figures as
        ``add`` of every message it counted, in browse order."""
        for g in counts.groups:
            n = g.count
            self.total += n
            self.total_bytes += g.total_bytes
            self.smallest = g.smallest if self.smallest is None else min(self.smallest,
                                                                          g.smallest)
            self.largest = g.largest if self.largest is None else max(self.largest, g.largest)
            if g.reason is not None:
                self.dead_lettered += n
            self._reason_dest[(g.reason, *self._dest(g.dest_q, g.dest_qmgr))] += n
            self._reason[_reason_key(g.reason)] += n
            self._format[g.format or NONE_KEY] += n
            self._size[SIZE_BUCKETS[g.size_index][0]] += n
            self._backout[g.backout_count] += n
            if g.age_index is None:
                self._age[UNKNOWN_AGE] += n
            else:
                self._age[AGE_BUCKETS[g.age_index][0]] += n
                self._age_sum_us += g.age_sum_us
                self._aged += n
        for point, older in ((counts.oldest, True), (counts.youngest, False)):
            if point is not None:
                self._take_point(point, older)

    def _dest(self, queue: str | None, qmgr: str | None) -> tuple[str | None, str | None]:
        """A destination as the summary groups it: the queue, and the queue manager when
        it is another than ``local_qmgr`` (else ""), as ``destination_label`` tells."""
        if queue is None:
            return None, None
        label = destination_label(queue, qmgr, self.local_qmgr) or ""
        return queue, ("" if label == queue else label[len(queue) + 1:])

    def _dest_entry(self, queue: str | None, remote: str | None) -> dict[str, Any]:
        if queue is None:
            return {"dest_q": None, "dest_qmgr": None, "destination": None}
        return {"dest_q": queue, "dest_qmgr": remote or (self.local_qmgr or ""),
                "destination": f"{queue}@{remote}" if remote else queue}

    def _take_point(self, p: FactPoint, older: bool) -> None:
        put = from_micros(p.put_us)
        mine = self._oldest if older else self._youngest
        if mine is not None and not (put < mine[0] if older else put > mine[0]):
            return
        entry = (put, {"position": p.position, "msgid": p.msg_id.hex().upper(),
                       "put_time": iso_utc(put)})
        if older:
            self._oldest = entry
        else:
            self._youngest = entry

    @staticmethod
    def _point(view: MessageView) -> dict[str, Any]:
        return {"position": view.position, "msgid": view.msgid, "put_time": view.put_time}

    def _finish_point(self, point: tuple[datetime, dict[str, Any]] | None
                      ) -> dict[str, Any] | None:
        if point is None:
            return None
        out = dict(point[1])
        out["age_seconds"] = age_seconds(point[0], self.now)
        return out

    def result(self) -> dict[str, Any]:
        by_age = {name: self._age.get(name, 0) for name, _ in AGE_BUCKETS}
        if self._age.get(UNKNOWN_AGE):
            by_age[UNKNOWN_AGE] = self._age[UNKNOWN_AGE]
        return {
            "queue": self.queue,
            "now": iso_utc(self.now),
            "total": self.total,
            "total_bytes": self.total_bytes,
            "dead_lettered": self.dead_lettered,
            "by_reason_and_dest": [
                {"reason": r, "reason_name": None if r is None else known_reason_name(r),
                 **self._dest_entry(q, m), "count": n}
                for (r, q, m), n in sorted(self._reason_dest.items(),
                                           key=lambda kv: (-kv[1], kv[0][0] is None,
                                                           kv[0][0] or 0, kv[0][1] or "",
                                                           kv[0][2] or ""))
            ],
            "by_reason": dict(_by_count(self._reason)),
            "by_format": dict(_by_count(self._format)),
            "by_age": by_age,
            "by_size": {name: self._size.get(name, 0) for name, _ in SIZE_BUCKETS},
            "by_backout_count": {str(k): v for k, v in sorted(self._backout.items())},
            "oldest": self._finish_point(self._oldest),
            "youngest": self._finish_point(self._youngest),
            "average_age_seconds": (self._age_sum_us / (self._aged * 1_000_000)
                                    if self._aged else None),
            "smallest_bytes": self.smallest,
            "largest_bytes": self.largest,
            "average_bytes": (self.total_bytes / self.total) if self.total else None,
        }


def summarize(views: Iterable[MessageView], *, now: datetime | None = None,
              queue: str | None = None, local_qmgr: str | None = None) -> dict[str, Any]:
    """One pass over ``views`` → the summary dict (see the module doc). Ages are measured
    from ``now`` (default: the current time), the same instant for every message."""
    builder = SummaryBuilder(queue, now=now, local_qmgr=local_qmgr)
    for view in views:
        builder.add(view)
    return builder.result()


def add_queue_counts(qm: QueueManager, queue: str, builder: SummaryBuilder) -> bool:
    """Add the whole of ``queue`` to ``builder`` as the backend counts it where the
    messages are (``CountsFacts``); False when it cannot (browse instead)."""
    if not isinstance(qm, CountsFacts):
        return False
    counts = qm.fact_counts(queue, builder.now_us, AGE_EDGES_US, SIZE_EDGES)
    if counts is None:
        return False
    builder.add_counts(counts)
    return True


def summarize_queue(qm: QueueManager, queue: str, *, now: datetime | None = None,
                    fast: bool = True) -> dict[str, Any]:
    """The summary of ``queue``: counted by the backend where it can (``CountsFacts``: the
    embedded queue manager counts in SQLite), else by browsing every message. Both give
    the same figures, destinations told apart by queue and queue manager (``qm.name`` is the
    local one); ``fast=False`` browses."""
    builder = SummaryBuilder(queue, now=now, local_qmgr=qm.name)
    if fast and add_queue_counts(qm, queue, builder):
        return builder.result()
    for view in iter_views(qm, queue, now=builder.now):
        builder.add(view)
    return builder.result()


# -- text ------------------------------------------------------------------------------------

def format_bytes(n: float | None) -> str:
    """``512 B``, ``1.5 KB``, ``12.0 MB`` (1 KB = 1024 bytes)."""
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if abs(value) < 1024 or unit == "GB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover


def _cell(value: object) -> str:
    """A table cell from message bytes made safe for a terminal, on one line."""
    if value is None:
        return "-"
    text = safe_text(str(value))
    return text.replace("\n", "\\n").replace("\t", "\\t")


def _table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [len(h) for h in headers]
    for row in rows:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], len(c))

    def line(cells: list[str]) -> str:
        parts = [c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                 for i, c in enumerate(cells)]
        return "  " + "  ".join(parts).rstrip()
    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in rows)
    return out


def _pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:.0f}%" if total else "-"


def format_summary_text(summary: dict[str, Any]) -> str:
    """The summary as plain-text tables for a terminal. Names that come from message bytes
    (destinations, formats) pass through ``safe_text``, so they cannot move the cursor."""
    total = int(summary.get("total") or 0)
    queue = summary.get("queue")
    title = f"Queue {_cell(queue)}" if queue else "Summary"
    lines = [f"{title}: {total} message{'s' if total != 1 else ''}, "
             f"{format_bytes(summary.get('total_bytes') or 0)}"
             + (f", {summary.get('dead_lettered')} with a dead-letter header"
                if summary.get("dead_lettered") else "")]
    if summary.get("now"):
        lines.append(f"As of {summary['now']}")
    if not total:
        lines.append("The queue is empty.")
        return "\n".join(lines) + "\n"

    for label in ("oldest", "youngest"):
        p = summary.get(label)
        if p:
            lines.append(f"{label.capitalize():<9} {p.get('put_time')} "
                         f"({format_age(p.get('age_seconds'))} ago), position "
                         f"{p.get('position')}, MsgId {p.get('msgid')}")
    lines.append(f"Sizes     smallest {format_bytes(summary.get('smallest_bytes'))}, "
                 f"largest {format_bytes(summary.get('largest_bytes'))}, "
                 f"average {format_bytes(summary.get('average_bytes'))}; average age "
                 f"{format_age(summary.get('average_age_seconds'))}")

    groups = summary.get("by_reason_and_dest") or []
    if any(g.get("reason") is not None for g in groups):
        lines += ["", "By dead-letter reason and destination"]
        rows = []
        for g in groups:
            r = g.get("reason")
            reason = reason_label(r)
            rows.append([str(g.get("count")), _pct(int(g.get("count") or 0), total),
                         _cell(reason), _cell(g.get("destination"))])
        lines += _table(["COUNT", "%", "REASON", "DESTINATION"], rows, {0, 1})

    def counts(title: str, key: str, head: str) -> None:
        data = summary.get(key) or {}
        if not data:
            return
        lines.extend(["", title])
        said = _said_reason if key == "by_reason" else str
        rows = [[_cell(said(k)), str(v), _pct(int(v), total)] for k, v in data.items()]
        lines.extend(_table([head, "COUNT", "%"], rows, {1, 2}))

    counts("By reason", "by_reason", "REASON")
    counts("By format", "by_format", "FORMAT")
    counts("By age", "by_age", "AGE")
    counts("By size", "by_size", "SIZE")
    counts("By backout count", "by_backout_count", "BACKOUT COUNT")
    return "\n".join(lines) + "\n"

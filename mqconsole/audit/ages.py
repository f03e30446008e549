"""The report's time and age buckets, without Spark: what the console's drill-downs need.

The audit screen turns a row of a report into the browser's filter on its own event loop
(``drill``), while Spark and its Python libraries (pyspark, pyarrow, numpy, pandas) run in
the audit's own process (``audit.child``): so these live apart from ``report`` and
``snapshot``, whose modules import pyarrow, and import nothing heavy.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from mqconsole.audit.errors import AuditInputError
from mqconsole.ops.timefmt import AGE_BUCKET_NAMES, AGE_EDGES, iso_utc

# The age buckets of every face (summary, the report, the console): ops.timefmt owns them.
BUCKETS = AGE_BUCKET_NAMES
# Messages that arrived after as_of (an --as-of before them): listed first, only when any.
AFTER_AS_OF = "after as-of"
# Lower bound of each bucket after the first, as an age.
BUCKET_EDGES = AGE_EDGES
# When the message reached the queue it was read from (audit.md, age buckets).
ARRIVAL_SQL = "coalesce(dlh_put_time, put_time)"


def parse_as_of(text: str | None, now: Callable[[], datetime] | None = None) -> datetime:
    """``--as-of`` (ISO 8601; no zone means UTC) as an aware UTC time; now when None."""
    if text is None or not text.strip():
        return _to_ms((now or (lambda: datetime.now(UTC)))().astimezone(UTC))
    raw = text.strip()
    try:
        value = datetime.fromisoformat(raw[:-1] + "+00:00" if raw[-1:] in "zZ" else raw)
    except ValueError:
        raise AuditInputError(f"--as-of {raw!r} is not an ISO 8601 time "
                              "(e.g. 2026-11-25T10:00:00Z)") from None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def iso(value: datetime | None) -> str | None:
    """A UTC time in the one style of every face (``ops.timefmt.iso_utc``:
    ``2026-11-25T10:00:00.000Z``), exact: microseconds too when it has them (a bound of a
    drill's filter, a value of ``audit sql``, must not move)."""
    return iso_utc(value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None
                   else value, exact=True)


def _to_ms(value: datetime) -> datetime:
    """Now to the millisecond: the report's time shown in the one style reads back exact
    (an ``--as-of`` given with microseconds is kept, and shown with them)."""
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def bucket_sql(column: str, as_of: datetime) -> str:
    """SQL giving the age bucket of ``column`` (a timestamp) at ``as_of``; null for null."""
    whens = " ".join(f"WHEN {column} > {_literal(as_of - edge)} THEN '{name}'"
                     for name, edge in zip(BUCKETS, BUCKET_EDGES, strict=False))
    return (f"CASE WHEN {column} IS NULL THEN NULL "
            f"WHEN {column} > {_literal(as_of)} THEN '{AFTER_AS_OF}' "
            f"{whens} ELSE '{BUCKETS[-1]}' END")


def _literal(value: datetime) -> str:
    return f"TIMESTAMP '{value.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S.%f')}+00:00'"


__all__ = ["AFTER_AS_OF", "ARRIVAL_SQL", "BUCKETS", "BUCKET_EDGES", "bucket_sql", "iso",
           "parse_as_of"]

"""Times as MQ writes them and as operators read them.

MQ stamps a message with ``PutDate`` (``YYYYMMDD``) and ``PutTime`` (``HHMMSSTH``: hours,
minutes, seconds, tenths and hundredths of a second), always in GMT/UTC. mqconsole shows
times in ISO 8601 UTC with milliseconds (``2026-09-22T02:34:28.280Z``), ages in seconds,
and reads durations written like ``90s``, ``30m``, ``2h``, ``1d``, ``1w`` or ``1h30m``.

This module owns the one timestamp style (:func:`iso_utc`) and the one set of age buckets
(:data:`AGE_BUCKETS`, audit.md's) that ``summary``, the audit report and the journal use,
in the CLI and the console alike.

Nothing here raises on bad MQ fields: a descriptor with a blank or garbled put date has no
put time (``None``). Only the parsers of operator input (``parse_duration``,
``parse_iso``) raise ``ValueError``, with a sentence that says what was expected.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta

from mqconsole.mq.facts import parse_put_datetime

__all__ = [
    "AGE_BUCKETS",
    "AGE_BUCKET_NAMES",
    "AGE_EDGES",
    "add_seconds",
    "age_bucket",
    "age_seconds",
    "format_age",
    "format_put_date_time",
    "iso_utc",
    "parse_duration",
    "parse_iso",
    "parse_put_datetime",
    "to_utc",
    "utcnow",
]

# Ages as audit.md counts them: ``<1h``, ``1h-24h``, ``1d-7d``, ``7d-30d``, ``>30d`` (each
# bucket's upper bound in seconds, exclusive); every face that counts by age uses these.
AGE_BUCKETS: tuple[tuple[str, float], ...] = (
    ("<1h", 3600.0), ("1h-24h", 86400.0), ("1d-7d", 7 * 86400.0), ("7d-30d", 30 * 86400.0),
    (">30d", math.inf),
)
AGE_BUCKET_NAMES: tuple[str, ...] = tuple(name for name, _ in AGE_BUCKETS)
AGE_EDGES: tuple[timedelta, ...] = tuple(timedelta(seconds=limit)
                                         for _, limit in AGE_BUCKETS[:-1])


def age_bucket(seconds: float | None) -> str | None:
    """The age bucket of an age in seconds (a negative age, from clock skew, is ``<1h``);
    None for an age not known."""
    if seconds is None or math.isnan(seconds):
        return None
    for name, limit in AGE_BUCKETS:
        if seconds < limit:
            return name
    return AGE_BUCKETS[-1][0]


_DURATION_UNITS = {
    "ms": 0.001,
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "m": 60.0, "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hr": 3600.0, "hrs": 3600.0, "hour": 3600.0, "hours": 3600.0,
    "d": 86400.0, "day": 86400.0, "days": 86400.0,
    "w": 604800.0, "wk": 604800.0, "week": 604800.0, "weeks": 604800.0,
}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)")


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def to_utc(dt: datetime) -> datetime:
    """An aware UTC datetime: naive datetimes are taken to be UTC already (as MQ's are)."""
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def format_put_date_time(dt: datetime) -> tuple[str, str]:
    """An aware (or naive UTC) datetime → (``YYYYMMDD``, ``HHMMSSTH``), as MQ writes them."""
    u = to_utc(dt)
    return (f"{u.year:04d}{u.month:02d}{u.day:02d}",
            f"{u.hour:02d}{u.minute:02d}{u.second:02d}{u.microsecond // 10_000:02d}")


def iso_utc(dt: datetime | None, *, exact: bool = False) -> str | None:
    """``2026-09-22T02:34:28.280Z`` (ISO 8601, UTC, milliseconds); None stays None.
    ``exact``: microseconds too when the time has them (a bound in a query must not move)."""
    if dt is None:
        return None
    u = to_utc(dt)
    if exact and u.microsecond % 1000:
        return u.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return u.strftime("%Y-%m-%dT%H:%M:%S.") + f"{u.microsecond // 1000:03d}Z"


def parse_iso(text: str) -> datetime:
    """Read an ISO 8601 date or date-time typed by an operator; the result is aware UTC.

    Accepts ``2026-09-22``, ``2026-09-22T02:34``, ``2026-09-22 02:34:28.28``, with ``Z`` or an
    offset such as ``+02:00``; without a zone the time is UTC (MQ's put times are UTC).
    Raises ValueError with one sentence otherwise.
    """
    s = text.strip()
    if not s:
        raise ValueError("an empty string is not a date or time")
    try:
        if s[-1] in "zZ":
            s = s[:-1] + "+00:00"
        dt = datetime.fromisoformat(s)
    except (ValueError, OverflowError, TypeError, IndexError):
        raise ValueError(f"{text!r} is not an ISO 8601 date or time "
                         "(for example 2026-09-22 or 2026-09-22T02:34:28Z)") from None
    return to_utc(dt)


def parse_duration(text: str) -> float:
    """``90s``, ``30m``, ``2h``, ``1d``, ``1w``, ``1.5h``, ``1h30m`` or a bare number of seconds
    → seconds (float). Units: ms, s, m, h, d, w (and their spelled-out forms), any case.

    Raises ValueError with one sentence when the text is not a duration.
    """
    s = text.strip().lower()
    bad = ValueError(f"{text!r} is not a duration (write it like 90s, 30m, 2h, 1d, 1w or 1h30m)")
    if not s:
        raise bad
    if s.startswith("-"):
        raise ValueError(f"{text!r}: a duration cannot be negative")
    pos = 0
    total = 0.0
    parts = 0
    while pos < len(s):
        if s[pos].isspace():
            pos += 1
            continue
        m = _DURATION_PART.match(s, pos)
        if not m or m.end() == pos:
            raise bad
        number, unit = m.group(1), m.group(2)
        if unit == "" and (parts or m.end() < len(s.rstrip())):
            # a bare number only on its own ("90" = 90 seconds)
            raise bad
        if unit and unit not in _DURATION_UNITS:
            raise bad
        try:
            total += float(number) * _DURATION_UNITS.get(unit, 1.0)
        except (ValueError, OverflowError):
            raise bad from None
        parts += 1
        pos = m.end()
    if not parts or math.isnan(total):
        raise bad
    return total


def age_seconds(put: datetime | None, now: datetime | None = None) -> float | None:
    """Seconds from ``put`` to ``now`` (default: the current time); None when ``put`` is None.

    Negative when the put time is in the future (clocks of different machines disagree).
    """
    if put is None:
        return None
    ref = utcnow() if now is None else to_utc(now)
    try:
        return (ref - to_utc(put)).total_seconds()
    except OverflowError:  # pragma: no cover - datetimes this far apart do not occur
        return None


def format_age(seconds: float | None) -> str:
    """A short human age: ``45s``, ``12m 5s``, ``3h 20m``, ``4d 2h``, ``2w 3d``; ``-`` for None."""
    if seconds is None or math.isnan(seconds):
        return "-"
    sign = "-" if seconds < 0 else ""
    if math.isinf(seconds):
        return sign + "forever"
    s = int(abs(seconds))
    parts: list[str] = []
    units = (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
    for i, (name, size) in enumerate(units):
        if s >= size or name == "s":
            parts = [f"{s // size}{name}"]
            if i + 1 < len(units):
                nxt_name, nxt_size = units[i + 1]
                rest = (s % size) // nxt_size
                if rest:
                    parts.append(f"{rest}{nxt_name}")
            break
    return sign + " ".join(parts)


def add_seconds(dt: datetime, seconds: float) -> datetime | None:
    """``dt + seconds``, or None when the result falls outside what datetime can hold."""
    try:
        return dt + timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        return None

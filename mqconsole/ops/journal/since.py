"""``--since`` values: ``2h``, ``3d``, ``today``, ``2026-11-01``, an ISO time."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_RELATIVE = re.compile(r"(?:\s*(\d+)\s*([smhdw]))+\s*", re.IGNORECASE)
_PART = re.compile(r"(\d+)\s*([smhdw])", re.IGNORECASE)


def parse_since(text: str, *, now: datetime | None = None) -> datetime:
    """A ``--since`` value as an aware UTC datetime.

    ``2h``, ``30m``, ``1h30m``, ``3d``, ``1w``, ``45s`` (ago); ``today``, ``yesterday``
    (local midnight); ``2026-11-01`` (local midnight); an ISO time, local when it has no
    offset (``2026-11-01T08:00``, ``2026-11-01T08:00Z``, ``…+01:00``).
    """
    value = (text or "").strip()
    now = now or datetime.now(UTC)
    if now.tzinfo is None:
        now = now.astimezone()
    if not value:
        raise ValueError("--since needs a value such as 2h, 3d, 2026-11-01 or an ISO time")
    if _RELATIVE.fullmatch(value):
        seconds = sum(int(n) * _UNITS[u.lower()] for n, u in _PART.findall(value))
        try:
            return (now - timedelta(seconds=seconds)).astimezone(UTC)
        except (OverflowError, ValueError):  # before the year 1
            raise ValueError(f"--since {value!r} reaches back before the year 1: give a "
                             "shorter duration or a date") from None
    word = value.lower()
    if word in ("today", "yesterday"):
        local = now.astimezone()
        day = local.date() - timedelta(days=1 if word == "yesterday" else 0)
        return _local_midnight(day)
    try:
        if len(value) == 10:
            return _local_midnight(date.fromisoformat(value))
        when = datetime.fromisoformat(value.replace("z", "Z"))
    except (ValueError, OverflowError):
        raise ValueError(f"--since {value!r} is not a duration (2h, 30m, 3d), a date "
                         "(2026-11-01) or an ISO time (2026-11-01T08:00Z)") from None
    try:
        if when.tzinfo is None:
            when = when.astimezone()
        return when.astimezone(UTC)
    except (OverflowError, ValueError):  # 0001-01-01 with an offset, 9999-12-31 …
        raise ValueError(f"--since {value!r} is out of the range of dates") from None


def _local_midnight(day: date) -> datetime:
    try:
        return datetime(day.year, day.month, day.day).astimezone().astimezone(UTC)
    except (OverflowError, ValueError, OSError):
        raise ValueError(f"--since {day.isoformat()} is out of the range of dates") from None


__all__ = ["parse_since"]

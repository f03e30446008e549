"""The values of a snapshot row that MQ writes as text: a reason's name (null for a number
MQ does not define) and PutDate + PutTime as microseconds and days since the epoch, which
is what Arrow stores. Shared by the row-by-row builder (``rows``) and the batch decoder
(``columnar``)."""

from __future__ import annotations

from datetime import date

from mqconsole.mq.names import reason_name

_EPOCH = date(1970, 1, 1).toordinal()
_US_PER_DAY = 86_400_000_000
BLANKS = " \x00"  # MQ pads its text fields with blanks or NULs


def known_reason_name(code: int) -> str | None:
    """``MQRC_Q_FULL`` for 2053; None for a number MQ does not define (spec: stays null)."""
    name = reason_name(code)
    return None if name.startswith("UNKNOWN_") else name


_DAYS: dict[str, int | None] = {}


def _days(d: str) -> int | None:
    """Days since 1970-01-01 of an MQ PutDate ``YYYYMMDD`` (stripped), None when not a date."""
    days = _DAYS.get(d, -1)
    if days != -1:
        return days
    days = None
    if len(d) == 8 and d.isdigit() and d.isascii():
        try:
            days = date(int(d[0:4]), int(d[4:6]), int(d[6:8])).toordinal() - _EPOCH
        except ValueError:
            days = None
    if len(_DAYS) < 100_000:
        _DAYS[d] = days
    return days


def put_micros(put_date: str, put_time: str) -> tuple[int | None, int | None]:
    """(µs since the epoch, days since the epoch) of MQ's PutDate + PutTime, UTC; (None, None)
    when they are not a time. Same rules as ``ops.timefmt.parse_put_datetime``."""
    days = _days(put_date.strip(BLANKS))
    if days is None:
        return None, None
    t = put_time.strip(BLANKS)
    n = len(t)
    if n < 6 or n > 8 or not t.isdigit() or not t.isascii():
        return None, None
    h, m, s = int(t[0:2]), int(t[2:4]), int(t[4:6])
    if h > 23 or m > 59 or s > 59:
        return None, None
    hundredths = int(t[6:].ljust(2, "0")) if n > 6 else 0
    return (days * _US_PER_DAY + ((h * 60 + m) * 60 + s) * 1_000_000 + hundredths * 10_000,
            days)


__all__ = ["BLANKS", "known_reason_name", "put_micros"]

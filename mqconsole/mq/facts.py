"""The facts operators filter and count a queue by, read from one message.

``facts(md, body)`` gives, for a message, what ``summary`` counts and ``--where`` most
often tests: the dead-letter reason, destination queue and queue manager (None without a
readable dead-letter header), the format of what the header carries (else the MQMD Format), and
the put time as whole microseconds since 1970 UTC (None when PutDate/PutTime are not a
time). The embedded queue manager keeps them in columns when a message is put, so those
questions are answered inside SQLite; ``ops.views.MessageView`` answers them from the
same functions, so both routes agree on every message, hostile headers included.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from .chain import DEFAULT_CHAR_CCSID, format_key
from .dlh import MQDLH, byte_order
from .md import MQMD

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
DEAD_LETTER_FORMAT = "MQDEAD"


def strip_field(v: object) -> str:
    """An MQCHAR field without its blank/NUL padding (bytes read as latin-1)."""
    if v is None:
        return ""
    if isinstance(v, bytes):
        v = v.decode("latin-1")
    return str(v).strip(" \x00")


def parse_put_datetime(put_date: str | bytes | None, put_time: str | bytes | None
                       ) -> datetime | None:
    """MQ ``PutDate`` + ``PutTime`` → aware UTC datetime, or None when they are not a time.

    ``PutTime`` may carry 6 (``HHMMSS``), 7 (tenths) or 8 (hundredths) digits; blanks and NULs
    around either field are ignored. Never raises.
    """
    try:
        d = strip_field(put_date)
        t = strip_field(put_time)
        if len(d) != 8 or not d.isdigit() or not d.isascii():
            return None
        if len(t) not in (6, 7, 8) or not t.isdigit() or not t.isascii():
            return None
        hundredths = int(t[6:].ljust(2, "0")) if len(t) > 6 else 0
        return datetime(int(d[0:4]), int(d[4:6]), int(d[6:8]), int(t[0:2]), int(t[2:4]),
                        int(t[4:6]), hundredths * 10_000, tzinfo=UTC)
    except (ValueError, OverflowError, TypeError):
        return None


def to_micros(dt: datetime) -> int:
    """An aware datetime as whole microseconds since 1970 UTC (exact)."""
    return (dt - EPOCH) // _MICROSECOND


def from_micros(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


class Facts(NamedTuple):
    reason: int | None  # the dead-letter reason; None: no (readable) dead-letter header
    dest_q: str | None  # the dead-letter destination queue, stripped
    dest_qmgr: str | None  # its queue manager, stripped ("": blank, the local one)
    format: str  # what the dead-letter header carries, else the MQMD Format, stripped
    put_us: int | None  # PutDate + PutTime in microseconds since 1970 UTC


def dead_letter_facts(body: bytes, encoding: int, ccsid: int
                      ) -> tuple[int | None, str | None, str | None, str | None]:
    """(reason, destination queue, its queue manager, format after the header) of a body
    whose MQMD Format is MQDEAD and Encoding and CCSID are these, read as
    ``chain.dead_letter_header`` reads them; Nones without a readable header. Never
    raises on bad bytes."""
    try:
        reason, dest, qmgr, fmt = MQDLH.unpack_facts(
            body, 0, big_endian=byte_order(encoding),
            ccsid=ccsid if ccsid > 0 else DEFAULT_CHAR_CCSID)
    except Exception:  # HeaderError, and never anything else on bad message bytes
        return None, None, None, None
    return reason, strip_field(dest), strip_field(qmgr), strip_field(fmt)


def destination_label(dest_q: str | None, dest_qmgr: str | None,
                      local_qmgr: str | None = None) -> str | None:
    """Where a dead-letter header says its message was going: ``QUEUE``, or
    ``QUEUE@QMGR`` when that is another queue manager than ``local_qmgr`` (a blank one
    is the local one; a local queue of the same name is another queue), as resubmit
    labels it. Both routes of a summary group destinations by this label."""
    if not dest_q:
        return dest_q
    qmgr = strip_field(dest_qmgr)
    return f"{dest_q}@{qmgr}" if qmgr and qmgr != (local_qmgr or "").strip() else dest_q


def facts(md: MQMD, body: bytes) -> Facts:
    """The facts of one message (see the module docstring)."""
    if format_key(md.format) == DEAD_LETTER_FORMAT:
        reason, dest, qmgr, fmt = dead_letter_facts(body, md.encoding, md.ccsid)
    else:
        reason = dest = qmgr = fmt = None
    put = parse_put_datetime(md.put_date, md.put_time)
    return Facts(reason, dest, qmgr, strip_field(md.format) if fmt is None else fmt,
                 None if put is None else to_micros(put))


#: A test on facts, as a backend that keeps them can evaluate it where the messages are:
#: ``("and", a, b)``, ``("or", a, b)``, ``("cmp", fact, op, value)`` with op one of
#: ``= != < <= > >=``, ``("in", fact, (values...))``, ``("null", fact, is_null)``,
#: ``("contains", "body", (bytes...))`` (the whole body, headers included, holds one of
#: these byte strings: the literal of a payload search in every CCSID). The facts:
#: ``reason``, ``dest_q``, ``format`` (as ``Facts.format``), ``backout_count``, ``length``
#: (of the body), ``priority``. A comparison with a missing fact is false, as in
#: ``--where``.
FactTest = tuple
FACT_NAMES = frozenset({"reason", "dest_q", "format", "backout_count", "length", "priority"})
FACT_OPS = frozenset({"=", "!=", "<", "<=", ">", ">="})

"""What the dmpmqmsg writer, reader and checker share: the descriptor lines and the errors.

The file is text. MQMD character fields are single-byte characters in the queue manager's
CCSID (ASCII in practice; an MQMD from z/OS has already been converted by MQ when it was
read), so mqconsole reads and writes them as latin-1: one file byte is one character of
:class:`~mqconsole.mq.md.MQMD`'s ``str`` fields, and every byte value survives.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime

# (file id, MQMD attribute, kind, length, MQMD version that has it)
# kind: "l" signed decimal MQLONG, "c" text at full length, "b" upper-case hex at full length.
# Order is the order dmpmqmsg writes them (IBM's qload field table).
FIELDS: tuple[tuple[str, str, str, int, int], ...] = (
    ("VER", "version", "l", 4, 1),
    ("RPT", "report", "l", 4, 1),
    ("MST", "msg_type", "l", 4, 1),
    ("EXP", "expiry", "l", 4, 1),
    ("FDB", "feedback", "l", 4, 1),
    ("ENC", "encoding", "l", 4, 1),
    ("CCS", "ccsid", "l", 4, 1),
    ("FMT", "format", "c", 8, 1),
    ("PRI", "priority", "l", 4, 1),
    ("PER", "persistence", "l", 4, 1),
    ("MSI", "msg_id", "b", 24, 1),
    ("COI", "correl_id", "b", 24, 1),
    ("BOC", "backout_count", "l", 4, 1),
    ("RTQ", "reply_to_q", "c", 48, 1),
    ("RTM", "reply_to_qmgr", "c", 48, 1),
    ("USR", "user_identifier", "c", 12, 1),
    ("ACC", "accounting_token", "b", 32, 1),
    ("AIX", "appl_identity_data", "b", 32, 1),
    ("PAT", "put_appl_type", "l", 4, 1),
    ("PAN", "put_appl_name", "c", 28, 1),
    ("PTD", "put_date", "c", 8, 1),
    ("PTT", "put_time", "c", 8, 1),
    ("AOX", "appl_origin_data", "b", 4, 1),
    ("GRP", "group_id", "b", 24, 2),
    ("MSQ", "msg_seq_number", "l", 4, 2),
    ("OFF", "offset", "l", 4, 2),
    ("MSF", "msg_flags", "l", 4, 2),
    ("ORL", "original_length", "l", 4, 2),
)
# the text variants of AIX/AOX, accepted on input (dmpmqmsg writes them with its -dC option)
TEXT_VARIANTS: dict[str, tuple[str, str, str, int, int]] = {
    "AID": ("AID", "appl_identity_data", "c", 32, 1),
    "AOD": ("AOD", "appl_origin_data", "c", 4, 1),
}
FIELD_BY_ID: dict[str, tuple[str, str, str, int, int]] = {f[0]: f for f in FIELDS}
FIELD_BY_ID.update(TEXT_VARIANTS)

# MQMD attributes that hold text (str) even when written as hex (AIX, AOX)
TEXT_ATTRS = frozenset({"format", "reply_to_q", "reply_to_qmgr", "user_identifier",
                        "appl_identity_data", "put_appl_name", "put_date", "put_time",
                        "appl_origin_data"})

MQLONG_MIN = -(2**31)
MQLONG_MAX = 2**31 - 1

X_BYTES_PER_LINE = 25  # dmpmqmsg's default data width: 50 hex digits
S_CHARS_PER_LINE = 48  # data width * 2 - 2


def is_printable(byte: int) -> bool:
    """What dmpmqmsg writes on S lines: C's isprint in the C locale."""
    return 0x20 <= byte <= 0x7E


class DmpFileError(ValueError):
    """A message file that does not follow the format: names the file, the line and the problem.

    ``str()`` is one sentence, e.g. ``file.txt line 17: unknown descriptor field 'ABC'``.
    """

    def __init__(self, path: str | os.PathLike | None, line_number: int | None,
                 problem: str) -> None:
        self.path = None if path is None else str(path)
        self.line_number = line_number
        self.problem = problem
        where = self.path or "message file"
        if line_number is not None:
            where += f" line {line_number}"
        super().__init__(f"{where}: {problem}")


@dataclass(slots=True)
class DmpFileInfo:
    """What a file's header says about it.

    ``tool`` is ``"dmpmqmsg"``, ``"qload"`` or ``"amqsbcg"`` (None for an empty file);
    ``created`` is the header's ``Created:`` time (local time of the writer, naive) when it
    parses, ``created_text`` the text as written.
    """

    path: str | None = None
    tool: str | None = None
    version: str | None = None
    created: datetime | None = None
    created_text: str | None = None
    qmgr: str | None = None
    queue: str | None = None


# -- C's ctime(), which dmpmqmsg uses for Created: ----------------------------------------

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
           "Dec")


def format_ctime(when: datetime) -> str:
    """``Tue Sep 22 02:34:33 2026`` like C's ctime (English names whatever the locale).

    An aware datetime is shown in local time, as ctime does.
    """
    if when.tzinfo is not None:
        when = when.astimezone()
    return (f"{_DAYS[when.weekday()]} {_MONTHS[when.month - 1]} {when.day:2d} "
            f"{when.hour:02d}:{when.minute:02d}:{when.second:02d} {when.year}")


def parse_ctime(text: str) -> datetime | None:
    """The naive datetime of a ctime string, or None when it is not one."""
    parts = text.split()
    if len(parts) != 5 or parts[1] not in _MONTHS:
        return None
    try:
        day = int(parts[2])
        hh, mm, ss = (int(p) for p in parts[3].split(":"))
        return datetime(int(parts[4]), _MONTHS.index(parts[1]) + 1, day, hh, mm, ss)
    except (ValueError, OverflowError):  # a year of 30 digits is not a C long
        return None

"""Messages as the embedded queue manager reads them from its file.

A row holds the MD packed (CCSID 819, ``mdfast``). Unpacking its 29 fields into an
``MQMD`` costs about as much as the rest of a move's step together, and a move of a
message nobody looks into needs only its MsgId and MsgFlags, which sit at fixed places
in the packed bytes. So a :class:`StoredMessage` unpacks its MD when first asked for it,
and answers those few questions from the bytes until then.
"""

from __future__ import annotations

import math
from typing import Literal

from mqconsole.mq.facts import (
    DEAD_LETTER_FORMAT,
    dead_letter_facts,
    parse_put_datetime,
    to_micros,
)
from mqconsole.mq.md import MQMD, MQMD_V1_LENGTH, MQMD_V2_LENGTH, OFFSETS
from mqconsole.mq.message import GROUP_FLAGS, Message

from .mdfast import unpack819

# where the packed MD (mq/md.py LAYOUT) holds what is read from it here
VERSION_AT = OFFSETS["version"]
EXPIRY_AT = OFFSETS["expiry"]
PRIORITY_AT = OFFSETS["priority"]
PERSISTENCE_AT = OFFSETS["persistence"]
MSG_ID_AT = OFFSETS["msg_id"]
CORREL_ID_AT = OFFSETS["correl_id"]
BACKOUT_COUNT_AT = OFFSETS["backout_count"]
MSG_FLAGS_AT = OFFSETS["msg_flags"]
REPORT_AT = OFFSETS["report"]


def byte_order(md: bytes) -> Literal["little", "big"]:
    """The byte order of a packed MD: its Version word (1 or 2) tells."""
    return "little" if md[VERSION_AT] else "big"


def long_at(md: bytes, at: int) -> int:
    """An MQLONG of a packed MD."""
    return int.from_bytes(md[at:at + 4], byte_order(md), signed=True)


class StoredMessage(Message):
    """A message read from the store; ``md`` is unpacked on first use (and may be set)."""

    __slots__ = ("_backout_count", "_blob", "_expiry", "_md")

    def __init__(self, blob: bytes = b"", body: bytes = b"", backout_count: int = 0,
                 expiry: int | None = None, *, md: MQMD | None = None,
                 token: bytes | None = None, truncated_from: int | None = None) -> None:
        self._blob = blob  # the MD as stored (BackoutCount and Expiry are kept apart)
        self._backout_count = backout_count
        self._expiry = expiry  # tenths of a second left, when it has an expiry
        self._md: MQMD | None = md  # given: as Message(md=, body=), which replace() calls
        self.body = body
        self.token = token  # the row's id (token_of): this very message on its queue
        self.truncated_from = truncated_from  # (Message's field; no channel cuts these)

    @property
    def md(self) -> MQMD:
        md = self._md
        if md is None:
            md = self._md = unpack819(self._blob)
            md.backout_count = self._backout_count
            if self._expiry is not None:
                md.expiry = self._expiry
        return md

    @md.setter
    def md(self, value: MQMD) -> None:
        self._md = value

    @property
    def stored(self) -> tuple[bytes, int, int | None] | None:
        """``(the MD as stored, BackoutCount, Expiry left or None)`` while the MD has not
        been unpacked or replaced (else None): for readers that take fields straight from the
        packed bytes (CCSID 819, ``mdfast``), such as the audit's record batches."""
        if self._md is not None:
            return None
        return self._blob, self._backout_count, self._expiry

    def packed_md(self) -> bytes | None:
        """The stored MD with the BackoutCount and the Expiry left written in (what
        ``md`` would unpack), while ``md`` was not unpacked or replaced; else None."""
        if self._md is not None:
            return None
        blob = self._blob
        expiry = self._expiry
        if len(blob) < MQMD_V1_LENGTH or (expiry is not None and expiry >= 2**31):
            return None  # (unpacking it, writing it raise what they raise)
        order: Literal["little", "big"] = "little" if blob[VERSION_AT] else "big"
        backout = self._backout_count.to_bytes(4, order, signed=True)
        if expiry is None and blob[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] == backout:
            return blob
        md = bytearray(blob)
        md[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] = backout
        if expiry is not None:
            md[EXPIRY_AT:EXPIRY_AT + 4] = expiry.to_bytes(4, order, signed=True)
        return bytes(md)

    @property
    def msg_id_hex(self) -> str:
        md = self._md
        raw = md.msg_id if md is not None else self._blob[MSG_ID_AT:MSG_ID_AT + 24]
        return raw.hex().upper()

    @property
    def report(self) -> int:
        md = self._md
        if md is not None:
            return md.report
        b = self._blob  # long_at(b, REPORT_AT), inlined: a move asks it of every message
        return int.from_bytes(b[REPORT_AT:REPORT_AT + 4], "little" if b[VERSION_AT] else "big",
                              signed=True)

    @property
    def in_group(self) -> bool:
        md = self._md
        if md is not None:
            return md.version >= 2 and bool(md.msg_flags & GROUP_FLAGS)
        return stored_in_group(self._blob)


def stored_in_group(b: bytes) -> bool:
    """``Message.in_group`` of a message stored with the MD ``b`` (read from the bytes)."""
    # the low byte of each word is enough: Version is 1 or 2, the flags fit in it
    if len(b) < MQMD_V2_LENGTH:
        return False
    if b[VERSION_AT]:  # little-endian
        return b[VERSION_AT] == 2 and bool(b[MSG_FLAGS_AT] & GROUP_FLAGS)
    return b[VERSION_AT + 3] == 2 and bool(b[MSG_FLAGS_AT + 3] & GROUP_FLAGS)


def moved_messages(rows: list[tuple]) -> list[Message]:
    """``StoredMessage(row[4], row[5], row[2], token=token_of(row[0]))`` of each of ``rows``
    (browsed rows with no expiry: id, npri, backout count, expiry, MD, body, ...), as a
    bulk move step returns them, without an ``__init__`` call each (a tenth of a moved
    message's Python time); the same slots set as ``__init__`` sets them."""
    new = StoredMessage.__new__
    out: list[Message] = []
    for r in rows:
        m = new(StoredMessage)
        m._blob = r[4]
        m._backout_count = r[2]
        m._expiry = None
        m._md = None
        m.body = r[5]
        m.token = r[0].to_bytes(16, "big")
        m.truncated_from = None
        out.append(m)
    return out


def token_of(row_id: int) -> bytes:
    """A stored message's token (as MQ's MsgToken names a message: 16 bytes): its row id,
    which AUTOINCREMENT never gives to another message."""
    return row_id.to_bytes(16, "big")


_FORMAT_AT = OFFSETS["format"]
_ENCODING_AT = OFFSETS["encoding"]
_CCSID_AT = OFFSETS["ccsid"]
_PUT_DATE_AT = OFFSETS["put_date"]
_PUT_TIME_AT = OFFSETS["put_time"]
_put_cache: dict[bytes, int | None] = {}  # PutDate+PutTime bytes -> microseconds


_day_cache: dict[bytes, int | None] = {}  # PutDate bytes -> microseconds of its midnight


def _put_micros(stamp: bytes) -> int | None:
    """``to_micros(parse_put_datetime(...))`` of the 16 bytes of PutDate and PutTime,
    remembered: messages put in the same hundredth of a second share them. Sixteen
    digits (the usual stamp) are counted from the day's midnight (remembered per day):
    what ``datetime`` gives, without making one."""
    try:
        return _put_cache[stamp]
    except KeyError:
        pass
    if stamp.isdigit() and len(stamp) == 16:
        day = stamp[:8]
        midnight = _day_cache.get(day, -1)
        if midnight == -1:
            at = parse_put_datetime(day, b"000000")
            midnight = None if at is None else to_micros(at)
            if len(_day_cache) >= 4096:
                _day_cache.clear()
            _day_cache[day] = midnight
        hh, mm, ss = int(stamp[8:10]), int(stamp[10:12]), int(stamp[12:14])
        if midnight is not None and hh < 24 and mm < 60 and ss < 60:
            return (midnight + ((hh * 60 + mm) * 60 + ss) * 1_000_000
                    + int(stamp[14:16]) * 10_000)
        if midnight is None:
            return None
    put = parse_put_datetime(stamp[:8], stamp[8:])
    us = None if put is None else to_micros(put)
    if len(_put_cache) >= 4096:
        _put_cache.clear()
    _put_cache[stamp] = us
    return us


def stored_facts(blob: bytes, body: bytes
                 ) -> tuple[int | None, str | None, str | None, str, int | None]:
    """``mq.facts.facts`` of a message stored as ``blob`` (packed, CCSID 819) + ``body``
    in the order of the ``f_*`` columns (``f_reason, f_dest, f_dest_qm, f_format,
    f_put``), reading the bytes: the MD is unpacked only for a dead-letter header."""
    fmt = blob[_FORMAT_AT:_FORMAT_AT + 8].decode("latin-1")
    put = _put_micros(blob[_PUT_DATE_AT:_PUT_TIME_AT + 8])
    if fmt.rstrip(" \x00") == DEAD_LETTER_FORMAT:
        reason, dest, qmgr, carried = _dead_letter_facts(body, long_at(blob, _ENCODING_AT),
                                                         long_at(blob, _CCSID_AT))
        if carried is not None:
            return reason, dest, qmgr, carried, put
    return None, None, None, fmt.strip(" \x00"), put


# MQDLH.unpack_facts reads the first 124 bytes of a header of 172 or more: its answer for
# those bytes, the Encoding and the CCSID is remembered (a dead-letter queue holds many
# messages of the same reason and destination)
_DLH_READ = 124
_DLH_LENGTH = 172
_dlh_cache: dict[tuple[bytes, bool, int, int],
                 tuple[int | None, str | None, str | None, str | None]] = {}


def _dead_letter_facts(body: bytes, encoding: int, ccsid: int
                       ) -> tuple[int | None, str | None, str | None, str | None]:
    """``mq.facts.dead_letter_facts(body, encoding, ccsid)``, remembered."""
    key = (body[:_DLH_READ], len(body) >= _DLH_LENGTH, encoding, ccsid)
    found = _dlh_cache.get(key)
    if found is None:
        found = dead_letter_facts(body, encoding, ccsid)
        if len(_dlh_cache) >= 4096:
            _dlh_cache.clear()
        _dlh_cache[key] = found
    return found


def message_from_row(md_blob: bytes, body: bytes, backout_count: int,
                     expires_at: float | None, now: float, row_id: int | None = None
                     ) -> StoredMessage:
    """The message as MQGET returns it: stored MD, BackoutCount, Expiry left (tenths)."""
    token = None if row_id is None else token_of(row_id)
    if expires_at is None:
        return StoredMessage(md_blob, body, backout_count, token=token)
    return StoredMessage(md_blob, body, backout_count,
                         max(1, math.ceil((expires_at - now) * 10)), token=token)


__all__ = ["StoredMessage", "long_at", "message_from_row", "moved_messages", "stored_facts",
           "stored_in_group",
           "token_of"]

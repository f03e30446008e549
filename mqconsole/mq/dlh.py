"""MQDLH, the dead-letter header (format ``MQDEAD  ``, 172 bytes), both byte orders.

Like :class:`~mqconsole.mq.md.MQMD`, character fields are ``str`` kept at their exact MQ
length (padded, never stripped) so that a header round-trips; ``to_dict`` strips the blank
and NUL padding for display. The header's integers follow the Encoding of the structure
before it (the MQMD), its character fields that structure's CCSID (EBCDIC on z/OS, where
``DLH `` is ``c4 d3 c8 40``).

This module also holds the small helpers the other header modules share: char-field
codecs, StrucId recognition and byte-order detection.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from .ccsid import is_ebcdic, text_codec
from .errors import HeaderError
from .names import appl_type_name, known_reason_name, reason_name

PAD = " \x00"  # what MQ text fields may be padded with

# -- shared helpers for the header modules ---------------------------------------------


def char_codec(ccsid: int) -> str:
    """Codec for MQCHAR fields in a structure whose text is in ``ccsid`` (0/unknown: latin-1)."""
    return text_codec(ccsid)


def norm_chars(value: object, length: int) -> str:
    """A char field at exactly ``length`` characters (bytes are taken as latin-1)."""
    if isinstance(value, bytes | bytearray | memoryview):
        value = bytes(value).decode("latin-1")
    text = "" if value is None else str(value)
    return text[:length].ljust(length)


def norm_bytes(value: object, length: int) -> bytes:
    """A byte field at exactly ``length`` bytes (a str is read as hex)."""
    if isinstance(value, str):
        value = bytes.fromhex(value)
    return bytes(cast(Any, value) or b"")[:length].ljust(length, b"\x00")


def encode_chars(text: str, length: int, codec: str) -> bytes:
    """``text`` in ``codec``, cut or blank-padded to ``length`` bytes (unencodable: '?')."""
    data = text.encode(codec, errors="replace")
    if len(data) < length:
        data += " ".encode(codec) * (length - len(data))
    return data[:length]


def _fit(text: str, length: int) -> str:
    """``norm_chars`` of decoded text."""
    return text if len(text) == length else text[:length].ljust(length)


def decode_chars(data: bytes, codec: str) -> str:
    return data.decode(codec, errors="replace")


def strip_pad(text: str) -> str:
    """Text of a char field without its blank/NUL padding (both ends)."""
    return text.strip(PAD)


def struc_codec(raw: bytes, struc_id: str, ccsid: int) -> str | None:
    """Codec in which ``raw`` spells ``struc_id``: the CCSID's own, else ASCII, else EBCDIC.

    MQ writes a header's char fields in the CCSID of the structure before it, but a header
    whose StrucId is plainly ASCII (or EBCDIC) tells us better than a mislabelled CCSID.
    None when ``raw`` is not the StrucId in any of them.
    """
    codec = char_codec(ccsid)
    if raw == struc_id.encode(codec, errors="replace"):
        return codec
    if raw == struc_id.encode("latin-1"):
        return "latin-1"
    if raw == struc_id.encode("cp500"):
        return codec if is_ebcdic(ccsid) else "cp500"
    return None


def byte_order(encoding: int) -> bool | None:
    """``Encoding & 0xF``: 1 → big-endian (True), 2 → little-endian (False), else None."""
    low = encoding & 0x0F
    if low == 1:
        return True
    if low == 2:
        return False
    return None


def order_name(big_endian: bool) -> str:
    return "big-endian" if big_endian else "little-endian"


def detect_order(raw: bytes, expected: tuple[int, ...], header: str, offset: int,
                 big_endian: bool | None) -> tuple[bool, int]:
    """Byte order and value of a Version field; raises HeaderError when it is not expected.

    With ``big_endian`` None the order is whichever makes the Version one of ``expected``.
    """
    if big_endian is None:
        little = int.from_bytes(raw, "little", signed=True)
        big = int.from_bytes(raw, "big", signed=True)
        if little in expected:
            return False, little
        if big in expected:
            return True, big
        raise HeaderError(header, offset, f"Version {little} is not {_alternatives(expected)}")
    value = int.from_bytes(raw, "big" if big_endian else "little", signed=True)
    if value not in expected:
        other = int.from_bytes(raw, "little" if big_endian else "big", signed=True)
        hint = ""
        if other in expected:
            hint = (f" (reads {other} as {order_name(not big_endian)}: the Encoding before "
                    "this header does not match its byte order)")
        raise HeaderError(header, offset,
                          f"Version {value} ({order_name(big_endian)}) is not "
                          f"{_alternatives(expected)}{hint}")
    return big_endian, value


def _alternatives(values: tuple[int, ...]) -> str:
    return " or ".join(str(v) for v in values)


def check_room(data: bytes, offset: int, needed: int, header: str) -> None:
    if offset < 0:
        raise HeaderError(header, offset, "negative offset")
    have = max(0, len(data) - offset)
    if have < needed:
        raise HeaderError(header, offset, f"needs {needed} bytes, has {have}")


def check_struc_id(data: bytes, offset: int, struc_id: str, ccsid: int, header: str) -> str:
    """The codec for the header's char fields, or HeaderError naming the StrucId found."""
    raw = bytes(data[offset:offset + 4])
    codec = struc_codec(raw, struc_id, ccsid)
    if codec is None:
        raise HeaderError(header, offset,
                          f"StrucId is {raw.hex(' ')} ({raw.decode('latin-1')!r}), "
                          f"expected {struc_id!r}")
    return codec


# -- MQDLH -------------------------------------------------------------------------------

MQDLH_STRUC_ID = "DLH "
MQDLH_LENGTH = 172
FORMAT_DEAD_LETTER = "MQDEAD  "

_CHAR_FIELDS = (("dest_q_name", 48), ("dest_qmgr_name", 48), ("format", 8),
                ("put_appl_name", 28), ("put_date", 8), ("put_time", 8))
_STRUCTS = {be: struct.Struct(("> " if be else "< ") + "4s i i 48s 48s i i 8s i 28s 8s 8s")
            for be in (False, True)}


@dataclass(slots=True)
class MQDLH:
    """The dead-letter header. Encoding, CCSID and Format describe the data after it."""

    reason: int = 0
    dest_q_name: str = ""
    dest_qmgr_name: str = ""
    encoding: int = 546
    ccsid: int = 0
    format: str = ""
    put_appl_type: int = 0
    put_appl_name: str = ""
    put_date: str = ""
    put_time: str = ""
    version: int = 1

    LENGTH: ClassVar[int] = MQDLH_LENGTH
    STRUC_ID: ClassVar[str] = MQDLH_STRUC_ID
    FORMAT: ClassVar[str] = FORMAT_DEAD_LETTER

    def __post_init__(self) -> None:
        for attr, n in _CHAR_FIELDS:
            setattr(self, attr, norm_chars(getattr(self, attr), n))

    # -- convenience -------------------------------------------------------------------
    @property
    def length(self) -> int:
        return MQDLH_LENGTH

    @property
    def dest_q(self) -> str:
        return strip_pad(self.dest_q_name)

    @property
    def dest_qmgr(self) -> str:
        return strip_pad(self.dest_qmgr_name)

    @property
    def format_name(self) -> str:
        return strip_pad(self.format)

    @property
    def reason_name(self) -> str:
        return reason_name(self.reason)

    # -- bytes -------------------------------------------------------------------------
    def pack(self, *, big_endian: bool, ccsid: int) -> bytes:
        """172 bytes: integers in the given byte order, text in ``ccsid``'s codec."""
        codec = char_codec(ccsid)
        c = {attr: encode_chars(getattr(self, attr), n, codec) for attr, n in _CHAR_FIELDS}
        return _STRUCTS[big_endian].pack(
            encode_chars(MQDLH_STRUC_ID, 4, codec), self.version, self.reason,
            c["dest_q_name"], c["dest_qmgr_name"], self.encoding, self.ccsid, c["format"],
            self.put_appl_type, c["put_appl_name"], c["put_date"], c["put_time"])

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0, *, big_endian: bool | None,
               ccsid: int) -> MQDLH:
        """Parse a DLH at ``offset``; HeaderError when it is not one.

        ``big_endian`` None detects the byte order from the Version field.
        """
        check_room(data, offset, MQDLH_LENGTH, "MQDLH")
        codec = check_struc_id(data, offset, MQDLH_STRUC_ID, ccsid, "MQDLH")
        big_endian, _ = detect_order(bytes(data[offset + 4:offset + 8]), (1,), "MQDLH",
                                     offset + 4, big_endian)
        (_, version, reason, dest_q, dest_qmgr, encoding, ccsid_after, fmt, appl_type,
         appl_name, put_date, put_time) = _STRUCTS[big_endian].unpack_from(data, offset)
        # as cls(...) makes it (__post_init__'s norm_chars on decoded text: cut or padded
        # to the field's length), without the generic loop: a browse makes one per message
        h = object.__new__(cls)
        h.reason, h.encoding, h.ccsid, h.put_appl_type, h.version = (
            reason, encoding, ccsid_after, appl_type, version)
        h.dest_q_name = _fit(decode_chars(dest_q, codec), 48)
        h.dest_qmgr_name = _fit(decode_chars(dest_qmgr, codec), 48)
        h.format = _fit(decode_chars(fmt, codec), 8)
        h.put_appl_name = _fit(decode_chars(appl_name, codec), 28)
        h.put_date = _fit(decode_chars(put_date, codec), 8)
        h.put_time = _fit(decode_chars(put_time, codec), 8)
        return h

    @staticmethod
    def unpack_facts(data: bytes, offset: int = 0, *, big_endian: bool | None,
                     ccsid: int) -> tuple[int, str, str, str]:
        """``(reason, dest_q_name, dest_qmgr_name, format)`` as ``unpack`` reads them (the
        same checks,
        the same HeaderError), without building the header: what a summary needs."""
        check_room(data, offset, MQDLH_LENGTH, "MQDLH")
        codec = check_struc_id(data, offset, MQDLH_STRUC_ID, ccsid, "MQDLH")
        big_endian, _ = detect_order(bytes(data[offset + 4:offset + 8]), (1,), "MQDLH",
                                     offset + 4, big_endian)
        reason = int.from_bytes(data[offset + 8:offset + 12], "big" if big_endian else "little",
                                signed=True)
        return (reason, decode_chars(bytes(data[offset + 12:offset + 60]), codec),
                decode_chars(bytes(data[offset + 60:offset + 108]), codec),
                decode_chars(bytes(data[offset + 116:offset + 124]), codec))

    def to_dict(self) -> dict[str, object]:
        return {
            "type": "MQDLH",
            "reason": self.reason,
            "reason_name": known_reason_name(self.reason),  # null: MQ has no name for it
            "dest_q": self.dest_q,
            "dest_qmgr": self.dest_qmgr,
            "encoding": self.encoding,
            "ccsid": self.ccsid,
            "format": self.format_name,
            "put_appl_type": self.put_appl_type,
            "put_appl_type_name": appl_type_name(self.put_appl_type),
            "put_appl_name": strip_pad(self.put_appl_name),
            "put_date": strip_pad(self.put_date),
            "put_time": strip_pad(self.put_time),
        }

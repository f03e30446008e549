"""MQXQH, the transmission queue header (format ``MQXMIT  ``, 428 bytes), and MQMDE, the
message descriptor extension (format ``MQHMDE  ``, 72 bytes).

A message on a transmission queue starts with an XQH: where it is going (RemoteQName,
RemoteQMgrName) and the original message's MQMD version 1. That MD's Format, Encoding and
CCSID describe what follows the XQH; when its Format is ``MQHMDE  `` an MQMDE carrying the
version-2 fields (GroupId, MsgSeqNumber, Offset, MsgFlags, OriginalLength) comes next.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import ClassVar

from .dlh import (
    char_codec,
    check_room,
    check_struc_id,
    decode_chars,
    detect_order,
    encode_chars,
    norm_bytes,
    norm_chars,
    strip_pad,
)
from .errors import HeaderError
from .md import MQMD, MQMD_V1_LENGTH

MQXQH_STRUC_ID = "XQH "
MQXQH_LENGTH = 428
MQXQH_MD_OFFSET = 104
FORMAT_XQH = "MQXMIT  "

MQMDE_STRUC_ID = "MDE "
MQMDE_LENGTH = 72
FORMAT_MDE = "MQHMDE  "

_XQH = {be: struct.Struct((">" if be else "<") + "4s i 48s 48s") for be in (False, True)}
_MDE = {be: struct.Struct((">" if be else "<") + "4s i i i i 8s i 24s i i i i")
        for be in (False, True)}


def _default_md() -> MQMD:
    return MQMD(version=1)


@dataclass(slots=True)
class MQXQH:
    """Transmission queue header: destination and the original message's MQMD (version 1)."""

    remote_q_name: str = ""
    remote_qmgr_name: str = ""
    md: MQMD = field(default_factory=_default_md)
    version: int = 1

    LENGTH: ClassVar[int] = MQXQH_LENGTH
    STRUC_ID: ClassVar[str] = MQXQH_STRUC_ID
    FORMAT: ClassVar[str] = FORMAT_XQH

    def __post_init__(self) -> None:
        self.remote_q_name = norm_chars(self.remote_q_name, 48)
        self.remote_qmgr_name = norm_chars(self.remote_qmgr_name, 48)

    @property
    def length(self) -> int:
        return MQXQH_LENGTH

    @property
    def remote_q(self) -> str:
        return strip_pad(self.remote_q_name)

    @property
    def remote_qmgr(self) -> str:
        return strip_pad(self.remote_qmgr_name)

    # What follows the header is described by the embedded MD.
    @property
    def format(self) -> str:
        return self.md.format

    @property
    def encoding(self) -> int:
        return self.md.encoding

    @property
    def ccsid(self) -> int:
        return self.md.ccsid

    def pack(self, *, big_endian: bool, ccsid: int) -> bytes:
        codec = char_codec(ccsid)
        head = _XQH[big_endian].pack(encode_chars(MQXQH_STRUC_ID, 4, codec), self.version,
                                     encode_chars(self.remote_q_name, 48, codec),
                                     encode_chars(self.remote_qmgr_name, 48, codec))
        return head + self.md.pack(big_endian=big_endian, ccsid=ccsid, version=1)

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0, *, big_endian: bool | None,
               ccsid: int) -> MQXQH:
        check_room(data, offset, MQXQH_LENGTH, "MQXQH")
        codec = check_struc_id(data, offset, MQXQH_STRUC_ID, ccsid, "MQXQH")
        big_endian, _ = detect_order(bytes(data[offset + 4:offset + 8]), (1,), "MQXQH",
                                     offset + 4, big_endian)
        _, version, rq, rqm = _XQH[big_endian].unpack_from(data, offset)
        md_at = offset + MQXQH_MD_OFFSET
        detect_order(bytes(data[md_at + 4:md_at + 8]), (1,), "MQXQH", md_at + 4, big_endian)
        md_ccsid = ccsid if codec == char_codec(ccsid) else (500 if codec == "cp500" else 819)
        # The embedded MD is version 1: give it exactly its 324 bytes.
        md = MQMD.unpack(bytes(data[:md_at + MQMD_V1_LENGTH]), md_at, big_endian=big_endian,
                         ccsid=md_ccsid)
        return cls(remote_q_name=decode_chars(rq, codec),
                   remote_qmgr_name=decode_chars(rqm, codec), md=md, version=version)

    def to_dict(self) -> dict[str, object]:
        return {
            "type": "MQXQH",
            "remote_q": self.remote_q,
            "remote_qmgr": self.remote_qmgr,
            "format": self.md.format_name,
            "encoding": self.md.encoding,
            "ccsid": self.md.ccsid,
            "md": self.md.as_mq_dict(),
        }


@dataclass(slots=True)
class MQMDE:
    """Message descriptor extension: the MQMD version-2 fields, for an MQMD version 1."""

    encoding: int = 546
    ccsid: int = -2  # MQCCSI_INHERIT
    format: str = ""
    flags: int = 0
    group_id: bytes = b"\x00" * 24
    msg_seq_number: int = 1
    offset: int = 0
    msg_flags: int = 0
    original_length: int = -1  # MQOL_UNDEFINED
    version: int = 2
    struc_length: int = MQMDE_LENGTH

    LENGTH: ClassVar[int] = MQMDE_LENGTH
    STRUC_ID: ClassVar[str] = MQMDE_STRUC_ID
    FORMAT: ClassVar[str] = FORMAT_MDE

    def __post_init__(self) -> None:
        self.format = norm_chars(self.format, 8)
        self.group_id = norm_bytes(self.group_id, 24)

    @property
    def length(self) -> int:
        return MQMDE_LENGTH

    @property
    def format_name(self) -> str:
        return strip_pad(self.format)

    def pack(self, *, big_endian: bool, ccsid: int) -> bytes:
        codec = char_codec(ccsid)
        return _MDE[big_endian].pack(
            encode_chars(MQMDE_STRUC_ID, 4, codec), self.version, MQMDE_LENGTH, self.encoding,
            self.ccsid, encode_chars(self.format, 8, codec), self.flags, self.group_id,
            self.msg_seq_number, self.offset, self.msg_flags, self.original_length)

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0, *, big_endian: bool | None,
               ccsid: int) -> MQMDE:
        check_room(data, offset, MQMDE_LENGTH, "MQMDE")
        codec = check_struc_id(data, offset, MQMDE_STRUC_ID, ccsid, "MQMDE")
        big_endian, _ = detect_order(bytes(data[offset + 4:offset + 8]), (2,), "MQMDE",
                                     offset + 4, big_endian)
        (_, version, length, encoding, ccsid_after, fmt, flags, group_id, seq, off, msg_flags,
         original_length) = _MDE[big_endian].unpack_from(data, offset)
        if length != MQMDE_LENGTH:
            raise HeaderError("MQMDE", offset + 8,
                              f"StrucLength {length} is not {MQMDE_LENGTH}")
        return cls(encoding=encoding, ccsid=ccsid_after, format=decode_chars(fmt, codec),
                   flags=flags, group_id=group_id, msg_seq_number=seq, offset=off,
                   msg_flags=msg_flags, original_length=original_length, version=version,
                   struc_length=length)

    def to_dict(self) -> dict[str, object]:
        return {
            "type": "MQMDE",
            "format": self.format_name,
            "encoding": self.encoding,
            "ccsid": self.ccsid,
            "flags": self.flags,
            "group_id": self.group_id.hex().upper(),
            "msg_seq_number": self.msg_seq_number,
            "offset": self.offset,
            "msg_flags": self.msg_flags,
            "original_length": self.original_length,
        }

    def apply_to(self, md: MQMD) -> MQMD:
        """A version-2 copy of ``md`` with this extension's fields (and what follows it)."""
        return md.copy(version=2, group_id=self.group_id, msg_seq_number=self.msg_seq_number,
                       offset=self.offset, msg_flags=self.msg_flags,
                       original_length=self.original_length, format=self.format,
                       encoding=self.encoding, ccsid=self.ccsid)

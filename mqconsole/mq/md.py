"""MQMD, the message descriptor: version 1 (324 bytes) and 2 (364 bytes), both byte orders.

Character fields are ``str`` kept at their exact MQ length (padded with blanks, never
stripped) so a descriptor round-trips byte for byte; byte fields are ``bytes`` of their
exact length. ``.strip()`` the text for display.
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass, fields

from .ccsid import text_codec
from .errors import HeaderError

MQMD_V1_LENGTH = 324
MQMD_V2_LENGTH = 364
BLANK_MSGID = b"\x00" * 24

# (attribute, MQ field name, kind, length): kind "l" MQLONG, "c" MQCHAR text, "b" MQBYTE.
LAYOUT: tuple[tuple[str, str, str, int], ...] = (
    ("struc_id", "StrucId", "c", 4),
    ("version", "Version", "l", 4),
    ("report", "Report", "l", 4),
    ("msg_type", "MsgType", "l", 4),
    ("expiry", "Expiry", "l", 4),
    ("feedback", "Feedback", "l", 4),
    ("encoding", "Encoding", "l", 4),
    ("ccsid", "CodedCharSetId", "l", 4),
    ("format", "Format", "c", 8),
    ("priority", "Priority", "l", 4),
    ("persistence", "Persistence", "l", 4),
    ("msg_id", "MsgId", "b", 24),
    ("correl_id", "CorrelId", "b", 24),
    ("backout_count", "BackoutCount", "l", 4),
    ("reply_to_q", "ReplyToQ", "c", 48),
    ("reply_to_qmgr", "ReplyToQMgr", "c", 48),
    ("user_identifier", "UserIdentifier", "c", 12),
    ("accounting_token", "AccountingToken", "b", 32),
    ("appl_identity_data", "ApplIdentityData", "c", 32),
    ("put_appl_type", "PutApplType", "l", 4),
    ("put_appl_name", "PutApplName", "c", 28),
    ("put_date", "PutDate", "c", 8),
    ("put_time", "PutTime", "c", 8),
    ("appl_origin_data", "ApplOriginData", "c", 4),
    # version 2 from here (offset 324)
    ("group_id", "GroupId", "b", 24),
    ("msg_seq_number", "MsgSeqNumber", "l", 4),
    ("offset", "Offset", "l", 4),
    ("msg_flags", "MsgFlags", "l", 4),
    ("original_length", "OriginalLength", "l", 4),
)
V1_FIELDS = 24  # the first 24 entries of LAYOUT make version 1
MQ_NAME = {attr: mq for attr, mq, _, _ in LAYOUT}
ATTR_BY_MQ_NAME = {mq: attr for attr, mq, _, _ in LAYOUT}
LENGTHS = {attr: n for attr, _, _, n in LAYOUT}
KINDS = {attr: k for attr, _, k, _ in LAYOUT}
_PADDED_FIELDS = tuple((attr, k, n) for attr, _, k, n in LAYOUT if k in ("c", "b"))
"""The MQCHAR and MQBYTE fields, in LAYOUT's order: cut and padded to their length."""


def _offsets() -> dict[str, int]:
    at, out = 0, {}
    for attr, _, _, n in LAYOUT:
        out[attr] = at
        at += n
    return out


#: where each field starts in a packed MQMD (either byte order): ``OFFSETS["msg_id"]`` 48
OFFSETS: dict[str, int] = _offsets()

MQENC_NATIVE = 546  # Linux x86-64 / Windows
MQENC_BIG_ENDIAN = 273


def is_big_endian(encoding: int) -> bool:
    """``Encoding & 0xF``: 1 big-endian (273, 785), 2 little-endian (546)."""
    return (encoding & 0x0F) == 1


def _struct_for(big_endian: bool, version: int) -> struct.Struct:
    order = ">" if big_endian else "<"
    parts = []
    for i, (_, _, kind, n) in enumerate(LAYOUT):
        if version < 2 and i >= V1_FIELDS:
            break
        parts.append("i" if kind == "l" else f"{n}s")
    return struct.Struct(order + "".join(parts))


_STRUCTS = {(be, v): _struct_for(be, v) for be in (False, True) for v in (1, 2)}


@dataclass(slots=True)
class MQMD:
    """The message descriptor. Defaults are MQ's MQMD_DEFAULT."""

    struc_id: str = "MD  "
    version: int = 2
    report: int = 0
    msg_type: int = 8  # MQMT_DATAGRAM
    expiry: int = -1  # MQEI_UNLIMITED, tenths of a second
    feedback: int = 0
    encoding: int = MQENC_NATIVE
    ccsid: int = 0  # MQCCSI_Q_MGR
    format: str = "        "  # MQFMT_NONE
    priority: int = -1  # MQPRI_PRIORITY_AS_Q_DEF
    persistence: int = 2  # MQPER_PERSISTENCE_AS_Q_DEF
    msg_id: bytes = BLANK_MSGID
    correl_id: bytes = BLANK_MSGID
    backout_count: int = 0
    reply_to_q: str = ""
    reply_to_qmgr: str = ""
    user_identifier: str = ""
    accounting_token: bytes = b"\x00" * 32
    appl_identity_data: str = ""
    put_appl_type: int = 0
    put_appl_name: str = ""
    put_date: str = ""
    put_time: str = ""
    appl_origin_data: str = ""
    group_id: bytes = BLANK_MSGID
    msg_seq_number: int = 1
    offset: int = 0
    msg_flags: int = 0
    original_length: int = -1

    def __post_init__(self) -> None:
        # a field already of its type and length (most are: an MD copied or unpacked) is
        # what the cut and the padding would give back, and is left as it is
        for attr, kind, n in _PADDED_FIELDS:
            v = getattr(self, attr)
            if kind == "c":
                if type(v) is str and len(v) == n:
                    continue
                if isinstance(v, bytes):
                    v = v.decode("latin-1")
                setattr(self, attr, v[:n].ljust(n))
            else:
                if type(v) is bytes and len(v) == n:
                    continue
                if isinstance(v, str):
                    v = bytes.fromhex(v)
                setattr(self, attr, bytes(v[:n]).ljust(n, b"\x00"))

    # -- convenience -------------------------------------------------------------------
    def copy(self, **changes) -> MQMD:
        return dataclasses.replace(self, **changes)

    @property
    def format_name(self) -> str:
        return self.format.rstrip(" \x00")

    @property
    def big_endian(self) -> bool:
        return is_big_endian(self.encoding)

    def as_mq_dict(self) -> dict[str, object]:
        """Every field by its MQ name (text stripped of padding, bytes as upper-case hex)."""
        out: dict[str, object] = {}
        for attr, mq, kind, _ in LAYOUT:
            if self.version < 2 and attr == "group_id":
                break
            v = getattr(self, attr)
            if kind == "c":
                v = v.rstrip(" \x00")
            elif kind == "b":
                v = v.hex().upper()
            out[mq] = v
        return out

    # -- bytes -------------------------------------------------------------------------
    def pack(self, *, big_endian: bool | None = None, ccsid: int = 819,
             version: int | None = None) -> bytes:
        """The MQMD as MQ lays it out. Byte order defaults to the MD's own Encoding."""
        ver = self.version if version is None else version
        ver = 1 if ver < 2 else 2
        be = self.big_endian if big_endian is None else big_endian
        codec = text_codec(ccsid)
        vals = []
        for i, (attr, _, kind, n) in enumerate(LAYOUT):
            if ver < 2 and i >= V1_FIELDS:
                break
            v = getattr(self, attr)
            if attr == "version":
                v = ver
            if kind == "c":
                # unencodable characters become the codec's own '?', never bytes of
                # another code page
                b = v.encode(codec, errors="replace")
                v = b[:n].ljust(n, b" " if codec == "latin-1" else " ".encode(codec))
            vals.append(v)
        return _STRUCTS[(be, ver)].pack(*vals)

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0, *, big_endian: bool | None = None,
               ccsid: int = 819) -> MQMD:
        """Parse an MQMD at ``offset``. Byte order: given, else detected from Version."""
        view = bytes(data[offset:offset + MQMD_V2_LENGTH])
        if len(view) < MQMD_V1_LENGTH:
            raise HeaderError("MQMD", offset, f"needs {MQMD_V1_LENGTH} bytes, has {len(view)}")
        if big_endian is None:
            le = int.from_bytes(view[4:8], "little")
            be_v = int.from_bytes(view[4:8], "big")
            if le in (1, 2):
                big_endian = False
            elif be_v in (1, 2):
                big_endian = True
            else:
                raise HeaderError("MQMD", offset + 4, f"version {le} is neither 1 nor 2")
        version = int.from_bytes(view[4:8], "big" if big_endian else "little")
        if version not in (1, 2):
            raise HeaderError("MQMD", offset + 4, f"version {version} is neither 1 nor 2")
        if version == 2 and len(view) < MQMD_V2_LENGTH:
            raise HeaderError("MQMD", offset, f"version 2 needs {MQMD_V2_LENGTH} bytes, has "
                              f"{len(view)}")
        codec = text_codec(ccsid)
        length = MQMD_V2_LENGTH if version == 2 else MQMD_V1_LENGTH
        vals = _STRUCTS[(big_endian, version)].unpack(view[:length])
        kw = {}
        for (attr, _, kind, _), v in zip(LAYOUT, vals, strict=False):
            if kind == "c":
                v = v.decode(codec, errors="replace")
            kw[attr] = v
        struc = kw["struc_id"]
        if struc not in ("MD  ",):
            raise HeaderError("MQMD", offset, f"StrucId is {struc!r}, expected 'MD  '")
        return cls(**kw)

    @staticmethod
    def packed_length(version: int) -> int:
        return MQMD_V2_LENGTH if version >= 2 else MQMD_V1_LENGTH


def field_names() -> list[str]:
    return [f.name for f in fields(MQMD) if not f.name.startswith("_")]

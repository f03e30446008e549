"""The descriptor and dead-letter fields a snapshot row needs, taken the quick way.

A million-message export spends most of its Python time here, so two shortcuts, each
falling back to the general code whenever its case is not the plain one (tests compare both
ways on random bytes):

* ``md_fields``: a message of the embedded queue manager still holding its packed MD
  (``StoredMessage.stored``) is read with one ``struct`` call instead of building an
  ``MQMD``; any other message reads its ``MQMD``.
* ``parse_headers``: a body that is one MQDLH followed by data (not another header), in a
  byte order its Encoding names and an ASCII-family StrucId, is read with one ``struct``
  call; anything else goes through ``mq.chain.parse_body_lenient``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, NamedTuple

from mqconsole.mq.chain import DEFAULT_CHAR_CCSID, HEADER_FORMATS, parse_body_lenient
from mqconsole.mq.dlh import MQDLH, MQDLH_LENGTH, struc_codec
from mqconsole.mq.md import LAYOUT, MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.rfh2 import MQRFH2

_BLANK24 = b"\x00" * 24
_WANTED = ("msg_id", "correl_id", "group_id", "put_date", "put_time", "put_appl_name",
           "user_identifier", "appl_identity_data", "put_appl_type", "msg_type", "feedback",
           "persistence", "priority", "backout_count", "ccsid", "encoding", "expiry", "format",
           "reply_to_q", "reply_to_qmgr")


class MDFields(NamedTuple):
    msg_id: bytes
    correl_id: bytes
    group_id: bytes
    put_date: str
    put_time: str
    put_appl_name: str
    user_identifier: str
    appl_identity_data: str
    put_appl_type: int
    msg_type: int
    feedback: int
    persistence: int
    priority: int
    backout_count: int
    ccsid: int
    encoding: int
    expiry: int
    format: str
    reply_to_q: str
    reply_to_qmgr: str


def _offsets() -> dict[str, tuple[int, int]]:
    out, at = {}, 0
    for attr, _, kind, n in LAYOUT:
        size = 4 if kind == "l" else n
        out[attr] = (at, at + size)
        at += size
    return out


_SPAN = _offsets()
_TEXT = frozenset(attr for attr, _, kind, _ in LAYOUT if kind == "c")
_BYTES = frozenset(attr for attr, _, kind, _ in LAYOUT if kind == "b")
_LONGS = sorted((attr for attr in _WANTED if attr not in _TEXT and attr not in _BYTES
                 and attr not in ("backout_count", "expiry")), key=lambda a: _SPAN[a][0])
_LONG_STRUCTS = {be: struct.Struct((">" if be else "<") + "".join(
    f"{_SPAN[a][0] - (_SPAN[_LONGS[i - 1]][1] if i else 0)}xi" for i, a in enumerate(_LONGS)))
    for be in (False, True)}
_VERSION_WORDS = {b"\x02\x00\x00\x00": (False, 2), b"\x01\x00\x00\x00": (False, 1),
                  b"\x00\x00\x00\x02": (True, 2), b"\x00\x00\x00\x01": (True, 1)}


def _generate() -> Callable[..., MDFields | None]:
    """``from_packed(blob, backout_count, expiry)``: MDFields from a packed MD (CCSID 819),
    text sliced from one latin-1 decode, numbers from one struct call."""
    longs = {a: f"n[{i}]" for i, a in enumerate(_LONGS)}
    parts = []
    for attr in _WANTED:
        lo, hi = _SPAN[attr]
        if attr == "group_id":
            parts.append(f"blob[{lo}:{hi}] if version == 2 else BLANK24")
        elif attr == "backout_count":
            parts.append("backout_count")
        elif attr == "expiry":
            lo_e, _ = _SPAN["expiry"]
            parts.append("(expiry if expiry is not None else "
                         f"int.from_bytes(blob[{lo_e}:{lo_e + 4}], 'big' if big_endian else "
                         "'little', signed=True))")
        elif attr in _TEXT:
            parts.append(f"t[{lo}:{hi}]")
        elif attr in _BYTES:
            parts.append(f"blob[{lo}:{hi}]")
        else:
            parts.append(longs[attr])
    src = (
        "def from_packed(blob, backout_count, expiry):\n"
        "    order = WORDS.get(blob[4:8])\n"
        "    if order is None or blob[:4] != b'MD  ':\n"
        "        return None\n"
        "    big_endian, version = order\n"
        "    if len(blob) < (364 if version == 2 else 324):\n"
        "        return None\n"
        "    n = LONG[big_endian].unpack_from(blob)\n"
        "    t = blob[:324].decode('latin-1')\n"
        f"    return MDFields({', '.join(parts)})\n"
    )
    ns: dict[str, Any] = {"WORDS": _VERSION_WORDS, "LONG": _LONG_STRUCTS, "MDFields": MDFields,
          "BLANK24": _BLANK24}
    exec(compile(src, "<mqconsole.audit.fields>", "exec"), ns)
    return ns["from_packed"]


_from_packed = _generate()


def md_fields(message: Message) -> MDFields:
    """The descriptor fields of a snapshot row (text unstripped, ids as bytes)."""
    stored: Any = getattr(message, "stored", None)
    if stored is not None:
        fields = _from_packed(*stored)
        if fields is not None:
            return fields
    md: MQMD = message.md
    return MDFields(md.msg_id, md.correl_id, md.group_id if md.version >= 2 else _BLANK24,
                    md.put_date, md.put_time,
                    md.put_appl_name, md.user_identifier, md.appl_identity_data,
                    md.put_appl_type, md.msg_type, md.feedback, md.persistence, md.priority,
                    md.backout_count, md.ccsid, md.encoding, md.expiry, md.format,
                    md.reply_to_q, md.reply_to_qmgr)


class DLHFields(NamedTuple):
    """The dead-letter header's fields a row keeps (text unstripped)."""

    reason: int
    dest_q: str
    dest_qmgr: str
    format: str
    put_appl_name: str
    put_date: str
    put_time: str

    @classmethod
    def of(cls, dlh: MQDLH) -> DLHFields:
        return cls(dlh.reason, dlh.dest_q_name, dlh.dest_qmgr_name, dlh.format,
                   dlh.put_appl_name, dlh.put_date, dlh.put_time)


class Headers(NamedTuple):
    """What a row keeps of the header chain. ``parsed`` False: a header did not parse."""

    parsed: bool
    dlh: DLHFields | None
    xqh: tuple[str, str] | None  # RemoteQName, RemoteQMgrName (unstripped)
    properties: list[tuple[str, str]] | None  # the RFH2 usr folders' (path, value)
    payload: bytes


_DLH_NUMBERS = {True: struct.Struct(">ii"), False: struct.Struct("<ii")}  # Version, Reason
_ORDER = {1: True, 2: False}  # Encoding & 0xF -> big-endian
_CODEC_CACHE: dict[tuple[bytes, int], str | None] = {}


def _dlh_fast(fmt: str, encoding: int, ccsid: int, body: bytes) -> Headers | None:
    """One DLH then data, the plain case; None: ask the general reader.

    Every codec ``struc_codec`` gives is single-byte, so one decode of the 172 bytes and
    slices at the byte offsets read the text fields.
    """
    if fmt != "MQDEAD" or len(body) < MQDLH_LENGTH:
        return None
    big_endian = _ORDER.get(encoding & 0x0F)
    if big_endian is None:
        return None
    key = (body[:4], ccsid)
    codec = _CODEC_CACHE.get(key, "")
    if codec == "":
        codec = struc_codec(body[:4], "DLH ", ccsid if ccsid > 0 else DEFAULT_CHAR_CCSID)
        if len(_CODEC_CACHE) < 1024:
            _CODEC_CACHE[key] = codec
    if codec is None:
        return None
    version, reason = _DLH_NUMBERS[big_endian].unpack_from(body, 4)
    if version != 1:
        return None
    t = body[:MQDLH_LENGTH].decode(codec, errors="replace")
    fmt_after = t[116:124]
    if fmt_after.rstrip(" \x00") in HEADER_FORMATS:
        return None
    return Headers(True, DLHFields(reason, t[12:60], t[60:108], fmt_after, t[128:156],
                                   t[156:164], t[164:172]), None, [], body[MQDLH_LENGTH:])


def parse_headers(fmt: str, encoding: int, ccsid: int, body: bytes, message: Message
                  ) -> Headers:
    """The header chain of ``body`` (``fmt``: the MQMD Format stripped)."""
    if fmt not in HEADER_FORMATS:
        return Headers(True, None, None, [], body)
    fast = _dlh_fast(fmt, encoding, ccsid, body)
    if fast is not None:
        return fast
    md = message.md
    parsed = parse_body_lenient(md, body)
    if parsed.error is not None:
        return Headers(False, None, None, None, body)
    props = [(path, value) for h in parsed.headers if isinstance(h, MQRFH2)
             for folder, path, value in h.properties() if folder == "usr"]
    dlh, xqh = parsed.dlh, parsed.xqh
    return Headers(True, None if dlh is None else DLHFields.of(dlh),
                   None if xqh is None else (xqh.remote_q_name, xqh.remote_qmgr_name), props,
                   parsed.payload)


__all__ = ["DLHFields", "Headers", "MDFields", "md_fields", "parse_headers"]

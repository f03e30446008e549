"""Translating between mqconsole's MQ types and the library's MQI structures.

The library's structures are packed in the machine's byte order (the C layer's), whatever
the message's own Encoding says; mqconsole's ``MQMD`` packs in any order, so the MD goes
across as bytes: ``MQMD.pack(native order)`` → ``lib.MD().unpack`` and back. Every MQCHAR
field, queue name and body is ``bytes`` (portability rule 1: pymqi rejects ``str``), and no
code here names ``StrucId`` or ``Reserved*`` (rule 2: ibmmq renamed them).
"""

from __future__ import annotations

import sys
from typing import Any

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import MQRC_UNKNOWN_OBJECT_NAME

from .shim import MQLibrary

NATIVE_BIG_ENDIAN = sys.byteorder == "big"
MQ_NAME_LENGTH = 48


def name_bytes(name: str, what: str = "queue") -> bytes:
    """An MQ object name as the MQI wants it (ASCII bytes, at most 48)."""
    raw = name.strip().encode("utf-8", errors="replace")
    if len(raw) > MQ_NAME_LENGTH:
        from mqconsole.mq.errors import MQError

        raise MQError(
            MQRC_UNKNOWN_OBJECT_NAME,
            f"{what} name {name!r} is longer than 48 characters, so no "
            f"{what} has it (MQ would silently use its first 48)",
        )
    return raw


def md_to_lib(lib: MQLibrary, md: MQMD) -> Any:
    """A library MD holding exactly ``md`` (a version-1 MD keeps Version 1)."""
    raw = md.copy(version=2).pack(big_endian=NATIVE_BIG_ENDIAN, ccsid=819, version=2)
    out = lib.module.MD()
    out.unpack(raw)
    out.Version = 1 if md.version < 2 else 2
    return out


def md_from_lib(lib_md: Any) -> MQMD:
    """mqconsole's MQMD from a library MD (after an MQGET or MQPUT)."""
    return MQMD.unpack(lib_md.pack(), big_endian=NATIVE_BIG_ENDIAN, ccsid=819)


def message_from_lib(lib_md: Any, body: bytes, lib_gmo: Any = None) -> Message:
    """The message an MQGET returned; its ``token`` is the GMO's MsgToken when MQ gave one
    (all zeros: none, as on a queue manager that does not return tokens)."""
    token = bytes(getattr(lib_gmo, "MsgToken", b"") or b"") if lib_gmo is not None else b""
    return Message(md_from_lib(lib_md), bytes(body), token=token if token.strip(b"\x00")
                   else None)


def blank_md(lib: MQLibrary, *, msg_id: bytes | None = None,
             correl_id: bytes | None = None) -> Any:
    """A fresh MD for an MQGET (a reused MD would narrow matching by its MsgId/CorrelId),
    of version 2: pymqi's default version 1 has no room for GroupId and the other version-2
    fields, and MQ then puts an MQMDE in front of the body instead."""
    md = lib.module.MD()
    md.Version = max(int(md.Version), lib.CMQC.MQMD_VERSION_2)
    if msg_id is not None:
        md.MsgId = bytes(msg_id[:24]).ljust(24, b"\x00")
    if correl_id is not None:
        md.CorrelId = bytes(correl_id[:24]).ljust(24, b"\x00")
    return md


def gmo(lib: MQLibrary, options: int, match: int) -> Any:
    """GMO of version 3 or more (rule 4: pymqi's default version 1 ignores MatchOptions;
    version 3 returns the MsgToken that names the very message got or browsed), with the
    given match options and properties forced into an RFH2 in the body."""
    C = lib.CMQC
    g = lib.module.GMO()
    g.Version = max(int(g.Version), C.MQGMO_VERSION_3)
    g.Options = (options | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_PROPERTIES_FORCE_MQRFH2)
    g.MatchOptions = match
    g.WaitInterval = 0
    return g

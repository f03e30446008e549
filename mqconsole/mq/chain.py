"""Walk a message body's header chain: MQMD.Format → header → its Format → … → payload.

Each header's integers are in the byte order of the Encoding before it (``Encoding & 0xF``:
1 big-endian, 2 little-endian; anything else: whichever order makes the header's Version
valid) and its char fields in the CCSID before it (0 and the negative MQCCSI_* values
mean "as before"; the MQMD's 0 is read as ASCII). Each header's own Encoding, CCSID and
Format then describe what follows it.

``parse_body`` is strict (HeaderError on a malformed header); ``parse_body_lenient`` never
raises: it stops at the bad header, keeps the rest as payload and records the error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .dlh import FORMAT_DEAD_LETTER, MQDLH, MQDLH_LENGTH, byte_order
from .errors import HeaderError
from .md import MQMD
from .rfh2 import MQRFH, MQRFH2, folder_name
from .xqh import MQMDE, MQXQH

# Header formats (without padding) → the class that reads them.
HEADER_TYPES: dict[str, Any] = {  # each class has .unpack(body, offset, ...)
    "MQDEAD": MQDLH,
    "MQHRF2": MQRFH2,
    "MQHRF": MQRFH,
    "MQXMIT": MQXQH,
    "MQHMDE": MQMDE,
}
HEADER_FORMATS = frozenset(HEADER_TYPES)
MAX_HEADERS = 64  # a guard against loops; real messages carry a handful
DEFAULT_CHAR_CCSID = 819  # MQMD CCSID 0 (the queue manager's): read header text as ASCII

MQAT_QMGR = 7


def format_key(fmt: str) -> str:
    """A Format without its blank/NUL padding: ``'MQDEAD  '`` → ``'MQDEAD'``."""
    return fmt.rstrip(" \x00")


def is_header_format(fmt: str) -> bool:
    return format_key(fmt) in HEADER_FORMATS


@dataclass(slots=True)
class ParsedBody:
    """A body split into its headers and the payload after them."""

    headers: list[object]  # MQDLH | MQRFH2 | MQRFH | MQXQH | MQMDE, in order
    payload: bytes
    format: str  # of the payload, 8 characters (padded)
    encoding: int  # of the payload
    ccsid: int  # of the payload (0 when only the queue manager knows)
    payload_offset: int
    error: HeaderError | None = None

    @property
    def format_name(self) -> str:
        return format_key(self.format)

    def first(self, kind: type) -> object | None:
        """The first header of type ``kind`` (``pb.first(MQDLH)``), else None."""
        for h in self.headers:
            if isinstance(h, kind):
                return h
        return None

    @property
    def dlh(self) -> MQDLH | None:
        return self.first(MQDLH)  # type: ignore[return-value]

    @property
    def xqh(self) -> MQXQH | None:
        return self.first(MQXQH)  # type: ignore[return-value]

    @property
    def rfh2s(self) -> list[MQRFH2]:
        return [h for h in self.headers if isinstance(h, MQRFH2)]

    def properties(self) -> list[tuple[str, str, str]]:
        """``(folder, dotted path, value)`` from every RFH2 in the chain, in order."""
        return [p for h in self.rfh2s for p in h.properties()]

    def to_dict(self) -> dict[str, object]:
        return {
            "headers": [h.to_dict() for h in self.headers],  # type: ignore[attr-defined]
            "format": self.format_name,
            "encoding": self.encoding,
            "ccsid": self.ccsid,
            "payload_offset": self.payload_offset,
            "payload_length": len(self.payload),
            "error": str(self.error) if self.error else None,
        }


def _char_ccsid(ccsid: int, before: int) -> int:
    return ccsid if ccsid > 0 else before


def _walk(md: MQMD, body: bytes, *, lenient: bool, dlh: MQDLH | None = None) -> ParsedBody:
    body = bytes(body)
    fmt, encoding = md.format, md.encoding
    ccsid = md.ccsid  # effective CCSID of what follows (0: unknown)
    char_ccsid = _char_ccsid(md.ccsid, DEFAULT_CHAR_CCSID)
    big_endian = byte_order(encoding)
    offset = 0
    headers: list[object] = []
    error: HeaderError | None = None
    while (cls := HEADER_TYPES.get(format_key(fmt))) is not None:
        try:
            if len(headers) >= MAX_HEADERS:
                raise HeaderError(cls.__name__, offset,
                                  f"more than {MAX_HEADERS} chained headers")
            if dlh is not None and not headers and cls is MQDLH:
                header = dlh  # read already, as this would read it (dead_letter_header)
            else:
                header = cls.unpack(body, offset, big_endian=big_endian, ccsid=char_ccsid)
        except HeaderError as exc:
            if not lenient:
                raise
            error = exc
            break
        headers.append(header)
        offset += header.length
        fmt, encoding = header.format, header.encoding
        big_endian = byte_order(encoding)  # None (undefined encoding): detect from the next Version
        if header.ccsid > 0:
            ccsid = header.ccsid
        char_ccsid = _char_ccsid(header.ccsid, char_ccsid)
    return ParsedBody(headers=headers, payload=body[offset:],
                      format=format_key(fmt).ljust(8), encoding=encoding, ccsid=ccsid,
                      payload_offset=offset, error=error)


def parse_body(md: MQMD, body: bytes) -> ParsedBody:
    """Every header in the body, then the payload; HeaderError on a malformed header."""
    return _walk(md, body, lenient=False)


def parse_body_lenient(md: MQMD, body: bytes, *, dlh: MQDLH | None = None) -> ParsedBody:
    """Like :func:`parse_body` but never raises: a bad header ends the chain and the rest is
    payload (in the Format that header claimed), with ``error`` saying what was wrong.
    ``dlh``: the message's dead-letter header as :func:`dead_letter_header` read it (not
    read again)."""
    try:
        return _walk(md, body, lenient=True, dlh=dlh)
    except Exception as exc:  # a bug, not bad bytes: still show the message
        raw = bytes(body) if isinstance(body, bytes | bytearray | memoryview) else b""
        return ParsedBody(headers=[], payload=raw, format=getattr(md, "format", "").ljust(8),
                          encoding=getattr(md, "encoding", 0), ccsid=getattr(md, "ccsid", 0),
                          payload_offset=0,
                          error=HeaderError("body", 0, f"{type(exc).__name__}: {exc}"))


# -- dead-letter headers ---------------------------------------------------------------------


def _read_dlh(md: MQMD, body: bytes) -> MQDLH:
    if format_key(md.format) != format_key(FORMAT_DEAD_LETTER):
        shown = format_key(md.format) or "MQFMT_NONE"
        raise HeaderError("MQDLH", 0, f"the MQMD Format is {shown!r}, not 'MQDEAD': "
                          "there is no dead-letter header")
    return MQDLH.unpack(body, 0, big_endian=byte_order(md.encoding),
                        ccsid=_char_ccsid(md.ccsid, DEFAULT_CHAR_CCSID))


def dead_letter_header(md: MQMD, body: bytes) -> MQDLH | None:
    """The message's dead-letter header: None when Format is not MQDEAD or it is malformed."""
    try:
        return _read_dlh(md, body)
    except HeaderError:
        return None


# Folders whose contents MQ holds as message properties (IBM MQ, "MQRFH2 and message
# properties": the mcd, jms, usr, mqext and mqps folders, and any folder whose element says
# content='properties'); an RFH2 of other folders (psc, pscr, ...) is the application's data
PROPERTY_FOLDERS = frozenset({"mcd", "jms", "usr", "mqext", "mqps"})
_CONTENT_PROPERTIES = re.compile(r"""^[\s\x00]*<[^>]*\bcontent\s*=\s*['"]properties['"]""")


def is_property_rfh2(rfh: MQRFH2) -> bool:
    """Whether every folder of ``rfh`` holds message properties: the RFH2 that
    MQGMO_PROPERTIES_FORCE_MQRFH2 makes of a message's properties."""
    return bool(rfh.folders) and all(
        folder_name(text) in PROPERTY_FOLDERS or _CONTENT_PROPERTIES.match(text)
        for text in rfh.folders)


def data_format(md: MQMD, body: bytes, dlh: MQDLH) -> str:
    """The format of the data after the dead-letter header and any RFH2 of message
    properties: what runmqdlq's FORMAT is matched against. runmqdlq gets its messages with
    the properties as a message handle, so an RFH2 of properties is not in the data it
    sees; mqconsole gets them with MQGMO_PROPERTIES_FORCE_MQRFH2 (so they travel unchanged),
    which puts that RFH2 after the MQDLH and makes the header's Format MQHRF2. A header that
    cannot be read ends the walk at the format before it."""
    fmt, encoding = dlh.format, dlh.encoding
    char = _char_ccsid(dlh.ccsid, _char_ccsid(md.ccsid, DEFAULT_CHAR_CCSID))
    offset = MQDLH_LENGTH
    for _ in range(MAX_HEADERS):
        if format_key(fmt) != format_key(MQRFH2.FORMAT):
            break
        try:
            rfh = MQRFH2.unpack(body, offset, big_endian=byte_order(encoding), ccsid=char)
        except HeaderError:
            break
        if not is_property_rfh2(rfh):
            break
        offset += rfh.length
        fmt, encoding = rfh.format, rfh.encoding
        char = _char_ccsid(rfh.ccsid, char)
    return format_key(fmt)


def strip_dead_letter_header(md: MQMD, body: bytes) -> tuple[MQMD, bytes]:
    """For resubmit: an MD copy with Format, Encoding and CCSID restored from the DLH, and
    the body after the header. HeaderError when there is no valid DLH."""
    dlh = _read_dlh(md, body)
    restored = md.copy(format=dlh.format, encoding=dlh.encoding, ccsid=dlh.ccsid)
    return restored, bytes(body[MQDLH_LENGTH:])


def add_dead_letter_header(md: MQMD, body: bytes, *, reason: int, dest_q_name: str,
                           dest_qmgr_name: str = "", put_appl_type: int = MQAT_QMGR,
                           put_appl_name: str = "", put_date: str = "", put_time: str = "",
                           header_encoding: int | None = None,
                           header_ccsid: int | None = None) -> tuple[MQMD, bytes]:
    """What a queue manager does when it dead-letters a message: a DLH holding the MD's
    Format, Encoding and CCSID goes in front of the body, and the MD's Format becomes
    ``MQDEAD  ``. The header is written in the MD's Encoding and CCSID unless
    ``header_encoding``/``header_ccsid`` say otherwise (a z/OS queue manager: 785 and 500),
    and then the MD carries those."""
    encoding = md.encoding if header_encoding is None else header_encoding
    ccsid = md.ccsid if header_ccsid is None else header_ccsid
    dlh = MQDLH(reason=reason, dest_q_name=dest_q_name, dest_qmgr_name=dest_qmgr_name,
                encoding=md.encoding, ccsid=md.ccsid, format=md.format,
                put_appl_type=put_appl_type, put_appl_name=put_appl_name, put_date=put_date,
                put_time=put_time)
    big_endian = byte_order(encoding)
    packed = dlh.pack(big_endian=bool(big_endian),
                      ccsid=_char_ccsid(ccsid, DEFAULT_CHAR_CCSID))
    new_md = md.copy(format=FORMAT_DEAD_LETTER, encoding=encoding, ccsid=ccsid)
    return new_md, packed + bytes(body)


__all__ = [
    "HEADER_FORMATS", "HEADER_TYPES", "ParsedBody", "add_dead_letter_header",
    "dead_letter_header", "format_key", "is_header_format", "parse_body",
    "parse_body_lenient", "strip_dead_letter_header",
]

"""A message's dmpmqmsg lines straight from its packed MQMD: save's fast route.

A backend that keeps each message's MQMD packed (``mq.md`` LAYOUT, CCSID 819 — latin-1,
one byte per character — as ``MQMD.pack(ccsid=819)`` gives it) can hand ``(md bytes,
body)`` pairs to :func:`message_text`, which writes exactly what
``writer.write_message(fp, Message(MQMD.unpack(md, ccsid=819), body))`` writes without
making an ``MQMD`` (29 attributes) per message: the integers come from one ``struct``
call, the text fields are slices of the MD decoded once, the byte fields slices of the MD
in hex once, the body's ``X`` lines one ``bytes.hex`` with a separator.
Anything unusual (not ``MD  ``, a Version word that is neither 1 nor 2 in either byte
order, a line break in a text field, a body past ``X_CHUNK``) takes the general route,
which also raises what it raises.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from mqconsole.mq.md import LAYOUT, MQMD_V1_LENGTH, MQMD_V2_LENGTH, OFFSETS

from .common import FIELDS, TEXT_ATTRS
from .writer import X_CHUNK, x_text

_LENGTH = {attr: n for attr, _, _, n in LAYOUT}


def _generate(big_endian: bool, version: int) -> Callable[[bytes, str, str], str]:
    """``lines(md, text, digits)``: the ``A`` lines (each ended) of a packed MD of this byte
    order and version; ``text`` is ``md`` decoded as latin-1, ``digits`` ``md.hex().upper()``."""
    ints = [attr for attr, _, kind, _ in LAYOUT[:24 if version == 1 else None]
            if kind == "l"]
    fmt = (">" if big_endian else "<") + "".join(
        "i" if kind == "l" else f"{n}x"
        for attr, _, kind, n in LAYOUT[:24 if version == 1 else None])
    parts = []
    for fid, attr, kind, length, min_version in FIELDS:
        if min_version > version:
            continue
        at = OFFSETS[attr]
        assert length == _LENGTH[attr]
        if kind == "l":
            parts.append(f"A {fid} {{v[{ints.index(attr)}]}}\\n")
        elif kind == "c":
            parts.append(f"A {fid} {{text[{at}:{at + length}]}}\\n")
        else:  # bytes, and AIX/AOX: text written in hex
            parts.append(f"A {fid} {{digits[{2 * at}:{2 * (at + length)}]}}\\n")
    src = (f"def lines(md, text, digits):\n"
           f"    v = UNPACK(md)\n"
           f"    return f\"{''.join(parts)}\"\n")
    ns: dict[str, object] = {"UNPACK": struct.Struct(fmt).unpack_from}
    exec(compile(src, f"<mqconsole.ops.files.packed {fmt[0]}{version}>", "exec"), ns)
    return ns["lines"]  # type: ignore[return-value]


# the Version word (bytes 4..8) -> (lines, the MD's length)
_BY_VERSION_WORD = {
    (1).to_bytes(4, "little"): (_generate(False, 1), MQMD_V1_LENGTH),
    (2).to_bytes(4, "little"): (_generate(False, 2), MQMD_V2_LENGTH),
    (1).to_bytes(4, "big"): (_generate(True, 1), MQMD_V1_LENGTH),
    (2).to_bytes(4, "big"): (_generate(True, 2), MQMD_V2_LENGTH),
}
# the text fields written as text (a line break there cannot be written: general route)
_TEXT_SPANS = tuple((OFFSETS[attr], OFFSETS[attr] + n) for _, attr, kind, n, _ in FIELDS
                    if kind == "c")
assert all(attr in TEXT_ATTRS for _, attr, kind, _, _ in FIELDS if kind == "c")


def body_lines(body: bytes) -> str:
    """The ``X`` lines of a body (each ended): 25 bytes a line, ``X `` alone when empty."""
    return x_text(body) + "\n"


def message_text(md: bytes, body: bytes) -> str | None:
    """The lines of one message (its ``A`` lines, ``X`` lines and the empty line after them)
    as ``write_message`` writes them for ``MQMD.unpack(md, ccsid=819)`` and ``body``; None
    when the general route must write it (see the module doc)."""
    known = _BY_VERSION_WORD.get(md[4:8])
    if known is None or md[:4] != b"MD  " or len(body) > X_CHUNK:
        return None
    lines, size = known
    if len(md) < size:
        return None
    md = md[:size]
    text = md.decode("latin-1")
    if "\n" in text or "\r" in text:
        for start, end in _TEXT_SPANS:
            part = text[start:end]
            if "\n" in part or "\r" in part:
                return None  # write_message raises the DmpWriteError that says where
    return lines(md, text, md.hex().upper()) + body_lines(body) + "\n"


__all__ = ["body_lines", "message_text"]

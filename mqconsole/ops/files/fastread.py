"""Reading dmpmqmsg files as dmpmqmsg writes them, a message at a time in one regex match.

``reader.iter_dmp`` reads any variant line by line (a Python step per line: most of a
load's time). A file as dmpmqmsg (and mqconsole) writes it has one layout: optional
comments and empty lines, the ``A`` lines of every field in dmpmqmsg's order at full
width, ``X`` lines of hex pairs, one empty line. :func:`iter_fast` reads the file in big
blocks and takes each such message with one compiled regex (``A`` values straight from
its groups, the body in one ``binascii.unhexlify``), giving exactly what ``iter_dmp``
gives for it. At the first message that is laid out otherwise (``S``/``T`` lines, an
ASCII column, ``X`` lines of another width, CRLF, a short field, a value out of range, a
message bigger than ``FAST_LIMIT``) the rest of the file goes to ``iter_dmp``, from that
line (or from the message before it, when that line is a data line: more of that message
to ``iter_dmp``, for which empty lines may stand anywhere), so everything it accepts or
refuses (naming the line) stays as it is.
"""

from __future__ import annotations

import binascii
import io
import re
import struct
from collections.abc import Callable, Iterator
from typing import IO

from mqconsole.mq.md import LAYOUT, MQMD, V1_FIELDS
from mqconsole.mq.message import Message

from .common import FIELDS, MQLONG_MAX, MQLONG_MIN, TEXT_ATTRS
from .lines import Lines

BLOCK = 1 << 20  # bytes read at a time
FAST_LIMIT = 2 << 20  # a message longer than this goes to the general reader (with the rest)

_new = object.__new__


def _pattern(version: int) -> re.Pattern[bytes]:
    parts = [rb"(?:(?:\*[^\n]*)?\n)*"]  # comments and empty lines before the message
    for fid, _attr, kind, length, min_version in FIELDS:
        if min_version > version:
            continue
        head = b"A " + fid.encode() + b" "
        if kind == "l":
            parts.append(head + rb"([+-]?[0-9]{1,11})\n")
        elif kind == "c":
            parts.append(head + rb"([^\r\n]{%d})\n" % length)
        else:
            parts.append(head + rb"([0-9A-Fa-f]{%d})\n" % (2 * length))
    return re.compile(b"".join(parts))  # the X lines: _x_lines


def _maker(version: int) -> Callable[[tuple[bytes, ...]], MQMD | None]:
    """``make(groups)``: the MQMD the groups of :func:`_pattern` (``version``) give, as
    ``iter_dmp`` makes it (from ``MQMD()``); None when an integer is out of range."""
    lines = ["def make(g):", "    md = new(MQMD)", "    md.struc_id = 'MD  '"]
    ints = []
    given = set()
    i = 0
    for _fid, attr, kind, _length, min_version in FIELDS:
        if min_version > version:
            continue
        given.add(attr)
        if kind == "l":
            lines.append(f"    md.{attr} = v{i} = int(g[{i}])")
            ints.append(f"v{i}")
        elif kind == "c":
            lines.append(f"    md.{attr} = g[{i}].decode('latin-1')")
        elif attr in TEXT_ATTRS:
            lines.append(f"    md.{attr} = unhex(g[{i}]).decode('latin-1')")
        else:
            lines.append(f"    md.{attr} = unhex(g[{i}])")
        i += 1
    defaults = MQMD()
    for _fid, attr, _kind, _length, _min in FIELDS:
        if attr not in given:
            lines.append(f"    md.{attr} = D_{attr}")
    for attr in ("backout_count",):  # every field of FIELDS is set; nothing else exists
        assert attr in given
    checks = " or ".join(f"not LO <= {v} <= HI" for v in ints)
    lines.append(f"    if {checks}:")
    lines.append("        return None")
    lines.append("    return md")
    ns: dict[str, object] = {"new": _new, "MQMD": MQMD, "unhex": binascii.unhexlify,
                             "LO": MQLONG_MIN, "HI": MQLONG_MAX,
                             **{f"D_{a}": getattr(defaults, a) for _, a, *_ in FIELDS}}
    exec(compile("\n".join(lines), f"<mqconsole.ops.files.fastread v{version}>", "exec"), ns)
    return ns["make"]  # type: ignore[return-value]


def _packer(version: int) -> Callable[[tuple[bytes, ...]], bytes | None]:
    """``pack(groups)``: ``MQMD.pack(ccsid=819)`` of what ``_maker(version)`` makes of the
    groups (its byte order from Encoding, its layout from Version), without the MQMD; None
    when an integer is out of range (``struct`` refuses it)."""
    args = []
    i = 0
    for _fid, attr, kind, _length, min_version in FIELDS:
        if min_version > version:
            args.append(f"D_{attr}")
            continue
        if kind == "l":
            args.append("ver" if attr == "version" else f"int(g[{i}])")
        elif kind == "c":
            args.append(f"g[{i}]")
        else:
            args.append(f"unhex(g[{i}])")
        i += 1
    src = (
        "def pack(g):\n"
        "    v = int(g[0])\n"
        "    ver = 1 if v < 2 else 2\n"
        "    if not LO <= v <= HI:\n"
        "        return None\n"
        "    be = int(g[5]) & 15 == 1\n"
        "    try:\n"
        "        if ver == 2:\n"
        f"            return (BE2 if be else LE2)(b'MD  ', {', '.join(args)})\n"
        f"        return (BE1 if be else LE1)(b'MD  ', {', '.join(args[:23])})\n"
        "    except struct.error:\n"
        "        return None\n")
    defaults = MQMD()
    ns: dict[str, object] = {
        "unhex": binascii.unhexlify, "struct": struct, "LO": MQLONG_MIN, "HI": MQLONG_MAX,
        **{f"{'BE' if be else 'LE'}{v}": _md_struct(be, v).pack
           for be in (False, True) for v in (1, 2)},
        **{f"D_{a}": _packed_default(defaults, a) for _, a, *_ in FIELDS}}
    exec(compile(src, f"<mqconsole.ops.files.fastread pack v{version}>", "exec"), ns)
    return ns["pack"]  # type: ignore[return-value]


def _md_struct(big_endian: bool, version: int) -> struct.Struct:
    return struct.Struct((">" if big_endian else "<") + "".join(
        "i" if kind == "l" else f"{n}s"
        for _, _, kind, n in LAYOUT[:V1_FIELDS if version == 1 else None]))


def _packed_default(md: MQMD, attr: str) -> object:
    value = getattr(md, attr)
    return value.encode("latin-1") if isinstance(value, str) else value


_V2 = _pattern(2)
_V1 = _pattern(1)
_MAKE2 = _maker(2)
_MAKE1 = _maker(1)
_PACK2 = _packer(2)
_PACK1 = _packer(1)


_LINE = 53  # "X " + 50 hex digits + "\n": 25 bytes a line


def _x_lines(buf: bytes, start: int) -> tuple[bytes, int] | None:
    """The body the ``X`` lines from ``start`` hold and where the message ends (after its
    empty line), when they are laid out as dmpmqmsg writes them — each ``X `` and 25 bytes
    in hex, the last of 0 to 25 — and all in ``buf``; else None. Checked with a few
    whole-block operations instead of a regex (a regex over them costs as much as the
    rest of the message): the ``X``, blank and line end of every line in its place and
    nowhere else, an odd length (``X `` + pairs + line end) for the last, hex digits
    between (``unhexlify`` refuses anything else)."""
    end = buf.find(b"\n\n", start)
    if end < 0:
        return None
    block = buf[start:end + 1]
    lines = block.count(b"\n")
    full = lines - 1
    last = len(block) - _LINE * full
    if (not 3 <= last <= _LINE or not last & 1 or block[0::_LINE] != b"X" * lines
            or block[1::_LINE] != b" " * lines
            or block[_LINE - 1:_LINE * full:_LINE] != b"\n" * full
            or block.count(b"X") != lines or block.count(b" ") != lines):
        return None
    try:
        return binascii.unhexlify(block.translate(None, b"X \n")), end + 2
    except binascii.Error:  # not hex (a CR, an ASCII column): the general reader says so
        return None


class _Prefixed:
    """What is left of a block, then the rest of the file: what ``Lines`` reads from."""

    def __init__(self, head: bytes, fp: IO[bytes]) -> None:
        self._head = io.BytesIO(head)
        self._fp = fp

    def readline(self, size: int | None = -1) -> bytes:
        line = self._head.readline(size if size is not None else -1)
        if line.endswith(b"\n") or (size is not None and 0 <= size <= len(line)):
            return line
        more = self._fp.readline(-1 if size is None or size < 0 else size - len(line))
        return line + more


# an integer line that may be out of an MQLONG's range (10 digits or more)
_LONG_LINE = re.compile(rb"\nA (?:%s) [+-]?[0-9]{10}" % b"|".join(
    fid.encode() for fid, _a, kind, _n, _v in FIELDS if kind == "l"))


def iter_fast(lines: Lines, general: Callable[[Lines], Iterator[Message]], *,
              build: bool = True, packed: bool = False
              ) -> Iterator[Message | tuple[bytes, bytes] | None]:
    """The messages of a dmpmqmsg file whose header ``lines`` has read (its first message
    line pushed back), read fast while they are laid out as dmpmqmsg writes them, then by
    ``general`` (``iter_dmp``) from the first that is not. ``lines`` must read a binary
    file. ``build=False``: None for each message read fast (checked as thoroughly, but
    no ``Message`` made: a check of the whole file). ``packed=True``: ``(md, body)`` for
    each message read fast, ``md`` as ``MQMD.pack(ccsid=819)`` packs the MQMD it would
    make (a ``Message`` still for those the general reader reads)."""
    fp = lines.source
    back = lines.take_back()
    if back is None:
        buf, number = b"", lines.number  # lines before ``buf``
    else:
        buf, number = back[1].encode("latin-1") + b"\n", back[0] - 1
    pos = 0
    eof = False
    # the last message read fast, given out once what follows it cannot be more of it
    # (a data line after its empty line is, for ``iter_dmp``: empty lines and comments
    # may stand anywhere): (what to yield, where it starts in ``buf``)
    held: tuple[Message | tuple[bytes, bytes] | None, int] | None = None
    v2, v1, x_lines = _V2.match, _V1.match, _x_lines
    make2, make1 = (_PACK2, _PACK1) if packed else (_MAKE2, _MAKE1)
    long_line = _LONG_LINE.search
    while True:
        m = v2(buf, pos)
        make = make2
        if m is None:
            m = v1(buf, pos)
            make = make1
        x = None if m is None else x_lines(buf, m.end())
        if x is not None:
            assert m is not None
            body, end = x
            item: Message | tuple[bytes, bytes] | None = None
            # without build, None for a message whose integers have at most 9 digits
            # each (so in range; VER is group 1); else the message, if in range
            read = (not build and len(m.group(1).lstrip(b"+-")) < 10
                    and long_line(buf, pos, m.end()) is None)
            if not read:
                md = make(m.groups())
                read = md is not None
                if md is not None:
                    item = (md, body) if packed else Message(md, body)  # type: ignore[arg-type, assignment]
            if read:
                if held is not None:
                    yield held[0]
                held = (item, pos)
                pos = end
                continue
        if not eof and ((x is None and len(buf) - pos < FAST_LIMIT) or pos >= len(buf)):
            chunk = fp.read(BLOCK)
            if chunk:
                keep = pos if held is None else held[1]
                number += buf.count(b"\n", 0, keep)
                buf = buf[keep:] + chunk
                pos -= keep
                if held is not None:
                    held = (held[0], 0)
                continue
            eof = True
            continue
        start = pos
        if held is not None:
            if pos < len(buf) and _continues(buf, pos):
                start = held[1]  # read again from its start, with what continues it
            else:
                yield held[0]
            held = None
        if start >= len(buf):
            return
        # laid out otherwise (or out of range): the general reader from here on
        rest = Lines(_Prefixed(buf[start:], fp), lines.name)  # type: ignore[arg-type]
        rest.number = number + buf.count(b"\n", 0, start)
        yield from general(rest)
        return


def _continues(buf: bytes, pos: int) -> bool:
    """The first line from ``pos`` that is neither empty nor a comment is a data line
    (``X``, ``S``, ``T``): more of the message before ``pos`` as ``iter_dmp`` reads it."""
    for line in buf[pos:pos + FAST_LIMIT].split(b"\n"):
        if not line.strip() or line.startswith(b"*"):
            continue
        return line[:1] in (b"X", b"S", b"T")
    return False


__all__ = ["iter_fast"]

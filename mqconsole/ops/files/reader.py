"""Read dmpmqmsg/qload files (every variant) and amqsbcg output, one message at a time.

Reading follows IBM's own loader (qload): a message is ``A`` lines (or one ``N`` line, "no
descriptor") then one or more data lines (``X`` hex, ``S`` strings, ``T`` text); comment
lines (``*``) and empty lines may appear anywhere; the next ``A``/``N`` line starts the next
message; the file's last message must end with its empty line (a file cut short is refused,
not loaded as a short message). Each descriptor field starts from the default MQMD: text
longer than the field is cut and shorter is blank-padded, short hex fills a prefix, a line
without a value leaves the field as it was, an unknown id is an error. ``X`` lines give hex
pairs up to the first non-hex character (so ``-da`` ASCII columns are ignored).
``\\r\\n`` line ends are accepted.

Where mqconsole is stricter or kinder than qload: integers must be decimal MQLONGs (qload
uses ``atoi``); an unquoted ``S`` line keeps its last character (qload drops it); a lone ``T``
is a newline. Any problem raises one :class:`DmpFileError` naming the line; I/O failures
raise ``OSError``.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from typing import IO, cast

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message

from .amqsbcg import iter_amqsbcg, read_preamble
from .common import (
    FIELD_BY_ID,
    MQLONG_MAX,
    MQLONG_MIN,
    TEXT_ATTRS,
    DmpFileInfo,
    parse_ctime,
)
from .fastread import iter_fast
from .lines import Lines

_HEX_RUN = re.compile(r"[0-9A-Fa-f]*")
_S_SPECIAL = re.compile(r'["~]')
_INT = re.compile(r"[+-]?[0-9]+")
_HEADER = re.compile(r"\*\s*(QLOAD|DMPMQMSG)\b\s*(?:Version:\s*(\S*))?\s*(?:Created:\s*(.*))?",
                     re.IGNORECASE)
_QMGR = re.compile(r"\*\s*Qmgr\s*=\s?(.*)$")
_QUEUE = re.compile(r"\*\s*Queue\s*=\s?(.*)$")


def to_bytes(lines: Lines, number: int, text: str) -> bytes:
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError as exc:
        ch = text[exc.start]
        raise lines.error(number, f"character U+{ord(ch):04X} is not a single byte (the file "
                                  "must be read as bytes or latin-1)") from None


def hex_pairs(lines: Lines, number: int, text: str, pos: int,
              limit: int | None = None) -> bytes:
    """Hex pairs from ``pos`` up to the first non-hex character (or ``limit`` bytes)."""
    m = _HEX_RUN.match(text, pos)  # matches the empty string too
    run = m.group() if m is not None else ""
    if limit is not None and len(run) >= 2 * limit:
        run = run[:2 * limit]
    elif len(run) % 2:
        raise lines.error(number, f"badly formed hex: digit {run[-1]!r} at column "
                                  f"{pos + len(run)} has no partner")
    return bytes.fromhex(run)


# -- the descriptor lines -------------------------------------------------------------------

def apply_descriptor_line(md: MQMD, lines: Lines, number: int, text: str) -> None:
    """Apply one ``A <ID> <value>`` line to ``md`` the way dmpmqmsg reads it."""
    if len(text) < 5 or text[1] != " ":
        raise lines.error(number, f"descriptor line {_show(text)} is not 'A <ID> <value>'")
    fid = text[2:5]
    field = FIELD_BY_ID.get(fid)
    if field is None:
        raise lines.error(number, f"unknown descriptor field {fid!r}")
    if len(text) > 5 and text[5] != " ":
        raise lines.error(number, f"descriptor field {fid} must be followed by a blank, "
                                  f"not {text[5]!r}")
    if len(text) < 7:
        return  # no value: the field keeps its value, as dmpmqmsg does
    value = text[6:]
    _, attr, kind, length, _ = field
    if kind == "l":
        v = value.strip()
        if not _INT.fullmatch(v):
            raise lines.error(number, f"{fid} value {_show(v)} is not a whole number")
        n = int(v)
        if not MQLONG_MIN <= n <= MQLONG_MAX:
            raise lines.error(number, f"{fid} value {n} does not fit in a 32-bit MQLONG")
        setattr(md, attr, n)
    elif kind == "c":
        setattr(md, attr, value[:length].ljust(length))
    else:
        new = hex_pairs(lines, number, text, 6, limit=length)
        current = getattr(md, attr)
        old = current.encode("latin-1") if attr in TEXT_ATTRS else bytes(current)
        merged = new + old[len(new):]
        setattr(md, attr, merged.decode("latin-1") if attr in TEXT_ATTRS else merged)


def _show(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


# -- the data lines --------------------------------------------------------------------------

def data_line(lines: Lines, number: int, text: str) -> bytes:
    kind = text[0]
    if len(text) > 1 and text[1] != " ":
        raise lines.error(number, f"a {kind!r} data line must have a blank after {kind!r}")
    if kind == "T":
        return to_bytes(lines, number, text[2:]) + b"\n"
    pos = 1
    while pos < len(text) and text[pos] == " ":
        pos += 1
    if kind == "X":
        return hex_pairs(lines, number, text, pos)
    # S
    if pos >= len(text) or text[pos] != '"':
        return to_bytes(lines, number, text[pos:].rstrip(" "))
    parts = []
    i = pos + 1
    while True:
        m = _S_SPECIAL.search(text, i)
        if m is None:
            raise lines.error(number, "string line has no closing '\"'")
        parts.append(text[i:m.start()])
        if m.group() == '"':
            break
        nxt = text[m.end():m.end() + 1]
        if nxt not in ('"', "~"):
            raise lines.error(number, f"unexpected escape {('~' + nxt)!r} in a string line "
                                      "(only ~\" and ~~ are escapes)")
        parts.append(nxt)
        i = m.end() + 1
    return to_bytes(lines, number, "".join(parts))


def iter_dmp(lines: Lines) -> Iterator[Message]:
    """Messages of a dmpmqmsg file whose header has been read."""
    state = "start"  # start | desc (A/N lines seen) | body (data lines seen)
    md: MQMD | None = None
    chunks: list[bytes] = []
    desc_line = last_data = 0
    closed = True  # an empty line followed the last data line
    for number, text in lines:
        if not text.strip():
            closed = True
            continue
        kind = text[0]
        if kind == "*":
            continue
        if kind in "AN":
            if state == "body":
                assert md is not None  # set by the message's first A or N line
                yield Message(md, b"".join(chunks))
                state, md, chunks = "start", None, []
            if kind == "N":
                if text.strip() != "N":
                    raise lines.error(number, f"line {_show(text)} is not 'N' (a message "
                                              "without descriptor) nor 'A <ID> <value>'")
                if state == "desc":
                    raise lines.error(number, "'N' (no descriptor) cannot follow descriptor "
                                              "lines of the same message")
                md, state, desc_line = MQMD(), "desc", number
                continue
            if state == "start":
                md, state, desc_line = MQMD(), "desc", number
            assert md is not None
            apply_descriptor_line(md, lines, number, text)
            continue
        if kind in "XST":
            if state == "start":
                raise lines.error(number, f"data line {kind!r} before any descriptor: a "
                                          "message starts with 'A' lines or an 'N' line")
            state = "body"
            chunks.append(data_line(lines, number, text))
            last_data, closed = number, False
            continue
        raise lines.error(number, f"unexpected line {_show(text)}: expected 'A', 'N', 'X', "
                                  "'S', 'T', a '*' comment or an empty line")
    if state == "desc":
        raise lines.error(desc_line, "message has descriptor lines but no data lines "
                                     "('X', 'S' or 'T')")
    if state == "body":
        if not closed:  # dmpmqmsg ends every message with an empty line, the last one too
            raise lines.error(last_data, "the last message (from line "
                                         f"{desc_line}) has no empty line after its data: "
                                         "the file looks cut short, so its last message may "
                                         "be incomplete")
        assert md is not None
        yield Message(md, b"".join(chunks))


# -- the reader ------------------------------------------------------------------------------

def _open(source) -> tuple[IO, str | None, bool]:
    if isinstance(source, str | os.PathLike):
        from mqconsole.inputfile import open_input

        return open_input(source), str(source), True  # a FIFO: NotAFile, never waited for
    name = getattr(source, "name", None)
    return source, name if isinstance(name, str) else None, False


def _is_binary(fp: IO) -> bool:
    try:
        return isinstance(fp.read(0), bytes)
    except (OSError, ValueError):
        return False


class DmpReader:
    """Reads a dmpmqmsg/qload file or amqsbcg output: :attr:`info` at once, messages on demand.

    ``source`` is a path, a binary file (best: bytes are read as latin-1) or a text file.
    Iterating yields :class:`~mqconsole.mq.message.Message` objects one at a time, so a big
    file needs memory for one message only (``fastread.BLOCK`` of it read at a time from a
    binary file; ``fast=False``: the line-by-line reader only, the same answers).
    :attr:`warnings` collects things worth telling the operator that are not errors
    (amqsbcg message properties that cannot be loaded).
    """

    def __init__(self, source, *, name: str | None = None, fast: bool = True) -> None:
        fp, default_name, self._own = _open(source)
        self._fp: IO | None = fp
        self.name = name or default_name
        self.lines = Lines(fp, self.name)
        self.info = DmpFileInfo(path=self.name)
        self.warnings: list[str] = []
        self.count = 0
        self._started = False
        self._binary = fast and _is_binary(fp)  # the fast reader (fastread) reads bytes
        try:
            self._read_preamble()
        except BaseException:
            self.close()
            raise

    def _read_preamble(self) -> None:
        lines = self.lines
        first = None
        for item in lines:
            if item[1].strip():
                first = item
                break
        if first is None:
            return  # an empty file holds no messages
        number, text = first
        if text.startswith("AMQSBCG0"):
            self.info.tool = "amqsbcg"
            read_preamble(self)
            return
        m = _HEADER.match(text)
        if not (text.startswith("* QLOAD") or text.startswith("* DMPMQMSG")) or m is None:
            raise lines.error(number, f"not a dmpmqmsg file: it starts {_show(text)}, not "
                                      "'* DMPMQMSG', '* QLOAD' or 'AMQSBCG0'")
        self.info.tool = m.group(1).lower()
        self.info.version = m.group(2) or None
        created = (m.group(3) or "").strip()
        if created:
            self.info.created_text = created
            self.info.created = parse_ctime(created)
        for item in lines:
            number, text = item
            if text.startswith("*"):
                if (q := _QMGR.match(text)) and self.info.qmgr is None:
                    self.info.qmgr = q.group(1).rstrip() or None
                elif (q := _QUEUE.match(text)) and self.info.queue is None:
                    self.info.queue = q.group(1).rstrip() or None
                continue
            if text.strip():
                lines.push_back(item)
                break

    def __iter__(self) -> Iterator[Message]:
        if self._started:
            raise RuntimeError("a DmpReader can be iterated once")
        self._started = True
        return self._messages()

    def _messages(self) -> Iterator[Message]:
        if self.info.tool is None:
            return
        if self.info.tool == "amqsbcg":
            source = iter_amqsbcg(self)
        elif self._binary:
            # iter_dmp from the first odd message; every item a Message (build=True)
            source = cast(Iterator[Message], iter_fast(self.lines, iter_dmp))
        else:
            source = iter_dmp(self.lines)
        for message in source:
            self.count += 1
            yield message

    def packed(self) -> Iterator[tuple[bytes, bytes]]:
        """Iterate as ``(md, body)`` instead of messages, ``md`` as
        ``MQMD.pack(ccsid=819)`` packs each message's MQMD: messages laid out as dmpmqmsg
        writes them are packed straight from the file (no ``MQMD`` made)."""
        if self._started:
            raise RuntimeError("a DmpReader can be iterated once")
        if not (self._binary and self.info.tool in ("dmpmqmsg", "qload")):
            for message in self:
                yield message.md.pack(ccsid=819), message.body
            return
        self._started = True
        for item in iter_fast(self.lines, iter_dmp, packed=True):
            self.count += 1
            if isinstance(item, Message):
                yield item.md.pack(ccsid=819), item.body
            else:
                yield item  # type: ignore[misc]

    def count_messages(self) -> int:
        """Read every message to check the file, without keeping any (instead of
        iterating: messages laid out as dmpmqmsg writes them are checked without making a
        ``Message``). Raises what iterating raises."""
        if self._started:
            raise RuntimeError("a DmpReader can be iterated once")
        if self._binary and self.info.tool in ("dmpmqmsg", "qload"):
            self._started = True
            for _ in iter_fast(self.lines, iter_dmp, build=False):
                self.count += 1
            return self.count
        for _ in self:
            pass
        return self.count

    def close(self) -> None:
        if self._own and self._fp is not None:
            self._fp.close()
        self._fp = None

    def __enter__(self) -> DmpReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_messages(source) -> Iterator[Message]:
    """Messages of a dmpmqmsg/qload file or amqsbcg output, one at a time (constant memory)."""
    with DmpReader(source) as reader:
        yield from reader


def load_file(path: str | os.PathLike) -> list[Message]:
    """Every message of a file, as a list."""
    with DmpReader(path) as reader:
        return list(reader)


def read_file_info(source) -> DmpFileInfo:
    """The header of a file (tool, version, created, qmgr, queue) without reading messages."""
    with DmpReader(source) as reader:
        return reader.info


def read_text(text: str, *, name: str | None = None) -> list[Message]:
    """Every message of a file's text (handy in tests and for pasted amqsbcg output)."""
    with DmpReader(io.StringIO(text, newline="\n"), name=name) as reader:
        return list(reader)


__all__ = ["DmpReader", "Lines", "load_file", "read_file_info", "read_messages", "read_text"]

"""Write messages in dmpmqmsg's layout, byte for byte as IBM's tool does.

Per message: ``A <ID> <value>`` lines in dmpmqmsg's order (GRP…ORL only for an MQMD of
version 2 or more), text fields at full length with trailing blanks kept, byte fields as
upper-case hex (ApplIdentityData and ApplOriginData as AIX/AOX hex, as dmpmqmsg does); the
body as ``X`` lines of 25 bytes (``X `` alone for an empty body) or, with ``body_style="S"``,
runs of printable bytes as ``S "…"`` lines of at most 48 with the rest as ``X`` lines (what
dmpmqmsg's ``-dA``-style printable output does); one empty line after each message. Line ends
are ``\\n``.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import IO, Literal

from mqconsole import __version__
from mqconsole.mq.message import Message

from .common import (
    FIELDS,
    MQLONG_MAX,
    MQLONG_MIN,
    S_CHARS_PER_LINE,
    TEXT_ATTRS,
    X_BYTES_PER_LINE,
    format_ctime,
)

Style = Literal["dmpmqmsg", "qload"]
BodyStyle = Literal["X", "S"]

DEFAULT_VERSION = ".".join([*__version__.split("."), "0", "0", "0"][:4])
X_CHUNK = X_BYTES_PER_LINE * 4096  # bytes turned into hex at a time (bounded memory)
_PRINTABLE_RUN = re.compile(rb"[\x20-\x7e]*")
_OTHER_RUN = re.compile(rb"[^\x20-\x7e]*")


class DmpWriteError(ValueError):
    """A message that the format cannot carry (a line break in a text field, say)."""


def _emit(fp: IO, text: str) -> None:
    if isinstance(fp, io.TextIOBase):
        fp.write(text)
    else:
        fp.write(text.encode("latin-1"))


def header_text(*, qmgr: str | None, queue: str | None, style: Style = "dmpmqmsg",
                created: datetime | None = None, version: str | None = None) -> str:
    """The header lines (and the empty line after them) as :func:`write_header` writes them."""
    if style not in ("dmpmqmsg", "qload"):
        raise ValueError(f"header style {style!r} is neither 'dmpmqmsg' nor 'qload'")
    tool = "DMPMQMSG" if style == "dmpmqmsg" else "QLOAD"
    when = format_ctime(created if created is not None else datetime.now())
    lines = [f"* {tool} Version:{version or DEFAULT_VERSION} Created:{when}\n"]
    if qmgr and qmgr.strip():
        lines.append(f"* Qmgr  = {_header_name(qmgr)}\n")
    if queue and queue.strip():
        lines.append(f"* Queue = {_header_name(queue)}\n")
    lines.append("\n")
    return "".join(lines)


def _header_name(name: str) -> str:
    name = name.rstrip(" \x00")[:48]
    if "\n" in name or "\r" in name:
        raise DmpWriteError(f"name {name!r} contains a line break")
    return name


def write_header(fp: IO, *, qmgr: str | None, queue: str | None, style: Style = "dmpmqmsg",
                 created: datetime | None = None, version: str | None = None) -> None:
    """``* DMPMQMSG Version:… Created:…`` (or ``* QLOAD …``), the Qmgr/Queue lines, an empty line.

    ``created`` defaults to now (shown in local time, as dmpmqmsg's ctime does); ``version``
    to mqconsole's version as V.R.M.F.
    """
    _emit(fp, header_text(qmgr=qmgr, queue=queue, style=style, created=created,
                          version=version))


def descriptor_lines(md) -> list[str]:
    """The ``A <ID> <value>`` lines for an MQMD (no line ends)."""
    out = []
    for fid, attr, kind, length, min_version in FIELDS:
        if min_version > 1 and md.version < min_version:
            continue
        value = getattr(md, attr)
        if kind == "l":
            if isinstance(value, bool) or not isinstance(value, int):
                raise DmpWriteError(f"MQMD field {fid} is {value!r}, not an integer")
            if not MQLONG_MIN <= value <= MQLONG_MAX:
                raise DmpWriteError(f"MQMD field {fid} is {value}, outside a 32-bit MQLONG")
            out.append(f"A {fid} {value}")
            continue
        if attr in TEXT_ATTRS:
            text = str(value)[:length].ljust(length)
            # (an ASCII text, nearly every one, is looked at in C, not character by character)
            bad = None if text.isascii() else next((ch for ch in text if ord(ch) > 0xFF), None)
            if bad is not None:
                raise DmpWriteError(f"MQMD field {fid} holds {bad!r}, which is not a single "
                                    "byte: the file carries descriptor text as latin-1")
            if kind == "c":
                if "\n" in text or "\r" in text:
                    raise DmpWriteError(f"MQMD field {fid} contains a line break, which a "
                                        "dmpmqmsg file cannot carry")
                out.append(f"A {fid} {text}")
                continue
            raw = text.encode("latin-1")
        else:
            raw = bytes(value)[:length].ljust(length, b"\x00")
        out.append(f"A {fid} {raw.hex().upper()}")
    return out


def _x_lines(data: bytes | memoryview, fp: IO) -> None:
    """``X`` lines of 25 bytes; ``data`` must not be empty."""
    for start in range(0, len(data), X_CHUNK):
        _emit(fp, x_text(bytes(data[start:start + X_CHUNK])) + "\n")


def x_text(data: bytes) -> str:
    """``X`` lines of 25 bytes (no line end after the last), ``X `` for no bytes: the hex
    digits split into lines by ``bytes.hex`` itself, one string built, not one a line."""
    if not data:
        return "X "
    return "X " + data.hex("\n", -X_BYTES_PER_LINE).upper().replace("\n", "\nX ")


def _s_lines(run: bytes) -> str:
    if not run:
        return "S \n"
    parts = []
    for i in range(0, len(run), S_CHARS_PER_LINE):
        text = run[i:i + S_CHARS_PER_LINE].decode("ascii")
        parts.append('S "' + text.replace("~", "~~").replace('"', '~"') + '"\n')
    return "".join(parts)


def _run_end(run: re.Pattern[bytes], body: bytes, pos: int) -> int:
    """Where a run of ``run`` (a pattern that matches the empty string too) from ``pos`` ends."""
    m = run.match(body, pos)
    return pos if m is None else m.end()


def _write_body_s(body: bytes, fp: IO) -> None:
    """dmpmqmsg's printable layout: alternate runs of printable (S) and other bytes (X).

    Like dmpmqmsg, a body that starts with a non-printable byte (or is empty) starts with a
    lone ``S `` line.
    """
    view = memoryview(body)
    pos, end, first = 0, len(body), True
    while True:
        stop = _run_end(_PRINTABLE_RUN, body, pos)
        if stop > pos or first:
            _emit(fp, _s_lines(bytes(view[pos:stop])))
        pos = stop
        if pos >= end:
            break
        stop = _run_end(_OTHER_RUN, body, pos)
        _x_lines(view[pos:stop], fp)
        pos = stop
        if pos >= end:
            break
        first = False


def write_message(fp: IO, message: Message, *, index: int | None = None,
                  body_style: BodyStyle = "X") -> None:
    """One message: ``* Index n`` (when given), its descriptor lines, its body, an empty line.

    ``fp`` is a text file opened with ``newline="\\n"`` (encoding latin-1, or ascii when the
    descriptor text is ASCII) or a binary file. Raises :class:`DmpWriteError` for a message
    the format cannot carry; nothing is written then.
    """
    if body_style not in ("X", "S"):
        raise ValueError(f"body style {body_style!r} is neither 'X' nor 'S'")
    head = descriptor_lines(message.md)  # validates before anything is written
    body = bytes(message.body)
    if index is not None:
        head.insert(0, f"* Index {index}")
    if body_style == "X" and len(body) <= X_CHUNK:
        head.append(x_text(body))
        _emit(fp, "\n".join(head) + "\n\n")
        return
    _emit(fp, "\n".join(head) + "\n")
    if body_style == "X":
        _x_lines(body, fp)
    else:
        _write_body_s(body, fp)
    _emit(fp, "\n")


class DmpWriter:
    """Writes a dmpmqmsg file: the header on opening, then one message per :meth:`write`.

    ``target`` is a path (opened ``newline="\\n"``, latin-1; ``exclusive=True`` refuses an
    existing file) or an open file, which is left open. On :meth:`close` a file the writer
    opened is flushed and, with ``fsync=True`` (the default), synced to disk — a backup must
    be on disk before the messages it holds are removed.

    >>> with DmpWriter(path, qmgr="QM1", queue="APP.DLQ") as w:   # doctest: +SKIP
    ...     for m in messages:
    ...         w.write(m)
    """

    def __init__(self, target: str | os.PathLike | IO, *, qmgr: str | None = None,
                 queue: str | None = None, style: Style = "dmpmqmsg",
                 created: datetime | None = None, version: str | None = None,
                 body_style: BodyStyle = "X", index: bool = False, exclusive: bool = False,
                 encoding: str = "latin-1", fsync: bool = True) -> None:
        if body_style not in ("X", "S"):
            raise ValueError(f"body style {body_style!r} is neither 'X' nor 'S'")
        self.body_style: BodyStyle = body_style
        self.index = index
        self.count = 0
        self.bytes_written = 0
        self._fsync = fsync
        fp: IO
        if isinstance(target, str | os.PathLike):
            self.path: Path | None = Path(target)
            fp = open(self.path, "x" if exclusive else "w", encoding=encoding,  # noqa: SIM115
                      newline="\n")
            self._own = True
        else:
            self.path = None
            fp = target
            self._own = False
        self._fp: IO | None = fp
        try:
            write_header(fp, qmgr=qmgr, queue=queue, style=style, created=created,
                         version=version)
        except BaseException:
            self.close()
            raise

    def write(self, message: Message) -> None:
        """Append one message (numbered ``* Index n`` from 1 when ``index=True``)."""
        fp = self._fp
        if fp is None:
            raise ValueError("the dmpmqmsg file is closed")
        write_message(fp, message, index=self.count + 1 if self.index else None,
                      body_style=self.body_style)
        self.count += 1
        self.bytes_written += len(message.body)

    def write_all(self, messages: Iterable[Message]) -> int:
        n = 0
        for m in messages:
            self.write(m)
            n += 1
        return n

    def close(self) -> None:
        if self._fp is None:
            return
        fp, self._fp = self._fp, None
        if self._own:
            try:
                fp.flush()
                if self._fsync:
                    os.fsync(fp.fileno())
            finally:
                fp.close()

    @property
    def closed(self) -> bool:
        return self._fp is None

    def __enter__(self) -> DmpWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def dump_messages(path: str | os.PathLike, messages: Iterable[Message], *,
                  qmgr: str | None = None, queue: str | None = None,
                  style: Style = "dmpmqmsg", body_style: BodyStyle = "X",
                  created: datetime | None = None, index: bool = False,
                  exclusive: bool = False, fsync: bool = True) -> int:
    """Write ``messages`` to a new dmpmqmsg file at ``path``; returns how many were written."""
    with DmpWriter(path, qmgr=qmgr, queue=queue, style=style, body_style=body_style,
                   created=created, index=index, exclusive=exclusive, fsync=fsync) as w:
        return w.write_all(messages)

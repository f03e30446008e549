"""What an audit reads: queues of one or more queue managers, or saved files.

A queue manager is reached through a *connection*: a ``BackendSpec`` (what the faces make of
a configuration profile, holding no password: an executor reads ``password_env`` itself) or
its mapping form (``{"backend": "embedded", "path": ...}``, see
``backends.spec.BackendSpec.from_mapping``). Connections are carried to Spark's executors
pickled, so they must not need a prompt and must name a queue manager every executor can open (an
embedded ``:memory:`` one lives in one process only).

Queue patterns: a comma list of names, each a plain name or a name with ``*`` standing for
any characters (MQ's generic names have one at the end; ``APP.*.BOQ`` is asked of the queue
manager as ``APP.*`` and narrowed here). A pattern takes the local queues it matches
(aliases and remote queues hold no messages of their own); a plain name must exist (2085
otherwise).
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mqconsole.backends.base import BrowseRange, BrowsesInRanges, QueueManager
from mqconsole.backends.open import open_backend
from mqconsole.backends.spec import BackendSpec
from mqconsole.mq.queue import QueueType


class SourceError(ValueError):
    """A source an audit cannot read: one sentence (exit 2)."""


def split_patterns(text: str) -> list[str]:
    """``"SYSTEM.DEAD.LETTER.QUEUE, APP.*.BOQ"`` → the names, blanks dropped, order kept."""
    out: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if part and part not in out:
            out.append(part)
    return out


def _wildcard(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")) + r"\Z")


def as_spec(connection: object) -> BackendSpec:
    """A connection as the ``BackendSpec`` it stands for."""
    if isinstance(connection, BackendSpec):
        return connection
    if isinstance(connection, Mapping):
        return BackendSpec.from_mapping(connection)
    raise TypeError(f"a connection is a BackendSpec or a mapping, not {type(connection).__name__}")


def connection_refusal(connection: object) -> str | None:
    """Why ``connection`` cannot be used by Spark's executors, or None."""
    spec = as_spec(connection)
    if spec.in_memory:
        return ("an embedded queue manager in memory lives in one process, and Spark reads "
                "in others: export from an embedded queue manager file")
    if spec.password_prompt:
        return ("its password is asked at a prompt, which Spark's executors cannot do: "
                "name an environment variable with password_env for audits")
    return None


def open_connection(connection: object) -> QueueManager:
    """Open a ``BackendSpec`` or its mapping form (no prompt: an executor cannot ask)."""
    return open_backend(as_spec(connection))


@contextlib.contextmanager
def connected(connection: object) -> Iterator[QueueManager]:
    qm = open_connection(connection)
    try:
        yield qm
    finally:
        qm.close()


def expand_queues(qm: QueueManager, patterns: Sequence[str]) -> list[str]:
    """The queues ``patterns`` name on ``qm``, in pattern order, each once."""
    out: list[str] = []
    for pattern in patterns:
        star = pattern.find("*")
        if star != -1:
            match = _wildcard(pattern).match
            names = [q.name for q in qm.list_queues(pattern[:star + 1])
                     if q.type == QueueType.LOCAL and match(q.name)]
        else:
            names = [qm.inquire_queue(pattern).name]  # MQError 2085 when it does not exist
        out.extend(n for n in names if n not in out)
    return out


@dataclass(frozen=True, slots=True)
class QueueSource:
    """One queue of one connection (``key`` names the connection), or one stretch of it
    (``part``: a ``BrowseRange`` of a backend that ``BrowsesInRanges``)."""

    key: str
    queue: str
    part: BrowseRange | None = None

    def to_json(self) -> list:
        if self.part is None:
            return [self.key, self.queue]
        p = self.part
        return [self.key, self.queue, [p.first_position, p.after, p.until, p.rows]]

    @classmethod
    def from_json(cls, item: Sequence) -> QueueSource:
        part = None
        if len(item) > 2 and item[2] is not None:
            first, after, until, rows = item[2]
            part = BrowseRange(int(first), after, until, rows)
        return cls(str(item[0]), str(item[1]), part)


def split_queue(qm: QueueManager, key: str, queue: str, parts: int, min_rows: int
                ) -> list[QueueSource]:
    """``queue`` as up to ``parts`` stretches when the backend can (``BrowsesInRanges``:
    the embedded queue manager), else as one source (real MQ browses forward only)."""
    if parts > 1 and isinstance(qm, BrowsesInRanges):
        ranges = qm.browse_ranges(queue, parts, min_rows)
        if len(ranges) > 1:
            return [QueueSource(key, queue, r) for r in ranges]
    return [QueueSource(key, queue)]


@dataclass(frozen=True, slots=True)
class FilePiece:
    """Bytes ``start`` to ``end`` of a dmpmqmsg file: whole messages, ``count`` of them,
    the first at ``first_position``; ``first_line`` is the line number before ``start``."""

    start: int
    end: int
    first_position: int
    count: int
    first_line: int


@dataclass(frozen=True, slots=True)
class FileSource:
    path: str
    piece: FilePiece | None = None

    def to_json(self) -> list:
        if self.piece is None:
            return [self.path]
        p = self.piece
        return [self.path, [p.start, p.end, p.first_position, p.count, p.first_line]]

    @classmethod
    def from_json(cls, item: Sequence) -> FileSource:
        piece = None
        if len(item) > 1 and item[1] is not None:
            piece = FilePiece(*(int(v) for v in item[1]))
        return cls(str(item[0]), piece)


# where a message of a file as dmpmqmsg writes it starts: its first descriptor line, Version
# (every message of such a file has one, after the empty line that ends the one before)
_MESSAGE = b"\nA VER "
_CUT = b"\n\nA VER "
_SCAN = 16 << 20


def _count(mm, what: bytes, start: int, end: int) -> int:
    """Occurrences of ``what`` that begin in bytes ``start`` to ``end`` of ``mm``."""
    total = 0
    for lo in range(max(start, 0), end, _SCAN):
        hi = min(lo + _SCAN, end)
        total += mm[lo:min(hi + len(what) - 1, len(mm))].count(what)
    return total


def split_file(path: str, parts: int, min_bytes: int) -> list[FileSource]:
    """A saved file as up to ``parts`` pieces of at least ``min_bytes``, cut where a message
    starts, each read by its own task: only a dmpmqmsg (or qload) file laid out as dmpmqmsg
    writes it (every message from an ``A VER`` line, no ``N`` lines, LF line ends); any
    other file, or a small one, is one source. Each piece's messages are counted here, so
    its positions are known; a piece that holds another count when read says so (exit 2),
    never numbers rows wrongly."""
    import mmap
    import os

    from mqconsole.ops.dmpfile import DmpReader

    whole = [FileSource(path)]
    size = os.path.getsize(path)
    if parts <= 1 or min_bytes <= 0 or size < 2 * min_bytes:
        return whole
    with DmpReader(path) as reader:
        if reader.info.tool not in ("dmpmqmsg", "qload"):
            return whole
    with open(path, "rb") as fp, mmap.mmap(fp.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        if mm.find(b"\r\n") != -1 or mm.find(b"\nN\n") != -1:
            return whole
        pieces = min(parts, size // min_bytes)
        cuts = [0]
        for k in range(1, pieces):
            at = mm.find(_CUT, max(k * size // pieces, cuts[-1]))
            if at == -1:
                break
            cuts.append(at + 2)
        cuts.append(size)
        if len(cuts) < 3:
            return whole
        out: list[FileSource] = []
        position, line = 1, 0
        for start, end in itertools.pairwise(cuts):
            # an "A VER" line begins in this piece: its newline is just before it
            count = _count(mm, _MESSAGE, start - 1, end - 1)
            out.append(FileSource(path, FilePiece(start, end, position, count, line)))
            position += count
            line += _count(mm, b"\n", start, end)
    return out


def check_file(path: str) -> str:
    """An absolute path to a readable file, or SourceError."""
    p = Path(path).expanduser()
    if not p.exists():
        raise SourceError(f"{path}: no such file")
    if not p.is_file():
        raise SourceError(f"{path} is not a file")
    try:
        with p.open("rb"):
            pass
    except OSError as e:
        raise SourceError(f"{path} cannot be read ({e.strerror or e})") from None
    return str(p.absolute())


__all__ = [
    "FilePiece",
    "FileSource",
    "QueueSource",
    "SourceError",
    "as_spec",
    "check_file",
    "connected",
    "connection_refusal",
    "expand_queues",
    "open_connection",
    "split_file",
    "split_patterns",
    "split_queue",
]

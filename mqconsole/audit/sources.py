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
class FileSource:
    path: str


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
    "FileSource",
    "QueueSource",
    "SourceError",
    "as_spec",
    "check_file",
    "connected",
    "connection_refusal",
    "expand_queues",
    "open_connection",
    "split_patterns",
    "split_queue",
]

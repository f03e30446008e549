"""Attempt counts of the dead-letter handler, kept durably (runmqdlq keeps them in memory
and loses them on restart).

One small SQLite file (the CLI and the console put it in the user state folder) holds, per
queue manager, queue and message, how many times the handler tried the message and when it
last did (so RETRYINT is honoured across a restart too). A message is named by its MsgId,
CorrelId and its dead-letter header's put date and time, reason and destination: MsgIds
alone repeat and MsgTokens do not survive a restart. Two messages with the same key share a
count; the handler says so. A count is forgotten when the message leaves the queue: when
the handler removes it, and after a whole pass for every message no longer there.

Counts are written when an attempt fails (a put refused), before the next message is
looked at; removals after the unit of work that took the messages was committed, so a
crash in between only leaves a count that the next whole pass forgets.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mqconsole import paths
from mqconsole.mq.dlh import MQDLH
from mqconsole.mq.md import MQMD

Key = bytes
FILE_NAME = paths.ATTEMPTS_FILE_NAME


def default_path() -> Path:
    """Where the CLI and the console keep attempt counts: ``dlq-attempts.sqlite`` in the
    state folder (the same file for both, so a count survives a switch of face too)."""
    return paths.default_attempts_path()

_SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    qmgr TEXT NOT NULL,
    queue TEXT NOT NULL,
    key BLOB NOT NULL,
    attempts INTEGER NOT NULL,
    last_attempt REAL NOT NULL,
    last_reason TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (qmgr, queue, key)
) WITHOUT ROWID
"""


def message_key(md: MQMD, dlh: MQDLH) -> Key:
    """MsgId + CorrelId + the header's PutDate, PutTime, Reason, DestQName, DestQMgrName."""
    tail = "\x00".join((dlh.put_date, dlh.put_time, str(dlh.reason), dlh.dest_q_name.rstrip(),
                        dlh.dest_qmgr_name.rstrip()))
    return md.msg_id + md.correl_id + tail.encode("utf-8", errors="surrogateescape")


@dataclass(frozen=True, slots=True)
class Attempts:
    count: int
    last_attempt: float  # time.time() of the last failed attempt
    last_reason: str = ""


class AttemptStore:
    """The counts of one queue of one queue manager (``path`` None: in memory only, as
    runmqdlq; the CLI always gives a file)."""

    def __init__(self, path: str | Path | None, qmgr: str, queue: str) -> None:
        self.path = None if path is None else str(path)
        self.qmgr = qmgr
        self.queue = queue
        if self.path is not None:
            _prepare(self.path)
        self._db = sqlite3.connect(self.path or ":memory:", timeout=30,
                                   isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._cache: dict[Key, Attempts] = {}
        self.reload()

    @property
    def durable(self) -> bool:
        return self.path is not None

    def reload(self) -> None:
        """Read this queue's counts (another handler may share the file)."""
        rows = self._db.execute("SELECT key, attempts, last_attempt, last_reason FROM attempts "
                                "WHERE qmgr = ? AND queue = ?", (self.qmgr, self.queue))
        self._cache = {bytes(k): Attempts(n, t, r) for k, n, t, r in rows}

    def __len__(self) -> int:
        return len(self._cache)

    def get(self, key: Key) -> Attempts | None:
        return self._cache.get(key)

    def count(self, key: Key) -> int:
        a = self._cache.get(key)
        return 0 if a is None else a.count

    def counts(self) -> dict[Key, int]:
        """Every message's count on this queue (as last read)."""
        return {k: a.count for k, a in self._cache.items()}

    def failed(self, key: Key, reason: str, *, now: float | None = None) -> int:
        """One more failed attempt, written at once; the new count."""
        now = time.time() if now is None else now
        n = self.count(key) + 1
        self._db.execute("INSERT OR REPLACE INTO attempts (qmgr, queue, key, attempts, "
                         "last_attempt, last_reason) VALUES (?,?,?,?,?,?)",
                         (self.qmgr, self.queue, key, n, now, reason))
        self._cache[key] = Attempts(n, now, reason)
        return n

    def forget(self, keys: Iterable[Key]) -> None:
        """The messages left the queue: their counts go."""
        gone = [k for k in keys if k in self._cache]
        if not gone:
            return
        self._db.executemany("DELETE FROM attempts WHERE qmgr = ? AND queue = ? AND key = ?",
                             [(self.qmgr, self.queue, k) for k in gone])
        for k in gone:
            self._cache.pop(k, None)

    def keep_only(self, present: set[Key]) -> int:
        """After a whole pass: forget every count whose message is no longer on the queue;
        how many were forgotten."""
        stale = [k for k in self._cache if k not in present]
        self.forget(stale)
        return len(stale)

    def close(self) -> None:
        self._db.close()


def _prepare(path: str) -> None:
    """Refuse a path that is another of mqconsole's files (a queue manager's store, the
    journal, a backup: exit 2), make its folder (0700, as every state folder) and the file
    (0600: it holds MsgIds and CorrelIds; SQLite gives its -wal and -shm the same mode)."""
    import os

    from mqconsole.ops.outputs import SQLITE, StateFiles, check_output
    from mqconsole.paths import ensure_dir

    check_output(path, "--attempts-file", StateFiles.defaults(attempts=path), allow=(SQLITE,))
    ensure_dir(Path(path).parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        if os.fstat(fd).st_uid == os.getuid():  # one an older version made 0644: private now
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def store_problem(path: str | Path) -> str | None:
    """Why attempt counts cannot be kept in ``path`` (a folder, not an SQLite file, not
    writable...), or None when they can (the file is made when missing)."""
    if Path(path).is_dir():
        return "it is a folder"
    try:
        store = AttemptStore(path, "", "")
    except (sqlite3.Error, OSError) as e:
        return str(e) or type(e).__name__
    try:
        store._db.execute("BEGIN IMMEDIATE")  # writable: the handler writes as it goes
        store._db.execute("ROLLBACK")
    except sqlite3.Error as e:
        return str(e) or type(e).__name__
    finally:
        store.close()
    return None

"""Files of the embedded queue manager: create, open and check them; RAM-backed ``:memory:``
queue managers; the liveness of the processes that hold connections; SQLite errors as
MQ reason codes.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

from mqconsole import paths
from mqconsole.mq.errors import BadValue, MQError
from mqconsole.mq.queue import QueueAttrs, is_valid_name
from mqconsole.mq.reasons import (
    MQRC_HCONN_ERROR,
    MQRC_OBJECT_ALREADY_EXISTS,
    MQRC_OBJECT_DAMAGED,
    MQRC_Q_MGR_NAME_ERROR,
    MQRC_Q_MGR_NOT_AVAILABLE,
    MQRC_RESOURCE_PROBLEM,
    MQRC_STORAGE_MEDIUM_FULL,
    MQRC_UNEXPECTED_ERROR,
)

from .schema import APPLICATION_ID, DDL, OLDEST_READABLE, QUEUE_COLUMNS, SCHEMA_VERSION

MEMORY = ":memory:"
DEFAULT_DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
DEFAULT_BUSY_TIMEOUT = 10.0  # seconds a writer waits for another connection's write


_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 5, 6, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL = 10, 11, 13
_SQLITE_CANTOPEN, _SQLITE_NOTADB, _SQLITE_PERM = 14, 26, 3


class QueueManagerExistsError(MQError, FileExistsError):
    """``create_queue_manager`` refuses a path that exists (MQRC_OBJECT_ALREADY_EXISTS)."""


def sqlite_error(exc: BaseException, path: object, busy_timeout: float = DEFAULT_BUSY_TIMEOUT
                 ) -> MQError:
    """An SQLite failure as the MQ reason an operator can act on (never a raw sqlite error)."""
    if isinstance(exc, sqlite3.ProgrammingError) and "closed" in str(exc):
        return MQError(MQRC_HCONN_ERROR, "the connection to the embedded queue manager is closed")
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    where = f"embedded queue manager {path}"
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return MQError(MQRC_RESOURCE_PROBLEM,
                       f"{where} stayed locked by another connection for more than "
                       f"{busy_timeout:g} s ({exc})")
    if primary == _SQLITE_FULL:
        return MQError(MQRC_STORAGE_MEDIUM_FULL, f"{where}: the disk is full ({exc})")
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return MQError(MQRC_OBJECT_DAMAGED, f"{where} is damaged ({exc})")
    if primary in (_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_PERM, _SQLITE_IOERR):
        return MQError(MQRC_RESOURCE_PROBLEM, f"{where} cannot be written or read ({exc})")
    return MQError(MQRC_UNEXPECTED_ERROR, f"{where}: {exc}")


# -- processes ---------------------------------------------------------------------------

def _proc_start(pid: int) -> str | None:
    """The start time of a process (Linux ``/proc``), to tell a reused pid from the owner."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return stat[stat.rindex(b")") + 2:].split()[19].decode()
    except (OSError, ValueError, IndexError):
        return None


def _namespace() -> str:
    """Where a pid means something: the host and (on Linux) the pid namespace."""
    host = socket.gethostname()
    with contextlib.suppress(OSError):
        host += f"|{os.stat('/proc/self/ns/pid').st_ino}"
    return host


NAMESPACE = _namespace()


def process_identity() -> tuple[int, str | None, str]:
    pid = os.getpid()
    return pid, _proc_start(pid), NAMESPACE


def process_alive(pid: int, proc_start: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    except OSError:
        return True  # cannot tell: keep it
    if proc_start is not None:
        now = _proc_start(pid)
        if now is not None and now != proc_start:
            return False
    return True


# -- sqlite connections ------------------------------------------------------------------

def _connect(path: Path, *, mode: str, busy_timeout: float) -> sqlite3.Connection:
    uri = path.absolute().as_uri() + f"?mode={mode}"
    db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                         timeout=busy_timeout, cached_statements=256)
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA temp_store=MEMORY")
    return db


def _qm_attrs_row(attrs: QueueAttrs, now: float) -> tuple:
    vals = []
    for col in QUEUE_COLUMNS:
        if col in ("create_time", "alter_time"):
            vals.append(now)
            continue
        v = getattr(attrs, col)
        vals.append(v.value if hasattr(v, "value") else (int(v) if isinstance(v, bool) else v))
    return tuple(vals)


def insert_queue(db: sqlite3.Connection, attrs: QueueAttrs, now: float) -> None:
    cols = ", ".join(QUEUE_COLUMNS)
    marks = ", ".join("?" * len(QUEUE_COLUMNS))
    db.execute(f"INSERT INTO queues ({cols}) VALUES ({marks})", _qm_attrs_row(attrs, now))


def _build(path: Path, name: str, dead_letter_queue: str, description: str) -> None:
    db = _connect(path, mode="rwc", busy_timeout=DEFAULT_BUSY_TIMEOUT)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(DDL)  # a new file only we know: a failure removes it
        db.execute("BEGIN IMMEDIATE")
        now = time.time()
        meta = {
            "schema_version": str(SCHEMA_VERSION), "qmgr_name": name,
            "dead_letter_queue": dead_letter_queue, "description": description,
            "created": str(now), "platform": "UNIX", "command_level": "940",
            "ccsid": "1208", "encoding": "546",
        }
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
        if dead_letter_queue:
            insert_queue(db, QueueAttrs(name=dead_letter_queue, max_depth=999_999_999,
                                        description="Dead-letter queue"), now)
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    finally:
        db.close()


def create_file(path: str | os.PathLike[str], name: str = "QM1",
                dead_letter_queue: str = DEFAULT_DLQ, *, description: str = "") -> Path:
    """Create a new embedded queue manager file at ``path`` and return its path.

    Refuses an existing file (QueueManagerExistsError, an MQError 2100 and a
    FileExistsError). Creates missing parent directories. The dead-letter queue is
    defined as a local queue (pass ``""`` for none).
    """
    if not is_valid_name(name):
        raise BadValue(f"queue manager name {name!r} is not an MQ name "
                       "(1-48 of A-Z a-z 0-9 . / _ %)")
    if dead_letter_queue and not is_valid_name(dead_letter_queue):
        raise BadValue(f"dead-letter queue name {dead_letter_queue!r} is not an MQ name")
    p = Path(os.fspath(path)).expanduser()
    if str(p) == MEMORY:
        raise ValueError("':memory:' is not a file: use open_embedded(':memory:')")
    paths.ensure_dir(p.parent)  # new folders 0700
    try:
        # 0600: SQLite gives its -wal and -shm files the database file's mode
        fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        raise QueueManagerExistsError(
            MQRC_OBJECT_ALREADY_EXISTS,
            f"{p} already exists: mqconsole never overwrites a queue manager file "
            "(choose another path, or remove it yourself)") from None
    os.close(fd)
    try:
        _build(p, name, dead_letter_queue, description)
    except BaseException as exc:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{p}{suffix}")
        if isinstance(exc, sqlite3.Error):
            raise sqlite_error(exc, p) from exc
        raise
    return p


def open_db(path: Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> sqlite3.Connection:
    """Open an existing queue manager file; clear MQErrors for anything that is not one."""
    hint = f"create one with `mqconsole --embedded {path} init`, --demo for sample data"
    if not path.exists():
        raise MQError(MQRC_Q_MGR_NAME_ERROR, f"no embedded queue manager at {path} ({hint})")
    if path.is_dir():
        raise MQError(MQRC_Q_MGR_NAME_ERROR,
                      f"{path} is a directory, not an embedded queue manager file")
    db: sqlite3.Connection | None = None
    try:
        db = _connect(path, mode="rw", busy_timeout=busy_timeout)
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as exc:
        if db is not None:
            db.close()
        if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == _SQLITE_NOTADB:
            raise MQError(MQRC_Q_MGR_NAME_ERROR,
                          f"{path} is not an mqconsole embedded queue manager "
                          "(not an SQLite file)") from exc
        raise MQError(MQRC_Q_MGR_NOT_AVAILABLE, f"cannot open {path}: {exc}") from exc
    if app_id != APPLICATION_ID:
        db.close()
        raise MQError(MQRC_Q_MGR_NAME_ERROR,
                      f"{path} is an SQLite file but not an mqconsole embedded queue manager")
    if not OLDEST_READABLE <= version <= SCHEMA_VERSION:
        db.close()
        newer = "a newer" if version > SCHEMA_VERSION else "an older"
        raise MQError(MQRC_Q_MGR_NOT_AVAILABLE,
                      f"{path} was made by {newer} mqconsole (schema {version}; this one "
                      f"reads schemas {OLDEST_READABLE} to {SCHEMA_VERSION})")
    try:
        if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            db.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error as exc:
        db.close()
        raise sqlite_error(exc, path, busy_timeout) from exc
    return db


# -- :memory: queue managers -------------------------------------------------------------

def _ram_dir() -> str:
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return tempfile.gettempdir()


_PREFIX = "mqconsole-mem-"
_swept = False
_live: set[MemoryStore] = set()
_live_lock = threading.Lock()


def _sweep(root: str) -> None:
    """Remove RAM directories left by killed processes (their pid is in the name)."""
    global _swept
    if _swept:
        return
    _swept = True
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            if not entry.name.startswith(_PREFIX):
                continue
            try:
                pid = int(entry.name[len(_PREFIX):].split("-", 1)[0])
            except ValueError:
                continue
            if pid != os.getpid() and not process_alive(pid, None):
                shutil.rmtree(entry.path, ignore_errors=True)


class MemoryStore:
    """A private queue manager in RAM: the same WAL engine on a file in ``/dev/shm`` (or
    the temp directory), deleted when its last connection closes and at interpreter exit.
    """

    def __init__(self, name: str, dead_letter_queue: str = DEFAULT_DLQ) -> None:
        root = _ram_dir()
        _sweep(root)
        self.owner_pid = os.getpid()
        self.directory = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=root)
        self.path = Path(self.directory) / "qm.sqlite"
        self.refs = 0
        self._lock = threading.Lock()
        try:
            create_file(self.path, name, dead_letter_queue)
        except BaseException:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise
        with _live_lock:
            _live.add(self)

    def acquire(self) -> None:
        with self._lock:
            self.refs += 1

    def release(self) -> None:
        with self._lock:
            self.refs -= 1
            last = self.refs <= 0
        if last:
            self.remove()

    def remove(self) -> None:
        if os.getpid() != self.owner_pid:
            return  # a forked child never removes its parent's queue manager
        shutil.rmtree(self.directory, ignore_errors=True)
        with _live_lock:
            _live.discard(self)


@atexit.register
def _remove_all() -> None:
    for store in list(_live):
        store.remove()

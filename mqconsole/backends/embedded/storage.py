"""The embedded queue manager's storage: a connection to the SQLite file (registered in it,
released at MQDISC or by the garbage collector), its call guard and transactions, the
queue rows as a call reads them, and the recovery of dead connections' units of work.
The other parts of ``EmbeddedQueueManager`` build on :class:`Storage`.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import sqlite3
import time
import weakref
from pathlib import Path

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import (
    MQRC_UNKNOWN_OBJECT_NAME,
)

from .calls import Call
from .schema import ADD_FACT_COLUMNS, FACT_COLUMNS, UPGRADE_1_TO_2
from .session import SelfDeadlock, Session, backout_marks, run_later
from .store import (
    DEFAULT_BUSY_TIMEOUT,
    MemoryStore,
    open_db,
    process_alive,
    process_identity,
    sqlite_error,
)

PUT_APPL_NAME = "mqconsole"




def default_principal() -> str:
    """The operating-system user, as MQ takes it for a local bindings connection."""
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment
        return "mqconsole"



def _release(s: Session, ids: list[int], memory: MemoryStore | None) -> None:
    """MQDISC: back out, drop handles and the connection record, close; free a RAM store."""
    if os.getpid() != s.owner_pid:
        return  # a forked child must not touch its parent's connection
    conn_id = ids[0]
    db = s.db
    got = s.lock.acquire(timeout=5)
    try:
        if not s.held:
            s.begin()
        s.backout_work()  # the open transaction's work and the marks alike
        db.execute("DELETE FROM handles WHERE conn = ?", (conn_id,))
        db.execute("DELETE FROM connections WHERE id = ?", (conn_id,))
        s.end(commit=True)
    except SelfDeadlock:
        # the garbage collector ran this in the middle of a call of this thread on the
        # connection that holds the write lock: finish once that call has ended
        if got:
            s.lock.release()
        run_later(lambda: _release(s, ids, memory))
        return
    except (sqlite3.Error, MQError):
        with contextlib.suppress(sqlite3.Error, MQError):
            if s.held:
                s.end(commit=False)
    s.work_done()
    with contextlib.suppress(sqlite3.Error):
        db.close()
    s.close()
    if got:
        s.lock.release()
    if memory is not None:
        memory.release()


class _OwnTx:
    """``with _OwnTx(session, durable) as db``: see ``EmbeddedQueueManager._write``."""

    __slots__ = ("durable", "s")

    def __init__(self, s: Session, durable: bool) -> None:
        self.s = s
        self.durable = durable

    def __enter__(self) -> sqlite3.Connection:
        s = self.s
        s.flush()
        s.begin()
        s.sync_after = self.durable
        return s.db

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        s = self.s
        s.end(commit=exc is None)
        if exc is None and s.sync_after:
            s.sync_wal()


class _UowTx:
    """``with _UowTx(session) as db``: a syncpoint call inside the unit of work's
    transaction, begun when none is open; what it puts or gets goes into the session's
    deferred work. A failed check (MQError) keeps the transaction, unless the unit of
    work is empty: then, as when the call did nothing, the lock is given up at once.
    Anything else rolls the transaction back, which takes its unflushed work with it
    (``lost``: the unit of work can then only be backed out)."""

    __slots__ = ("s",)

    def __init__(self, s: Session) -> None:
        self.s = s

    def __enter__(self) -> sqlite3.Connection:
        s = self.s
        if not s.held:
            s.begin()
        return s.db

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        s = self.s
        if exc is None or isinstance(exc, MQError):
            if not s.work and s.held:
                s.end(commit=True)
        elif s.held:
            s.end(commit=False)




class Storage:
    """The connection to the file (MQCONNX): see the package docstring."""

    backend = "embedded"

    def __init__(self, path: str | os.PathLike[str], *, principal: str | None = None,
                 busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
                 _memory: MemoryStore | None = None) -> None:
        self._path = Path(os.fspath(path))
        self._memory = _memory
        self._busy = busy_timeout
        self._principal = principal or default_principal()
        self._closed = True
        if _memory is not None:
            _memory.acquire()
        try:
            self._db = open_db(self._path, busy_timeout)
        except BaseException:
            if _memory is not None:
                _memory.release()
            raise
        self._db.row_factory = sqlite3.Row
        # a RAM queue manager is private to this process: no cross-process flags
        self._s = Session(self._db, self._path, busy_timeout, flags=_memory is None)
        self._lock = self._s.lock
        self._call = Call(self)
        try:
            # the lock held as by a call: the idle flusher (session.py) must not COMMIT the
            # registration's transaction under it when opening takes longer than
            # IDLE_FLUSH (a loaded machine)
            with self._lock:
                meta = self._meta()
                self._name = meta["qmgr_name"]
                self._ccsid = int(meta.get("ccsid", "1208"))
                self._ids = [self._register()]
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error, MQError):
                if self._s.held:
                    self._s.end(commit=False)
            self._db.close()
            self._s.close()
            if _memory is not None:
                _memory.release()
            if isinstance(exc, sqlite3.Error):
                raise sqlite_error(exc, self.location, busy_timeout) from exc
            raise
        self._closed = False
        self._finalizer = weakref.finalize(self, _release, self._s, self._ids, _memory)

    # -- plumbing --------------------------------------------------------------------------
    @property
    def _conn_id(self) -> int:
        return self._ids[0]

    @property
    def location(self) -> str:
        return ":memory:" if self._memory is not None else str(self._path)

    def _guard(self) -> Call:
        """Every call: serialised with the connection's others, refused when closed,
        SQLite errors as MQError."""
        return self._call

    def _write(self, durable: bool = False) -> _OwnTx:
        """A write outside the unit of work, in a transaction of its own that commits at
        once. An open unit-of-work transaction is flushed first (its marks stay), so the
        write survives a later backout and a crash. ``durable`` (or ``sync_after`` set
        inside): on disk when the call returns (see ``Session.sync_wal``)."""
        return _OwnTx(self._s, durable)

    def _uow_write(self) -> _UowTx:
        """A syncpoint call, inside the unit of work's transaction (begun when none is
        open); see ``_UowTx``."""
        return _UowTx(self._s)

    def _meta(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self._db.execute("SELECT key, value FROM meta")}

    def _register(self) -> int:
        pid, start, ns = process_identity()
        s = self._s
        with self._write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            s.triggers = version == 1  # a schema-1 file keeps depth with triggers
            self._purge_stale_in(db, ns, own=None)
            if version == 1 and db.execute("SELECT 1 FROM connections LIMIT 1").fetchone() \
                    is None:
                # no one else uses the file (nor, then, an older mqconsole): upgrade it
                for statement in UPGRADE_1_TO_2.split(";"):
                    if statement.strip():
                        db.execute(statement)
                s.triggers = False
            columns = {r[1] for r in db.execute("PRAGMA table_info(messages)")}
            for (column, _), statement in zip(FACT_COLUMNS, ADD_FACT_COLUMNS, strict=True):
                if column not in columns:
                    db.execute(statement)
            row = db.execute(
                "INSERT INTO connections (pid, proc_start, host, principal, appl, started) "
                "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (pid, start, ns, self._principal, PUT_APPL_NAME, time.time())).fetchall()
        s.conn_id = int(row[0][0])
        return s.conn_id

    def _purge_stale_in(self, db: sqlite3.Connection, ns: str, own: int | None) -> int:
        rows = db.execute("SELECT id, pid, proc_start FROM connections WHERE host = ?",
                          (ns,)).fetchall()
        dead = [r[0] for r in rows if r[0] != own and not process_alive(r[1], r[2])]
        for cid in dead:
            for queue, n in backout_marks(db, cid).items():
                self._s.count(queue, n)
            db.execute("DELETE FROM handles WHERE conn = ?", (cid,))
            db.execute("DELETE FROM connections WHERE id = ?", (cid,))
        return len(dead)

    def _purge_stale(self) -> None:
        """Back out units of work of connections whose process has died."""
        _, _, ns = process_identity()
        rows = self._db.execute("SELECT pid, proc_start FROM connections WHERE host = ? "
                                "AND id != ?", (ns, self._conn_id)).fetchall()
        if any(not process_alive(r[0], r[1]) for r in rows):
            with self._write() as db:
                self._purge_stale_in(db, ns, self._conn_id)

    def _queue(self, name: str) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM queues WHERE name = ?", (name,)).fetchone()

    def _queue_attrs(self, name: str) -> sqlite3.Row | None:
        """A queue's row for the checks of put, get and browse: kept while the write
        transaction is held (nothing else can change it then). Its ``curdepth`` is as it
        was read; ``Session.added`` counts the puts made since (see ``put``)."""
        s = self._s
        if not s.held:
            return self._queue(name)
        try:
            return s.queues[name]
        except KeyError:
            row = s.queues[name] = self._queue(name)
            return row


    def _unknown(self, name: str) -> MQError:
        return MQError(MQRC_UNKNOWN_OBJECT_NAME, f"queue {name!r} does not exist on {self._name}")

    # -- queue manager ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def principal(self) -> str:
        return self._principal

    @property
    def path(self) -> Path:
        """The SQLite file (for ``:memory:`` the private RAM file)."""
        return self._path

    @property
    def is_memory(self) -> bool:
        return self._memory is not None


    # -- queues ----------------------------------------------------------------------------
    def _own_view(self) -> None:
        """Before reading figures that count uncommitted messages (depth, status): write
        this connection's deferred work into its open transaction."""
        self._s.own_view()


    def _close_handle(self, handle: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM handles WHERE id = ?", (handle,))



"""The SQLite write transaction a connection keeps across calls, and how the connections
of one process share a file's single write lock.

A unit of work keeps one SQLite write transaction (``BEGIN IMMEDIATE``) open from its
first syncpoint call until MQ commit or backout (see connection.py). SQLite lets one
connection per file write at a time, so:

* In one process, the connections to a file share a ``_File`` record naming the one that
  holds (or is about to take) the write lock, its *owner*. A connection that wants to
  write while another connection's transaction sits idle between calls flushes it
  (SQLite ``COMMIT`` under that connection's own lock; the put_by/got_by marks keep its
  unit of work fully open and backout-able) and takes the lock itself. When the owner is
  inside a call on another thread, it waits for that call to end. So two connections
  used alternately by one thread never deadlock. Readers flush an idle owner too, so a
  connection sees every other same-process connection's work at once, as on MQ.
* A transaction idle for ``IDLE_FLUSH`` seconds is flushed by a background thread, so a
  unit of work left open by a person never locks other processes out.
* Across processes, a connection waiting for the write lock raises a flag (an ``fcntl``
  read lock on one byte of ``<file>-mqlock``); a process about to begin a write
  transaction while another process's flag is up lets that process go first. So a long
  scripted move cannot starve the TUI's put (SQLite's own busy handler polls at
  growing intervals and would almost never hit the moment between two batches).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import OFFSETS
from mqconsole.mq.reasons import MQRC_RESOURCE_PROBLEM

from . import moved
from .targets import Target

try:
    import fcntl
except ImportError:  # not POSIX: no cross-process flags (SQLite's busy handler only)
    fcntl = None  # type: ignore[assignment]


_VERSION, _PRIORITY = OFFSETS["version"], OFFSETS["priority"]
_MSG_ID, _CORREL_ID = OFFSETS["msg_id"], OFFSETS["correl_id"]
IDLE_FLUSH = 0.2  # seconds an idle write transaction stays open before it is flushed
YIELD_MAX = 0.2  # longest a writer lets another process's waiting writer go first
_POLL = (0.0002, 0.0005, 0.001, 0.002)  # waits between BEGIN attempts (then the last)
_UNSET = object()
_datasync = getattr(os, "fdatasync", os.fsync)  # what SQLite uses where it exists


class _File:
    """Per process and database file: the connection holding the write lock, if any."""

    __slots__ = ("cond", "flag_fd", "key", "owner", "sessions", "waiters")

    def __init__(self, key: str, flags: bool) -> None:
        self.key = key
        self.cond = threading.Condition(threading.Lock())
        self.owner: Session | None = None
        self.waiters = 0
        self.sessions = 0
        self.flag_fd: int | None = None
        if flags and fcntl is not None:
            with contextlib.suppress(OSError):
                self.flag_fd = os.open(key + "-mqlock", os.O_RDWR | os.O_CREAT, 0o600)

    # -- cross-process flags (fcntl byte locks, released by the kernel when a process dies)
    # Only the connection about to be the owner waits for SQLite's lock, so a process
    # has at most one flag up per file: one byte is enough.
    def raise_flag(self) -> None:
        if self.flag_fd is not None:
            with contextlib.suppress(OSError):
                fcntl.lockf(self.flag_fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 0)

    def lower_flag(self) -> None:
        if self.flag_fd is not None:
            with contextlib.suppress(OSError):
                fcntl.lockf(self.flag_fd, fcntl.LOCK_UN, 1, 0)

    def other_process_waits(self) -> bool:
        """Is a flag of another process up? (F_GETLK never reports this process's own.)"""
        if self.flag_fd is None:
            return False
        probe = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        try:
            got = fcntl.fcntl(self.flag_fd, fcntl.F_GETLK, probe)
        except OSError:
            return False
        return struct.unpack("hhqqi", got)[0] != fcntl.F_UNLCK


_files: dict[str, _File] = {}
# re-entrant: a collection while _file_for holds it may run a dropped connection's
# finalizer (storage._release -> Session.close -> _file_done) in this very thread
_files_lock = threading.RLock()


def _file_for(path: Path, flags: bool) -> _File:
    key = os.path.realpath(path)
    with _files_lock:
        f = _files.get(key)
        if f is None:
            f = _files[key] = _File(key, flags)
        f.sessions += 1
        return f


def _file_done(f: _File) -> None:
    with _files_lock:
        f.sessions -= 1
        if f.sessions <= 0 and _files.get(f.key) is f:
            del _files[f.key]
            if f.flag_fd is not None:
                with contextlib.suppress(OSError):
                    os.close(f.flag_fd)
                f.flag_fd = None


class SelfDeadlock(Exception):
    """The owner of the write lock is inside a call on this very thread (only a finalizer
    run by the garbage collector in the middle of a call can get here)."""


# -- the unit of work in the rows --------------------------------------------------------

PUT_COLS = ("queue, npri, priority, expires_at, msg_id, correl_id, put_time, length, md, body, "
            "f_reason, f_dest, f_dest_qm, f_format, f_put")
"""A put's row: the columns, then the message's facts (``stored.stored_facts``)."""
_PUT_COLS = PUT_COLS
_INSERT_FINAL = f"INSERT INTO messages ({_PUT_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
# The same, for rows bound as ``_unadapted`` makes them: no expiry as 0.0, the facts'
# Nones as values no fact can have
_NO_REASON = 1 << 40  # not an MQLONG
_NO_DEST = "\x00"  # a stripped name never is
_NO_PUT = 1 << 62  # microseconds past year 9999
_INSERT_FINAL_UNADAPTED = (f"INSERT INTO messages ({_PUT_COLS}) "
                           "VALUES (?,?,?,nullif(?,0.0),?,?,?,?,?,?,"
                           f"nullif(?,{_NO_REASON}),nullif(?,char(0)),nullif(?,char(0)),?,"
                           f"nullif(?,{_NO_PUT}))")
_INSERT_PUT_MARKED = (f"INSERT INTO messages ({_PUT_COLS}, put_by) "
                      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
GOT_COLS = "id, queue, npri, backout_count, expires_at, put_time, md, body"
"""What a destructive get keeps of a message (``DELETE … RETURNING``) to put its row back
on a backout. The columns that repeat the MD (priority, MsgId, CorrelId) and the body's
length are taken from those when it is put back (``_got_row``): fewer columns to read
on every get, in the rare case that needs them."""
_INSERT_GOT_MARKED = ("INSERT INTO messages (id, queue, npri, priority, backout_count, "
                      "expires_at, msg_id, correl_id, put_time, length, md, body, got_by) "
                      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")


def _got_row(r: tuple, conn: int) -> tuple:
    """A kept ``GOT_COLS`` row as ``_INSERT_GOT_MARKED`` inserts it. The stored MD holds
    the columns' values (a put writes them from it): Priority, MsgId, CorrelId, in the
    byte order its Version word (1 or 2) shows."""
    row_id, queue, npri_, backout_count, expires_at, put_time, md, body = r
    priority = int.from_bytes(md[_PRIORITY:_PRIORITY + 4], "little" if md[_VERSION] else "big",
                              signed=True)
    return (row_id, queue, npri_, priority, backout_count, expires_at,
            md[_MSG_ID:_MSG_ID + 24], md[_CORREL_ID:_CORREL_ID + 24],
            put_time, len(body), md, body, conn)


def _unadapted(rows: list[tuple]) -> list[tuple]:
    """``_PUT_COLS`` rows as the sqlite3 module binds fastest. It looks every parameter
    that is not exactly an int, float, str or bytearray up in its adapter registry,
    through a failed attribute lookup that raises and clears an AttributeError: a few
    microseconds for each of a put's four ``bytes`` and its ``None`` expiry, as much as
    a tenth of a move's time. A bytearray copy of the bytes costs far less, and binds to
    the same BLOB; no expiry goes as 0.0, which ``nullif`` makes NULL (an expiry time
    is never 0: it is a put's time plus the Expiry)."""
    ba = bytearray
    return [(q, n, p, 0.0 if x is None else x, ba(mid), ba(cid), t, size, ba(md), ba(body),
             _NO_REASON if r is None else r, _NO_DEST if d is None else d,
             _NO_DEST if dq is None else dq, f, _NO_PUT if u is None else u)
            for q, n, p, x, mid, cid, t, size, md, body, r, d, dq, f, u in rows]


DEFER_BYTES = 16 << 20  # unflushed puts and gets held in memory before they are written


def backout_marks(db: sqlite3.Connection, conn_id: int) -> dict[str, int]:
    """Undo the marks of one connection's unit of work (inside the caller's write
    transaction): its uncommitted puts go, its got messages return with BackoutCount + 1.
    Returns the change of depth per queue (for ``Session.count``)."""
    change: dict[str, int] = {}
    for (queue,) in db.execute(
            "UPDATE messages SET got_by = NULL, backout_count = backout_count + 1 "
            "WHERE got_by = ? AND got_by IS NOT NULL RETURNING queue", (conn_id,)).fetchall():
        change[queue] = change.get(queue, 0) + 1
    for (queue,) in db.execute("DELETE FROM messages WHERE put_by = ? AND put_by IS NOT NULL "
                               "RETURNING queue", (conn_id,)).fetchall():
        change[queue] = change.get(queue, 0) - 1
    return change


class Session:
    """One SQLite connection of a queue manager connection, its write transaction, and
    what its unit of work did in that transaction.

    ``lock`` serialises the calls of the connection; ``depth`` counts calls in progress
    (changed only under ``lock``). ``held``: an SQLite write transaction is open.

    Inside a held transaction the unit of work is kept *deferred*: a syncpoint put is
    held in ``pending`` (inserted, visible, at MQ commit), and a syncpoint get deletes
    its row at once and keeps the row in ``got`` (for a backout). Nothing else can see
    the transaction, and the connection itself must not see its own uncommitted puts and
    gets, so this is what the marks would show. Whenever the transaction is committed
    for any other reason than MQ commit (a *flush*), or the connection reads figures that
    count uncommitted messages, the deferred work is first written as marks
    (``materialize``): uncommitted puts as rows with ``put_by``, got messages as their
    rows again with ``got_by``. So a flushed unit of work is in the marks, visible to
    queue_status, backed out by a later backout or by the recovery of a dead process.

    ``work``: the unit of work holds something. ``tx_marks``: some of it is in the open
    transaction only. ``db_marks``: some of it was written as marks. ``lost``: a rollback
    took unflushed work away, so the unit of work can only be backed out.
    """

    def __init__(self, db: sqlite3.Connection, path: Path, busy_timeout: float, *,
                 flags: bool = True) -> None:
        self.db = db
        self.busy_timeout = busy_timeout
        self.lock = threading.RLock()
        self.depth = 0
        self.held = False
        self.conn_id = 0
        self.work = False
        self.lost = False
        self.tx_marks = False
        self.db_marks = False
        self.pending: list[tuple] = []
        self.pending_count: dict[str, int] = {}
        self.got: list[tuple] = []
        self.moves: list[moved.Run] = []  # bulk moves, done in SQLite at the commit
        self.deferred_bytes = 0
        self.durable = False  # the unit of work put or got a persistent message
        self.sync_after = False  # the current transaction of its own must reach the disk
        self.idle_since = time.monotonic()
        self.file = _file_for(path, flags)
        # the WAL file, synced after commits that must be durable (not for a RAM store)
        self.wal_path: str | None = self.file.key + "-wal" if flags else None
        self.owner_pid = os.getpid()
        # read caches, valid while the write transaction is held (no one else can write)
        self.queues: dict[str, sqlite3.Row | None] = {}
        self.targets: dict[tuple, Target] = {}  # resolved put destinations
        self.readable: set[tuple[str, ...]] = set()  # objects checked not get-inhibited
        self.added: dict[str, int] = {}
        self.auth: object = _UNSET
        # what browse cursors' read-ahead depends on: transactions begun or ended, and
        # visible messages this connection took or discarded in the current one
        self.tx_gen = 0
        self.takes = 0
        # queues.curdepth changes, last_put and last_get of the transaction, written
        # once just before it commits (schema 2; a schema-1 file has triggers for depth
        # and last_put: ``triggers``)
        self.triggers = False
        self.delta: dict[str, int] = {}
        self.last_put: dict[str, float] = {}
        self.last_get: dict[str, float] = {}

    def close(self) -> None:
        """The connection is gone (its SQLite connection closed by the caller)."""
        if self.file is not None:
            _file_done(self.file)

    # -- calls -------------------------------------------------------------------------
    def call_ended(self) -> None:
        """Bookkeeping when the outermost call ends (under ``lock``)."""
        self.idle_since = time.monotonic()
        f = self.file
        if f.waiters:
            with f.cond:
                f.cond.notify_all()

    def forget_cache(self) -> None:
        self.queues.clear()
        self.targets.clear()
        self.readable.clear()
        self.added.clear()
        self.auth = _UNSET
        self.tx_gen += 1

    def count(self, queue: str, n: int) -> None:
        """``n`` messages more (or fewer) count toward the depth of ``queue``."""
        if not self.triggers:
            self.delta[queue] = self.delta.get(queue, 0) + n

    def arrived(self, queue: str, put_time: float) -> None:
        """A message was inserted (``queues.last_put``)."""
        if not self.triggers and put_time > self.last_put.get(queue, 0.0):
            self.last_put[queue] = put_time

    def write_figures(self) -> None:
        """Write the transaction's depth changes and last put/get times (inside it)."""
        db = self.db
        if self.delta:
            db.executemany("UPDATE queues SET curdepth = curdepth + ? WHERE name = ?",
                           [(n, q) for q, n in self.delta.items() if n])
            self.delta.clear()
        if self.last_put:
            db.executemany("UPDATE queues SET last_put = max(coalesce(last_put, 0), ?) "
                           "WHERE name = ?", [(t, q) for q, t in self.last_put.items()])
            self.last_put.clear()
        if self.last_get:
            db.executemany("UPDATE queues SET last_get = ? WHERE name = ?",
                           [(t, q) for q, t in self.last_get.items()])
            self.last_get.clear()

    def _forget_figures(self) -> None:
        self.delta.clear()
        self.last_put.clear()
        self.last_get.clear()

    # -- the unit of work --------------------------------------------------------------
    def defer_put(self, row: tuple, size: int) -> None:
        """A syncpoint put (the columns of ``_PUT_COLS``), inserted at MQ commit."""
        self.pending.append(row)
        q = row[0]
        self.pending_count[q] = self.pending_count.get(q, 0) + 1
        self.tx_marks = self.work = True
        self.deferred_bytes += size
        if self.deferred_bytes > DEFER_BYTES:
            self.materialize()

    def defer_got(self, row: tuple) -> None:
        """A syncpoint get: its row (``GOT_COLS``), deleted already."""
        self.got.append(row)
        self.tx_marks = self.work = True
        self.deferred_bytes += len(row[7])
        if self.deferred_bytes > DEFER_BYTES:
            self.materialize()

    def defer_moved(self, puts: list[tuple], gots: list[tuple], size: int) -> None:
        """``defer_put`` of each of ``puts`` (all to one queue) and ``defer_got`` of each of
        ``gots``, at once (``Browsing._move_rows``); ``size``: the bodies' bytes."""
        self.pending.extend(puts)
        q = puts[0][0]
        self.pending_count[q] = self.pending_count.get(q, 0) + len(puts)
        self.got.extend(gots)
        self.tx_marks = self.work = True
        self.deferred_bytes += 2 * size
        if self.deferred_bytes > DEFER_BYTES:
            self.materialize()

    def defer_moves(self, queue: str, now: float, ids: list[int]) -> None:
        """Messages moved in bulk to ``queue`` (``Browsing._move_rows``): the ids of their
        source rows, in browse order, left where they are until the commit moves them in
        SQLite (moved.py). Anything else this connection does first turns them into
        deferred puts and gets (``settle_moves``), so it never sees them."""
        self.moves.append((queue, now, ids))
        self.pending_count[queue] = self.pending_count.get(queue, 0) + len(ids)
        self.tx_marks = self.work = True

    def settle_moves(self) -> None:
        """The bulk moves as deferred puts and gets (their source rows deleted now, kept for
        a backout), after the puts deferred before them. A failure rolls the transaction
        back (as ``own_view``)."""
        if not self.moves:
            return
        try:
            puts, gots = moved.take(self.db, self.moves)
        except BaseException:
            self.end(commit=False)
            raise
        self.moves.clear()
        self.pending.extend(puts)  # (counted in pending_count when noted)
        self.got.extend(gots)
        size = sum(len(r[7]) for r in gots)
        self.deferred_bytes += 2 * size
        if self.deferred_bytes > DEFER_BYTES:
            self.materialize()

    def materialize(self) -> None:
        """Write the deferred work as marks, inside the held transaction."""
        db = self.db
        if self.moves:
            puts, gots = moved.take(db, self.moves)
            self.moves.clear()
            self.pending.extend(puts)
            self.got.extend(gots)
        if self.pending:
            conn = self.conn_id
            db.executemany(_INSERT_PUT_MARKED, [(*r, conn) for r in self.pending])
            self.db_marks = True
            self._inserted(self.pending)
        if self.got:
            conn = self.conn_id
            db.executemany(_INSERT_GOT_MARKED, [_got_row(r, conn) for r in self.got])
            self.db_marks = True
        self._forget_deferred()

    def _inserted(self, rows: list[tuple]) -> None:
        """Messages inserted (``_PUT_COLS`` rows): they count toward the depth, and the
        latest of each queue is its last arrival."""
        if self.triggers or not rows:
            return
        last: dict[str, float] = {}
        n: dict[str, int] = {}
        for r in rows:
            q = r[0]
            n[q] = n.get(q, 0) + 1
            if r[6] > last.get(q, 0.0):
                last[q] = r[6]
        for q, k in n.items():
            self.count(q, k)
            self.arrived(q, last[q])

    def _forget_deferred(self) -> None:
        self.moves.clear()
        self.pending.clear()
        self.pending_count.clear()
        self.got.clear()
        self.deferred_bytes = 0

    def commit_work(self) -> None:
        """MQ commit, inside the held transaction (the caller then COMMITs): uncommitted
        puts become messages, marks are cleared. All or nothing: on an error the
        statements are undone (the transaction and the unit of work stay as they were),
        or, when they cannot be, the whole transaction is rolled back (the caller sees
        it ended: ``rolled_back``); then the error is raised."""
        db = self.db
        if self.moves and self.triggers:
            self.settle_moves()  # a schema-1 file counts depths on inserts and deletes
        if self.db_marks:
            self._commit_marks()
        elif self.pending or self.moves:
            # The only write: the gets are done (their rows deleted) and the puts wait in
            # memory; the rows inserted take ids above every id in the table, so deleting
            # those undoes a failure midway (no SAVEPOINT: copying every page it changes
            # to a statement journal cost a sixth of a move's time). Then the bulk moves,
            # which roll the transaction back themselves if they fail (moved.py).
            if self.pending:
                top = db.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()[0]
                try:
                    db.executemany(_INSERT_FINAL_UNADAPTED, _unadapted(self.pending))
                except BaseException:
                    self._undo_or_roll_back("DELETE FROM messages WHERE id > ?", (top,))
                    raise
            if self.moves:
                moved.commit(db, self.moves)
                self._moves_inserted()
        self._inserted(self.pending)
        self._forget_deferred()
        self.forget_cache()  # depths changed: the cached rows are stale

    def _commit_marks(self) -> None:
        """``commit_work`` of a unit of work written (partly) as marks: three statements,
        undone together by a savepoint."""
        db = self.db
        db.execute("SAVEPOINT mq_commit")
        try:
            if self.pending:
                db.executemany(_INSERT_FINAL, self.pending)
            if self.moves:
                moved.commit(db, self.moves)
            db.execute("DELETE FROM messages WHERE got_by = ? AND got_by IS NOT NULL",
                       (self.conn_id,))
            db.execute("UPDATE messages SET put_by = NULL WHERE put_by = ? "
                       "AND put_by IS NOT NULL", (self.conn_id,))
            db.execute("RELEASE mq_commit")
        except BaseException:
            self._undo_or_roll_back("ROLLBACK TO mq_commit", (), "RELEASE mq_commit")
            raise
        self._moves_inserted()

    def _moves_inserted(self) -> None:
        """The bulk moves were committed: their messages count toward their destinations'
        depths (their sources' were counted when they were noted)."""
        for queue, now, ids in self.moves:
            self.count(queue, len(ids))
            self.arrived(queue, now)

    def _undo_or_roll_back(self, *undo: object) -> None:
        """After a failed statement of ``commit_work``: run ``undo`` (SQL, params[, SQL])
        to take its partial changes out of the transaction. If that fails too, the
        transaction cannot be committed as it is: roll it all back."""
        db = self.db
        if not db.in_transaction:
            return  # SQLite rolled it back itself
        sql, params, *after = undo
        try:
            db.execute(sql, params)  # type: ignore[arg-type]
            for more in after:
                db.execute(more)  # type: ignore[arg-type]
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")

    def backout_work(self) -> None:
        """MQ backout, inside the held transaction (the caller then COMMITs): uncommitted
        puts are dropped, got messages return to their places with BackoutCount + 1."""
        self.settle_moves()  # moved in bulk: got (and put) like the rest
        self.pending.clear()
        self.pending_count.clear()
        self.materialize()  # the got rows come back, marked; then they are unmarked
        for queue, n in backout_marks(self.db, self.conn_id).items():
            self.count(queue, n)
        self.forget_cache()

    def work_done(self) -> None:
        self.work = self.lost = self.db_marks = self.tx_marks = self.durable = False
        self._forget_deferred()

    def sync_wal(self) -> None:
        """Make the last COMMIT durable: sync the WAL file (``fdatasync``, as SQLite does),
        which is what ``PRAGMA synchronous=FULL`` adds at a commit. Connections run with
        NORMAL, which syncs the WAL only at checkpoints (a commit then survives a crash of
        the process, not of the machine). The WAL is one file written in order, so this
        covers every earlier commit too."""
        if self.wal_path is None:
            return
        try:
            fd = os.open(self.wal_path, os.O_RDONLY)
        except FileNotFoundError:
            return  # checkpointed and removed: the data is in the (synced) database file
        try:
            _datasync(fd)
        except OSError as exc:
            raise MQError(MQRC_RESOURCE_PROBLEM,
                          f"the changes were committed, but the disk reported an error "
                          f"writing them ({exc}): they may not survive a power failure"
                          ) from exc
        finally:
            os.close(fd)

    # -- the write lock ----------------------------------------------------------------
    def begin(self) -> None:
        """Take the write lock: flush or wait for this process's owner, let waiting
        processes go first, then ``BEGIN IMMEDIATE`` (waiting up to ``busy_timeout``)."""
        assert not self.held
        f = self.file
        deadline = time.monotonic() + self.busy_timeout
        with f.cond:
            while f.owner is not None and f.owner is not self:
                owner = f.owner
                if owner.lock._is_owned():  # type: ignore[attr-defined]
                    # this thread is inside the owner's own work (a finalizer run by a
                    # collection there): flushing would COMMIT its transaction under it
                    raise SelfDeadlock
                if owner.lock.acquire(blocking=False):
                    try:
                        if owner.depth == 0:
                            owner.flush_locked()
                            continue
                    finally:
                        owner.lock.release()
                    raise SelfDeadlock
                left = deadline - time.monotonic()
                if left <= 0:
                    raise MQError(MQRC_RESOURCE_PROBLEM,
                                  "embedded queue manager: another connection of this "
                                  f"process kept the file locked for more than "
                                  f"{self.busy_timeout:g} s")
                f.waiters += 1
                try:
                    f.cond.wait(min(left, 0.05))
                finally:
                    f.waiters -= 1
            f.owner = self
        try:
            self._begin_immediate(deadline)
        except BaseException:
            self._disown()
            raise
        self.held = True
        self.tx_marks = False
        self.forget_cache()
        _wake_flusher()

    def _begin_immediate(self, deadline: float) -> None:
        f, db = self.file, self.db
        if f.flag_fd is None:
            db.execute("BEGIN IMMEDIATE")  # SQLite's busy handler waits
            return
        if f.other_process_waits():  # let the waiting process go first
            stop = time.monotonic() + YIELD_MAX
            while f.other_process_waits() and time.monotonic() < stop:
                time.sleep(_POLL[0])
        db.execute("PRAGMA busy_timeout = 0")
        try:
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    raise
            f.raise_flag()
            try:
                i = 0
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise MQError(MQRC_RESOURCE_PROBLEM,
                                      f"embedded queue manager {f.key} stayed locked by "
                                      f"another process for more than "
                                      f"{self.busy_timeout:g} s")
                    time.sleep(min(left, _POLL[min(i, len(_POLL) - 1)]))
                    i += 1
                    try:
                        db.execute("BEGIN IMMEDIATE")
                        return
                    except sqlite3.OperationalError as exc:
                        if not _is_busy(exc):
                            raise
            finally:
                f.lower_flag()
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")

    def end(self, commit: bool = True) -> None:
        """COMMIT the held transaction (writing deferred work as marks first: a flush) or
        ROLLBACK it, and give the write lock up. A rollback (asked for, or after a failed
        COMMIT) that takes unflushed work of the unit of work with it sets ``lost``."""
        db = self.db
        try:
            if commit:
                self.materialize()
                self.write_figures()
                db.execute("COMMIT")
            elif db.in_transaction:
                db.execute("ROLLBACK")
                self._work_gone()
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            self._work_gone()
            raise
        finally:
            self._ended()

    def _ended(self) -> None:
        self.held = False
        self.tx_marks = False
        self._forget_figures()
        self.forget_cache()
        self._disown()

    def _work_gone(self) -> None:
        if self.tx_marks and self.work:
            self.lost = True
        self.tx_marks = False
        self._forget_deferred()

    def rolled_back(self) -> None:
        """After an SQLite error: if SQLite ended the held transaction itself, account
        for it."""
        if self.held and not self.db.in_transaction:
            self._work_gone()
            self._ended()

    def _disown(self) -> None:
        f = self.file
        with f.cond:
            if f.owner is self:
                f.owner = None
            f.cond.notify_all()

    def flush_locked(self) -> None:
        """Flush this idle session for another (the caller holds ``file.cond`` and
        ``self.lock``): write the deferred work as marks and COMMIT. A failure rolls back
        (marking the unit of work lost); it is not raised, as the caller did not ask for
        this work."""
        db = self.db
        if self.held:
            try:
                self.materialize()
                self.write_figures()
                db.execute("COMMIT")
            except sqlite3.Error:
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                self._work_gone()
        self.held = False
        self.tx_marks = False
        self._forget_figures()
        self.forget_cache()
        if self.file.owner is self:
            self.file.owner = None
        self.file.cond.notify_all()

    def flush(self) -> None:
        """Flush this session's own held transaction (the caller holds ``self.lock``)."""
        if self.held:
            self.end(commit=True)

    def own_view(self) -> None:
        """Write the deferred work and the figures into the held transaction, so that
        this connection's own reads count its uncommitted messages (as MQ's CURDEPTH and
        queue status do). A failure rolls the transaction back (see ``end``)."""
        if not self.held:
            return
        try:
            self.materialize()
            self.write_figures()
        except BaseException:
            self.end(commit=False)
            raise

    def flush_others(self) -> None:
        """Before any call: flush another idle connection of this process holding the
        write lock, so its work is seen (a write then also finds the lock free). Never
        waits."""
        f = self.file
        owner = f.owner
        if owner is None or owner is self:
            return
        with f.cond:
            owner = f.owner
            if owner is None or owner is self or not owner.held:
                return
            if owner.lock.acquire(blocking=False):
                try:
                    if owner.depth == 0:
                        owner.flush_locked()
                finally:
                    owner.lock.release()


def _is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (5, 6)
    return "locked" in str(exc) or "busy" in str(exc)


# -- the idle flusher --------------------------------------------------------------------

_flusher_lock = threading.Lock()
_flusher_wake = threading.Event()
_flusher: threading.Thread | None = None


def _wake_flusher() -> None:
    global _flusher
    if _flusher_wake.is_set() and _flusher is not None:
        return
    _flusher_wake.set()
    if _flusher is None:
        with _flusher_lock:
            if _flusher is None:
                _flusher = threading.Thread(target=_flush_idle, name="mqconsole-embedded-flush",
                                            daemon=True)
                _flusher.start()


def _flush_idle() -> None:
    while True:
        _flusher_wake.wait()
        _flusher_wake.clear()
        time.sleep(IDLE_FLUSH / 2)
        busy = False
        with _files_lock:
            files = list(_files.values())
        for f in files:
            with f.cond:
                owner = f.owner
                if owner is None:
                    continue
                busy = True
                if not owner.held or time.monotonic() - owner.idle_since < IDLE_FLUSH:
                    continue
                if owner.lock.acquire(blocking=False):
                    try:
                        if owner.depth == 0 and owner.held:
                            owner.flush_locked()
                            f.cond.notify_all()
                    finally:
                        owner.lock.release()
        if busy:
            _flusher_wake.set()


def _after_fork_in_child() -> None:
    """A forked child starts with no connections of its own: forget the parent's."""
    global _flusher, _files_lock, _flusher_lock
    _files.clear()
    _files_lock = threading.RLock()
    _flusher_lock = threading.Lock()
    _flusher = None
    _flusher_wake.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def run_later(fn: Callable[[], None]) -> None:
    """Run ``fn`` on a thread of its own (a finalizer that must wait for a call on this
    thread to end)."""
    threading.Thread(target=fn, name="mqconsole-embedded-release", daemon=False).start()


__all__ = ["GOT_COLS", "IDLE_FLUSH", "SelfDeadlock", "Session", "backout_marks", "run_later"]

"""The embedded queue manager: one ``EmbeddedQueueManager`` per connection (MQCONNX).

Units of work are kept in the rows: a message put or got under syncpoint is marked with
the connection (``put_by``/``got_by``). Marked messages are invisible to every browse and
get (the putter's and getter's own included, as in MQ); ``commit`` clears the marks
(deleting got messages), ``backout`` deletes uncommitted puts and returns got messages
to their place with BackoutCount + 1.

For speed, a unit of work keeps one SQLite write transaction open from its first
syncpoint call to MQ commit or backout, and inside it the marks stay in memory until
needed (session.py): the transaction can be flushed — marks written, SQLite COMMIT — at
any moment without changing what anyone sees or what a backout does. It is, before a
non-syncpoint call of the same connection (which must take effect at once and survive a
backout or a crash), when another connection of the process wants the file, and when it
has been idle for a moment. A process that dies with the transaction open leaves nothing
of the unflushed part (SQLite rolls it back); flushed marks of a connection whose process
died are backed out by the next connection that notices (at connect and at
queue_status). See docs/backends.md.
"""

from __future__ import annotations

import contextlib
import getpass
import itertools
import math
import os
import sqlite3
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import BLANK_MSGID, MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import (
    CHANGEABLE,
    TYPE_ATTRIBUTES,
    QMgrInfo,
    QueueAttrs,
    QueueStatus,
    QueueType,
    Usage,
    check_attribute,
    is_valid_name,
)
from mqconsole.mq.reasons import (
    MQAT_UNIX,
    MQRC_ALIAS_BASE_Q_TYPE_ERROR,
    MQRC_BACKED_OUT,
    MQRC_EXPIRY_ERROR,
    MQRC_GET_INHIBITED,
    MQRC_MSG_TOO_BIG_FOR_Q,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_OBJECT_ALREADY_EXISTS,
    MQRC_OBJECT_IN_USE,
    MQRC_OBJECT_NAME_ERROR,
    MQRC_OBJECT_TYPE_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_PERSISTENCE_ERROR,
    MQRC_PRIORITY_ERROR,
    MQRC_PUT_INHIBITED,
    MQRC_Q_DELETED,
    MQRC_Q_FULL,
    MQRC_Q_NOT_EMPTY,
    MQRC_RESOURCE_PROBLEM,
    MQRC_SELECTOR_ERROR,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR,
    MQRC_UNKNOWN_XMIT_Q,
    MQRC_XMIT_Q_USAGE_ERROR,
)
from mqconsole.mq.xqh import FORMAT_MDE, FORMAT_XQH, MQMDE, MQXQH

from ..base import Context
from . import auth
from .auth import QMGR, QUEUE, AuthorityRecord
from .calls import Call, api
from .cursor import EmbeddedCursor
from .mdfast import clone as clone_md
from .mdfast import pack819 as pack_md
from .mdfast import persistence819
from .schema import QUEUE_COLUMNS, UPGRADE_1_TO_2
from .session import _UNSET, GOT_COLS, SelfDeadlock, Session, backout_marks, run_later
from .store import (
    DEFAULT_BUSY_TIMEOUT,
    DEFAULT_DLQ,
    MEMORY,
    MemoryStore,
    create_file,
    insert_queue,
    open_db,
    process_alive,
    process_identity,
    sqlite_error,
)
from .stored import (
    CORREL_ID_AT,
    MSG_ID_AT,
    PERSISTENCE_AT,
    PRIORITY_AT,
    byte_order,
    message_from_row,
)

# MQ reason codes used here (values from CMQC; names via mqconsole.mq.names).

PUT_APPL_NAME = "mqconsole"
_PUT_APPL_NAME_FIELD = PUT_APPL_NAME.ljust(28)
_NO_ACCOUNTING_TOKEN = b"\x00" * 32
_VISIBLE = "put_by IS NULL AND got_by IS NULL"
# what a browse reads: the first six for the message, and the arrival time, which a get
# under the cursor keeps (never changed after the put) without reading the row again
_MSG_COLS = "id, npri, backout_count, expires_at, md, body, put_time"

_TAKE_ROW = (f"DELETE FROM messages WHERE id = ? AND queue = ? AND {_VISIBLE} AND "
             "(expires_at IS NULL OR expires_at > ?)")
_TAKE_ROW_RETURNING = _TAKE_ROW + " RETURNING backout_count"
_PERSISTENT = {"little": (1).to_bytes(4, "little"), "big": (1).to_bytes(4, "big")}
_DISCARD_EXPIRED_ROW = (f"DELETE FROM messages WHERE id = ? AND queue = ? AND {_VISIBLE} "
                        "AND expires_at <= ?")


# -- small helpers -----------------------------------------------------------------------

def default_principal() -> str:
    """The operating-system user, as MQ takes it for a local bindings connection."""
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment
        return "mqconsole"


class _MsgIds:
    """MQ-style MsgIds: ``AMQ `` + queue manager name (12) + 8 bytes unique to this process."""

    def __init__(self) -> None:
        self.reseed()
        os.register_at_fork(after_in_child=self.reseed)

    def reseed(self) -> None:
        self._base = int.from_bytes(os.urandom(8), "big")
        self._count = itertools.count()

    def new(self, qmgr: str) -> bytes:
        n = (self._base + next(self._count)) % (1 << 64)
        return b"AMQ " + qmgr[:12].ljust(12).encode("ascii", "replace") + n.to_bytes(8, "big")


MSG_IDS = _MsgIds()


def npri(priority: int) -> int:
    """Ascending sort key of MQ's priority order (priorities above 9 deliver as 9)."""
    return 9 - min(max(priority, 0), 9)


def _dt(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC)


_put_second: list = [None, "", ""]  # the last second formatted: [second, date, HHMMSS]


def _put_date_time(now: float) -> tuple[str, str]:
    """PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` (GMT) of ``now``."""
    second = math.floor(now)
    cached = _put_second
    if cached[0] != second:
        t = time.gmtime(second)
        cached[1:] = time.strftime("%Y%m%d", t), time.strftime("%H%M%S", t)
        cached[0] = second
    return cached[1], cached[2] + f"{int((now - second) * 100):02d}"


def _attrs(row: sqlite3.Row) -> QueueAttrs:
    qtype = QueueType(row["type"])
    return QueueAttrs(
        name=row["name"], type=qtype,
        depth=row["curdepth"] if qtype is QueueType.LOCAL else None,
        max_depth=row["max_depth"], max_msg_length=row["max_msg_length"],
        put_inhibited=bool(row["put_inhibited"]), get_inhibited=bool(row["get_inhibited"]),
        bothresh=row["bothresh"], boqname=row["boqname"], hardenbo=bool(row["hardenbo"]),
        description=row["description"], usage=Usage(row["usage"]),
        default_persistence=row["default_persistence"],
        default_priority=row["default_priority"], target_q=row["target_q"],
        remote_q_name=row["remote_q_name"], remote_qmgr_name=row["remote_qmgr_name"],
        xmit_q=row["xmit_q"], create_time=_dt(row["create_time"]),
        alter_time=_dt(row["alter_time"]),
    )


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


@dataclass(slots=True)
class _Dest:
    """Where a put lands: the local queue row, the objects whose PUT attribute applies, the
    object whose defaults apply, and a transmission header when it goes to another qmgr."""

    row: sqlite3.Row
    opened: sqlite3.Row
    inhibit: list[sqlite3.Row] = field(default_factory=list)
    remote_q: str = ""
    remote_qmgr: str = ""


@dataclass(slots=True)
class _Target:
    """A resolved and checked put destination, with what each put checks."""

    dest: _Dest
    name: str  # the local queue the message lands on
    default_priority: int  # of the object opened (an alias's own)
    default_persistence: int
    inhibited: str | None  # the first put-inhibited object on the way, if any
    max_msg_length: int
    max_depth: int
    depth: int  # CURDEPTH when read


class EmbeddedQueueManager:
    """A connection to an embedded queue manager (see the module docstring and
    docs/backends.md). Open one with ``mqconsole.backends.open.open_embedded``."""

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

    def _auth_records(self) -> list[AuthorityRecord] | None:
        s = self._s
        if s.held and s.auth is not _UNSET:
            return s.auth  # type: ignore[return-value]
        rows = self._db.execute(
            "SELECT principal, object_type, profile, auths FROM authorities").fetchall()
        records = None if not rows else [
            AuthorityRecord(r[0], r[1], r[2], frozenset(r[3].split())) for r in rows]
        if s.held:
            s.auth = records
        return records

    def _require(self, records: list[AuthorityRecord] | None, what: str, object_type: str,
                 name: str, principal: str = "") -> None:
        if records is None:
            return
        who = principal or self._principal
        if what not in auth.granted(records, who, object_type, name):
            raise auth.refuse(who, what, object_type, name)

    def _require_context(self, records: list[AuthorityRecord] | None, context: Context,
                         name: str, principal: str = "") -> None:
        need = {Context.SET_ALL: "setall", Context.SET_IDENTITY: "setid"}.get(context)
        if need:
            self._require(records, need, QUEUE, name, principal)
            self._require(records, need, QMGR, self._name, principal)

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

    @api
    def inquire_qmgr(self) -> QMgrInfo:
        meta = self._meta()
        return QMgrInfo(
            name=meta["qmgr_name"], dead_letter_queue=meta.get("dead_letter_queue", ""),
            platform=meta.get("platform", "UNIX"),
            command_level=int(meta.get("command_level", "940")),
            ccsid=int(meta.get("ccsid", "1208")), encoding=int(meta.get("encoding", "546")),
            description=meta.get("description", ""), backend=self.backend)

    @api
    def change_qmgr(self, *, dead_letter_queue: str | None = None,
                    description: str | None = None) -> QMgrInfo:
        """PCF MQCMD_CHANGE_Q_MGR (DEADQ, DESCR); needs +chg on the queue manager."""
        changes: dict[str, str] = {}
        if dead_letter_queue is not None:
            dlq = dead_letter_queue.strip()
            if dlq and not is_valid_name(dlq):
                raise ValueError(f"dead-letter queue {dlq!r} is not an MQ name")
            changes["dead_letter_queue"] = dlq
        if description is not None:
            if len(description) > 64:
                raise ValueError("description is at most 64 characters")
            changes["description"] = description
        with self._write(durable=True) as db:
            self._require(self._auth_records(), "chg", QMGR, self._name)
            db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                           changes.items())
        return self.inquire_qmgr()

    # -- queues ----------------------------------------------------------------------------
    def _own_view(self) -> None:
        """Before reading figures that count uncommitted messages (depth, status): write
        this connection's deferred work into its open transaction."""
        self._s.own_view()

    @api
    def list_queues(self, pattern: str = "*") -> list[QueueAttrs]:
        self._own_view()
        records = self._auth_records()
        pattern = (pattern or "*").strip()
        out = []
        for row in self._db.execute("SELECT * FROM queues ORDER BY name"):
            name = row["name"]
            if not auth.matches(pattern, name):
                continue
            if records is not None and "inq" not in auth.granted(records, self._principal,
                                                                 QUEUE, name):
                continue  # as PCF does: generic inquiries leave out what you may not see
            out.append(_attrs(row))
        return out

    @api
    def inquire_queue(self, name: str) -> QueueAttrs:
        self._own_view()
        row = self._queue(name)
        if row is None:
            raise self._unknown(name)
        self._require(self._auth_records(), "inq", QUEUE, name)
        return _attrs(row)

    @api
    def queue_status(self, name: str) -> QueueStatus:
        row = self._queue(name)
        if row is None:
            raise self._unknown(name)
        self._require(self._auth_records(), "dsp", QUEUE, name)
        if row["type"] != QueueType.LOCAL.value:
            raise MQError(MQRC_OPTION_NOT_VALID_FOR_TYPE,
                          f"queue status is kept for local queues; {name!r} is "
                          f"{row['type']}")
        self._purge_stale()
        db = self._db
        snapshot = not self._s.held  # a held write transaction is a snapshot already
        if snapshot:
            db.execute("BEGIN")  # one snapshot for every figure below
        else:
            self._own_view()
        try:
            row = self._queue(name)
            assert row is not None
            uncommitted = db.execute(
                "SELECT (SELECT count(*) FROM messages INDEXED BY messages_put_by "
                "WHERE put_by IS NOT NULL AND queue = ?) + (SELECT count(*) FROM messages "
                "INDEXED BY messages_got_by WHERE got_by IS NOT NULL AND queue = ?)",
                (name, name)).fetchone()[0]
            firsts = " UNION ALL ".join(
                f"SELECT (SELECT min(id) FROM messages WHERE queue = :q AND npri = {p} "
                f"AND {_VISIBLE}) AS m" for p in range(10))
            oldest = db.execute(
                f"SELECT put_time FROM messages WHERE id = (SELECT min(m) FROM ({firsts}))",
                {"q": name}).fetchone()
            handles = db.execute(
                "SELECT h.id, h.browse, h.input, h.output, h.opened, c.id, c.pid, "
                "c.principal, c.appl FROM handles h JOIN connections c ON c.id = h.conn "
                "WHERE h.queue = ? ORDER BY h.id", (name,)).fetchall()
            uow_conns = {r[0] for r in db.execute(
                "SELECT put_by FROM messages INDEXED BY messages_put_by WHERE put_by IS NOT "
                "NULL AND queue = ? UNION SELECT got_by FROM messages INDEXED BY "
                "messages_got_by WHERE got_by IS NOT NULL AND queue = ?", (name, name))}
        finally:
            if snapshot:
                db.execute("COMMIT")
        now = time.time()
        return QueueStatus(
            name=name, depth=row["curdepth"],
            open_input_count=sum(1 for h in handles if h[2]),
            open_output_count=sum(1 for h in handles if h[3]),
            uncommitted_messages=uncommitted,
            oldest_message_age=None if oldest is None else max(0, int(now - oldest[0])),
            last_get=_dt(row["last_get"]), last_put=_dt(row["last_put"]),
            handles=[{
                "handle": h[0], "browse": bool(h[1]), "input": bool(h[2]),
                "output": bool(h[3]), "opened": _dt(h[4]), "conn": h[5], "pid": h[6],
                "user_id": h[7], "appl_tag": h[8], "uow": h[5] in uow_conns,
                "this_connection": h[5] == self._conn_id,
            } for h in handles],
        )

    def _checked(self, qtype: QueueType, attrs: dict[str, object]) -> dict[str, object]:
        return {k: check_attribute(qtype, k, v) for k, v in attrs.items()}

    @api
    def define_queue(self, attrs: QueueAttrs, *, replace: bool = False) -> None:
        name = attrs.name
        if not is_valid_name(name):
            raise MQError(MQRC_OBJECT_NAME_ERROR,
                          f"{name!r} is not an MQ queue name (1-48 of A-Z a-z 0-9 . / _ %)")
        qtype = QueueType(attrs.type)
        values = self._checked(qtype, {a: getattr(attrs, a) for a in TYPE_ATTRIBUTES[qtype]})
        if qtype is QueueType.ALIAS and not values.get("target_q"):
            raise ValueError(f"alias queue {name!r} needs a target queue (target_q)")
        now = time.time()
        with self._write(durable=True) as db:
            self._require(self._auth_records(), "chg", QUEUE, name)
            old = self._queue(name)
            if old is not None and not replace:
                raise MQError(MQRC_OBJECT_ALREADY_EXISTS, f"queue {name!r} already exists")
            if old is not None and old["type"] != qtype.value:
                raise MQError(MQRC_OBJECT_TYPE_ERROR,
                              f"queue {name!r} exists as a {old['type']} queue; replace "
                              f"cannot make it a {qtype.value} queue")
            full = QueueAttrs(name=name, type=qtype)
            for k, v in values.items():
                setattr(full, k, v)
            if old is None:
                insert_queue(db, full, now)
            else:
                self._update_queue(db, name, values, now)

    def _update_queue(self, db: sqlite3.Connection, name: str, values: dict[str, object],
                      now: float) -> None:
        sets, params = [], []
        for k, v in values.items():
            assert k in QUEUE_COLUMNS
            sets.append(f"{k} = ?")
            params.append(v.value if isinstance(v, Usage) else (int(v) if isinstance(v, bool)
                                                                 else v))
        sets.append("alter_time = ?")
        params.extend([now, name])
        db.execute(f"UPDATE queues SET {', '.join(sets)} WHERE name = ?", params)

    @api
    def change_queue(self, name: str, **changes: object) -> QueueAttrs:
        unknown = sorted(set(changes) - CHANGEABLE)
        if unknown:
            raise MQError(MQRC_SELECTOR_ERROR,
                          f"not queue attributes: {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(CHANGEABLE))})")
        now = time.time()
        with self._write(durable=True) as db:
            row = self._queue(name)
            if row is None:
                raise self._unknown(name)
            self._require(self._auth_records(), "chg", QUEUE, name)
            values = self._checked(QueueType(row["type"]), dict(changes))
            if values:
                self._update_queue(db, name, values, now)
            return _attrs(self._queue(name))  # type: ignore[arg-type]

    @api
    def delete_queue(self, name: str) -> None:
        self._purge_stale()
        with self._write(durable=True) as db:
            row = self._queue(name)
            if row is None:
                raise self._unknown(name)
            self._require(self._auth_records(), "chg", QUEUE, name)
            if db.execute("SELECT 1 FROM messages WHERE queue = ? LIMIT 1",
                          (name,)).fetchone():
                raise MQError(MQRC_Q_NOT_EMPTY,
                              f"queue {name!r} holds {row['curdepth']} message(s) "
                              "(uncommitted ones included): it is not deleted")
            if db.execute("SELECT 1 FROM handles WHERE queue = ? LIMIT 1",
                          (name,)).fetchone():
                raise MQError(MQRC_OBJECT_IN_USE, f"queue {name!r} is open (a browse cursor)")
            db.execute("DELETE FROM queues WHERE name = ?", (name,))

    # -- resolution ------------------------------------------------------------------------
    def _xmitq(self, name: str, *, explicit: bool, qmgr: str) -> sqlite3.Row:
        row = self._queue_attrs(name)
        if row is None:
            if explicit:
                raise MQError(MQRC_UNKNOWN_XMIT_Q, f"transmission queue {name!r} does not "
                              f"exist (route to {qmgr!r})")
            raise MQError(MQRC_UNKNOWN_REMOTE_Q_MGR,
                          f"no route to queue manager {qmgr!r}: no transmission queue or "
                          f"queue manager alias of that name on {self._name}")
        if row["type"] != QueueType.LOCAL.value or row["usage"] != Usage.XMITQ.value:
            raise MQError(MQRC_XMIT_Q_USAGE_ERROR,
                          f"{name!r} is not a transmission queue (USAGE(XMITQ)) "
                          f"(route to {qmgr!r})")
        return row

    def _route_qmgr(self, qmgr: str) -> tuple[sqlite3.Row | None, str, str]:
        """ObjectQMgrName resolution: (transmission queue, destination qmgr, object whose
        authority applies); the queue row is None when the name resolves to this qmgr."""
        if not qmgr or qmgr == self._name:
            return None, self._name, qmgr
        row = self._queue_attrs(qmgr)
        if row is not None and row["type"] == QueueType.REMOTE.value \
                and not row["remote_q_name"]:  # a queue manager alias
            target = row["remote_qmgr_name"] or qmgr
            if target == self._name:
                return None, self._name, qmgr
            xname = row["xmit_q"] or target
            return self._xmitq(xname, explicit=bool(row["xmit_q"]), qmgr=target), target, qmgr
        if row is not None and row["type"] == QueueType.LOCAL.value:
            return self._xmitq(qmgr, explicit=False, qmgr=qmgr), qmgr, qmgr
        raise MQError(MQRC_UNKNOWN_REMOTE_Q_MGR,
                      f"no route to queue manager {qmgr!r}: no transmission queue or queue "
                      f"manager alias of that name on {self._name}")

    def _resolve_put(self, queue: str, qmgr_name: str, records: list[AuthorityRecord] | None,
                     context: Context, alt_user: str = "") -> _Dest:
        """MQOPEN for output: the object resolved and its authorities checked (for
        ``alt_user``, MQ's alternate user authority: the connection needs +altusr on the
        queue manager and ``alt_user`` the put and context authorities)."""
        if alt_user:
            self._require(records, "altusr", QMGR, self._name)
        xrow, target_qmgr, _ = self._route_qmgr(qmgr_name)
        if xrow is not None:
            self._require(records, "put", QUEUE, xrow["name"], alt_user)
            self._require_context(records, context, xrow["name"], alt_user)
            return _Dest(row=xrow, opened=xrow, inhibit=[xrow], remote_q=queue,
                         remote_qmgr=target_qmgr)
        row = self._queue_attrs(queue)
        if row is None:
            raise self._unknown(queue)
        self._require(records, "put", QUEUE, queue, alt_user)
        self._require_context(records, context, queue, alt_user)
        opened, inhibit = row, [row]
        if row["type"] == QueueType.ALIAS.value:
            target = self._queue_attrs(row["target_q"])
            if target is None:
                raise MQError(MQRC_UNKNOWN_ALIAS_BASE_Q,
                              f"alias {queue!r} names {row['target_q']!r}, which does not "
                              "exist")
            if target["type"] not in (QueueType.LOCAL.value, QueueType.REMOTE.value):
                raise MQError(MQRC_ALIAS_BASE_Q_TYPE_ERROR,
                              f"alias {queue!r} resolves to a {target['type']} queue")
            row = target
            inhibit.append(row)
        if row["type"] == QueueType.REMOTE.value:
            rname, rqm = row["remote_q_name"], row["remote_qmgr_name"]
            if not rname:
                raise MQError(MQRC_UNKNOWN_OBJECT_NAME,
                              f"{row['name']!r} is a queue manager alias, not a queue: put "
                              "to it by naming it as the queue manager")
            if row["xmit_q"] and rqm and rqm != self._name:
                xrow = self._xmitq(row["xmit_q"], explicit=True, qmgr=rqm)
            else:
                xrow, rqm, _ = self._route_qmgr(rqm)
            if xrow is not None:
                inhibit.append(xrow)
                return _Dest(row=xrow, opened=opened, inhibit=inhibit, remote_q=rname,
                             remote_qmgr=rqm)
            local = self._queue_attrs(rname)
            if local is None or local["type"] != QueueType.LOCAL.value:
                raise self._unknown(rname)
            inhibit.append(local)
            return _Dest(row=local, opened=opened, inhibit=inhibit)
        if row["type"] != QueueType.LOCAL.value:
            raise MQError(MQRC_OPTION_NOT_VALID_FOR_TYPE,
                          f"{row['name']!r} is a {row['type']} queue: nothing can be put "
                          "to it here (the embedded queue manager makes no dynamic queues)")
        return _Dest(row=row, opened=opened, inhibit=inhibit)

    def _open_input(self, queue: str, records: list[AuthorityRecord] | None,
                    what: str) -> list[sqlite3.Row]:
        """MQOPEN for input or browse: the opened object, then the local queue behind it."""
        row = self._queue_attrs(queue)
        if row is None:
            raise self._unknown(queue)
        self._require(records, what, QUEUE, queue)
        rows = [row]
        if row["type"] == QueueType.ALIAS.value:
            target = self._queue_attrs(row["target_q"])
            if target is None:
                raise MQError(MQRC_UNKNOWN_ALIAS_BASE_Q,
                              f"alias {queue!r} names {row['target_q']!r}, which does not "
                              "exist")
            rows.append(target)
            row = target
        if row["type"] != QueueType.LOCAL.value:
            raise MQError(MQRC_OPTION_NOT_VALID_FOR_TYPE,
                          f"{queue!r} resolves to a {row['type']} queue, which cannot be "
                          "read (only local queues hold messages)")
        return rows

    def _check_get_inhibited(self, names: list[str]) -> None:
        """MQ's GET(DISABLED) stops gets and browses alike (2016)."""
        s = self._s
        key = tuple(names)
        if s.held and key in s.readable:
            return  # checked in this transaction: nothing can have changed it
        for name in names:
            row = self._queue_attrs(name)
            if row is None:
                raise MQError(MQRC_Q_DELETED, f"queue {name!r} was deleted")
            if row["get_inhibited"]:
                raise MQError(MQRC_GET_INHIBITED, f"queue {name!r} is get-inhibited")
        if s.held:
            s.readable.add(key)

    # -- put -------------------------------------------------------------------------------
    def _put_md(self, given: MQMD, context: Context, new_msg_id: bool, default_priority: int,
                default_persistence: int, now: float) -> MQMD:
        pri = given.priority
        if pri < -1:
            raise MQError(MQRC_PRIORITY_ERROR, f"Priority {pri} is not valid")
        per = given.persistence
        if per not in (0, 1, 2):
            raise MQError(MQRC_PERSISTENCE_ERROR, f"Persistence {per} is not valid")
        if given.expiry == 0 or given.expiry < -1:
            raise MQError(MQRC_EXPIRY_ERROR, f"Expiry {given.expiry} is not valid")
        md = clone_md(given)  # every value set below is already padded as MQMD pads it
        md.backout_count = 0
        if pri == -1:
            md.priority = default_priority
        if per == 2:
            md.persistence = default_persistence
        if new_msg_id or given.msg_id == BLANK_MSGID:
            md.msg_id = MSG_IDS.new(self._name)
        if context is not Context.SET_ALL:
            md.put_date, md.put_time = _put_date_time(now)
            md.put_appl_type = MQAT_UNIX
            md.put_appl_name = _PUT_APPL_NAME_FIELD
            md.appl_origin_data = "    "
        if context is Context.NEW:
            md.user_identifier = self._principal[:12].ljust(12)
            md.accounting_token = _NO_ACCOUNTING_TOKEN
            md.appl_identity_data = " " * 32
        return md

    def _with_xqh(self, md: MQMD, body: bytes, remote_q: str, remote_qmgr: str
                  ) -> tuple[MQMD, bytes]:
        """The message as a transmission queue holds it: MQXQH (+ MQMDE) + body."""
        ccsid = self._ccsid
        v2_fields = md.version >= 2 and (
            md.group_id != BLANK_MSGID or md.msg_seq_number != 1 or md.offset != 0
            or md.msg_flags != 0 or md.original_length != -1)
        if v2_fields:
            mde = MQMDE(encoding=md.encoding, ccsid=md.ccsid, format=md.format,
                        group_id=md.group_id, msg_seq_number=md.msg_seq_number,
                        offset=md.offset, msg_flags=md.msg_flags,
                        original_length=md.original_length)
            inner = md.copy(version=1, format=FORMAT_MDE, encoding=546, ccsid=ccsid)
            tail = mde.pack(big_endian=False, ccsid=ccsid) + body
        else:
            inner, tail = md.copy(version=1), body
        xqh = MQXQH(remote_q_name=remote_q, remote_qmgr_name=remote_qmgr, md=inner)
        data = xqh.pack(big_endian=False, ccsid=ccsid) + tail
        return md.copy(format=FORMAT_XQH, encoding=546, ccsid=ccsid), data

    def _target(self, queue: str, qmgr_name: str, context: Context, alt_user: str = ""
                ) -> _Target:
        """Where a put to ``queue`` lands, checked (2085, 2035, resolution): kept while the
        write transaction is held, like the rows it comes from."""
        s = self._s
        key = (queue, qmgr_name, context, alt_user) if alt_user else (queue, qmgr_name, context)
        target = s.targets.get(key)
        if target is None:
            dest = self._resolve_put(queue, qmgr_name, self._auth_records(), context, alt_user)
            row = dest.row
            inhibited = next((r["name"] for r in dest.inhibit if r["put_inhibited"]), None)
            target = _Target(dest, row["name"], dest.opened["default_priority"],
                             dest.opened["default_persistence"], inhibited,
                             row["max_msg_length"], row["max_depth"], row["curdepth"])
            if s.held:
                s.targets[key] = target
        return target

    @api
    def put(self, queue: str, message: Message, *, context: Context = Context.SET_ALL,
            syncpoint: bool = True, qmgr_name: str = "", new_msg_id: bool = False,
            alt_user: str = "") -> Message:
        md, body = self._put(queue, message, context, syncpoint, qmgr_name, new_msg_id,
                             alt_user=alt_user.strip() if alt_user else "")
        return Message(md, body)

    def _put(self, queue: str, message: Message, context: Context, syncpoint: bool,
             qmgr_name: str, new_msg_id: bool, packed: bytes | None = None,
             alt_user: str = "") -> tuple[MQMD, bytes]:
        """``put`` inside a call's guard: the MD as put, and the body.

        ``packed``: the MD exactly as this queue manager stored it for ``message`` (a
        browsed message, unchanged: BackoutCount 0 and Expiry -1 in it, see
        ``EmbeddedCursor.move_current_to``). With set-all context and a local destination it
        is stored as it is instead of being rebuilt and packed again (the same bytes); the
        MD returned is then ``message.md`` itself."""
        if context.__class__ is not Context:
            context = Context(context)
        qmgr_name = qmgr_name.strip() if qmgr_name else ""
        body = message.body
        if body.__class__ is not bytes:
            body = bytes(body)
        now = time.time()
        s = self._s
        with self._uow_write() if syncpoint else self._write() as db:
            t = self._target(queue, qmgr_name, context, alt_user)
            dest = t.dest
            if (packed is not None and context is Context.SET_ALL and not new_msg_id
                    and not dest.remote_qmgr):
                md = stored_md = message.md  # valid as stored: nothing to set or check
                stored = body
            else:
                packed = None
                md = self._put_md(message.md, context, new_msg_id, t.default_priority,
                                  t.default_persistence, now)
                if dest.remote_qmgr:
                    stored_md, stored = self._with_xqh(md, body, dest.remote_q,
                                                       dest.remote_qmgr)
                else:
                    stored_md, stored = md, body
            if t.inhibited is not None:
                raise MQError(MQRC_PUT_INHIBITED, f"queue {t.inhibited!r} is put-inhibited")
            name = t.name
            size = len(stored)
            if size > t.max_msg_length:
                raise MQError(MQRC_MSG_TOO_BIG_FOR_Q, f"{size} bytes exceed MAXMSGL "
                              f"{t.max_msg_length} of {name!r}")
            # The depth read with the target, plus the puts since, is an upper bound (only
            # this connection's puts raise it meanwhile); when it reaches MAXDEPTH, count
            # exactly: the stored depth, this transaction's changes not yet written, and
            # the uncommitted puts not yet inserted.
            if t.depth + s.added.get(name, 0) >= t.max_depth:
                depth = db.execute("SELECT curdepth FROM queues WHERE name = ?",
                                   (name,)).fetchone()[0]
                depth += s.delta.get(name, 0) + s.pending_count.get(name, 0)
                if depth >= t.max_depth:
                    raise MQError(MQRC_Q_FULL,
                                  f"queue {name!r} is full (MAXDEPTH {t.max_depth})")
            pri = md.priority
            values = (name, npri(pri), pri,
                      None if md.expiry == -1 else now + md.expiry / 10, md.msg_id,
                      md.correl_id, now, size,
                      pack_md(stored_md) if packed is None else packed, stored)
            if syncpoint:
                s.defer_put(values, size)  # inserted at commit (session.py)
                if md.persistence == 1:
                    s.durable = True
            else:
                s.sync_after = md.persistence == 1
                db.execute("INSERT INTO messages (queue, npri, priority, expires_at, msg_id, "
                           "correl_id, put_time, length, md, body) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?)", values)
                s.count(name, 1)
                s.arrived(name, now)
            s.added[name] = s.added.get(name, 0) + 1
        return md, body

    # -- get -------------------------------------------------------------------------------
    def _take(self, db: sqlite3.Connection, row_id: int, syncpoint: bool,
              now: float, where: str = "", params: tuple = ()) -> Message | None:
        """Destructively get one visible row (kept for a backout under syncpoint, see
        session.py); None when it is gone. ``where`` adds conditions."""
        rows = db.execute(f"DELETE FROM messages WHERE id = ? AND {_VISIBLE}{where} "
                          f"RETURNING {GOT_COLS}", (row_id, *params)).fetchall()
        if not rows:
            return None
        s = self._s
        s.takes += 1
        r = rows[0]
        s.count(r[1], -1)
        msg = message_from_row(r[6], r[7], r[3], r[4], now)
        if syncpoint:
            s.defer_got(r)
            if msg.md.persistence == 1:
                s.durable = True
        elif msg.md.persistence == 1:
            s.sync_after = True  # MQ hardens the get of a persistent message
        return msg

    def _get(self, queue: str, msg_id: bytes | None, correl_id: bytes | None,
             syncpoint: bool) -> Message:
        hint = "" if msg_id is None else " INDEXED BY messages_msg_id"
        sql = f"SELECT id, expires_at FROM messages{hint} WHERE queue = ? AND {_VISIBLE}"
        params: list[object] = []
        if msg_id is not None:
            sql += " AND msg_id = ?"
            params.append(bytes(msg_id[:24]).ljust(24, b"\x00"))
        if correl_id is not None:
            sql += " AND correl_id = ?"
            params.append(bytes(correl_id[:24]).ljust(24, b"\x00"))
        sql += " ORDER BY npri, id LIMIT 1"
        now = time.time()
        msg: Message | None = None
        with self._uow_write() if syncpoint else self._write() as db:
            rows = self._open_input(queue, self._auth_records(), "get")
            self._check_get_inhibited([r["name"] for r in rows])
            local = rows[-1]["name"]
            while msg is None:
                found = db.execute(sql, [local, *params]).fetchone()
                if found is None:
                    break
                if found[1] is not None and found[1] <= now:  # expired: MQ discards it
                    db.execute("DELETE FROM messages WHERE id = ?", (found[0],))
                    self._s.takes += 1
                    self._s.count(local, -1)
                    continue
                msg = self._take(db, found[0], syncpoint, now)
            if msg is not None:
                self._s.last_get[local] = now
        if msg is None:
            what = "" if msg_id is None else " matching that MsgId" + (
                "" if correl_id is None else " and CorrelId")
            raise MQError(MQRC_NO_MSG_AVAILABLE, f"no message{what} on {queue!r}")
        return msg

    @api
    def get(self, queue: str, *, syncpoint: bool = True) -> Message:
        return self._get(queue, None, None, syncpoint)

    @api
    def get_by_msgid(self, queue: str, msg_id: bytes, correl_id: bytes | None = None, *,
                     syncpoint: bool = True) -> Message:
        return self._get(queue, msg_id, correl_id, syncpoint)

    # -- browse ----------------------------------------------------------------------------
    @api
    def browse(self, queue: str) -> EmbeddedCursor:
        rows = self._open_input(queue, self._auth_records(), "browse")
        names = [r["name"] for r in rows]
        with self._write() as db:
            handle = db.execute(
                "INSERT INTO handles (conn, queue, browse, input, output, opened) "
                "VALUES (?, ?, 1, 1, 0, ?) RETURNING id",
                (self._conn_id, names[-1], time.time())).fetchall()[0][0]
        return EmbeddedCursor(self, queue, names, handle)

    def _browse_rows(self, local: str, after: tuple[int, int] | None,
                     n: int) -> list[tuple]:
        """Up to ``n`` visible rows after ``(npri, id)`` in delivery order (``_MSG_COLS``
        tuples): one index range scan, and a second one only where the page runs past the
        last message of a priority. (One UNION ALL statement would make SQLite sort the
        rows, bodies and all, in temporary b-trees; a message committed between the two
        scans is simply seen as one committed a moment later.)"""
        cur = self._db.cursor()
        cur.row_factory = None
        if after is None:
            return cur.execute(
                f"SELECT {_MSG_COLS} FROM messages WHERE queue = ? AND {_VISIBLE} "
                "ORDER BY npri, id LIMIT ?", (local, n)).fetchall()
        rows = cur.execute(
            f"SELECT {_MSG_COLS} FROM messages WHERE queue = ? AND npri = ? AND id > ? "
            f"AND {_VISIBLE} ORDER BY npri, id LIMIT ?", (local, after[0], after[1], n)
        ).fetchall()
        if len(rows) < n and after[0] < 9:
            rows += cur.execute(
                f"SELECT {_MSG_COLS} FROM messages WHERE queue = ? AND npri > ? "
                f"AND {_VISIBLE} ORDER BY npri, id LIMIT ?", (local, after[0], n - len(rows))
            ).fetchall()
        return rows

    def _discard_expired(self, ids: list[int], now: float) -> None:
        s = self._s
        with self._write() as db:
            for i in ids:
                for (queue,) in db.execute(f"DELETE FROM messages WHERE id = ? AND {_VISIBLE} "
                                           "AND expires_at <= ? RETURNING queue", (i, now)):
                    s.count(queue, -1)

    def _take_under_cursor(self, names: list[str], row: tuple, unchanged: bool,
                           syncpoint: bool, want: bool = True) -> Message | bool | None:
        """MQGMO_MSG_UNDER_CURSOR: take the browsed row (``_MSG_COLS``) by its id, in one
        statement; None when it is gone (got by another, or expired: then it is
        discarded). Its MD and body never change, so they are not read again; nor is its
        BackoutCount when ``unchanged`` (browsed in this very transaction, and nothing
        taken since). ``want=False``: True instead of the message (not built at all)."""
        now = time.time()
        local = names[-1]
        s = self._s
        row_id, npri_, backout_count, expires_at, md, body = row[:6]
        with self._uow_write() if syncpoint else self._write() as db:
            self._check_get_inhibited(names)
            params = (row_id, local, now)
            if unchanged and s.held:
                taken = db.execute(_TAKE_ROW, params).rowcount == 1
            else:
                got = db.execute(_TAKE_ROW_RETURNING, params).fetchall()
                taken = bool(got)
                if taken:
                    backout_count = got[0][0]
            if not taken:
                if db.execute(_DISCARD_EXPIRED_ROW, params).rowcount:
                    s.takes += 1  # it had expired: MQ discards it
                    s.count(local, -1)
                return None
            s.takes += 1
            s.count(local, -1)
            s.last_get[local] = now
            if want:
                msg: Message | bool = message_from_row(md, body, backout_count, expires_at,
                                                       now)
                persistent = msg.md.persistence == 1  # type: ignore[union-attr]
            else:
                msg, persistent = True, persistence819(md) == 1
            if syncpoint:
                s.defer_got((row_id, local, npri_, backout_count, expires_at, row[6], md,
                             body))
                if persistent:
                    s.durable = True
            elif persistent:
                s.sync_after = True
        return msg

    def _move_browsed(self, names: list[str], row: tuple, queue: str
                      ) -> bool | MQError | None:
        """The common step of a move in one pass: ``_put(queue, message, SET_ALL, True,
        "", False, packed=row's MD)`` then ``_take_under_cursor(names, row, True, True,
        False)``, for the message of a row browsed in this very transaction with nothing
        taken since, unchanged, whose stored MD is valid as put
        (``EmbeddedCursor.move_current_to`` checks all that).

        It goes ahead only when every check of the two calls is known to pass already in
        this transaction: the destination resolved and cached, not put-inhibited, the
        message within MAXMSGL, the depth well under MAXDEPTH, the source checked
        readable, no authority records. Then it does what they would do, in their order
        (the put deferred to the commit, then the row deleted), failures included: an
        error of the put is raised, one of the get returned (an SQLite error rolls the
        transaction back, leaving the unit of work only to be backed out, as the two
        calls' ``_uow_write`` does). It returns what the take returns: True, or False if
        the row was gone. Otherwise it does nothing and returns None: the caller makes
        the two calls, which check, and raise, as always."""
        s = self._s
        t = s.targets.get((queue, "", Context.SET_ALL))
        if (t is None or t.dest.remote_qmgr or t.inhibited is not None or s.auth is not None
                or tuple(names) not in s.readable or not s.held):
            return None
        name = t.name
        body = row[5]
        size = len(body)
        added = s.added.get(name, 0)
        if size > t.max_msg_length or t.depth + added >= t.max_depth:
            return None
        # the MD as stored is the MD put: its fields are read from the bytes, never
        # unpacked (the message may not have been, see stored.py)
        blob = row[4]
        order = byte_order(blob)
        priority = int.from_bytes(blob[PRIORITY_AT:PRIORITY_AT + 4], order, signed=True)
        now = time.time()
        try:
            # the put: as _put stores an unchanged browsed message (the MD as stored)
            s.defer_put((name, row[1], priority, None, blob[MSG_ID_AT:MSG_ID_AT + 24],
                         blob[CORREL_ID_AT:CORREL_ID_AT + 24], now, size, blob, body), size)
        except BaseException:
            if s.held:
                s.end(commit=False)
            raise
        s.added[name] = added + 1
        if blob[PERSISTENCE_AT:PERSISTENCE_AT + 4] == _PERSISTENT[order]:
            s.durable = True
        # the get under the cursor: as _take_under_cursor for an unchanged row
        local = names[-1]
        row_id = row[0]
        try:
            deleted = s.db.execute(_TAKE_ROW, (row_id, local, now)).rowcount
        except sqlite3.Error as exc:
            if s.held:
                s.end(commit=False)
            return sqlite_error(exc, self.location, self._busy)
        if deleted != 1:
            # cannot happen to a row browsed in this transaction (no expiry, nothing
            # taken since); if it did, the general take looks again
            return self._take_under_cursor(names, row, False, True, False) is not None
        s.takes += 1
        if not s.triggers:  # s.count(local, -1), inlined
            s.delta[local] = s.delta.get(local, 0) - 1
        s.last_get[local] = now
        s.defer_got((row_id, local, row[1], row[2], None, row[6], blob, body))
        return True

    def _close_handle(self, handle: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM handles WHERE id = ?", (handle,))

    # -- units of work ---------------------------------------------------------------------
    @property
    def in_unit_of_work(self) -> bool:
        return self._s.work

    @api
    def commit(self) -> None:
        s = self._s
        if not s.work:
            s.flush()  # an empty unit of work may still hold the lock: let it go
            return
        if s.lost:
            self._backout_lost()
        db = s.db
        durable = s.durable
        try:
            if not s.held:
                s.begin()
            alive = db.execute("SELECT 1 FROM connections WHERE id = ?",
                               (self._conn_id,)).fetchone()
            if alive is None:
                raise _Recovered
            s.commit_work()
            s.end(commit=True)
        except _Recovered:
            # Another connection took this one for dead and backed out what it found;
            # back out what was done since, under the old id, and register anew.
            s.backout_work()
            s.end(commit=True)
            s.work_done()
            self._ids[0] = self._register()
            raise MQError(MQRC_BACKED_OUT, "the unit of work was backed out: another "
                          "connection took this one for dead and recovered it") from None
        except (sqlite3.Error, MQError) as exc:
            why = exc if isinstance(exc, MQError) else sqlite_error(exc, self.location,
                                                                   self._busy)
            self._backout_after_failed_commit(why, exc)
        s.work_done()
        if durable:
            s.sync_wal()  # persistent messages: on disk when commit returns

    def _backout_after_failed_commit(self, why: MQError, exc: BaseException) -> None:
        """The commit failed: back out instead (raising 2003), or say that nothing was
        committed and the unit of work is still open (2102). Never guess."""
        s = self._s
        try:
            if s.held and s.db.in_transaction:
                # a statement of the commit failed and was undone: the transaction still
                # holds the whole unit of work
                s.backout_work()
                s.end(commit=True)
            else:
                s.rolled_back()
                self._write_backout()
        except (sqlite3.Error, MQError):
            if s.held:
                with contextlib.suppress(sqlite3.Error):
                    s.end(commit=False)
            raise MQError(
                MQRC_RESOURCE_PROBLEM,
                f"commit failed ({why}) and so did the backout: nothing was committed and "
                "the unit of work is still open; call backout()") from exc
        s.work_done()
        raise MQError(MQRC_BACKED_OUT,
                      f"commit failed ({why}); the unit of work was backed out") from exc

    def _backout_lost(self) -> None:
        """Part of the unit of work was rolled back by SQLite (an error inside a call, a
        failed flush): committing the rest could duplicate or lose messages, so back it
        all out and say so (2003)."""
        try:
            self._write_backout()
        except (sqlite3.Error, MQError) as exc:
            raise MQError(
                MQRC_RESOURCE_PROBLEM,
                "part of the unit of work was lost to an SQLite error and its backout "
                f"failed ({exc}): nothing was committed and the unit of work is still "
                "open; call backout()") from exc
        self._s.work_done()
        raise MQError(MQRC_BACKED_OUT, "the unit of work was backed out: an SQLite error "
                      "had undone part of it, so committing the rest was not safe")

    def _write_backout(self) -> None:
        s = self._s
        if not s.held:
            s.begin()
        try:
            s.backout_work()
        except BaseException:
            s.end(commit=False)
            raise
        s.end(commit=True)

    @api
    def backout(self) -> None:
        s = self._s
        if not s.work:
            s.flush()
            return
        self._write_backout()
        s.work_done()

    # -- connections -----------------------------------------------------------------------
    def new_connection(self, *, principal: str | None = None) -> EmbeddedQueueManager:
        """Another connection to this queue manager (the same principal unless given)."""
        with self._guard():
            self._s.flush()  # the new connection registers: it needs the write lock
            return EmbeddedQueueManager(self._path, principal=principal or self._principal,
                                        busy_timeout=self._busy, _memory=self._memory)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._finalizer()

    def __enter__(self) -> EmbeddedQueueManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"conn {self._conn_id}"
        return (f"<EmbeddedQueueManager {self._name} at {self.location} as "
                f"{self._principal!r}, {state}>")

    # -- authorities (setmqaut / dspmqaut; not themselves checked) --------------------------
    def _profile(self, object_name: str, object_type: str) -> str:
        if object_type not in auth.OBJECT_TYPES:
            raise ValueError(f"object_type must be 'queue' or 'qmgr', not {object_type!r}")
        if object_type == QMGR:
            return object_name or self._name
        if not object_name or not is_valid_name(object_name.replace("*", "A")):
            raise ValueError(f"{object_name!r} is not a queue name or generic profile")
        return object_name

    @api
    def set_authority(self, principal: str, object_name: str,
                      authorities: Iterable[str] | str, *, object_type: str = QUEUE
                      ) -> AuthorityRecord:
        """Grant exactly ``authorities`` (MQ names, ``+`` optional; ``all``/``none``) to
        ``principal`` on a queue, a generic profile (``APP.*``) or the queue manager
        (``object_type="qmgr"``). Replaces that record; an empty set still counts as
        defined (everyone else is then checked too)."""
        if not principal:
            raise ValueError("principal must not be empty")
        profile = self._profile(object_name, object_type)
        auths = auth.normalize(authorities)
        with self._write(durable=True) as db:
            db.execute("INSERT OR REPLACE INTO authorities (principal, object_type, profile, "
                       "auths) VALUES (?, ?, ?, ?)",
                       (principal, object_type, profile, " ".join(sorted(auths))))
        return AuthorityRecord(principal, object_type, profile, auths)

    @api
    def delete_authority(self, principal: str, object_name: str, *,
                         object_type: str = QUEUE) -> bool:
        profile = self._profile(object_name, object_type)
        with self._write(durable=True) as db:
            cur = db.execute("DELETE FROM authorities WHERE principal = ? AND object_type = ? "
                             "AND profile = ?", (principal, object_type, profile))
        return cur.rowcount > 0

    @api
    def clear_authorities(self) -> None:
        """Remove every record: everyone may do everything again."""
        with self._write(durable=True) as db:
            db.execute("DELETE FROM authorities")

    @api
    def authorities(self, principal: str | None = None) -> list[AuthorityRecord]:
        records = self._auth_records() or []
        return sorted((r for r in records if principal is None or r.principal == principal),
                      key=lambda r: (r.principal, r.object_type, r.profile))

    @api
    def effective_authorities(self, principal: str, object_name: str, *,
                              object_type: str = QUEUE) -> frozenset[str] | None:
        """What ``principal`` may do on one object; None when no authority is defined at
        all (then everyone may do everything)."""
        records = self._auth_records()
        if records is None:
            return None
        return auth.granted(records, principal, object_type,
                            self._profile(object_name, object_type))


class _Recovered(Exception):
    """This connection's record was removed by another connection's recovery."""


def open_embedded(path: str | os.PathLike[str], *, principal: str | None = None,
                  create: bool = False, name: str = "QM1",
                  dead_letter_queue: str = DEFAULT_DLQ,
                  busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> EmbeddedQueueManager:
    """Connect to the embedded queue manager at ``path`` as ``principal`` (default: the OS
    user).

    ``":memory:"`` makes a new private queue manager named ``name`` in RAM; reach it from
    a second connection with ``qm.new_connection()``. For a file, ``create=True`` creates
    it (named ``name``) when missing; otherwise a missing or foreign file raises MQError
    2058 (MQRC_Q_MGR_NAME_ERROR) and an unusable one 2059, with a sentence saying why.
    """
    if os.fspath(path) == MEMORY:
        store = MemoryStore(name, dead_letter_queue)
        try:
            return EmbeddedQueueManager(store.path, principal=principal,
                                        busy_timeout=busy_timeout, _memory=store)
        finally:
            if store.refs == 0:
                store.remove()
    p = Path(os.fspath(path)).expanduser()
    if create and not p.exists():
        with contextlib.suppress(FileExistsError):  # another process was first: open theirs
            create_file(p, name, dead_letter_queue)
    return EmbeddedQueueManager(p, principal=principal, busy_timeout=busy_timeout)


def create_queue_manager(path: str | os.PathLike[str], name: str = "QM1",
                         dead_letter_queue: str = DEFAULT_DLQ, *, description: str = "",
                         principal: str | None = None) -> EmbeddedQueueManager:
    """crtmqm + connect: create a new embedded queue manager file and return a connection
    to it (close it when done). ``dead_letter_queue`` is defined as a local queue and made
    the queue manager's DEADQ (``""`` for none).

    An existing path is refused with QueueManagerExistsError (both an MQError 2100 and a
    FileExistsError); nothing is overwritten. ``":memory:"`` gives a new RAM queue manager.
    """
    if os.fspath(path) == MEMORY:
        qm = open_embedded(MEMORY, principal=principal, name=name,
                           dead_letter_queue=dead_letter_queue)
        if description:
            qm.change_qmgr(description=description)
        return qm
    p = create_file(path, name, dead_letter_queue, description=description)
    return EmbeddedQueueManager(p, principal=principal)

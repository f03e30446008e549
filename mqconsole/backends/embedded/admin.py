"""Administration of the embedded queue manager, the PCF-like commands: inquire and change
the queue manager, list, inquire, define, change and delete queues, queue status.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime

from mqconsole.mq.errors import MQError
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
    MQRC_OBJECT_ALREADY_EXISTS,
    MQRC_OBJECT_IN_USE,
    MQRC_OBJECT_NAME_ERROR,
    MQRC_OBJECT_TYPE_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_Q_NOT_EMPTY,
    MQRC_SELECTOR_ERROR,
)

from . import auth
from .auth import QMGR, QUEUE
from .authorities import Authorities
from .calls import api
from .schema import QUEUE_COLUMNS
from .schema import VISIBLE as _VISIBLE
from .store import (
    insert_queue,
)


def _dt(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC)



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



class Admin(Authorities):
    """PCF MQCMD_INQUIRE_Q_MGR, CHANGE_Q_MGR, INQUIRE_Q, INQUIRE_Q_STATUS, CREATE_Q,
    CHANGE_Q, DELETE_Q."""

    # -- queue manager ---------------------------------------------------------------------
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
        if qtype is QueueType.CLUSTER:
            raise ValueError("a cluster queue is defined on the queue manager that hosts it")
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
                depth = row["curdepth"]
                raise MQError(MQRC_Q_NOT_EMPTY,
                              f"queue {name!r} holds {depth} message{'' if depth == 1 else 's'} "
                              "(uncommitted ones included): it is not deleted")
            if db.execute("SELECT 1 FROM handles WHERE queue = ? LIMIT 1",
                          (name,)).fetchone():
                raise MQError(MQRC_OBJECT_IN_USE, f"queue {name!r} is open (a browse cursor)")
            db.execute("DELETE FROM queues WHERE name = ?", (name,))


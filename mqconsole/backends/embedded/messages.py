"""Messages of the embedded queue manager: put (MQPUT1, with the context a put gives) and
get (MQGET, first or by MsgId), under syncpoint or not.
"""

from __future__ import annotations

import itertools
import math
import os
import sqlite3
import time

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import BLANK_MSGID, MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import (
    MQAT_UNIX,
    MQPER_PERSISTENT,
    MQRC_CONTEXT_HANDLE_ERROR,
    MQRC_EXPIRY_ERROR,
    MQRC_MSG_TOO_BIG_FOR_Q,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_PERSISTENCE_ERROR,
    MQRC_PRIORITY_ERROR,
    MQRC_PUT_INHIBITED,
    MQRC_Q_FULL,
)
from mqconsole.mq.xqh import FORMAT_MDE, FORMAT_XQH, MQMDE, MQXQH

from ..base import Context
from .calls import api
from .mdfast import clone as clone_md
from .mdfast import pack819 as pack_md
from .resolution import Resolution
from .schema import VISIBLE as _VISIBLE
from .session import GOT_COLS, PUT_COLS
from .storage import PUT_APPL_NAME
from .stored import (
    message_from_row,
    stored_facts,
)

_PUT_APPL_NAME_FIELD = PUT_APPL_NAME.ljust(28)
_NO_ACCOUNTING_TOKEN = b"\x00" * 32




# MQ's identity and origin context: what MQPMO_PASS_ALL_CONTEXT takes from the handle
CONTEXT_FIELDS = ("user_identifier", "accounting_token", "appl_identity_data",
                  "put_appl_type", "put_appl_name", "put_date", "put_time",
                  "appl_origin_data")


def passed_context(source: object, md: MQMD) -> MQMD:
    """``md`` with the context a pass-all put takes from ``source``: what its
    ``saved_context()`` gives (an embedded cursor's, the message last got through it).
    IBM's reason codes: 2097 (MQRC_CONTEXT_HANDLE_ERROR) for a handle that saves no
    context, 2098 (MQRC_CONTEXT_NOT_AVAILABLE) when no message was got through it yet or
    its last MQGET was a browse (raised by ``saved_context``)."""
    saved = getattr(source, "saved_context", None)
    if saved is None:
        raise MQError(MQRC_CONTEXT_HANDLE_ERROR,
                      "a pass-all put names no handle that saves context (a cursor opened "
                      "for_get on this connection)")
    c = saved()
    return md.copy(**{f: getattr(c, f) for f in CONTEXT_FIELDS})

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



class Messages(Resolution):
    """MQPUT and MQGET (a unit of work's part of them is kept by the session)."""

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
        if context is not Context.SET_ALL and context is not Context.PASS_ALL:
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


    @api
    def put(self, queue: str, message: Message, *, context: Context = Context.SET_ALL,
            syncpoint: bool = True, qmgr_name: str = "", new_msg_id: bool = False,
            alt_user: str = "", pass_from: object = None) -> Message:
        if context is Context.PASS_ALL:
            message = Message(passed_context(pass_from, message.md), message.body)
        md, body = self._put(queue, message, context, syncpoint, qmgr_name, new_msg_id,
                             alt_user=alt_user.strip() if alt_user else "")
        return Message(md, body)

    @api
    def open_for_put(self, queue: str, qmgr_name: str = "", *,
                     context: Context = Context.NEW, alt_user: str = "") -> None:
        """The put's MQOPEN, nothing put (``base.ChecksPuts``): the name resolved and the
        authorities checked as :meth:`put` checks them (+put, the context's, +altusr and
        the alternate user's), raising what the put would raise before storing anything."""
        self._own_view()
        self._resolve_put(queue, qmgr_name, self._auth_records(), Context(context),
                          alt_user.strip() if alt_user else "")

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
            blob = pack_md(stored_md) if packed is None else packed
            values = (name, npri(pri), pri,
                      None if md.expiry == -1 else now + md.expiry / 10, md.msg_id,
                      md.correl_id, now, size, blob, stored, *stored_facts(blob, stored))
            if syncpoint:
                s.defer_put(values, size)  # inserted at commit (session.py)
                if md.persistence == MQPER_PERSISTENT:
                    s.durable = True
            else:
                s.sync_after = md.persistence == MQPER_PERSISTENT
                db.execute(f"INSERT INTO messages ({PUT_COLS}) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", values)
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
        msg = message_from_row(r[6], r[7], r[3], r[4], now, r[0])
        if syncpoint:
            s.defer_got(r)
            if msg.md.persistence == MQPER_PERSISTENT:
                s.durable = True
        elif msg.md.persistence == MQPER_PERSISTENT:
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


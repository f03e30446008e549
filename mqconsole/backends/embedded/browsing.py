"""Browsing in the embedded queue manager: the rows a cursor reads, a get under the cursor,
and the one-pass move step (see cursor.py, which drives these).
"""

from __future__ import annotations

import sqlite3
import time

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD_V1_LENGTH, MQMD_V2_LENGTH
from mqconsole.mq.message import GROUP_FLAGS, Message
from mqconsole.mq.reasons import MQPER_PERSISTENT

from ..base import BrowseRange, Context
from .mdfast import persistence819
from .messages import Messages
from .schema import VISIBLE as _VISIBLE
from .store import (
    sqlite_error,
)
from .stored import (
    BACKOUT_COUNT_AT,
    CORREL_ID_AT,
    EXPIRY_AT,
    MSG_FLAGS_AT,
    MSG_ID_AT,
    PERSISTENCE_AT,
    PRIORITY_AT,
    VERSION_AT,
    byte_order,
    message_from_row,
    stored_facts,
)

# what a browse reads: the first six for the message, and the arrival time, which a get
# under the cursor keeps (never changed after the put) without reading the row again
MSG_COLS = "id, npri, backout_count, expires_at, md, body, put_time"

_TAKE_ROW = (f"DELETE FROM messages WHERE id = ? AND queue = ? AND {_VISIBLE} AND "
             "(expires_at IS NULL OR expires_at > ?)")
_TAKE_ROW_RETURNING = _TAKE_ROW + " RETURNING backout_count"
_PERSISTENT = {"little": (1).to_bytes(4, "little"), "big": (1).to_bytes(4, "big")}
# a stored MD that a set-all put of the message as browsed stores again byte for byte
_MD_SIZES = (MQMD_V1_LENGTH, MQMD_V2_LENGTH)
_UNLIMITED = b"\xff\xff\xff\xff"
_ZERO = b"\x00\x00\x00\x00"
_DISCARD_EXPIRED_ROW = (f"DELETE FROM messages WHERE id = ? AND queue = ? AND {_VISIBLE} "
                        "AND expires_at <= ?")



class Browsing(Messages):
    """What an ``EmbeddedCursor`` asks its connection for."""

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
                f"SELECT {MSG_COLS} FROM messages WHERE queue = ? AND {_VISIBLE} "
                "ORDER BY npri, id LIMIT ?", (local, n)).fetchall()
        rows = cur.execute(
            f"SELECT {MSG_COLS} FROM messages WHERE queue = ? AND npri = ? AND id > ? "
            f"AND {_VISIBLE} ORDER BY npri, id LIMIT ?", (local, after[0], after[1], n)
        ).fetchall()
        if len(rows) < n and after[0] < 9:
            rows += cur.execute(
                f"SELECT {MSG_COLS} FROM messages WHERE queue = ? AND npri > ? "
                f"AND {_VISIBLE} ORDER BY npri, id LIMIT ?", (local, after[0], n - len(rows))
            ).fetchall()
        return rows

    def _range_plan(self, local: str, parts: int, min_rows: int) -> list[BrowseRange]:
        """``browse_ranges`` on ``local``: every bound found by stepping the browse index
        (queue, npri, id) ``size`` rows on from the last, all in one snapshot. A stretch's
        rows count every visible row, expired ones too (a reader that finds one expired
        finds fewer than planned, and says the queue changed)."""
        db = self._db
        snapshot = not self._s.held  # a held write transaction is a snapshot already
        if snapshot:
            db.execute("BEGIN")
        try:
            # the size of a stretch needs no exact count: the queue's depth will do
            (depth,) = db.execute("SELECT curdepth FROM queues WHERE name = ?",
                                  (local,)).fetchone()
            parts = max(1, min(parts, depth // max(1, min_rows)))
            size = -(-depth // parts)
            bounds: list[list[int]] = []
            after: tuple[int, int] = (-1, 0)
            for _ in range(parts - 1):
                row = db.execute(
                    f"SELECT npri, id FROM messages WHERE queue = ? AND {_VISIBLE} AND "
                    "(npri, id) > (?, ?) ORDER BY npri, id LIMIT 1 OFFSET ?",
                    (local, after[0], after[1], size - 1)
                ).fetchone()
                if row is None:
                    break
                after = (row[0], row[1])
                bounds.append([row[0], row[1]])
        finally:
            if snapshot:
                db.execute("COMMIT")
        out: list[BrowseRange] = []
        start: list[int] | None = None
        for i, bound in enumerate(bounds):
            out.append(BrowseRange(1 + i * size, start, bound, size))
            start = bound
        out.append(BrowseRange(1 + len(bounds) * size, start, None, None))
        return out

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
                                                       now, row_id)
                persistent = msg.md.persistence == MQPER_PERSISTENT  # type: ignore[union-attr]
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
                         blob[CORREL_ID_AT:CORREL_ID_AT + 24], now, size, blob, body,
                         *stored_facts(blob, body)), size)
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


    def _move_room(self, names: list[str], queue: str) -> tuple[int, int]:
        """How many messages ``_move_rows`` may still move to ``queue`` in this transaction,
        and the longest each may be: (0, 0) unless every check of a put there and a get
        from ``names`` is known to pass already (as ``_move_browsed`` asks)."""
        s = self._s
        t = s.targets.get((queue, "", Context.SET_ALL))
        if (t is None or t.dest.remote_qmgr or t.inhibited is not None or s.auth is not None
                or tuple(names) not in s.readable or not s.held):
            return 0, 0
        return t.max_depth - t.depth - s.added.get(t.name, 0), t.max_msg_length

    def _move_rows(self, names: list[str], rows: list[tuple], queue: str) -> None:
        """``_move_browsed`` of each of ``rows`` (``_MSG_COLS``, browsed in this very
        transaction with nothing taken since, each ``movable``, as many as ``_move_room``
        allows), at once: noted for the commit, which moves them inside SQLite (moved.py;
        the puts after those deferred before them, the rows taken last). Nothing is
        written now: the rows stay where they are until then, hidden from this
        connection's other calls, which turn them into deferred puts and gets first."""
        s = self._s
        name, local = s.targets[(queue, "", Context.SET_ALL)].name, names[-1]
        now = time.time()
        s.defer_moves(name, now, [r[0] for r in rows])
        k = len(rows)
        s.added[name] = s.added.get(name, 0) + k
        if not s.durable:
            for r in rows:
                blob = r[4]
                if blob[PERSISTENCE_AT:PERSISTENCE_AT + 4] == _PERSISTENT[byte_order(blob)]:
                    s.durable = True
                    break
        s.takes += k
        s.count(local, -k)
        s.last_get[local] = now


def movable(row: tuple, max_length: int) -> bool:
    """Can ``Browsing._move_rows`` move this browsed row (``_MSG_COLS``)? No expiry, not in
    a group, within ``max_length``, and its stored MD is what a set-all put of it stores
    (BackoutCount 0, Expiry unlimited: see ``EmbeddedCursor.move_current_to``)."""
    blob = row[4]
    if (row[3] is not None or len(row[5]) > max_length
            or blob[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] != _ZERO
            or blob[EXPIRY_AT:EXPIRY_AT + 4] != _UNLIMITED):
        return False
    size = len(blob)  # and not stored_in_group(blob), inlined (asked of every message)
    if size == MQMD_V1_LENGTH:
        return True
    if size != MQMD_V2_LENGTH:
        return False
    if blob[VERSION_AT]:  # little-endian: the low byte of each word first
        return blob[VERSION_AT] != 2 or not blob[MSG_FLAGS_AT] & GROUP_FLAGS
    return blob[VERSION_AT + 3] != 2 or not blob[MSG_FLAGS_AT + 3] & GROUP_FLAGS

"""Reading the messages at a position of a queue (``backends.base.ReadsByPosition``).

A browse counts the visible (committed), unexpired messages of a queue in ``(npri, id)``
order. Here the same count comes without a scan: ``queues.curdepth`` counts every message
not got, uncommitted puts included, so the visible ones are ``curdepth`` less the queue's
uncommitted puts (``put_by`` marks, a small index), and expired messages are discarded
first, as a browse would discard them (found through ``messages_expiry``, which holds only
rows with an expiry). The page itself is one walk of the ``messages_visible`` index to its
first row, from whichever end of the queue is nearer, then the rows after it by key, as a
cursor reads them. Count and page come from one snapshot.

``rows_at`` (``backends.base.ListsByPosition``) is the same read for a list of messages:
the facts columns, the MsgId from the packed MD and the body's length, not the bodies, so
the console's End and PageDown read about what they draw.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any

from mqconsole.mq.dlh import MQDLH_LENGTH
from mqconsole.mq.errors import MQError

from ..base import ListedPage, ListedRow, PositionedPage
from .browsing import Browsing
from .calls import api
from .schema import EXPIRY_INDEX, VISIBLE
from .stored import MSG_ID_AT, message_from_row, stored_facts, token_of

DISCARD_ROUNDS = 3  # messages may expire between the discard and the snapshot: try again
_EXPIRED = ("SELECT id FROM messages INDEXED BY messages_expiry WHERE queue = ? AND "
            f"expires_at IS NOT NULL AND expires_at <= ? AND {VISIBLE} LIMIT 10000")
_PUT_MARKED = ("SELECT count(*) FROM messages INDEXED BY messages_put_by WHERE "
               "put_by IS NOT NULL AND queue = ? AND got_by IS NULL")
_KEY_AT = ("SELECT npri, id FROM messages INDEXED BY messages_visible WHERE queue = ? AND "
           f"{VISIBLE} ORDER BY npri {{0}}, id {{0}} LIMIT 1 OFFSET ?")


class Positioning(Browsing):
    """``page_at``: the messages at a position, and how many a browse would meet."""

    def _has_expiry_index(self) -> bool:
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND "
                                "name = 'messages_expiry'").fetchone() is not None

    @api
    def page_at(self, queue: str, position: int, n: int) -> PositionedPage | None:
        page = self._at(queue, position, n, self._messages_after)
        return None if page is None else PositionedPage(*page)

    @api
    def rows_at(self, queue: str, position: int, n: int) -> ListedPage | None:
        """``ListsByPosition.rows_at``: the rows of ``page_at``'s messages, from the facts
        columns and the packed MD (a row whose facts are not kept yet: from its MD and
        body, as ``stored_facts`` would keep them)."""
        page = self._at(queue, position, n, self._rows_after)
        return None if page is None else ListedPage(*page)

    def _at(self, queue: str, position: int, n: int, read: _Reader
            ) -> tuple[int, int, list[Any]] | None:
        rows = self._open_input(queue, self._auth_records(), "browse")
        names = [r["name"] for r in rows]
        self._check_get_inhibited(names)
        local = names[-1]
        if not self._expiry_indexed:
            if not self._has_expiry_index():
                try:  # a file made before the index: one scan, once
                    with self._write() as db:
                        db.execute(EXPIRY_INDEX)
                except (sqlite3.Error, MQError):
                    return None  # a read-only file: the caller browses
            self._expiry_indexed = True  # (an index is never dropped)
        for _ in range(DISCARD_ROUNDS):
            now = time.time()
            page = self._snapshot_page(local, position, n, now, read)
            if isinstance(page, tuple):
                return page
            self._discard_expired(page, now)
        return None

    _expiry_indexed = False

    def _snapshot_page(self, local: str, position: int, n: int, now: float, read: _Reader
                       ) -> tuple[int, int, list[Any]] | list[int]:
        """``(total, first, items)`` in one snapshot, or the ids of expired messages to
        discard first."""
        db = self._db
        s = self._s
        if s.held:
            s.own_view()  # this connection's own uncommitted work counted as CURDEPTH is
        else:
            db.execute("BEGIN")
        try:
            cur = db.cursor()
            cur.row_factory = None
            expired = [r[0] for r in cur.execute(_EXPIRED, (local, now))]
            if expired:
                return expired
            depth = cur.execute("SELECT curdepth FROM queues WHERE name = ?",
                                (local,)).fetchone()[0]
            total = depth - cur.execute(_PUT_MARKED, (local,)).fetchone()[0]
            start = position - 1 if position > 0 else max(0, total + position)
            count = max(0, min(n, total - start))
            if count == 0:
                return total, start + 1, []
            if start <= total - 1 - start:
                key = cur.execute(_KEY_AT.format("ASC"), (local, start)).fetchone()
            else:
                key = cur.execute(_KEY_AT.format("DESC"), (local, total - 1 - start)).fetchone()
            items = [] if key is None else read(local, (key[0], key[1] - 1), count, now)
            return total, start + 1, items
        finally:
            if not s.held:
                db.execute("COMMIT")

    def _messages_after(self, local: str, after: tuple[int, int], count: int, now: float
                        ) -> list[Any]:
        return [message_from_row(r[4], r[5], r[2], r[3], now, r[0])
                for r in self._browse_rows(local, after, count)]

    def _rows_after(self, local: str, after: tuple[int, int], count: int, now: float
                    ) -> list[Any]:
        """The ``ListedRow`` of each of the ``count`` visible messages after ``after``
        (one index range scan, and a second past the last message of a priority, as
        ``_browse_rows`` reads them)."""
        cur = self._db.cursor()
        cur.row_factory = None
        rows = cur.execute(_LIST_SAME, (local, after[0], after[1], count)).fetchall()
        if len(rows) < count and after[0] < 9:
            rows += cur.execute(_LIST_LOWER, (local, after[0], count - len(rows))).fetchall()
        # (the test of schema.FACTS_UNKNOWN, here rather than in SQL for every row)
        return [ListedRow(i.to_bytes(16, "big"), msg_id, put, length, backout, reason, dest,
                          dest_qm, fmt)  # (token_of, inlined)
                if fmt is not None and (dest is None or dest_qm is not None) else
                _filled(cur, i, msg_id, length, backout)
                for i, msg_id, put, length, backout, reason, dest, dest_qm, fmt in rows]


_Reader = Callable[[str, tuple[int, int], int, float], list[Any]]
# a listed row: (id, MsgId, the put time, length, BackoutCount, the other facts as stored)
_LIST_COLS = (f"id, substr(md, {MSG_ID_AT + 1}, 24), f_put, length(body), backout_count, "
              "f_reason, f_dest, f_dest_qm, f_format")
_LIST_SAME = (f"SELECT {_LIST_COLS} FROM messages WHERE queue = ? AND npri = ? AND id > ? "
              f"AND {VISIBLE} ORDER BY npri, id LIMIT ?")
_LIST_LOWER = (f"SELECT {_LIST_COLS} FROM messages WHERE queue = ? AND npri > ? "
               f"AND {VISIBLE} ORDER BY npri, id LIMIT ?")
# a row whose facts are not kept (a file written before they were): its MD and the body's
# first bytes (as many as a dead-letter header holds), as counting.py fills them in
_UNKNOWN_FACTS = (f"SELECT md, coalesce(substr(body, 1, {MQDLH_LENGTH}), X'') FROM messages "
                  "WHERE id = ?")


def _filled(cur: sqlite3.Cursor, row_id: int, msg_id: bytes, length: int, backout: int
            ) -> ListedRow:
    """A row whose facts are not kept: read from its MD and body's first bytes (in the
    page's snapshot)."""
    md, body = cur.execute(_UNKNOWN_FACTS, (row_id,)).fetchone()
    reason, dest, dest_qm, fmt, put = stored_facts(md, body)
    return ListedRow(token_of(row_id), msg_id, put, length, backout, reason, dest, dest_qm,
                     fmt)

"""Reading the messages at a position of a queue (``backends.base.ReadsByPosition``).

A browse counts the visible (committed), unexpired messages of a queue in ``(npri, id)``
order. Here the same count comes without a scan: ``queues.curdepth`` counts every message
not got, uncommitted puts included, so the visible ones are ``curdepth`` less the queue's
uncommitted puts (``put_by`` marks, a small index), and expired messages are discarded
first, as a browse would discard them (found through ``messages_expiry``, which holds only
rows with an expiry). The page itself is one walk of the ``messages_visible`` index to its
first row, from whichever end of the queue is nearer, then the rows after it by key, as a
cursor reads them. Count and page come from one snapshot.
"""

from __future__ import annotations

import sqlite3
import time

from mqconsole.mq.errors import MQError
from mqconsole.mq.message import Message

from ..base import PositionedPage
from .browsing import Browsing
from .calls import api
from .schema import EXPIRY_INDEX, VISIBLE
from .stored import message_from_row

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
        rows = self._open_input(queue, self._auth_records(), "browse")
        names = [r["name"] for r in rows]
        self._check_get_inhibited(names)
        local = names[-1]
        if not self._has_expiry_index():
            try:  # a file made before the index: one scan, once
                with self._write() as db:
                    db.execute(EXPIRY_INDEX)
            except (sqlite3.Error, MQError):
                return None  # a read-only file: the caller browses
        for _ in range(DISCARD_ROUNDS):
            now = time.time()
            page = self._snapshot_page(local, position, n, now)
            if isinstance(page, PositionedPage):
                return page
            self._discard_expired(page, now)
        return None

    def _snapshot_page(self, local: str, position: int, n: int, now: float
                       ) -> PositionedPage | list[int]:
        """The page in one snapshot, or the ids of expired messages to discard first."""
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
                return PositionedPage(total, start + 1, [])
            if start <= total - 1 - start:
                key = cur.execute(_KEY_AT.format("ASC"), (local, start)).fetchone()
            else:
                key = cur.execute(_KEY_AT.format("DESC"), (local, total - 1 - start)).fetchone()
            rows = [] if key is None else self._browse_rows(local, (key[0], key[1] - 1), count)
            messages: list[Message] = [message_from_row(r[4], r[5], r[2], r[3], now, r[0])
                                       for r in rows]
            return PositionedPage(total, start + 1, messages)
        finally:
            if not s.held:
                db.execute("COMMIT")

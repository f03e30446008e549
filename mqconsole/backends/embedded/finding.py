"""Finding one message of a queue by what names it, for a browse cursor
(``backends.base.FindsMessages``): by its token (the row id, one primary-key lookup), by
its MsgId (the MsgId index), and where a row is in browse order (an index count from the
nearer end). What MQ does with MQMO_MATCH_MSG_TOKEN and MQMO_MATCH_MSG_ID; the cursor
(cursor.py) puts itself on the row found.
"""

from __future__ import annotations

import sqlite3

from .browsing import MSG_COLS, Browsing
from .schema import VISIBLE

# a message by its token (the row id), by its MsgId after a key, where a row is
_BY_ID = f"SELECT {MSG_COLS} FROM messages WHERE id = ? AND queue = ? AND {VISIBLE}"
_BY_MSG_ID = (f"SELECT {MSG_COLS} FROM messages INDEXED BY messages_msg_id WHERE queue = ? "
              f"AND msg_id = ? AND {VISIBLE} AND (npri > ? OR (npri = ? AND id > ?)) "
              "ORDER BY npri, id LIMIT 1")
# (each side of a key counted as two index ranges: the key's priority by id, then the
# other priorities; SQLite ranges a row value on its first column only)
_COUNT_BEFORE = (f"SELECT (SELECT count(*) FROM messages INDEXED BY messages_visible WHERE "
                 f"queue = ?1 AND {VISIBLE} AND npri = ?2 AND id < ?3) + (SELECT count(*) "
                 f"FROM messages INDEXED BY messages_visible WHERE queue = ?1 AND {VISIBLE} "
                 "AND npri < ?2)")
_COUNT_AFTER = (f"SELECT count(*) FROM (SELECT 1 FROM messages INDEXED BY messages_visible "
                f"WHERE queue = ?1 AND {VISIBLE} AND npri = ?2 AND id > ?3 UNION ALL "
                f"SELECT 1 FROM messages INDEXED BY messages_visible WHERE queue = ?1 AND "
                f"{VISIBLE} AND npri > ?2 LIMIT ?4)")
_EXPIRED_BEFORE = (f"SELECT count(*) FROM messages {{}} WHERE queue = ? AND {VISIBLE} AND "
                   "(npri, id) < (?, ?) AND expires_at IS NOT NULL AND expires_at <= ?")
_PUT_MARKED_IN = ("SELECT count(*) FROM messages INDEXED BY messages_put_by WHERE "
                  "put_by IS NOT NULL AND queue = ? AND got_by IS NULL")
_EXPIRY_HINT = "INDEXED BY messages_expiry"


class Finding(Browsing):
    """What an ``EmbeddedCursor`` asks for to find one message without browsing to it."""

    def _row_by_id(self, local: str, row_id: int) -> tuple | None:
        """The visible row ``row_id`` of ``local`` (``_MSG_COLS``), or None: a token's
        message (``EmbeddedCursor.browse_token``), one primary-key lookup."""
        cur = self._db.cursor()
        cur.row_factory = None
        return cur.execute(_BY_ID, (row_id, local)).fetchone()

    def _row_by_msg_id(self, local: str, msg_id: bytes, after: tuple[int, int] | None
                       ) -> tuple | None:
        """The first visible row of ``local`` carrying ``msg_id`` after ``(npri, id)``
        ``after`` (None: from the start), through the MsgId index."""
        cur = self._db.cursor()
        cur.row_factory = None
        npri_, row_id = after if after is not None else (-1, 0)
        return cur.execute(_BY_MSG_ID, (local, bytes(msg_id[:24]).ljust(24, b"\x00"),
                                        npri_, npri_, row_id)).fetchone()

    def _position_of(self, local: str, key: tuple[int, int], now: float) -> int:
        """Where the row ``(npri, id)`` is in a browse of ``local`` (1 = first): the visible
        rows before it on the browse index, less those expired (a browse discards them),
        in one snapshot. No message is read: the index entries are counted from the
        nearer end of the queue (the visible count is CURDEPTH less the uncommitted puts,
        as ``positions.py`` counts it), so a message near either end costs little."""
        db = self._db
        s = self._s
        if s.held:
            s.own_view()  # this connection's own work in the figures, as page_at counts
        else:
            db.execute("BEGIN")
        try:
            cur = db.cursor()
            cur.row_factory = None
            depth = cur.execute("SELECT curdepth FROM queues WHERE name = ?",
                                (local,)).fetchone()[0]
            total = depth - cur.execute(_PUT_MARKED_IN, (local,)).fetchone()[0]
            half = max(0, total // 2)
            after = cur.execute(_COUNT_AFTER, (local, key[0], key[1], half + 1)).fetchone()[0]
            if after <= half:
                before = total - 1 - after
            else:
                before = cur.execute(_COUNT_BEFORE, (local, key[0], key[1])).fetchone()[0]
            params = (local, key[0], key[1], now)
            try:  # the rows with an expiry, through their index (a file made before it
                # had one: through the table)
                expired = cur.execute(_EXPIRED_BEFORE.format(_EXPIRY_HINT), params).fetchone()[0]
            except sqlite3.OperationalError:
                expired = cur.execute(_EXPIRED_BEFORE.format(""), params).fetchone()[0]
        finally:
            if not s.held:
                db.execute("COMMIT")
        return max(1, before - expired + 1)

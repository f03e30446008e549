"""Counting a queue's facts inside SQLite (``backends.base.CountsFacts``).

Every row keeps its message's facts (``mq.facts``; the ``f_*`` columns, schema.py), so a
summary is one ``GROUP BY`` over the queue's visible, unexpired rows, and its oldest and
youngest messages two ordered lookups: no body is read and no Python object is made per
message. Rows whose facts are not known (written by an older mqconsole, or put back by a
backout) are filled in first, from their descriptor and the first bytes of their body.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence

from mqconsole.mq.dlh import MQDLH_LENGTH
from mqconsole.mq.errors import MQError

from ..base import FactCounts, FactGroup, FactPoint
from .calls import api
from .resolution import Resolution
from .schema import VISIBLE
from .stored import stored_facts

FILL_BATCH = 2000  # rows whose facts are filled in per statement batch
_SHOWN = f"queue = :q AND {VISIBLE} AND (expires_at IS NULL OR expires_at > :now)"


def _bucket(value: str, edges: Sequence[int]) -> str:
    """``CASE`` giving the index of the first edge above ``value`` (len(edges): none)."""
    whens = " ".join(f"WHEN {value} < {int(e)} THEN {i}" for i, e in enumerate(edges))
    return f"CASE {whens} ELSE {len(edges)} END"


class Counting(Resolution):
    """``fact_counts``: a summary's figures from the ``f_*`` columns."""

    def _fill_facts(self, local: str) -> None:
        """Facts for the rows that have none yet, written in transactions of their own."""
        db = self._db
        while True:
            rows = db.execute(
                f"SELECT id, md, substr(body, 1, {MQDLH_LENGTH}) FROM messages "
                f"WHERE queue = ? AND f_format IS NULL AND {VISIBLE} LIMIT {FILL_BATCH}",
                (local,)).fetchall()
            if not rows:
                return
            values = [(*stored_facts(r[1], r[2]), r[0]) for r in rows]
            with self._write() as w:
                w.executemany("UPDATE messages SET f_reason = ?, f_dest = ?, f_format = ?, "
                              "f_put = ? WHERE id = ?", values)

    @api
    def fact_counts(self, queue: str, now_us: int, age_edges_us: Sequence[int],
                    size_edges: Sequence[int]) -> FactCounts | None:
        rows = self._open_input(queue, self._auth_records(), "browse")
        names = [r["name"] for r in rows]
        self._check_get_inhibited(names)
        local = names[-1]
        for attempt in range(2):
            counts = self._snapshot_counts(local, now_us, age_edges_us, size_edges)
            if counts is not False:
                return counts  # type: ignore[return-value]
            if attempt:
                break
            try:
                self._fill_facts(local)
            except (sqlite3.Error, MQError):
                return None  # cannot write (a read-only file): browse instead
        return None  # rows without facts again (put back by a backout): browse instead

    def _snapshot_counts(self, local: str, now_us: int, age_edges_us: Sequence[int],
                         size_edges: Sequence[int]) -> FactCounts | bool | None:
        """The counts in one snapshot; False when some row has no facts yet."""
        db = self._db
        snapshot = not self._s.held  # a held write transaction is a snapshot already
        if snapshot:
            db.execute("BEGIN")
        try:
            return self._counts(db, local, now_us, age_edges_us, size_edges)
        except sqlite3.OperationalError:  # integer overflow in a sum (hostile put times)
            return None
        finally:
            if snapshot:
                db.execute("COMMIT")

    def _counts(self, db: sqlite3.Connection, local: str, now_us: int,
                age_edges_us: Sequence[int], size_edges: Sequence[int]) -> FactCounts | bool:
        p = {"q": local, "now": time.time(), "now_us": int(now_us)}
        ages = _bucket(":now_us - f_put", age_edges_us)
        age = f"CASE WHEN f_put IS NULL THEN NULL ELSE {ages} END"
        groups = [
            FactGroup(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10] or 0)
            for r in db.execute(
                f"SELECT f_reason, f_dest, f_format, backout_count, "
                f"{_bucket('length', size_edges)}, {age}, count(*), sum(length), "
                f"min(length), max(length), sum(:now_us - f_put) FROM messages "
                f"WHERE {_SHOWN} GROUP BY 1, 2, 3, 4, 5, 6", p)]
        if any(g.format is None for g in groups):
            return False  # rows whose facts are not known yet
        oldest = self._point(db, p, "f_put, npri, id")
        youngest = self._point(db, p, "f_put DESC, npri, id")
        return FactCounts(groups, oldest, youngest)

    def _point(self, db: sqlite3.Connection, p: dict, order: str) -> FactPoint | None:
        row = db.execute(f"SELECT npri, id, msg_id, f_put FROM messages WHERE {_SHOWN} "
                         f"AND f_put IS NOT NULL ORDER BY {order} LIMIT 1", p).fetchone()
        if row is None:
            return None
        position = db.execute(
            f"SELECT count(*) FROM messages WHERE {_SHOWN} AND (npri < :npri OR "
            "(npri = :npri AND id <= :id))", {**p, "npri": row[0], "id": row[1]}).fetchone()[0]
        return FactPoint(position, bytes(row[2]), row[3])

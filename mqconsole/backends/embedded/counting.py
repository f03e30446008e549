"""Counting a queue's facts without reading its messages (``backends.base.CountsFacts``).

Every row keeps its message's facts (``mq.facts``; the ``f_*`` columns, schema.py), so a
summary is one pass over the queue's visible, unexpired rows in browse order reading a
few small columns each: SQLite picks each row's age and size bucket, a loop folds them
into groups (memory: the groups, never the rows), and the first of the earliest and of
the latest put are kept with their positions. No body is read and no message is made.
Rows whose facts are not known (written by an older mqconsole, or put back by a backout)
are filled in first, from their descriptor and the first bytes of their body.
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
from .schema import FACTS_UNKNOWN, VISIBLE
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
                f"SELECT id, md, coalesce(substr(body, 1, {MQDLH_LENGTH}), X'') FROM messages "
                f"WHERE queue = ? AND {FACTS_UNKNOWN} AND {VISIBLE} LIMIT {FILL_BATCH}",
                (local,)).fetchall()
            if not rows:
                return
            values = [(*stored_facts(r[1], r[2]), r[0]) for r in rows]
            with self._write() as w:
                w.executemany("UPDATE messages SET f_reason = ?, f_dest = ?, f_dest_qm = ?, "
                              "f_format = ?, f_put = ? WHERE id = ?", values)

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
        finally:
            if snapshot:
                db.execute("COMMIT")

    def _counts(self, db: sqlite3.Connection, local: str, now_us: int,
                age_edges_us: Sequence[int], size_edges: Sequence[int]) -> FactCounts | bool:
        """One pass over the queue in browse order, reading a few small columns a row
        (no body): SQLite picks the buckets, this folds them into groups, and keeps the
        first of the earliest and of the latest put, with their positions. Memory holds
        the groups only, however long the queue."""
        p = {"q": local, "now": time.time(), "now_us": int(now_us)}
        ages = _bucket(":now_us - f_put", age_edges_us)
        cur = db.cursor()
        cur.row_factory = None
        cur.execute(
            f"SELECT f_reason, f_dest, f_dest_qm, f_format, backout_count, "
            f"{_bucket('length', size_edges)}, CASE WHEN f_put IS NULL THEN NULL ELSE {ages} "
            f"END, length, f_put, id FROM messages WHERE {_SHOWN} ORDER BY npri, id", p)
        sums: dict[tuple, list[int]] = {}
        position = 0
        oldest = youngest = None  # (put, position, row id)
        while rows := cur.fetchmany(4096):
            for r in rows:
                position += 1
                key = r[:7]
                length, put = r[7], r[8]
                s = sums.get(key)
                if s is None:
                    s = sums[key] = [0, 0, length, length, 0]
                s[0] += 1
                s[1] += length
                if length < s[2]:
                    s[2] = length
                elif length > s[3]:
                    s[3] = length
                if put is not None:
                    s[4] += now_us - put
                    if oldest is None or put < oldest[0]:
                        oldest = (put, position, r[9])
                    if youngest is None or put > youngest[0]:
                        youngest = (put, position, r[9])
        if any(k[3] is None or (k[1] is not None and k[2] is None) for k in sums):
            return False  # rows whose facts are not known yet (schema.FACTS_UNKNOWN)
        groups = [FactGroup(*k, *s) for k, s in sums.items()]
        return FactCounts(groups, self._point(db, oldest), self._point(db, youngest))

    def _point(self, db: sqlite3.Connection, seen: tuple[int, int, int] | None
               ) -> FactPoint | None:
        if seen is None:
            return None
        row = db.execute("SELECT msg_id FROM messages WHERE id = ?", (seen[2],)).fetchone()
        return FactPoint(seen[1], bytes(row[0]), seen[0])

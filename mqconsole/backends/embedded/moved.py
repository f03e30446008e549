"""Messages moved in bulk within one queue manager (``Browsing._move_rows``), kept as row ids
until the unit of work's commit, which moves them inside SQLite.

A bulk move step (``EmbeddedCursor.move_next``) writes nothing when it runs: it notes the
ids of the rows it moved (``Session.moves``, runs of ids in browse order), and the commit
then moves each run with one ``UPDATE``: each row becomes the destination's message, with
the queue, the arrival time and the id a put at that moment gives it (the next ids,
taken as ``AUTOINCREMENT`` takes them, in the order moved; BackoutCount 0). The MD, the
body and the kept facts (``f_*``, unknown ones staying unknown) stay as they are, which
is what a put of the message as browsed stores. Neither the bytes nor the facts cross
into Python and back, and no row is written twice. Until that commit the rows sit on the
source as they were, so any other call on the connection first turns the runs into the
ordinary deferred work (``take``: the rows deleted and kept for a backout, the puts held)
and goes on from there; so does a file of schema 1, whose triggers count depths on
inserts and deletes only.
"""

from __future__ import annotations

import contextlib
import sqlite3

from .schema import VISIBLE

Run = tuple[str, float, list[int]]
"""Messages moved by one bulk step: the destination queue, the put time, the source rows'
ids in browse order."""

# what the next put's id is: AUTOINCREMENT takes the larger of the table's largest id and
# the largest it ever gave (sqlite_sequence), plus one
_TOP = ("SELECT max(coalesce((SELECT max(id) FROM messages), 0), "
        "coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0))")
_SEQUENCE = "UPDATE sqlite_sequence SET seq = ? WHERE name = 'messages'"
_NEW_SEQUENCE = "INSERT INTO sqlite_sequence (name, seq) VALUES ('messages', ?)"
# json_each is the outer loop: every id a rowid lookup; j.key is its place in the run
_MOVE = ("UPDATE messages SET id = ? + j.key, queue = ?, put_time = ?, backout_count = 0 "
         f"FROM json_each(?) AS j WHERE messages.id = j.value AND {VISIBLE}")
_TAKE = (f"DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?)) AND {VISIBLE} "
         "RETURNING id, queue, npri, priority, backout_count, expires_at, put_time, md, "
         "body, msg_id, correl_id, length, f_reason, f_dest, f_dest_qm, f_format, f_put")


class MovedRowsChanged(sqlite3.DatabaseError):
    """Rows a bulk move noted were not all on the source any more (cannot happen while the
    connection holds the write transaction: nothing else writes)."""


def _ids(ids: list[int]) -> str:
    return "[" + ",".join(map(str, ids)) + "]"


def commit(db: sqlite3.Connection, runs: list[Run]) -> None:
    """Move the rows of ``runs`` to their destinations, as puts after every row inserted
    so far. On any failure the whole transaction is rolled back (a run moved cannot be
    told apart from the rows put before it), and the error raised."""
    try:
        top = db.execute(_TOP).fetchone()[0]
        last = top + sum(len(ids) for _, _, ids in runs)
        if db.execute(_SEQUENCE, (last,)).rowcount != 1:
            db.execute(_NEW_SEQUENCE, (last,))
        first = top + 1
        for dest, now, ids in runs:
            n = db.execute(_MOVE, (first, dest, now, _ids(ids))).rowcount
            if n != len(ids):
                raise MovedRowsChanged(f"{len(ids) - n} moved messages were gone at the "
                                       "commit")
            first += n
    except BaseException:
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        raise


def take(db: sqlite3.Connection, runs: list[Run]) -> tuple[list[tuple], list[tuple]]:
    """The runs as the ordinary deferred work: their source rows deleted now, returned as
    the puts (``session.PUT_COLS`` rows, to the destination, in order) and the gots
    (``session.GOT_COLS`` rows) that a put and a get under syncpoint of each would hold."""
    puts: list[tuple] = []
    gots: list[tuple] = []
    for dest, now, ids in runs:
        rows = db.execute(_TAKE, (_ids(ids),)).fetchall()
        if len(rows) != len(ids):
            raise MovedRowsChanged(f"{len(ids) - len(rows)} moved messages were gone")
        where = {i: k for k, i in enumerate(ids)}
        rows.sort(key=lambda r: where[r[0]])  # RETURNING promises no order
        for (row_id, queue, npri_, priority, backout_count, expires_at, put_time, md, body,
             msg_id, correl_id, length, *facts) in rows:
            puts.append((dest, npri_, priority, None, msg_id, correl_id, now, length, md,
                         body, *facts))
            gots.append((row_id, queue, npri_, backout_count, expires_at, put_time, md, body))
    return puts, gots


__all__ = ["MovedRowsChanged", "Run", "commit", "take"]

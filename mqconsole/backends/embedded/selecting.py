"""Browsing only what may pass a test on facts, tested in SQLite
(``backends.base.SelectsByFacts``).

A page walks the queue's rows in browse order reading only their ids and the test's
verdict (no body, no Python object per row that fails), counts positions as a browse
would (expired rows are skipped and not counted), and then reads in full the rows that
passed. Rows whose facts are not known yet pass: the caller tests every message again.
"""

from __future__ import annotations

import time

from mqconsole.mq.facts import FACT_NAMES, FACT_OPS, FactTest
from mqconsole.mq.message import Message

from .calls import api
from .resolution import Resolution
from .schema import VISIBLE
from .stored import message_from_row

SCAN_CHUNK = 4096  # rows whose verdict one statement reads
_COLUMN = {"reason": "f_reason", "dest_q": "f_dest", "format": "f_format",
           "backout_count": "backout_count", "length": "length", "priority": "priority"}


def to_sql(test: FactTest, params: list[object]) -> str:
    """The test as an SQL condition over the row's columns (values bound, in ``params``)."""
    kind = test[0]
    if kind in ("and", "or"):
        return f"({to_sql(test[1], params)} {kind.upper()} {to_sql(test[2], params)})"
    if kind == "contains" and test[1] == "body" and test[2]:
        # the body holds one of these byte strings: SQLite's instr on blobs compares
        # bytes (https://sqlite.org/lang_corefunc.html#instr), before a row reaches Python
        params.extend(bytes(form) for form in test[2])
        return "(" + " OR ".join(["instr(body, ?) > 0"] * len(test[2])) + ")"
    fact = test[1]
    if fact not in FACT_NAMES:
        raise ValueError(f"not a fact: {fact!r}")
    column = _COLUMN[fact]
    if kind == "null":
        return f"({column} IS {'' if test[2] else 'NOT '}NULL)"
    if kind == "in":
        params.extend(test[2])
        return f"({column} IN ({', '.join('?' * len(test[2]))}))"
    if kind == "cmp" and test[2] in FACT_OPS:
        params.append(test[3])
        return f"({column} {test[2]} ?)"
    raise ValueError(f"not a fact test: {test!r}")


def _reads_body(test: FactTest) -> bool:
    if test[0] in ("and", "or"):
        return _reads_body(test[1]) or _reads_body(test[2])
    return test[0] == "contains"


class Selecting(Resolution):
    """``select_page``: a page of the messages that may pass a test on their facts."""

    @api
    def select_page(self, queue: str, test: FactTest, after: object | None, n: int
                    ) -> tuple[list[tuple[int, Message]], object | None]:
        rows = self._open_input(queue, self._auth_records(), "browse")
        names = [r["name"] for r in rows]
        self._check_get_inhibited(names)
        local = names[-1]
        params: list[object] = []
        verdict = f"(f_format IS NULL OR {to_sql(test, params)})"
        npri, row_id, position = after if isinstance(after, tuple) else (-1, 0, 0)
        now = time.time()
        found: list[tuple[int, Message]] = []
        cur = self._db.cursor()
        cur.row_factory = None
        # the MD and body are read from the row (already in hand) only when it passed; a
        # test on the body is costly twice, so then the MD is read for every row
        md = "md" if _reads_body(test) else f"CASE WHEN {verdict} THEN md END"
        columns = f"id, npri, expires_at, backout_count, {md}, CASE WHEN {verdict} THEN body END"
        bound = tuple(params) * columns.count(verdict)
        end = False
        while len(found) < n:
            want = min(SCAN_CHUNK, max(4 * (n - len(found)), 64))
            chunk = cur.execute(
                f"SELECT {columns} FROM messages WHERE queue = ? AND {VISIBLE} AND "
                f"npri = ? AND id > ? ORDER BY npri, id LIMIT {want}",
                (*bound, local, npri, row_id)).fetchall()
            if len(chunk) < want:
                chunk += cur.execute(
                    f"SELECT {columns} FROM messages WHERE queue = ? AND {VISIBLE} AND "
                    f"npri > ? ORDER BY npri, id LIMIT {want - len(chunk)}",
                    (*bound, local, npri)).fetchall()
            if not chunk:
                end = True
                break
            for r in chunk:
                row_id, npri = r[0], r[1]
                if r[2] is not None and r[2] <= now:
                    continue  # expired: a browse discards it, and does not count it
                position += 1
                if r[5] is not None:
                    found.append((position, message_from_row(r[4], r[5], r[3], r[2], now,
                                                             row_id)))
                    if len(found) >= n:
                        break
        return found, None if end else (npri, row_id, position)

"""Units of work of the embedded queue manager: MQCMIT and MQBACK (the marks and deferred
work they settle are the session's, session.py).
"""

from __future__ import annotations

import contextlib
import sqlite3

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import (
    MQRC_BACKED_OUT,
    MQRC_RESOURCE_PROBLEM,
)

from .calls import api, keeping_moves
from .storage import Storage
from .store import (
    sqlite_error,
)


class _Recovered(Exception):
    """This connection's record was removed by another connection's recovery."""



class UnitsOfWork(Storage):
    """MQCMIT, MQBACK; a failed commit backs out, or says the unit is still open."""

    @property
    def in_unit_of_work(self) -> bool:
        return self._s.work

    @keeping_moves
    def commit(self) -> None:
        s = self._s
        if not s.work:
            s.flush()  # an empty unit of work may still hold the lock: let it go
            return
        if s.lost:
            self._backout_lost()
        db = s.db
        durable = s.durable
        try:
            if not s.held:
                s.begin()
            alive = db.execute("SELECT 1 FROM connections WHERE id = ?",
                               (self._conn_id,)).fetchone()
            if alive is None:
                raise _Recovered
            s.commit_work()
            s.end(commit=True)
        except _Recovered:
            # Another connection took this one for dead and backed out what it found;
            # back out what was done since, under the old id, and register anew.
            s.backout_work()
            s.end(commit=True)
            s.work_done()
            self._ids[0] = self._register()
            raise MQError(MQRC_BACKED_OUT, "the unit of work was backed out: another "
                          "connection took this one for dead and recovered it") from None
        except (sqlite3.Error, MQError) as exc:
            why = exc if isinstance(exc, MQError) else sqlite_error(exc, self.location,
                                                                   self._busy)
            self._backout_after_failed_commit(why, exc)
        s.work_done()
        if durable:
            s.sync_wal()  # persistent messages: on disk when commit returns

    def _backout_after_failed_commit(self, why: MQError, exc: BaseException) -> None:
        """The commit failed: back out instead (raising 2003), or say that nothing was
        committed and the unit of work is still open (2102). Never guess."""
        s = self._s
        try:
            if s.held and s.db.in_transaction:
                # a statement of the commit failed and was undone: the transaction still
                # holds the whole unit of work
                s.backout_work()
                s.end(commit=True)
            else:
                s.rolled_back()
                self._write_backout()
        except (sqlite3.Error, MQError):
            if s.held:
                with contextlib.suppress(sqlite3.Error):
                    s.end(commit=False)
            raise MQError(
                MQRC_RESOURCE_PROBLEM,
                f"commit failed ({why}) and so did the backout: nothing was committed and "
                "the unit of work is still open; call backout()") from exc
        s.work_done()
        raise MQError(MQRC_BACKED_OUT,
                      f"commit failed ({why}); the unit of work was backed out") from exc

    def _backout_lost(self) -> None:
        """Part of the unit of work was rolled back by SQLite (an error inside a call, a
        failed flush): committing the rest could duplicate or lose messages, so back it
        all out and say so (2003)."""
        try:
            self._write_backout()
        except (sqlite3.Error, MQError) as exc:
            raise MQError(
                MQRC_RESOURCE_PROBLEM,
                "part of the unit of work was lost to an SQLite error and its backout "
                f"failed ({exc}): nothing was committed and the unit of work is still "
                "open; call backout()") from exc
        self._s.work_done()
        raise MQError(MQRC_BACKED_OUT, "the unit of work was backed out: an SQLite error "
                      "had undone part of it, so committing the rest was not safe")

    def _write_backout(self) -> None:
        s = self._s
        if not s.held:
            s.begin()
        try:
            s.backout_work()
        except BaseException:
            s.end(commit=False)
            raise
        s.end(commit=True)

    @api
    def backout(self) -> None:
        s = self._s
        if not s.work:
            s.flush()
            return
        self._write_backout()
        s.work_done()


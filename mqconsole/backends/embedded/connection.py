"""The embedded queue manager: one ``EmbeddedQueueManager`` per connection (MQCONNX).

Units of work are kept in the rows: a message put or got under syncpoint is marked with
the connection (``put_by``/``got_by``). Marked messages are invisible to every browse and
get (the putter's and getter's own included, as in MQ); ``commit`` clears the marks
(deleting got messages), ``backout`` deletes uncommitted puts and returns got messages
to their place with BackoutCount + 1.

For speed, a unit of work keeps one SQLite write transaction open from its first
syncpoint call to MQ commit or backout, and inside it the marks stay in memory until
needed (session.py): the transaction can be flushed — marks written, SQLite COMMIT — at
any moment without changing what anyone sees or what a backout does. It is, before a
non-syncpoint call of the same connection (which must take effect at once and survive a
backout or a crash), when another connection of the process wants the file, and when it
has been idle for a moment. A process that dies with the transaction open leaves nothing
of the unflushed part (SQLite rolls it back); flushed marks of a connection whose process
died are backed out by the next connection that notices (at connect and at
queue_status). See docs/backends.md.

The class is made of parts that each hold one job, each building on the ones below it
(no part imports a part above it):

* ``storage.Storage`` — the connection to the file: registration, the call guard, the
  transactions a call writes in, queue rows as read, recovery of dead connections;
* ``authorities.Authorities`` — the checks each call makes and setmqaut/dspmqaut;
* ``resolution.Resolution`` — names to queues: aliases, remote queues, transmission
  queues, what a put or a get opens;
* ``admin.Admin`` — the PCF-like commands (queue manager and queue attributes, status);
* ``messages.Messages`` — put and get; ``browsing.Browsing`` — what a cursor asks for;
  ``loading.Loading`` — a unit of work's puts of packed messages (a load);
* ``counting.Counting`` — a queue's facts counted in SQLite (summaries);
* ``selecting.Selecting`` — browsing what may pass a test on facts (``--where``);
* ``positions.Positioning`` — the messages at a position (the console's End, PageDown);
* ``finding.Finding`` — one message found by its token or MsgId, and where it is
  (a cursor's ``browse_token``, ``browse_msg_id``, ``position_of_current``);
* ``units.UnitsOfWork`` — commit and backout.

Here: the browse handle (``browse`` makes an ``EmbeddedCursor``), connections, and the
functions that open one.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from ..base import BrowseRange
from .admin import Admin
from .auth import QUEUE
from .calls import api
from .counting import Counting
from .cursor import EmbeddedCursor
from .finding import Finding
from .loading import Loading
from .messages import MSG_IDS, npri
from .positions import Positioning
from .selecting import Selecting
from .storage import PUT_APPL_NAME, default_principal
from .store import (
    DEFAULT_BUSY_TIMEOUT,
    DEFAULT_DLQ,
    MEMORY,
    MemoryStore,
    create_file,
)
from .units import UnitsOfWork


class EmbeddedQueueManager(Positioning, Finding, Loading, Counting, Selecting, Admin,
                           UnitsOfWork):
    """A connection to an embedded queue manager (see the module docstring and
    docs/backends.md). Open one with ``mqconsole.backends.open.open_embedded``."""

    # -- browse ----------------------------------------------------------------------------
    @api
    def browse(self, queue: str, *, for_get: bool = False) -> EmbeddedCursor:
        records = self._auth_records()
        rows = self._open_input(queue, records, "browse")
        if for_get:
            self._require(records, "get", QUEUE, queue)  # MQ checks +get at MQOPEN
        names = [r["name"] for r in rows]
        with self._write() as db:
            handle = db.execute(
                "INSERT INTO handles (conn, queue, browse, input, output, opened) "
                "VALUES (?, ?, 1, ?, 0, ?) RETURNING id",
                (self._conn_id, names[-1], int(for_get), time.time())).fetchall()[0][0]
        return EmbeddedCursor(self, queue, names, handle, for_get=for_get)

    # -- browsing in stretches (base.BrowsesInRanges) ---------------------------------------
    @api
    def browse_ranges(self, queue: str, parts: int, min_rows: int) -> list[BrowseRange]:
        """Consecutive stretches of about equal size, their bounds found in one snapshot
        on the browse index (no row is read)."""
        rows = self._open_input(queue, self._auth_records(), "browse")
        local = rows[-1]["name"]
        return self._range_plan(local, parts, min_rows)

    def browse_range(self, queue: str, part: BrowseRange) -> EmbeddedCursor:
        """A browse cursor that starts after ``part.after`` and ends with ``part.until``."""
        cursor = self.browse(queue)
        cursor.limit_to(part.after, part.until)
        return cursor


    # -- connections -----------------------------------------------------------------------
    def new_connection(self, *, principal: str | None = None) -> EmbeddedQueueManager:
        """Another connection to this queue manager (the same principal unless given)."""
        with self._guard():
            self._s.flush()  # the new connection registers: it needs the write lock
            return EmbeddedQueueManager(self._path, principal=principal or self._principal,
                                        busy_timeout=self._busy, _memory=self._memory)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._finalizer()

    def __enter__(self) -> EmbeddedQueueManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"conn {self._conn_id}"
        return (f"<EmbeddedQueueManager {self._name} at {self.location} as "
                f"{self._principal!r}, {state}>")



def open_embedded(path: str | os.PathLike[str], *, principal: str | None = None,
                  create: bool = False, name: str = "QM1",
                  dead_letter_queue: str = DEFAULT_DLQ,
                  busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> EmbeddedQueueManager:
    """Connect to the embedded queue manager at ``path`` as ``principal`` (default: the OS
    user).

    ``":memory:"`` makes a new private queue manager named ``name`` in RAM; reach it from
    a second connection with ``qm.new_connection()``. For a file, ``create=True`` creates
    it (named ``name``) when missing; otherwise a missing or foreign file raises MQError
    2058 (MQRC_Q_MGR_NAME_ERROR) and an unusable one 2059, with a sentence saying why.
    """
    if os.fspath(path) == MEMORY:
        store = MemoryStore(name, dead_letter_queue)
        try:
            return EmbeddedQueueManager(store.path, principal=principal,
                                        busy_timeout=busy_timeout, _memory=store)
        finally:
            if store.refs == 0:
                store.remove()
    p = Path(os.fspath(path)).expanduser()
    if create and not p.exists():
        with contextlib.suppress(FileExistsError):  # another process was first: open theirs
            create_file(p, name, dead_letter_queue)
    return EmbeddedQueueManager(p, principal=principal, busy_timeout=busy_timeout)


def create_queue_manager(path: str | os.PathLike[str], name: str = "QM1",
                         dead_letter_queue: str = DEFAULT_DLQ, *, description: str = "",
                         principal: str | None = None) -> EmbeddedQueueManager:
    """crtmqm + connect: create a new embedded queue manager file and return a connection
    to it (close it when done). ``dead_letter_queue`` is defined as a local queue and made
    the queue manager's DEADQ (``""`` for none).

    An existing path is refused with QueueManagerExistsError (both an MQError 2100 and a
    FileExistsError); nothing is overwritten. ``":memory:"`` gives a new RAM queue manager.
    """
    if os.fspath(path) == MEMORY:
        qm = open_embedded(MEMORY, principal=principal, name=name,
                           dead_letter_queue=dead_letter_queue)
        if description:
            qm.change_qmgr(description=description)
        return qm
    p = create_file(path, name, dead_letter_queue, description=description)
    return EmbeddedQueueManager(p, principal=principal)


__all__ = ["MSG_IDS", "PUT_APPL_NAME", "EmbeddedQueueManager", "create_queue_manager",
           "default_principal", "npri", "open_embedded"]

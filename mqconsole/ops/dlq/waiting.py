"""How a dead-letter handler waits between passes, as the table's WAIT says: for a failed
message's retry to come due (RETRYINT after its last attempt), for an arrival on the queue,
or for a stop — as runmqdlq waits: in MQGET, never asking the command server.

A :class:`Mark`, taken before a pass, opens a browse handle on the queue and browses it to
its end, counting the messages. After the pass, the wait asks that handle for the next
message with MQGMO_BROWSE_NEXT and MQGMO_WAIT: a message put after the mark was taken — during
the pass, or while idle — is there past the cursor, and wakes the wait as it arrives
(IBM MQ, "MQGMO options": MQGMO_WAIT "the call waits until a suitable message arrives";
MQGMO_BROWSE_NEXT browses the next message after the cursor). What the pass put back onto
the queue itself is told apart by number (``Mark.after``), and so is what it took: the
queue is counted again as the wait starts, and a count the pass does not explain — another
process got or put one — is work too. A message of higher priority than the cursor's lands
before it on a queue delivered by priority and is not browsed next: the queue is counted
again every retry interval, and a changed count is work.

Each MQGET waits at most :data:`POLL_SECONDS` (so a stop is seen within that); a backend
without MQGMO_WAIT (``backends.base.WaitsOnCursor``: the embedded queue manager) is asked
with a browse after each such step. No PCF command is sent while idle.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mqconsole.backends.base import BrowseCursor, QueueManager, WaitsOnCursor
from mqconsole.mq.errors import MQError

POLL_SECONDS = 1.0  # the longest MQGET wait (or browse step) of an idle handler
COUNT_BATCH = 256

WORK, IDLE, STOPPED = "work", "idle", "stopped"


def _count(cursor: BrowseCursor) -> int:
    """Browse ``cursor`` to the queue's end; how many messages it passed."""
    n = 0
    while True:
        got = len(cursor.next_batch(COUNT_BATCH))
        n += got
        if got < COUNT_BATCH:
            return n


def count_messages(qm: QueueManager, queue: str) -> int | None:
    """The messages a browse of ``queue`` meets now (None when it cannot be browsed)."""
    try:
        with qm.browse(queue) as cursor:
            return _count(cursor)
    except MQError:
        return None


@dataclass(slots=True)
class Watch:
    """A browse handle at the end of the queue: what it browses next arrived after it got
    there."""

    cursor: BrowseCursor | None
    count: int | None  # the messages it passed on its way to the end

    def next(self, seconds: float, stop: threading.Event) -> bool:
        """Whether a message is past the cursor, waiting up to ``seconds`` for one."""
        if self.cursor is None:  # the queue could not be browsed: time passes
            stop.wait(max(0.0, seconds))
            return False
        try:
            if isinstance(self.cursor, WaitsOnCursor):
                return self.cursor.next_waiting(max(0.0, seconds)) is not None
            if self.cursor.next() is not None:
                return True
            stop.wait(max(0.0, seconds))
            return self.cursor.next() is not None
        except MQError:
            self.close()
            return False

    def close(self) -> None:
        if self.cursor is not None:
            cursor, self.cursor = self.cursor, None
            with contextlib.suppress(MQError):
                cursor.close()


@dataclass(frozen=True, slots=True)
class Mark:
    """The queue as a pass starts — its count, and a browse handle at its end — with what
    the pass itself then took off it (committed gets) and put back onto it: what an idle
    wait compares with. A look taken only after the pass would miss a message arriving
    between the pass's last browse and that look until another came."""

    count: int | None
    watch: Watch = field(compare=False)
    taken: int = 0
    put_back: int = 0

    def after(self, taken: int, put_back: int) -> Mark:
        return Mark(self.count, self.watch, taken, put_back)

    @property
    def expected(self) -> int | None:
        """The count the pass leaves: the mark's, less what it took, with what it put back."""
        return None if self.count is None else self.count - self.taken + self.put_back

    def close(self) -> None:
        self.watch.close()


def mark(qm: QueueManager, queue: str) -> Mark:
    """The queue's state now: take it before a pass, give it to :func:`wait_for_work`,
    close it after."""
    try:
        cursor = qm.browse(queue)
    except MQError:
        return Mark(None, Watch(None, None))
    try:
        watch = Watch(cursor, _count(cursor))
    except MQError:
        cursor.close()
        return Mark(None, Watch(None, None))
    return Mark(watch.count, watch)


def _arrived_meanwhile(qm: QueueManager, queue: str, since: Mark) -> bool:
    """Whether something arrived between the mark and now: more messages past the handle
    than the pass put back, or a count the pass does not explain."""
    past = 0
    watch = since.watch
    while watch.cursor is not None and past <= since.put_back:
        if not watch.next(0.0, threading.Event()):
            break
        past += 1
    if past > since.put_back:
        return True
    now = count_messages(qm, queue)
    return now is not None and since.expected is not None and now != since.expected


def wait_for_work(qm: QueueManager, queue: str, wait: int | None, next_due: float | None,
                  stop: threading.Event, *, since: Mark | None = None,
                  clock: Callable[[], float] = time.time,
                  recount: float | None = None) -> str:
    """Wait as WAIT says after a pass: ``WORK`` (a message arrived, or a failed one is due
    again: make another pass), ``IDLE`` (WAIT(NO) with nothing due, or WAIT(n) ran out:
    end) or ``STOPPED`` (``stop`` was set). ``wait``: None WAIT(YES), 0 WAIT(NO), n.
    ``since``: the :class:`Mark` taken before the pass (with what it took): an arrival
    after it is work at once; None watches the queue from now. ``recount``: the retry
    interval, after which the queue is counted again (an arrival of higher priority)."""
    if wait == 0 and next_due is None:
        return IDLE
    now = clock()
    deadline = None if wait in (None, 0) else now + wait
    if wait == 0:  # WAIT(NO) with a retry due: wait for it
        assert next_due is not None
        return STOPPED if stop.wait(max(0.0, next_due - now)) else WORK
    own = since is None
    seen = mark(qm, queue) if since is None else since
    try:
        if not own and _arrived_meanwhile(qm, queue, seen):
            return WORK
        expected = seen.expected
        recount_at = None if recount is None or recount <= 0 else now + recount
        while True:
            now = clock()
            if next_due is not None and now >= next_due:
                return WORK
            if deadline is not None and now >= deadline:
                return IDLE
            if stop.is_set():
                return STOPPED
            step = POLL_SECONDS
            for until in (next_due, deadline, recount_at):
                if until is not None:
                    step = min(step, until - now)
            if seen.watch.next(step, stop):
                return WORK
            if stop.is_set():
                return STOPPED
            if recount_at is not None and clock() >= recount_at:
                recount_at = clock() + (recount or 0)
                count = count_messages(qm, queue)
                if count is not None and expected is not None and count != expected:
                    return WORK
    finally:
        if own:
            seen.close()


__all__ = ["IDLE", "POLL_SECONDS", "STOPPED", "WORK", "Mark", "count_messages", "mark",
           "wait_for_work"]

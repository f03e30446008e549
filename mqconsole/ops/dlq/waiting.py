"""How a dead-letter handler waits between passes, as the table's WAIT says: for a failed
message's retry to come due (RETRYINT after its last attempt), for an arrival on the queue
(its depth and last put time, looked at every :data:`POLL_SECONDS`), or for a stop.

A pass's own work is told apart from an arrival: the :class:`Mark` taken before a pass,
with what the pass took off the queue and put back onto it, is what the wait compares
with, so a message arriving between the pass's last browse and the wait is never missed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mqconsole.backends.base import QueueManager
from mqconsole.mq.errors import MQError

POLL_SECONDS = 1.0  # how often an idle handler looks for arrivals

WORK, IDLE, STOPPED = "work", "idle", "stopped"


def _signature(qm: QueueManager, queue: str) -> tuple[Any, ...]:
    """What changes when a message arrives: depth and the time of the last put."""
    try:
        st = qm.queue_status(queue)
        return (st.depth, st.last_put)
    except MQError:
        try:
            return (qm.inquire_queue(queue).depth, None)
        except MQError:
            return (None, None)


@dataclass(frozen=True, slots=True)
class Mark:
    """A queue's depth and last put as a pass starts, with what the pass itself then took
    off it (committed gets) and put back onto it: the state an idle wait compares with. A
    look taken only after the pass would miss a message arriving between the pass's last
    browse and that look until another came."""

    depth: int | None
    last_put: Any
    taken: int = 0
    put_back: int = 0

    def after(self, taken: int, put_back: int) -> Mark:
        return Mark(self.depth, self.last_put, taken, put_back)

    def arrived(self, now: tuple[Any, ...]) -> bool:
        """Whether ``now`` (a :func:`_signature`) differs from what the pass left: a depth
        other than the mark's less what was taken, or a later put (not told when the pass
        put some back itself). A change by another process also counts: one more pass."""
        depth, last_put = now
        expected = None if self.depth is None else self.depth - self.taken + self.put_back
        if depth != expected:
            return True
        return self.put_back == 0 and last_put != self.last_put


def mark(qm: QueueManager, queue: str) -> Mark:
    """The queue's state now: take it before a pass, give it to :func:`wait_for_work`."""
    return Mark(*_signature(qm, queue))


def wait_for_work(qm: QueueManager, queue: str, wait: int | None, next_due: float | None,
                  stop: threading.Event, *, since: Mark | None = None,
                  clock: Callable[[], float] = time.time) -> str:
    """Wait as WAIT says after a pass: ``WORK`` (a message arrived, or a failed one is due
    again: make another pass), ``IDLE`` (WAIT(NO) with nothing due, or WAIT(n) ran out:
    end) or ``STOPPED`` (``stop`` was set). ``wait``: None WAIT(YES), 0 WAIT(NO), n.
    ``since``: the :class:`Mark` taken before the pass (with what it took): an arrival
    after it is work at once; None compares with the queue as the wait starts."""
    if wait == 0 and next_due is None:
        return IDLE
    now = clock()
    deadline = None if wait in (None, 0) else now + wait
    if wait == 0:  # WAIT(NO) with a retry due: wait for it
        assert next_due is not None
        return STOPPED if stop.wait(max(0.0, next_due - now)) else WORK
    seen = since if since is not None else mark(qm, queue)
    if since is not None and seen.arrived(_signature(qm, queue)):
        return WORK
    while True:
        now = clock()
        if next_due is not None and now >= next_due:
            return WORK
        if deadline is not None and now >= deadline:
            return IDLE
        step = POLL_SECONDS
        if next_due is not None:
            step = min(step, next_due - now)
        if deadline is not None:
            step = min(step, deadline - now)
        if stop.wait(max(0.0, step)):
            return STOPPED
        if seen.arrived(_signature(qm, queue)):
            return WORK


__all__ = ["IDLE", "POLL_SECONDS", "STOPPED", "WORK", "Mark", "mark", "wait_for_work"]

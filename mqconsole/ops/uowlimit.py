"""How big a unit of work may be: the queue manager's MAXUMSGS.

A real queue manager refuses the put or get that would make a unit of work hold more than
MAXUMSGS messages (2024, MQRC_SYNCPOINT_LIMIT_REACHED; report messages the unit makes
count too). Operations commit every ``--batch`` messages, so the batch is capped to what
fits: a move puts and gets each message (two per message), a copy or a load only puts,
a delete only gets. A backend tells its limit as ``max_uncommitted`` (an int, or None:
no limit known); the embedded queue manager has none.

The reports a message asks for are made by the queue manager in the same unit of work (a
COA when the put arrives, a COD when the get removes it), so a batch of such messages
holds more than ``--batch`` messages: ``Room`` counts them, and an operation commits
before the message that would not fit instead of hearing 2024.

A get answered 2024 (IBM MQ, MQGET: MQRC_SYNCPOINT_LIMIT_REACHED, "the number of uncommitted
messages … would exceed the limit defined for the queue manager"; a COD report the get
makes counts) is not the message's fault: the operation backs the unit out once, learns
the limit (``Room.learn``), commits what came before in a unit and then that message in a
unit of its own, and never redoes the same unit in a loop (each redo would raise the
BackoutCount of its messages again).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from mqconsole.backends.base import QueueManager
from mqconsole.mq.reasons import MQRO_COA, MQRO_COD


def max_uncommitted(qm: QueueManager) -> int | None:
    """The connection's MAXUMSGS, or None (no limit, or not known)."""
    limit = getattr(qm, "max_uncommitted", None)
    return limit if isinstance(limit, int) and limit > 0 else None


def capped_batch(qm: QueueManager, batch: int, *, per_message: int = 2,
                 also: QueueManager | None = None, per_message_also: int = 1
                 ) -> tuple[int, str | None]:
    """``batch`` lowered so one unit of work stays within MAXUMSGS, and the sentence saying
    so (None when it was not lowered). ``also``: a second connection (a move between queue
    managers puts there: ``per_message_also`` messages each)."""
    fits = batch
    limits = []
    for conn, per in ((qm, per_message), (also, per_message_also)):
        limit = max_uncommitted(conn) if conn is not None and per > 0 else None
        if limit is not None:
            fits = min(fits, max(1, limit // per))
            limits.append(f"{limit} on {getattr(conn, 'name', '') or 'the queue manager'}")
    if fits >= batch:
        return batch, None
    return fits, (f"--batch {batch} lowered to {fits}: a unit of work may hold at most "
                  f"MAXUMSGS messages ({', '.join(limits)}), and each message takes "
                  f"{per_message} of them")


def group_fits(qm: QueueManager, size: int, *, per_message: int = 2,
               units: int | None = None) -> str | None:
    """Why a message group of ``size`` cannot be moved in one unit of work (None: it can).
    ``units``: what its unit of work would hold, the reports its messages ask for counted
    (else ``size * per_message``)."""
    limit = max_uncommitted(qm)
    need = size * per_message if units is None else units
    if limit is None or need <= limit:
        return None
    return (f"its {size} messages need {need} uncommitted messages in one unit "
            f"of work, more than the queue manager's MAXUMSGS ({limit})")


def units(report: int, *, put: bool, get: bool) -> int:
    """Of MAXUMSGS, what one message takes in a unit of work: its put (and the COA report
    the queue manager makes when it arrives) and its get (and the COD report the get
    makes)."""
    return ((1 + bool(report & MQRO_COA)) if put else 0) + \
        ((1 + bool(report & MQRO_COD)) if get else 0)


class Room:
    """What the open unit of work holds of one connection's MAXUMSGS.

    ``put``/``get``: what the operation does to each message on this connection. ``held``
    counts the entries of a unit (a list that grows until it is emptied or replaced: a new
    first entry starts the count again) incrementally; ``report_of`` gives an entry's
    MQMD.Report."""

    def __init__(self, qm: QueueManager | None, *, put: bool, get: bool) -> None:
        self.limit = None if qm is None else max_uncommitted(qm)
        self.put, self.get = put, get
        self._of: Sequence[Any] | None = None
        self._first: Any = None
        self._counted = 0
        self._held = 0

    def need(self, report: int) -> int:
        return units(report, put=self.put, get=self.get)

    def held(self, unit: Sequence[Any], report_of: Callable[[Any], int]) -> int:
        if unit is not self._of or len(unit) < self._counted or (
                unit and unit[0] is not self._first):
            self._of, self._counted, self._held = unit, 0, 0
            self._first = unit[0] if unit else None
        for i in range(self._counted, len(unit)):
            self._held += self.need(report_of(unit[i]))
        self._counted = len(unit)
        return self._held

    def learn(self, held: int) -> None:
        """The queue manager answered 2024 with ``held`` uncommitted messages in the unit
        (the call refused not counted): its MAXUMSGS is ``held`` at most, so units are
        committed before that from now on (a limit the connection could not read, or
        reports it could not foresee)."""
        if held > 0 and (self.limit is None or held < self.limit):
            self.limit = held

    def full_for(self, report: int, unit: Sequence[Any],
                 report_of: Callable[[Any], int]) -> bool:
        """Would the message of ``report`` make the unit pass MAXUMSGS? (Never for an empty
        unit: one message alone is tried, and 2024 then says it cannot fit.)"""
        if self.limit is None or not unit:
            return False
        return self.held(unit, report_of) + self.need(report) > self.limit


# -- bytes: the recovery log ---------------------------------------------------------------
# A queue manager logs every persistent message a unit of work puts before the unit may
# commit; a unit bigger than the log's room ends in 2102 (MQRC_RESOURCE_PROBLEM, "log full")
# or is backed out (IBM MQ, "What happens when a disk gets full" and "Calculating the size
# of the log"). Units are bounded by bytes as well as by messages: ``--batch-bytes``.

DEFAULT_BATCH_BYTES = 64 * 1024 * 1024

_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kmg]i?b?|b)?", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_bytes(text: str) -> int:
    """``--batch-bytes``: ``67108864``, ``512k``, ``64MiB``, ``1.5m``, ``1G`` (binary
    units). Raises ValueError with one sentence."""
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"{text!r} is not a size (write it like 1048576, 512k, 64MiB or 1G)")
    n = int(float(m.group(1)) * _UNITS[(m.group(2) or "")[:1].lower()])
    if n < 1:
        raise ValueError(f"{text!r}: a unit of work must be allowed at least 1 byte")
    return n


class UnitBytes(Room):
    """The bytes (message bodies) the open unit of work holds, counted as ``Room`` counts
    messages (incrementally over a list that grows until it is emptied or replaced):
    ``held``/``full_for`` take a size where ``Room`` takes a Report field."""

    def __init__(self, limit: int | None) -> None:
        super().__init__(None, put=False, get=False)
        self.limit = limit

    def need(self, report: int) -> int:
        return report  # a size, here

    def full(self, unit: Sequence[Any], size_of: Callable[[Any], int]) -> bool:
        """The unit holds the limit or more: commit it."""
        return self.limit is not None and bool(unit) and self.held(unit, size_of) >= self.limit

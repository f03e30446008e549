"""How big a unit of work may be: the queue manager's MAXUMSGS.

A real queue manager refuses the put or get that would make a unit of work hold more than
MAXUMSGS messages (2024, MQRC_SYNCPOINT_LIMIT_REACHED; report messages the unit makes
count too). Operations commit every ``--batch`` messages, so the batch is capped to what
fits: a move puts and gets each message (two per message), a copy or a load only puts,
a delete only gets. A backend tells its limit as ``max_uncommitted`` (an int, or None:
no limit known); the embedded queue manager has none.
"""

from __future__ import annotations

from mqconsole.backends.base import QueueManager


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


def group_fits(qm: QueueManager, size: int, *, per_message: int = 2) -> str | None:
    """Why a message group of ``size`` cannot be moved in one unit of work (None: it can)."""
    limit = max_uncommitted(qm)
    if limit is None or size * per_message <= limit:
        return None
    return (f"its {size} messages need {size * per_message} uncommitted messages in one unit "
            f"of work, more than the queue manager's MAXUMSGS ({limit})")

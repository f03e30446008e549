"""Putting messages (new context): test data, repair messages."""

from __future__ import annotations

from mqconsole.backends.base import Context, QueueManager
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message

COMMIT_EVERY = 500


def put_messages(qm: QueueManager, queue: str, md: MQMD, body: bytes, *, count: int = 1
                 ) -> list[str]:
    """Put ``count`` copies in units of work of up to COMMIT_EVERY; returns the MsgIds (hex).

    A failure backs out the current unit of work, so either a whole batch is put or none of
    it; earlier batches stay committed (the caller reports how many were put).
    """
    ids: list[str] = []
    pending: list[str] = []
    try:
        for i in range(count):
            put = qm.put(queue, Message(md.copy(), body), context=Context.NEW, syncpoint=True)
            pending.append(put.md.msg_id.hex().upper())
            if (i + 1) % COMMIT_EVERY == 0:
                qm.commit()
                ids.extend(pending)
                pending.clear()
        qm.commit()
        ids.extend(pending)
    except BaseException:
        if qm.in_unit_of_work:
            qm.backout()
        raise
    return ids

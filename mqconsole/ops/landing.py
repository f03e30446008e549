"""Where a put lands on the queue manager connected to: the local queue behind a name
(an alias queue, a remote queue definition or queue manager alias pointing back here).

The backend's own resolution when it has one (``backends.base.ResolvesPuts``: the embedded
queue manager resolves as its MQOPEN does); otherwise each object on the way is inquired
(an MQI connection: an alias's TARGET, a remote definition's RNAME/RQMNAME/XMITQ), which
needs +inq on them. A refused inquiry (2035), or any failure that is not the put's own
(a broken connection), leaves the name unresolved: ``Landing.known`` is False and the
caller compares the names as given.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqconsole.backends.base import QueueManager, put_resolution
from mqconsole.mq.dlh import strip_pad
from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueType
from mqconsole.mq.reasons import (
    MQRC_ALIAS_BASE_Q_TYPE_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR,
    MQRC_UNKNOWN_XMIT_Q,
    MQRC_XMIT_Q_TYPE_ERROR,
    MQRC_XMIT_Q_USAGE_ERROR,
)

HOPS = 8  # objects followed at most (MQ's own chains are short: alias -> remote -> local)

# the put itself would fail with these: it lands nowhere
_NOWHERE = frozenset({MQRC_UNKNOWN_OBJECT_NAME, MQRC_UNKNOWN_ALIAS_BASE_Q,
                      MQRC_ALIAS_BASE_Q_TYPE_ERROR, MQRC_UNKNOWN_REMOTE_Q_MGR,
                      MQRC_UNKNOWN_XMIT_Q, MQRC_XMIT_Q_TYPE_ERROR, MQRC_XMIT_Q_USAGE_ERROR,
                      MQRC_OPTION_NOT_VALID_FOR_TYPE})


@dataclass(frozen=True, slots=True)
class Landing:
    """Where a put lands: ``queue`` the local queue on this queue manager, None when it
    leaves for another queue manager or would fail. ``known`` False: not resolved (refused
    or failed); ``queue`` is then the name as given when it names this queue manager."""

    queue: str | None
    known: bool = True


def lands_on(qm: QueueManager, queue: str, qmgr_name: str = "", *, local: str) -> Landing:
    """Where a put to ``queue`` on ``qmgr_name`` ("" or ``local``: this one) lands;
    ``local`` is the name of the queue manager connected to. Never raises ``MQError``."""
    queue, qmgr_name = strip_pad(queue), strip_pad(qmgr_name)
    if qmgr_name == local:
        qmgr_name = ""
    try:
        resolver = put_resolution(qm)
        if resolver is not None:
            q, where = resolver.resolve_put(queue, qmgr_name)
            return Landing(strip_pad(q) if strip_pad(where) in ("", local) else None)
        return _by_inquiry(qm, queue, qmgr_name, local)
    except MQError as e:
        if e.reason in _NOWHERE:
            return Landing(None)
        return Landing(None if qmgr_name else queue, known=False)


def _by_inquiry(qm: QueueManager, queue: str, qmgr_name: str, local: str) -> Landing:
    for _ in range(HOPS):
        if qmgr_name:
            # a queue manager alias pointing back here, else a transmission queue: away
            a = qm.inquire_queue(qmgr_name)
            if a.type is not QueueType.REMOTE or strip_pad(a.remote_q_name):
                return Landing(None)
            target = strip_pad(a.remote_qmgr_name)
            if target in ("", local):
                qmgr_name = ""
                continue
            if target == qmgr_name or strip_pad(a.xmit_q):
                return Landing(None)
            qmgr_name = target
            continue
        a = qm.inquire_queue(queue)
        if a.type is QueueType.ALIAS:
            queue = strip_pad(a.target_q)
            continue
        if a.type is QueueType.REMOTE:
            rname, rqm = strip_pad(a.remote_q_name), strip_pad(a.remote_qmgr_name)
            if not rname:  # a queue manager alias named as a queue: the put fails
                return Landing(None)
            if rqm not in ("", local) and strip_pad(a.xmit_q):
                return Landing(None)
            queue, qmgr_name = rname, ("" if rqm == local else rqm)
            continue
        return Landing(strip_pad(a.name) if a.type is QueueType.LOCAL else None)
    return Landing(None)


__all__ = ["Landing", "lands_on"]

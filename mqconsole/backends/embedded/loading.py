"""Puts of messages given packed, a unit of work's worth in one call
(``backends.base.PutsPacked``): what a load of a file does, without a ``Message`` and an
``MQMD`` per message.

Each put is ``Messages._put(queue, Message(unpack819(md), body), Context.SET_ALL,
syncpoint=True)`` read off the bytes: the same checks in the same order with the same
errors (the destination, Priority, Persistence, Expiry, put-inhibited, MAXMSGL, MAXDEPTH),
the same row (the MD stored as ``pack819`` packs it: BackoutCount 0, the queue's default
priority and persistence where the MD says "as queue", a new MsgId for a blank one).
A destination on another queue manager takes ``_put`` itself.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import BLANK_MSGID, MQMD_V1_LENGTH, MQMD_V2_LENGTH
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import (
    MQRC_EXPIRY_ERROR,
    MQRC_MSG_TOO_BIG_FOR_Q,
    MQRC_PERSISTENCE_ERROR,
    MQRC_PRIORITY_ERROR,
    MQRC_PUT_INHIBITED,
    MQRC_Q_FULL,
)

from ..base import Context
from .calls import api
from .mdfast import unpack819
from .messages import MSG_IDS, Messages, npri
from .stored import (
    BACKOUT_COUNT_AT,
    CORREL_ID_AT,
    EXPIRY_AT,
    MSG_ID_AT,
    PERSISTENCE_AT,
    PRIORITY_AT,
    stored_facts,
)

_ZERO = bytes(4)
_Order = Literal["little", "big"]
_STANDARD: dict[bytes, tuple[_Order, int]] = {(1).to_bytes(4, "little"): ("little", MQMD_V1_LENGTH),
             (2).to_bytes(4, "little"): ("little", MQMD_V2_LENGTH),
             (1).to_bytes(4, "big"): ("big", MQMD_V1_LENGTH),
             (2).to_bytes(4, "big"): ("big", MQMD_V2_LENGTH)}


class Loading(Messages):
    """``put_packed``: set-all puts under syncpoint of packed messages, until one is refused."""

    @api
    def put_packed(self, queue: str, messages: Sequence[tuple[bytes, bytes]]
                   ) -> tuple[int, MQError | None]:
        """Put ``messages`` (``(md, body)``: the MD as ``MQMD.pack(ccsid=819)`` packs it)
        in order, each as ``put(queue, Message(MQMD.unpack(md, ccsid=819), body),
        context=Context.SET_ALL, syncpoint=True)``, until one is refused: how many went,
        and the refusal (None when every one went). What is not a refusal of one message
        is raised, as ``put`` raises it."""
        now = time.time()
        done = 0
        with self._uow_write() as db:
            for md, body in messages:
                try:
                    self._put_one_packed(db, queue, md, body, now)
                except MQError as exc:
                    return done, exc
                done += 1
        return done, None

    def _put_one_packed(self, db, queue: str, md: bytes, body: bytes, now: float) -> None:
        s = self._s
        t = self._target(queue, "", Context.SET_ALL, "")
        standard = _STANDARD.get(md[4:8])
        if (t.dest.remote_qmgr or standard is None or len(md) != standard[1]
                or md[:4] != b"MD  "):
            self._put(queue, Message(unpack819(md), body), Context.SET_ALL, True, "", False)
            return
        order = standard[0]
        pri = int.from_bytes(md[PRIORITY_AT:PRIORITY_AT + 4], order, signed=True)
        if pri < -1:
            raise MQError(MQRC_PRIORITY_ERROR, f"Priority {pri} is not valid")
        per = int.from_bytes(md[PERSISTENCE_AT:PERSISTENCE_AT + 4], order, signed=True)
        if per not in (0, 1, 2):
            raise MQError(MQRC_PERSISTENCE_ERROR, f"Persistence {per} is not valid")
        exp = int.from_bytes(md[EXPIRY_AT:EXPIRY_AT + 4], order, signed=True)
        if exp == 0 or exp < -1:
            raise MQError(MQRC_EXPIRY_ERROR, f"Expiry {exp} is not valid")
        msg_id = md[MSG_ID_AT:MSG_ID_AT + 24]
        if (pri == -1 or per == 2 or msg_id == BLANK_MSGID
                or md[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] != _ZERO):
            blob = bytearray(md)
            blob[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] = _ZERO
            if pri == -1:
                pri = t.default_priority
                blob[PRIORITY_AT:PRIORITY_AT + 4] = pri.to_bytes(4, order, signed=True)
            if per == 2:
                per = t.default_persistence
                blob[PERSISTENCE_AT:PERSISTENCE_AT + 4] = per.to_bytes(4, order, signed=True)
            if msg_id == BLANK_MSGID:
                msg_id = MSG_IDS.new(self._name)
                blob[MSG_ID_AT:MSG_ID_AT + 24] = msg_id
            md = bytes(blob)
        if t.inhibited is not None:
            raise MQError(MQRC_PUT_INHIBITED, f"queue {t.inhibited!r} is put-inhibited")
        name = t.name
        size = len(body)
        if size > t.max_msg_length:
            raise MQError(MQRC_MSG_TOO_BIG_FOR_Q, f"{size} bytes exceed MAXMSGL "
                          f"{t.max_msg_length} of {name!r}")
        if t.depth + s.added.get(name, 0) >= t.max_depth:  # as Messages._put counts
            depth = db.execute("SELECT curdepth FROM queues WHERE name = ?",
                               (name,)).fetchone()[0]
            depth += s.delta.get(name, 0) + s.pending_count.get(name, 0)
            if depth >= t.max_depth:
                raise MQError(MQRC_Q_FULL, f"queue {name!r} is full (MAXDEPTH {t.max_depth})")
        s.defer_put((name, npri(pri), pri, None if exp == -1 else now + exp / 10, msg_id,
                     md[CORREL_ID_AT:CORREL_ID_AT + 24], now, size, md, body,
                     *stored_facts(md, body)), size)
        if per == 1:
            s.durable = True
        s.added[name] = s.added.get(name, 0) + 1


__all__ = ["Loading"]

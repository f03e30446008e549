"""Name resolution of the embedded queue manager: where a put lands (aliases, remote
queues, queue manager aliases, transmission queues) and what a get or browse opens,
checked as MQOPEN checks it, and kept while the write transaction is held.
"""

from __future__ import annotations

import sqlite3

from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import (
    QueueType,
    Usage,
)
from mqconsole.mq.reasons import (
    MQRC_ALIAS_BASE_Q_TYPE_ERROR,
    MQRC_GET_INHIBITED,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_Q_DELETED,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR,
    MQRC_UNKNOWN_XMIT_Q,
    MQRC_XMIT_Q_USAGE_ERROR,
)

from ..base import Context
from .auth import QMGR, QUEUE, AuthorityRecord
from .authorities import Authorities
from .calls import api
from .targets import Dest, Target


class Resolution(Authorities):
    """MQOPEN's part: names to queue rows, with the checks of the objects on the way."""

    # -- resolution ------------------------------------------------------------------------
    def _xmitq(self, name: str, *, explicit: bool, qmgr: str) -> sqlite3.Row:
        row = self._queue_attrs(name)
        if row is None:
            if explicit:
                raise MQError(MQRC_UNKNOWN_XMIT_Q, f"transmission queue {name!r} does not "
                              f"exist (route to {qmgr!r})")
            raise MQError(MQRC_UNKNOWN_REMOTE_Q_MGR,
                          f"no route to queue manager {qmgr!r}: no transmission queue or "
                          f"queue manager alias of that name on {self._name}")
        if row["type"] != QueueType.LOCAL.value or row["usage"] != Usage.XMITQ.value:
            raise MQError(MQRC_XMIT_Q_USAGE_ERROR,
                          f"{name!r} is not a transmission queue (USAGE(XMITQ)) "
                          f"(route to {qmgr!r})")
        return row

    def _route_qmgr(self, qmgr: str) -> tuple[sqlite3.Row | None, str, str]:
        """ObjectQMgrName resolution: (transmission queue, destination qmgr, object whose
        authority applies); the queue row is None when the name resolves to this qmgr."""
        if not qmgr or qmgr == self._name:
            return None, self._name, qmgr
        row = self._queue_attrs(qmgr)
        if row is not None and row["type"] == QueueType.REMOTE.value \
                and not row["remote_q_name"]:  # a queue manager alias
            target = row["remote_qmgr_name"] or qmgr
            if target == self._name:
                return None, self._name, qmgr
            xname = row["xmit_q"] or target
            return self._xmitq(xname, explicit=bool(row["xmit_q"]), qmgr=target), target, qmgr
        if row is not None and row["type"] == QueueType.LOCAL.value:
            return self._xmitq(qmgr, explicit=False, qmgr=qmgr), qmgr, qmgr
        raise MQError(MQRC_UNKNOWN_REMOTE_Q_MGR,
                      f"no route to queue manager {qmgr!r}: no transmission queue or queue "
                      f"manager alias of that name on {self._name}")

    def _resolve_put(self, queue: str, qmgr_name: str, records: list[AuthorityRecord] | None,
                     context: Context, alt_user: str = "") -> Dest:
        """MQOPEN for output: the object resolved and its authorities checked (for
        ``alt_user``, MQ's alternate user authority: the connection needs +altusr on the
        queue manager and ``alt_user`` the put and context authorities)."""
        if alt_user:
            self._require(records, "altusr", QMGR, self._name)
        xrow, target_qmgr, _ = self._route_qmgr(qmgr_name)
        if xrow is not None:
            self._require(records, "put", QUEUE, xrow["name"], alt_user)
            self._require_context(records, context, xrow["name"], alt_user)
            return Dest(row=xrow, opened=xrow, inhibit=[xrow], remote_q=queue,
                         remote_qmgr=target_qmgr)
        row = self._queue_attrs(queue)
        if row is None:
            raise self._unknown(queue)
        self._require(records, "put", QUEUE, queue, alt_user)
        self._require_context(records, context, queue, alt_user)
        opened, inhibit = row, [row]
        if row["type"] == QueueType.ALIAS.value:
            target = self._queue_attrs(row["target_q"])
            if target is None:
                raise MQError(MQRC_UNKNOWN_ALIAS_BASE_Q,
                              f"alias {queue!r} names {row['target_q']!r}, which does not "
                              "exist")
            if target["type"] not in (QueueType.LOCAL.value, QueueType.REMOTE.value):
                raise MQError(MQRC_ALIAS_BASE_Q_TYPE_ERROR,
                              f"alias {queue!r} resolves to a {target['type']} queue")
            row = target
            inhibit.append(row)
        if row["type"] == QueueType.REMOTE.value:
            rname, rqm = row["remote_q_name"], row["remote_qmgr_name"]
            if not rname:
                raise MQError(MQRC_UNKNOWN_OBJECT_NAME,
                              f"{row['name']!r} is a queue manager alias, not a queue: put "
                              "to it by naming it as the queue manager")
            if row["xmit_q"] and rqm and rqm != self._name:
                xrow = self._xmitq(row["xmit_q"], explicit=True, qmgr=rqm)
            else:
                xrow, rqm, _ = self._route_qmgr(rqm)
            if xrow is not None:
                inhibit.append(xrow)
                return Dest(row=xrow, opened=opened, inhibit=inhibit, remote_q=rname,
                             remote_qmgr=rqm)
            local = self._queue_attrs(rname)
            if local is None or local["type"] != QueueType.LOCAL.value:
                raise self._unknown(rname)
            inhibit.append(local)
            return Dest(row=local, opened=opened, inhibit=inhibit)
        if row["type"] != QueueType.LOCAL.value:
            raise MQError(MQRC_OPTION_NOT_VALID_FOR_TYPE,
                          f"{row['name']!r} is a {row['type']} queue: nothing can be put "
                          "to it here (the embedded queue manager makes no dynamic queues)")
        return Dest(row=row, opened=opened, inhibit=inhibit)

    @api
    def resolve_put(self, queue: str, qmgr_name: str = "") -> tuple[str, str]:
        """``backends.base.ResolvesPuts``: where a put to ``queue`` (on ``qmgr_name``)
        lands — (local queue, this queue manager) or the (queue, queue manager) a
        transmission queue takes it to. The names are resolved as a put resolves them; no
        authority is checked (the queue manager resolves them for itself)."""
        dest = self._resolve_put(queue, qmgr_name, None, Context.NEW)
        if dest.remote_qmgr:
            return dest.remote_q, dest.remote_qmgr
        return dest.row["name"], self._name

    def _open_input(self, queue: str, records: list[AuthorityRecord] | None,
                    what: str) -> list[sqlite3.Row]:
        """MQOPEN for input or browse: the opened object, then the local queue behind it."""
        row = self._queue_attrs(queue)
        if row is None:
            raise self._unknown(queue)
        self._require(records, what, QUEUE, queue)
        rows = [row]
        if row["type"] == QueueType.ALIAS.value:
            target = self._queue_attrs(row["target_q"])
            if target is None:
                raise MQError(MQRC_UNKNOWN_ALIAS_BASE_Q,
                              f"alias {queue!r} names {row['target_q']!r}, which does not "
                              "exist")
            rows.append(target)
            row = target
        if row["type"] != QueueType.LOCAL.value:
            raise MQError(MQRC_OPTION_NOT_VALID_FOR_TYPE,
                          f"{queue!r} resolves to a {row['type']} queue, which cannot be "
                          "read (only local queues hold messages)")
        return rows

    def _check_get_inhibited(self, names: list[str]) -> None:
        """MQ's GET(DISABLED) stops gets and browses alike (2016)."""
        s = self._s
        key = tuple(names)
        if s.held and key in s.readable:
            return  # checked in this transaction: nothing can have changed it
        for name in names:
            row = self._queue_attrs(name)
            if row is None:
                raise MQError(MQRC_Q_DELETED, f"queue {name!r} was deleted")
            if row["get_inhibited"]:
                raise MQError(MQRC_GET_INHIBITED, f"queue {name!r} is get-inhibited")
        if s.held:
            s.readable.add(key)


    def _target(self, queue: str, qmgr_name: str, context: Context, alt_user: str = ""
                ) -> Target:
        """Where a put to ``queue`` lands, checked (2085, 2035, resolution): kept while the
        write transaction is held, like the rows it comes from."""
        s = self._s
        key = (queue, qmgr_name, context, alt_user) if alt_user else (queue, qmgr_name, context)
        target = s.targets.get(key)
        if target is None:
            dest = self._resolve_put(queue, qmgr_name, self._auth_records(), context, alt_user)
            row = dest.row
            inhibited = next((r["name"] for r in dest.inhibit if r["put_inhibited"]), None)
            target = Target(dest, row["name"], dest.opened["default_priority"],
                             dest.opened["default_persistence"], inhibited,
                             row["max_msg_length"], row["max_depth"], row["curdepth"])
            if s.held:
                s.targets[key] = target
        return target


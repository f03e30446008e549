"""The PCF commands (docs/backends.md): the queue manager's encoding by a ping, list, inquire,
define, change and delete queues, queue status; when PCF cannot be used (no reply, a
refusal by the queue manager or the command queue) a connection says why once and looks
queues up with MQINQ (``inquiry.Inquiry``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.names import reason_name
from mqconsole.mq.queue import (
    CHANGEABLE,
    TYPE_ATTRIBUTES,
    QMgrInfo,
    QueueAttrs,
    QueueStatus,
    QueueType,
    check_attribute,
    is_valid_name,
)
from mqconsole.mq.reasons import (
    MQRC_NO_MSG_AVAILABLE,
    MQRC_NOT_AUTHORIZED,
    MQRC_OBJECT_ALREADY_EXISTS,
    MQRC_OBJECT_IN_USE,
    MQRC_OBJECT_NAME_ERROR,
    MQRC_OBJECT_TYPE_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_Q_NOT_EMPTY,
    MQRC_SELECTOR_ERROR,
    MQRC_UNEXPECTED_ERROR,
    MQRC_UNKNOWN_OBJECT_NAME,
)

from .inquiry import Inquiry
from .pcf import PCFSession

log = logging.getLogger(__name__)


class Admin(Inquiry):
    """PCF admin over one connection's ``PCFSession``."""

    def _pcf(self) -> PCFSession:
        session = self._pcf_holder[0]
        if session is None:
            s = self.settings
            command_queue, zos = self._command_server()
            session = PCFSession(self.lib, self._qmgr,
                                 response_wait_interval=s.response_wait_interval,
                                 model_queue=s.model_queue or "SYSTEM.DEFAULT.MODEL.QUEUE",
                                 dynamic_queue=s.dynamic_queue_prefix or "MQCONSOLE.*",
                                 command_queue=command_queue, zos=zos,
                                 command_scope=s.command_scope)
            self._pcf_holder[0] = session
        return session

    def _pcf_reason(self, exc: Exception) -> int:
        return self._pcf().mq_reason(getattr(exc, "reason", MQRC_UNEXPECTED_ERROR))

    def _pcf_error(self, exc: Any, what: str, *, auth: str = "", obj: str = "") -> MQError:
        """An MQError for a failed PCF command (PCF reasons mapped to the protocol's)."""
        reason = self._pcf_reason(exc)
        if reason == MQRC_NO_MSG_AVAILABLE:
            return MQError(MQRC_NO_MSG_AVAILABLE, f"cannot {what}: {self._no_reply()}",
                           completion=exc.comp)
        if reason == MQRC_NOT_AUTHORIZED:
            refused = self._pcf_refused_by()
            if refused is not None:
                user = self.settings.user or "the connecting user"
                need, where = refused
                return MQError(MQRC_NOT_AUTHORIZED, f"cannot {what}: {user} needs {need} on "
                               f"{where}", completion=exc.comp or 2)
        if reason == MQRC_UNKNOWN_OBJECT_NAME and self._pcf().last_stage == "command queue":
            return MQError(reason, f"cannot {what}: {self._pcf_unusable(exc)}",
                           completion=exc.comp or 2)
        return self._error(reason, exc.comp, what, auth=auth, obj=obj)

    def _no_reply(self) -> str:
        wait = self.settings.response_wait_interval / 1000
        return (f"the command server sent no reply within {wait:g} s (is it running? "
                f"strmqcsv {self._name})")

    def _pcf_unusable(self, exc: Any) -> str | None:
        """Why a failed PCF command means PCF cannot be used on this connection — no reply
        in time, a refusal by the queue manager, the command queue or the model queue (not
        by the object), an MQRCCF_* error of the command server itself — or None when the
        failure is the object's own answer (2085, 2035 on the queue, …)."""
        reason = self._pcf_reason(exc)
        if reason == MQRC_NO_MSG_AVAILABLE:
            return self._no_reply()
        session = self._pcf()
        if reason == MQRC_UNKNOWN_OBJECT_NAME and session.last_stage == "command queue":
            return (f"the command queue {session.command_queue} does not exist on "
                    f"{self._name or 'the queue manager'} (name the command server's queue "
                    "with command_queue in the profile: SYSTEM.COMMAND.INPUT on z/OS)")
        if reason == MQRC_NOT_AUTHORIZED:
            refused = self._pcf_refused_by()
            if refused is None:
                return None
            user = self.settings.user or "the connecting user"
            return f"the queue manager refused PCF ({user} needs {refused[0]} on {refused[1]})"
        if 3000 <= reason < 5000:  # MQRCCF_*: the command server could not do it
            return f"the command server answered {reason_name(reason)} ({reason})"
        return None

    def _pcf_refused_by(self) -> tuple[str, str] | None:
        """Which object refused the last PCF command (``PCFSession.refused_by``), or None
        for its own object (and when asking fails)."""
        try:
            return self._pcf().refused_by()
        except (self.lib.MQMIError, self.lib.PYIFError, MQError):
            return None

    def inquire_qmgr(self) -> QMgrInfo:
        """MQINQ on the queue manager; without +inq on it (2035) what the connection knows
        — the configured name — so that no command needs that authority (the dead-letter
        queue's name is then unknown: blank)."""
        try:
            info = self._inquire_qmgr()
        except MQError as exc:
            if exc.reason != MQRC_NOT_AUTHORIZED:
                raise
            log.info("no +inq on the queue manager: using the configured name %r", self._name)
            return QMgrInfo(name=self._name, ccsid=self._ccsid, backend=self.backend,
                            encoding=int(self.lib.CMQC.MQENC_NATIVE),
                            max_uncommitted=self.max_uncommitted)
        if info.platform == "UNIX":  # Linux (546) or AIX (273): ask the queue manager
            info.encoding = self._native_encoding(info.encoding)
        return info

    def _native_encoding(self, guess: int) -> int:
        """The queue manager's Encoding from a ping's reply (once per connection); the
        guess when the command server does not answer."""
        if self._encoding is None and self.pcf_unavailable is not None:
            self._encoding = guess  # no command server to ask
        if self._encoding is None:
            with self._call("ping the queue manager"):
                try:
                    self._encoding = self._pcf().native_encoding()
                except (self.lib.MQMIError, self.lib.PYIFError) as exc:
                    log.info("the queue manager's encoding is not known (%s): %s assumed",
                             exc, guess)
                    self._encoding = guess  # asked once: no second wait for a silent server
                    if getattr(exc, "reason", None) == MQRC_NO_MSG_AVAILABLE:
                        self.pcf_unavailable = self._no_reply()
        return self._encoding

    def list_queues(self, pattern: str = "*") -> list[QueueAttrs]:
        """MQCMD_INQUIRE_Q of ``pattern``; ``*`` (every queue: the console's list, the
        backout-queue marks of ``queue show``, ``doctor``) asks for the profile's ``queues``
        instead (item 7 of issue 14: least authority, no AMQ8245 for the others)."""
        pattern = (pattern or "*").strip()
        patterns = [pattern]
        if pattern == "*":
            patterns = self._profile_queues()
        self.last_listing_note = None
        found: dict[str, QueueAttrs] = {}
        failed: dict[str, int] = {}
        for one in patterns:
            with self._call(f"list queues {one!r}", auth="+dsp", obj=one):
                if self.pcf_unavailable is None:
                    try:
                        listing = self._pcf().list_queues(one)
                    except self.lib.MQMIError as exc:
                        why = self._pcf_unusable(exc)
                        if why is None:
                            raise self._pcf_error(exc, f"list queues {one!r}",
                                                  auth="+dsp", obj=one) from exc
                        self.pcf_unavailable = why
                    else:
                        found.update((q.name, q) for q in listing.queues)
                        failed.update(listing.failed)
                        continue
        if self.pcf_unavailable is not None:
            return self._list_by_mqinq(pattern)
        for name, reason in failed.items():
            log.warning("queue %s left out of the listing: %s", name, MQError(reason))
        self.last_listing_failures = failed
        return sorted(found.values(), key=lambda q: q.name)

    def inquire_queue(self, name: str) -> QueueAttrs:
        with self._call(f"inquire queue {name!r}", auth="+dsp", obj=name):
            if "*" in name or not name.strip():
                raise MQError(MQRC_UNKNOWN_OBJECT_NAME, f"{name!r} is not a queue name")
            if self.pcf_unavailable is not None:
                return self._inquire_by_mqinq(name)
            try:
                return self._pcf().inquire_queue(name)
            except self.lib.MQMIError as exc:
                why = self._pcf_unusable(exc)
                if why is not None:
                    log.info("PCF cannot be used (%s): queues are inquired with MQINQ", why)
                    self.pcf_unavailable = why
                    return self._inquire_by_mqinq(name)
                error = self._pcf_error(exc, f"inquire queue {name!r}", auth="+dsp",
                                        obj=name)
            except MQError as exc:
                error = exc
            if error.reason != MQRC_UNKNOWN_OBJECT_NAME:
                raise error
            resolved = self._resolved_elsewhere(name)
            if resolved is None:
                raise error
            return resolved

    def queue_status(self, name: str) -> QueueStatus:
        with self._call(f"show the status of queue {name!r}", auth="+dsp", obj=name):
            if self.pcf_unavailable == self._no_reply():  # no second wait for a silent
                raise MQError(MQRC_NO_MSG_AVAILABLE, f"cannot show the status of queue "  # server
                              f"{name!r}: {self.pcf_unavailable} (queue status is PCF only)")
            try:
                return self._pcf().queue_status(name)
            except self.lib.MQMIError as exc:
                reason = self._pcf_reason(exc)
                what = f"show the status of queue {name!r}"
                if reason == MQRC_OPTION_NOT_VALID_FOR_TYPE:
                    raise MQError(
                        MQRC_OPTION_NOT_VALID_FOR_TYPE,
                        f"cannot {what}: queue status is kept for local queues only",
                    ) from exc
                raise self._pcf_error(exc, what, auth="+dsp", obj=name) from exc

    def define_queue(self, attrs: QueueAttrs, *, replace: bool = False) -> None:
        name = attrs.name
        if not is_valid_name(name):
            raise MQError(
                MQRC_OBJECT_NAME_ERROR,
                f"{name!r} is not an MQ queue name (1-48 of A-Z a-z 0-9 . / _ %)",
            )
        qtype = QueueType(attrs.type)
        if qtype is QueueType.CLUSTER:
            raise ValueError("a cluster queue is defined on the queue manager that hosts it")
        values = {a: check_attribute(qtype, a, getattr(attrs, a)) for a in TYPE_ATTRIBUTES[qtype]}
        if qtype is QueueType.ALIAS and not values.get("target_q"):
            raise ValueError(f"alias queue {name!r} needs a target queue (target_q)")
        what = f"define queue {name!r}"
        with self._call(what, auth="+crt (and +chg)", obj=name):
            try:
                self._pcf().create_queue(name, qtype, values, replace=replace)
            except self.lib.MQMIError as exc:
                reason = self._pcf_reason(exc)
                if reason == MQRC_OBJECT_ALREADY_EXISTS:
                    raise MQError(
                        MQRC_OBJECT_ALREADY_EXISTS, f"cannot {what}: it already exists"
                    ) from exc
                if reason == MQRC_OBJECT_TYPE_ERROR:
                    raise MQError(
                        MQRC_OBJECT_TYPE_ERROR,
                        f"cannot {what}: it exists as another type of queue, "
                        f"and replace cannot make it a {qtype.value} queue",
                    ) from exc
                raise self._pcf_error(exc, what, auth="+crt (and +chg)", obj=name) from exc

    def change_queue(self, name: str, **changes: object) -> QueueAttrs:
        """MQCMD_CHANGE_Q with name, type, then the changes; returns the new attributes.

        The type comes from an inquiry; a principal with +chg but without +dsp is answered by
        trying the types in turn (the command server refuses a wrong one with 4002), and then
        gets back only what it changed (the rest of the returned attributes are defaults).
        """
        unknown = sorted(set(changes) - CHANGEABLE)
        if unknown:
            raise MQError(
                MQRC_SELECTOR_ERROR,
                f"not queue attributes: {', '.join(unknown)} (known: "
                f"{', '.join(sorted(CHANGEABLE))})",
            )
        what = f"change queue {name!r}"
        with self._call(what, auth="+chg", obj=name):
            pcf = self._pcf()
            try:
                current: QueueAttrs | None = pcf.inquire_queue(name)
            except self.lib.MQMIError as exc:
                if self._pcf_reason(exc) != MQRC_NOT_AUTHORIZED:
                    raise self._pcf_error(exc, what, auth="+chg",
                                      obj=name) from exc
                current = None
            except MQError as exc:
                if exc.reason != MQRC_NOT_AUTHORIZED:
                    raise
                current = None
            if current is not None:
                values = {k: check_attribute(current.type, k, v) for k, v in changes.items()}
                if values:
                    self._change(pcf, name, current.type, values, what)
                return pcf.inquire_queue(name)
            return self._change_blind(pcf, name, changes, what)

    def _change(self, pcf: PCFSession, name: str, qtype: QueueType, values: dict[str, object],
                what: str) -> None:
        try:
            pcf.change_queue(name, qtype, values)
        except self.lib.MQMIError as exc:
            raise self._pcf_error(exc, what, auth="+chg",
                              obj=name) from exc

    def _change_blind(self, pcf: PCFSession, name: str, changes: Mapping[str, object],
                      what: str) -> QueueAttrs:
        """CHANGE_Q without +dsp: try each queue type the changes fit."""
        first_error: Exception | None = None
        for qtype in (QueueType.LOCAL, QueueType.ALIAS, QueueType.REMOTE, QueueType.MODEL):
            try:
                values = {k: check_attribute(qtype, k, v) for k, v in changes.items()}
            except (MQError, ValueError) as exc:
                first_error = first_error or exc
                continue
            try:
                pcf.change_queue(name, qtype, values)
            except self.lib.MQMIError as exc:
                if (
                    self._pcf_reason(exc) == MQRC_OBJECT_TYPE_ERROR
                ):  # MQRCCF_OBJECT_WRONG_TYPE: not this type
                    continue
                raise self._pcf_error(exc, what, auth="+chg",
                                  obj=name) from exc
            try:
                return pcf.inquire_queue(name)
            except (self.lib.MQMIError, MQError):
                out = QueueAttrs(name=name, type=qtype, depth=None)
                for k, v in values.items():
                    setattr(out, k, v)
                return out
        if first_error is not None:
            raise first_error
        raise MQError(
            MQRC_UNKNOWN_OBJECT_NAME, f"cannot {what}: no queue of a type these changes fit"
        )

    def delete_queue(self, name: str) -> None:
        what = f"delete queue {name!r}"
        with self._call(what, auth="+dlt (and +chg)", obj=name):
            try:
                self._pcf().delete_queue(name)
            except self.lib.MQMIError as exc:
                reason = self._pcf_reason(exc)
                if reason == MQRC_Q_NOT_EMPTY:
                    raise MQError(
                        MQRC_Q_NOT_EMPTY,
                        f"cannot {what}: it holds messages (uncommitted ones included)",
                    ) from exc
                if reason == MQRC_OBJECT_IN_USE:
                    raise MQError(MQRC_OBJECT_IN_USE, f"cannot {what}: it is open") from exc
                raise self._pcf_error(exc, what, auth="+dlt (and +chg)", obj=name) from exc

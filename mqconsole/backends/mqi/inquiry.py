"""Queues and the queue manager asked without the command server: MQOPEN MQOO_INQUIRE and
MQINQ on the object itself (``+inq``), as IBM's own tools do; a listing names the
profile's ``queues:``; a name defined elsewhere resolved by MQOPEN for output."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import (
    QMgrInfo,
    QueueAttrs,
    QueueType,
    Usage,
)
from mqconsole.mq.reasons import (
    MQRC_NOT_AUTHORIZED,
    MQRC_OBJECT_TYPE_ERROR,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR,
)

from ._structs import name_bytes
from .calls import Calls
from .settings import MAX_MSG_LENGTH

log = logging.getLogger(__name__)

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"  # Multiplatforms
ZOS_COMMAND_QUEUE = "SYSTEM.COMMAND.INPUT"  # z/OS (SYSTEM.ADMIN.COMMAND.QUEUE may alias it)
PLATFORM_NAMES = ("UNIX", "ZOS", "WINDOWS_NT", "OS400", "NSK", "APPLIANCE", "WINDOWS",
                  "VMS", "OS2", "VSE", "TPF", "OPEN_TP1", "VM")


class Inquiry(Calls):
    """MQINQ on the queue manager and on queues."""

    def _platform(self, code: int) -> str:
        for short in PLATFORM_NAMES:
            if getattr(self.lib.CMQC, f"MQPL_{short}", None) == code:
                return short
        return str(code)

    def _command_server(self) -> tuple[str, bool]:
        """The command queue PCF requests go to, and whether the queue manager is z/OS (its
        PCF differs: ``pcf.PCFSession``). The profile's ``command_queue``, else the queue
        manager's MQCA_COMMAND_INPUT_Q_NAME (MQINQ, +inq on it): SYSTEM.COMMAND.INPUT on
        z/OS, SYSTEM.ADMIN.COMMAND.QUEUE elsewhere (IBM MQ, "PCF command messages"), which
        are also what is used when MQINQ is refused — the platform then read from the name."""
        C, named = self.lib.CMQC, self.settings.command_queue
        platform, inquired = self.platform, None
        try:
            with self._call("inquire the queue manager's command queue", auth="+inq",
                            obj=self._name or "the queue manager"):
                if platform is None:
                    platform = self._platform(int(self._qmgr.inquire(C.MQIA_PLATFORM)))
                if not named:
                    raw = self._qmgr.inquire(C.MQCA_COMMAND_INPUT_Q_NAME)
                    inquired = bytes(raw).strip(b" \x00").decode("latin-1") or None
        except MQError as exc:
            log.info("the command queue is not inquired (%s): %s", exc,
                     named or "the platform's default")
        zos = platform == "ZOS" if platform is not None else named == ZOS_COMMAND_QUEUE
        return named or inquired or (ZOS_COMMAND_QUEUE if zos else COMMAND_QUEUE), zos

    def _inquire_qmgr(self) -> QMgrInfo:
        with self._call("inquire the queue manager", auth="+inq",
                        obj=self._name or "the queue manager"):
            C = self.lib.CMQC
            q = self._qmgr

            def text(selector: int) -> str:
                v = q.inquire(selector)
                return v.strip(b" \x00").decode("latin-1") if isinstance(v, bytes) else str(v)

            name = text(C.MQCA_Q_MGR_NAME)
            platform = self._platform(int(q.inquire(C.MQIA_PLATFORM)))
            info = QMgrInfo(
                name=name, dead_letter_queue=text(C.MQCA_DEAD_LETTER_Q_NAME),
                platform=platform, command_level=int(q.inquire(C.MQIA_COMMAND_LEVEL)),
                ccsid=int(q.inquire(C.MQIA_CODED_CHAR_SET_ID)),
                # MQINQ has no encoding: z/OS is 785; UNIX is asked by inquire_qmgr (AIX
                # is 273); elsewhere this client's native one
                encoding=785 if platform == "ZOS" else int(C.MQENC_NATIVE),
                description=text(C.MQCA_Q_MGR_DESC), backend=self.backend,
                max_uncommitted=int(q.inquire(C.MQIA_MAX_UNCOMMITTED_MSGS)))
            return info

    def _profile_queues(self) -> list[str]:
        """The profile's ``queues``: generic names and queue names, comma-separated."""
        return [p.strip() for p in (self.settings.queues or "*").split(",") if p.strip()] \
            or ["*"]

    def _list_by_mqinq(self, pattern: str) -> list[QueueAttrs]:
        """A listing without the command server: MQ has no MQI call that lists queues, so
        the queues are the profile's ``queues`` names that ``pattern`` matches, each asked
        with MQINQ; ``last_listing_note`` says so in one line."""
        import fnmatch

        names = [n for n in self._profile_queues() if "*" not in n and
                 fnmatch.fnmatchcase(n, pattern)]
        out, failed = [], {}
        for name in names:
            try:
                out.append(self._inquire_by_mqinq(name))
            except MQError as exc:
                failed[name] = exc.reason
        self.last_listing_failures = failed
        if names:
            self.last_listing_note = (f"{self.pcf_unavailable}: listing the profile's queues "
                                      f"({', '.join(names)}) with MQINQ instead")
        else:
            self.last_listing_note = (f"{self.pcf_unavailable}: no queues listed — without "
                                      "the command server only the queues the profile "
                                      "names in queues: (not generic names) can be listed")
        return sorted(out, key=lambda q: q.name)

    def _inquire_by_mqinq(self, name: str) -> QueueAttrs:
        """A queue's attributes without the command server: MQOPEN MQOO_INQUIRE and MQINQ on
        the queue itself (+inq on it), as IBM's own tools do when no command server answers.
        What MQINQ has no selector for (creation and alteration times) stays unset."""
        C = self.lib.CMQC
        od = self.lib.module.OD(ObjectName=name_bytes(name))
        what = f"inquire queue {name!r}"
        try:
            handle = self.lib.module.Queue(self._qmgr, od,
                                           C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
        except self.lib.MQMIError as exc:
            if exc.reason == MQRC_UNKNOWN_OBJECT_NAME:
                resolved = self._resolved_elsewhere(name)
                if resolved is not None:
                    return resolved
            user = self.settings.user or "the connecting user"
            if exc.reason == MQRC_NOT_AUTHORIZED:
                raise MQError(MQRC_NOT_AUTHORIZED, f"cannot {what}: {self.pcf_unavailable}, "
                              f"and without PCF {user} needs +inq on {name!r} to inquire it "
                              "with MQINQ", completion=exc.comp) from exc
            raise self._error(exc.reason, exc.comp, what, auth="+inq", obj=name) from exc
        opened = bytes(getattr(od, "ObjectName", b"") or b"").strip(b" \x00")
        if opened and opened != name_bytes(name):  # a model queue: MQOPEN made a queue of it
            with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
                handle.close(C.MQCO_DELETE_PURGE)
            return QueueAttrs(name=name, type=QueueType.MODEL, depth=None)
        try:
            return self._mqinq_attrs(handle, name)
        except self.lib.MQMIError as exc:
            raise self._error(exc.reason, exc.comp, what, auth="+inq", obj=name) from exc
        finally:
            with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
                handle.close()

    def _mqinq_attrs(self, handle: Any, name: str) -> QueueAttrs:
        C = self.lib.CMQC

        def value(selector: str) -> Any:
            v = handle.inquire(getattr(C, selector))
            if isinstance(v, bytes):
                return v.strip(b" \x00").decode("utf-8", "replace")
            return int(v)

        code = value("MQIA_Q_TYPE")
        qtype = {C.MQQT_LOCAL: QueueType.LOCAL, C.MQQT_ALIAS: QueueType.ALIAS,
                 C.MQQT_REMOTE: QueueType.REMOTE, C.MQQT_MODEL: QueueType.MODEL}.get(code)
        if qtype is None:
            raise MQError(MQRC_OBJECT_TYPE_ERROR, f"{name!r} is not a queue mqconsole knows "
                          f"(MQIA_Q_TYPE {code})")
        out = QueueAttrs(name=name, type=qtype, depth=None)
        selectors = {"description": "MQCA_Q_DESC", "default_persistence": "MQIA_DEF_PERSISTENCE",
                     "default_priority": "MQIA_DEF_PRIORITY"}
        if qtype in (QueueType.LOCAL, QueueType.ALIAS):
            selectors.update(put_inhibited="MQIA_INHIBIT_PUT", get_inhibited="MQIA_INHIBIT_GET")
        if qtype is QueueType.LOCAL:
            selectors.update(max_depth="MQIA_MAX_Q_DEPTH", max_msg_length="MQIA_MAX_MSG_LENGTH",
                             bothresh="MQIA_BACKOUT_THRESHOLD", boqname="MQCA_BACKOUT_REQ_Q_NAME",
                             hardenbo="MQIA_HARDEN_GET_BACKOUT", usage="MQIA_USAGE")
        elif qtype is QueueType.ALIAS:
            selectors.update(target_q="MQCA_BASE_Q_NAME")
        elif qtype is QueueType.REMOTE:
            selectors.update(remote_q_name="MQCA_REMOTE_Q_NAME",
                             remote_qmgr_name="MQCA_REMOTE_Q_MGR_NAME",
                             xmit_q="MQCA_XMIT_Q_NAME")
        for attr, selector in selectors.items():
            v = value(selector)
            if attr in ("put_inhibited", "get_inhibited"):
                v = v in (C.MQQA_PUT_INHIBITED, C.MQQA_GET_INHIBITED)
            elif attr == "hardenbo":
                v = v == C.MQQA_BACKOUT_HARDENED
            elif attr == "usage":
                v = Usage.XMITQ if v == C.MQUS_TRANSMISSION else Usage.NORMAL
            setattr(out, attr, v)
        if qtype is QueueType.LOCAL:
            out.depth = value("MQIA_CURRENT_Q_DEPTH")
        return out

    def _resolved_elsewhere(self, name: str) -> QueueAttrs | None:
        """A name this queue manager does not define may still be a destination: a cluster
        queue hosted elsewhere. MQOPEN for output decides, as a put would (MQOPEN resolves
        the name through the cluster); None when it does not resolve (2085, 2087)."""
        C = self.lib.CMQC
        od = self.lib.module.OD(ObjectName=name_bytes(name))
        try:
            handle = self.lib.module.Queue(self._qmgr, od,
                                           C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
        except self.lib.MQMIError as exc:
            if exc.reason in (
                MQRC_UNKNOWN_OBJECT_NAME,
                MQRC_UNKNOWN_REMOTE_Q_MGR,
                MQRC_UNKNOWN_ALIAS_BASE_Q,
            ):
                return None
            raise self._error(exc.reason, exc.comp, f"open {name!r} to put to it",
                              auth="+put", obj=name) from exc
        with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
            handle.close()
        return QueueAttrs(name=name, type=QueueType.CLUSTER, depth=None,
                          max_msg_length=MAX_MSG_LENGTH,
                          description="not defined here: the queue manager resolves it "
                                      "(a cluster queue hosted elsewhere)")

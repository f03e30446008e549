"""PCF: queue administration through the command server (MQCMD_INQUIRE_Q and friends).

mqconsole sends its own PCF requests (``PCFSession.command``) instead of the libraries'
``PCFExecute``, whose request MQMD carries MQCCSI_Q_MGR — for a client the client's CCSID,
which mqconsole cannot know, so no string could be labelled truthfully. A request's MQMD says
CCSID 1208 and every string in it MQCCSI_DEFAULT; replies are got with MQGMO_CONVERT (a
big-endian queue manager's — AIX, z/OS — are converted by MQGET) into 1208 and the native
encoding, read until MQCFC_LAST, z/OS's MQCFT_XR_MSG/XR_SUMMARY skipped.

z/OS differs (``zos=True``): requests are MQCFT_COMMAND_XR with an MQCFH of version 3 (IBM MQ,
3003 MQRCCF_CFH_VERSION_ERROR: "z/OS requires MQCFH_VERSION_3"; "PCF responses": MQCFT_COMMAND
is supported on all platforms except z/OS), may carry a command scope
(MQCACF_COMMAND_SCOPE), and are answered with extended responses in one or more sets, each
ending with a message whose Control is MQCFC_LAST; a response may announce further sets
(MQBACF_RESPONSE_SET), and the answer is complete when every announced set has ended (IBM
MQ, "Extended responses"). Every string of a
reply is stripped of blanks and NULs (rule 6: MQ pads them to their full length), and
replies without ``MQCA_Q_NAME`` are dropped where queues are expected (rule 6). Error
replies among good ones are kept, so one damaged queue never aborts a listing.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueAttrs, QueueStatus, QueueType, Usage
from mqconsole.mq.reasons import (
    MQRC_NOT_AUTHORIZED,
    MQRC_OBJECT_ALREADY_EXISTS,
    MQRC_OBJECT_IN_USE,
    MQRC_OBJECT_NAME_ERROR,
    MQRC_OBJECT_TYPE_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_UNKNOWN_OBJECT_NAME,
)

from .shim import MQLibrary

log = logging.getLogger(__name__)

PCF_CCSID = 1208  # a PCF request's MQMD (its strings say MQCCSI_DEFAULT: UTF-8)
REPLY_BUFFER = 1024 * 1024  # one PCF reply (one object) is far smaller
_CFH = struct.Struct("=9i")  # MQCFH as MQGMO_CONVERT hands it: the native encoding
_CFH_CODES = struct.Struct("=2i")
# QueueAttrs field → (MQ selector name, kind). Kinds: int, text, and the flag tables below.
ATTRIBUTES: dict[str, tuple[str, str]] = {
    "max_depth": ("MQIA_MAX_Q_DEPTH", "int"),
    "max_msg_length": ("MQIA_MAX_MSG_LENGTH", "int"),
    "put_inhibited": ("MQIA_INHIBIT_PUT", "put"),
    "get_inhibited": ("MQIA_INHIBIT_GET", "get"),
    "bothresh": ("MQIA_BACKOUT_THRESHOLD", "int"),
    "boqname": ("MQCA_BACKOUT_REQ_Q_NAME", "text"),
    "hardenbo": ("MQIA_HARDEN_GET_BACKOUT", "harden"),
    "description": ("MQCA_Q_DESC", "text"),
    "usage": ("MQIA_USAGE", "usage"),
    "default_persistence": ("MQIA_DEF_PERSISTENCE", "int"),
    "default_priority": ("MQIA_DEF_PRIORITY", "int"),
    "target_q": ("MQCA_BASE_Q_NAME", "text"),
    "remote_q_name": ("MQCA_REMOTE_Q_NAME", "text"),
    "remote_qmgr_name": ("MQCA_REMOTE_Q_MGR_NAME", "text"),
    "xmit_q": ("MQCA_XMIT_Q_NAME", "text"),
}
_FLAGS = {
    "put": ("MQQA_PUT_ALLOWED", "MQQA_PUT_INHIBITED"),
    "get": ("MQQA_GET_ALLOWED", "MQQA_GET_INHIBITED"),
    "harden": ("MQQA_BACKOUT_NOT_HARDENED", "MQQA_BACKOUT_HARDENED"),
}
_TYPES = {QueueType.LOCAL: "MQQT_LOCAL", QueueType.MODEL: "MQQT_MODEL",
          QueueType.ALIAS: "MQQT_ALIAS", QueueType.REMOTE: "MQQT_REMOTE"}
_EXTRA_ATTRS = ("MQCA_Q_NAME", "MQIA_Q_TYPE", "MQIA_CURRENT_Q_DEPTH", "MQCA_CREATION_DATE",
                "MQCA_CREATION_TIME", "MQCA_ALTERATION_DATE", "MQCA_ALTERATION_TIME")
# PCF reasons that mean what the protocol says with an MQRC (docs/backends.md).
PCF_REASONS = {
    "MQRCCF_OBJECT_ALREADY_EXISTS": MQRC_OBJECT_ALREADY_EXISTS,
    "MQRCCF_OBJECT_WRONG_TYPE": MQRC_OBJECT_TYPE_ERROR,
    "MQRCCF_OBJECT_OPEN": MQRC_OBJECT_IN_USE,
    "MQRCCF_Q_WRONG_TYPE": MQRC_OPTION_NOT_VALID_FOR_TYPE,
    "MQRCCF_UNKNOWN_OBJECT_NAME": MQRC_UNKNOWN_OBJECT_NAME,
    "MQRCCF_OBJECT_NAME_ERROR": MQRC_OBJECT_NAME_ERROR,
}


def const(lib: MQLibrary, name: str) -> int:
    """An MQ constant from the library that loaded (CMQC, then CMQCFC, then CMQXC)."""
    for mod in (lib.CMQC, lib.CMQCFC, lib.CMQXC):
        if hasattr(mod, name):
            return int(getattr(mod, name))
    raise AttributeError(f"{lib.name} defines no {name}")


def clean(value: Any) -> Any:
    """Strip MQ's padding from PCF strings (rule 6) and make them text."""
    if isinstance(value, bytes):
        raw = value.strip(b" \x00")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("latin-1")
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    return value


@dataclass
class Reply:
    """One PCF response: its parameters (cleaned) and the MQCFH CompCode/Reason."""

    params: dict[int, Any]
    comp: int = 0
    reason: int = 0


@dataclass
class Listing:
    """Queues of a generic inquiry, and the ones that failed (name → reason)."""

    queues: list[QueueAttrs] = field(default_factory=list)
    failed: dict[str, int] = field(default_factory=dict)


class PCFSession:
    """Commands to one queue manager's command server over one connection."""

    def __init__(self, lib: MQLibrary, qmgr: Any, *, response_wait_interval: int = 5000,
                 model_queue: str = "SYSTEM.DEFAULT.MODEL.QUEUE",
                 dynamic_queue: str = "MQCONSOLE.*",
                 command_queue: str = "SYSTEM.ADMIN.COMMAND.QUEUE", zos: bool = False,
                 command_scope: str | None = None) -> None:
        self._lib = lib
        self._qmgr = qmgr
        self._wait = response_wait_interval
        self._model = model_queue
        self._dynamic = dynamic_queue
        self._command = command_queue
        self.zos = zos
        self._scope = command_scope if zos else None
        self._reply: tuple[Any, bytes] | None = None
        #: "reply queue" when the last command failed opening its reply queue (the model
        #: queue), "command queue" when the command queue does not exist, else "request"
        #: (the command queue refused it, or the command server)
        self.last_stage = ""

    # -- plumbing ----------------------------------------------------------------------
    def reply_queue(self) -> tuple[Any, bytes]:
        """The dynamic queue replies come on (MQOPEN of the model queue), opened once."""
        if self._reply is None:
            m, C = self._lib.module, self._lib.CMQC
            od = m.OD(ObjectName=self._model.encode("ascii"),
                      DynamicQName=self._dynamic.encode("ascii"))
            queue = m.Queue(self._qmgr, od,
                            C.MQOO_INPUT_EXCLUSIVE | C.MQOO_FAIL_IF_QUIESCING)
            self._reply = (queue, bytes(od.ObjectName))
        return self._reply

    @property
    def command_queue(self) -> str:
        return self._command

    def close(self) -> None:
        """Close the reply queue with MQCO_DELETE_PURGE: a model of DEFTYPE(PERMDYN) would
        otherwise leave a permanent dynamic queue behind (MQDISC is ours)."""
        if self._reply is not None:
            (queue, _), self._reply = self._reply, None
            try:
                queue.close(self._lib.CMQC.MQCO_DELETE_PURGE)
            except Exception:  # the connection may already be gone
                log.debug("closing the PCF reply queue failed", exc_info=True)

    def k(self, name: str) -> int:
        return const(self._lib, name)

    def text(self, value: str) -> bytes:
        """A PCF string's bytes: UTF-8, the CCSID the request's MQMD says (``command``)."""
        return value.encode("utf-8", errors="replace")

    def parameters(self, params: Mapping[int, Any]) -> list[Any]:
        """The request's parameters as PCF structures, in order. Every string is labelled
        MQCCSI_DEFAULT: it is in the CCSID of the request's MQMD, which says 1208 (its bytes
        are UTF-8). A string labelled with another CCSID than the queue manager's is
        answered 3049 (MQRCCF_CCSID_ERROR) when the message is not converted — bindings, or
        a client of the queue manager's own CCSID (IBM MQ, MQCFST CodedCharSetId)."""
        m = self._lib.module
        default = self._lib.CMQC.MQCCSI_DEFAULT
        out: list[Any] = []
        for key, value in params.items():
            if isinstance(value, bytes):
                out.append(m.CFST(Parameter=key, String=value, CodedCharSetId=default))
            elif isinstance(value, list) and value and isinstance(value[0], bytes):
                out.append(m.CFSL(Parameter=key, Strings=value, CodedCharSetId=default))
            elif isinstance(value, list):
                out.append(m.CFIL(Parameter=key, Values=[int(v) for v in value]))
            else:
                out.append(m.CFIN(Parameter=key, Value=int(value)))
        return out

    def native_encoding(self) -> int:
        """The queue manager's own Encoding: MQCMD_PING_Q_MGR, its reply got without
        MQGMO_CONVERT, whose MD the command server filled in (MQINQ has no encoding, and
        MQPL_UNIX covers Linux, 546, as well as AIX, 273). Raises the library's MQMIError
        (2033: no reply in time)."""
        lib, m = self._lib, self._lib.module
        C, F = lib.CMQC, lib.CMQCFC
        od = m.OD(ObjectName=self._model.encode("ascii"),
                  DynamicQName=self._dynamic.encode("ascii"))
        reply = m.Queue(self._qmgr, od, C.MQOO_INPUT_EXCLUSIVE | C.MQOO_FAIL_IF_QUIESCING)
        try:
            cfh = m.CFH(Version=F.MQCFH_VERSION_1, Type=F.MQCFT_COMMAND,
                        Command=F.MQCMD_PING_Q_MGR, ParameterCount=0)
            md = m.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST,
                      ReplyToQ=bytes(od.ObjectName), Expiry=max(1, self._wait // 100 * 3),
                      Report=C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG)
            self._qmgr.put1(m.OD(ObjectName=self._command.encode("ascii")), cfh.pack(), md,
                            m.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING))
            got = m.MD(CorrelId=bytes(md.MsgId))
            g = m.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_FAIL_IF_QUIESCING,
                      WaitInterval=self._wait, MatchOptions=C.MQMO_MATCH_CORREL_ID)
            g.Version = max(int(g.Version), C.MQGMO_VERSION_2)
            reply.get(64 * 1024, got, g)
            return int(got.Encoding)
        finally:
            try:  # MQCO_DELETE_PURGE: a DEFTYPE(PERMDYN) model's queue would stay for good
                reply.close(C.MQCO_DELETE_PURGE)
            except Exception:  # the connection may be gone
                log.debug("closing the ping's reply queue failed", exc_info=True)

    def mq_reason(self, pcf_reason: int) -> int:
        """The protocol's MQRC for a PCF-only reason (4001 → 2100, …); others unchanged."""
        for name, rc in PCF_REASONS.items():
            if hasattr(self._lib.CMQCFC, name) and pcf_reason == getattr(self._lib.CMQCFC, name):
                return rc
        return pcf_reason

    def command(self, command: str, params: Mapping[int, Any]) -> list[Reply]:
        """``raw_command`` with every string of the replies cleaned (rule 6)."""
        return [Reply(clean(r.params), r.comp, r.reason)
                for r in self.raw_command(command, params)]

    def raw_command(self, command: str, params: Mapping[int, Any]) -> list[Reply]:
        """Send ``MQCMD_…`` with ``params`` (in order) and return every reply as MQ sent it.

        The request is mqconsole's own (not the libraries' PCFExecute, whose MQMD carries
        MQCCSI_Q_MGR, the client's CCSID, which mqconsole cannot know): MQPUT1 to the command
        queue of an MQADMIN message whose MQMD says CCSID 1208 and the native encoding;
        replies are got from the reply queue by CorrelId with MQGMO_CONVERT into 1208 and
        the native encoding, until the one whose MQCFH Control is MQCFC_LAST. Raises the
        library's MQMIError for an MQI failure (2033: no reply in time — is the command
        server running?) and for an error reply when no good one came; error replies among
        good ones are returned (``Reply.comp`` != 0).
        """
        lib, m = self._lib, self._lib.module
        C, F = lib.CMQC, lib.CMQCFC
        self.last_stage = "reply queue"
        reply_q, reply_name = self.reply_queue()
        self.last_stage = "request"
        if self._scope:  # optional parameters follow the required ones
            params = {**params, self.k("MQCACF_COMMAND_SCOPE"): self.text(self._scope)}
        args = self.parameters(params)
        cfh = m.CFH(Version=F.MQCFH_VERSION_3 if self.zos else F.MQCFH_VERSION_1,
                    Type=F.MQCFT_COMMAND_XR if self.zos else F.MQCFT_COMMAND,
                    Command=self.k(command), ParameterCount=len(args))
        body = cfh.pack() + b"".join(a.pack() for a in args)
        md = m.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=reply_name,
                  CodedCharSetId=PCF_CCSID, Encoding=C.MQENC_NATIVE,
                  Expiry=max(1, self._wait // 100 * 3),
                  Report=C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG)
        try:
            self._qmgr.put1(m.OD(ObjectName=self._command.encode("ascii")), body, md,
                            m.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING))
        except lib.MQMIError as exc:
            if exc.reason == MQRC_UNKNOWN_OBJECT_NAME:
                self.last_stage = "command queue"  # 2085 for the command queue itself
            raise
        replies: list[Reply] = []
        announced: set[bytes] = set()  # z/OS: response sets announced, and those ended
        ended: set[bytes] = set()
        while True:
            got = m.MD(CorrelId=bytes(md.MsgId), CodedCharSetId=PCF_CCSID,
                       Encoding=C.MQENC_NATIVE)
            g = m.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_CONVERT |
                      C.MQGMO_FAIL_IF_QUIESCING, WaitInterval=self._wait,
                      MatchOptions=C.MQMO_MATCH_CORREL_ID)
            g.Version = max(int(g.Version), C.MQGMO_VERSION_2)
            data = reply_q.get(REPLY_BUFFER, got, g)
            kind, control, comp, reason = (_CFH.unpack_from(data, 0)[i] for i in (0, 5, 6, 7))
            if kind not in (F.MQCFT_XR_MSG, F.MQCFT_XR_SUMMARY):  # z/OS: not answers
                # the libraries' unpack refuses an error reply: read its parameters with
                # CompCode and Reason cleared
                ok = data[:24] + _CFH_CODES.pack(0, 0) + data[32:]
                res, _ = m.PCFExecute.unpack(ok)
                replies.append(Reply(res, int(comp), int(reason)))
            if self.zos:
                announced.update(byte_strings(data, F.MQCFT_BYTE_STRING, self.k(
                    "MQBACF_RESPONSE_SET")))
            if control != F.MQCFC_LAST:
                continue
            if not self.zos:
                break
            ended.update(byte_strings(data, F.MQCFT_BYTE_STRING,
                                      self.k("MQBACF_RESPONSE_ID"))[:1] or [b""])
            if announced <= ended:
                break
        errors = [r for r in replies if r.comp]
        if errors and not any(r.comp == 0 for r in replies):
            raise lib.MQMIError(errors[0].comp, errors[0].reason)
        return replies

    def refused_by(self) -> tuple[str, str] | None:
        """After a command answered 2035: the authority and the object MQ refused when it
        was not the command's own object — the model queue of the reply queue, the command
        queue, or the queue manager object (every PCF command needs +connect and +dsp on
        it: IBM, "Authorizations for PCF commands"); None when it was the object's own.
        A refused request and a refusing reply look alike (an error reply may carry no
        parameters, and the libraries then keep nothing of it): the command queue is opened
        for output to tell them apart, and the command server asked once more
        (MQCMD_INQUIRE_Q_MGR, which needs nothing besides) to tell the queue manager from
        the object."""
        if self.last_stage == "reply queue":
            return "+dsp and +get", f"the model queue {self._model} (PCF replies come on a " \
                "dynamic queue made from it)"
        C = self._lib.CMQC
        od = self._lib.module.OD(ObjectName=self._command.encode("ascii"))
        try:
            self._lib.module.Queue(self._qmgr, od, C.MQOO_OUTPUT).close()
        except self._lib.MQMIError as exc:
            if exc.reason == MQRC_NOT_AUTHORIZED:
                return "+put", f"the command queue {self._command}"
        try:
            self.command("MQCMD_INQUIRE_Q_MGR", {})
        except self._lib.MQMIError as exc:
            if exc.reason == MQRC_NOT_AUTHORIZED:
                return "+dsp", "the queue manager object (every PCF command needs +connect " \
                    "and +dsp on it)"
        return None

    # -- queues ------------------------------------------------------------------------
    def _attr_selectors(self) -> list[int]:
        out = [self.k(n) for n in _EXTRA_ATTRS]
        out += [self.k(sel) for sel, _ in ATTRIBUTES.values()]
        return out

    def queue_type(self, code: int) -> QueueType | None:
        for qtype, name in _TYPES.items():
            if code == self.k(name):
                return qtype
        return None

    def attrs_from(self, params: Mapping[int, Any]) -> QueueAttrs | None:
        """QueueAttrs from an INQUIRE_Q reply; None for a reply that is not a queue of a
        type mqconsole knows (cluster queues, z/OS extra replies)."""
        name = params.get(self.k("MQCA_Q_NAME"))
        qtype = self.queue_type(params.get(self.k("MQIA_Q_TYPE"), -1))
        if not name or qtype is None:
            return None
        attrs = QueueAttrs(name=name, type=qtype)
        for attr, (sel, kind) in ATTRIBUTES.items():
            key = self.k(sel)
            if key not in params:
                continue
            value = params[key]
            if kind in _FLAGS:
                value = value == self.k(_FLAGS[kind][1])
            elif kind == "usage":
                value = Usage.XMITQ if value == self.k("MQUS_TRANSMISSION") else Usage.NORMAL
            setattr(attrs, attr, value)
        attrs.depth = params.get(self.k("MQIA_CURRENT_Q_DEPTH"), 0) \
            if qtype is QueueType.LOCAL else None
        attrs.create_time = mq_datetime(params.get(self.k("MQCA_CREATION_DATE")),
                                        params.get(self.k("MQCA_CREATION_TIME")))
        attrs.alter_time = mq_datetime(params.get(self.k("MQCA_ALTERATION_DATE")),
                                       params.get(self.k("MQCA_ALTERATION_TIME")))
        return attrs

    def inquire_q(self, name: str) -> list[Reply]:
        # MQCA_Q_NAME first: distributed queue managers want required parameters in order
        return self.command("MQCMD_INQUIRE_Q", {
            self.k("MQCA_Q_NAME"): self.text(name),
            self.k("MQIACF_Q_ATTRS"): self._attr_selectors(),
        })

    def list_queues(self, pattern: str) -> Listing:
        out = Listing()
        try:
            replies = self.inquire_q(pattern)
        except self._lib.MQMIError as exc:
            reason = self.mq_reason(exc.reason)
            if (reason == MQRC_UNKNOWN_OBJECT_NAME and self.last_stage != "command queue") or (
                reason == MQRC_NOT_AUTHORIZED and "*" not in pattern
                and self.refused_by() is None
            ):
                return out  # nothing matches, or nothing the user may see (as generic names)
            raise
        self._collect(replies, out)
        out.queues.sort(key=lambda q: q.name)
        return out

    def _collect(self, replies: Iterable[Reply], out: Listing) -> None:
        qname = self.k("MQCA_Q_NAME")
        for r in replies:
            if qname not in r.params:
                continue  # z/OS extra replies (rule 6)
            if r.comp:
                out.failed[str(r.params[qname])] = self.mq_reason(r.reason)
                continue
            attrs = self.attrs_from(r.params)
            if attrs is not None:
                out.queues.append(attrs)

    def inquire_queue(self, name: str) -> QueueAttrs:
        listing = Listing()
        self._collect(self.inquire_q(name), listing)
        for q in listing.queues:
            if q.name == name:
                return q
        if name in listing.failed:
            raise MQError(listing.failed[name], f"cannot inquire queue {name!r}")
        raise MQError(MQRC_UNKNOWN_OBJECT_NAME, f"queue {name!r} does not exist")

    def value(self, attr: str, value: Any) -> tuple[int, Any]:
        sel, kind = ATTRIBUTES[attr]
        if kind in _FLAGS:
            return self.k(sel), self.k(_FLAGS[kind][1 if value else 0])
        if kind == "usage":
            return self.k(sel), self.k("MQUS_TRANSMISSION" if Usage(value) is Usage.XMITQ
                                       else "MQUS_NORMAL")
        if kind == "text":
            return self.k(sel), self.text(str(value))
        return self.k(sel), int(value)

    def _object(self, name: str, qtype: QueueType) -> dict[int, Any]:
        # the queue name, then its type: the order the command server requires
        return {self.k("MQCA_Q_NAME"): self.text(name),
                self.k("MQIA_Q_TYPE"): self.k(_TYPES[qtype])}

    def create_queue(self, name: str, qtype: QueueType, values: Mapping[str, Any], *,
                     replace: bool) -> None:
        params = self._object(name, qtype)
        for attr, v in values.items():
            key, val = self.value(attr, v)
            params[key] = val
        if replace:
            params[self.k("MQIACF_REPLACE")] = self.k("MQRP_YES")
        self.command("MQCMD_CREATE_Q", params)

    def change_queue(self, name: str, qtype: QueueType, values: Mapping[str, Any]) -> None:
        params = self._object(name, qtype)
        for attr, v in values.items():
            key, val = self.value(attr, v)
            params[key] = val
        self.command("MQCMD_CHANGE_Q", params)

    def delete_queue(self, name: str) -> None:
        self.command("MQCMD_DELETE_Q", {self.k("MQCA_Q_NAME"): self.text(name)})

    def queue_status(self, name: str) -> QueueStatus:
        qname = self.k("MQCA_Q_NAME")
        status = self.command("MQCMD_INQUIRE_Q_STATUS", {
            qname: self.text(name),
            self.k("MQIACF_Q_STATUS_TYPE"): self.k("MQIACF_Q_STATUS"),
        })
        mine = [r.params for r in status if r.params.get(qname) == name and not r.comp]
        if not mine:
            raise MQError(MQRC_UNKNOWN_OBJECT_NAME, f"no status for queue {name!r}")
        p = mine[0]
        depth = int(p.get(self.k("MQIA_CURRENT_Q_DEPTH"), 0))
        age = p.get(self.k("MQIACF_OLDEST_MSG_AGE"))
        out = QueueStatus(
            name=name, depth=depth,
            open_input_count=int(p.get(self.k("MQIA_OPEN_INPUT_COUNT"), 0)),
            open_output_count=int(p.get(self.k("MQIA_OPEN_OUTPUT_COUNT"), 0)),
            uncommitted_messages=int(p.get(self.k("MQIACF_UNCOMMITTED_MSGS"), 0)),
            oldest_message_age=None if depth == 0 or age is None or age < 0 else int(age),
            last_get=mq_datetime(p.get(self.k("MQCACF_LAST_GET_DATE")),
                                 p.get(self.k("MQCACF_LAST_GET_TIME"))),
            last_put=mq_datetime(p.get(self.k("MQCACF_LAST_PUT_DATE")),
                                 p.get(self.k("MQCACF_LAST_PUT_TIME"))),
        )
        handles = self.command("MQCMD_INQUIRE_Q_STATUS", {
            qname: self.text(name),
            self.k("MQIACF_Q_STATUS_TYPE"): self.k("MQIACF_Q_HANDLE"),
        })
        for r in handles:
            h = r.params
            if h.get(qname) != name or r.comp:
                continue
            out.handles.append({
                "pid": h.get(self.k("MQIACF_PROCESS_ID")),
                "user_id": h.get(self.k("MQCACF_USER_IDENTIFIER"), ""),
                "appl_tag": h.get(self.k("MQCACF_APPL_TAG"), ""),
                "channel": h.get(self.k("MQCACH_CHANNEL_NAME"), ""),
                "conn_name": h.get(self.k("MQCACH_CONNECTION_NAME"), ""),
                "browse": h.get(self.k("MQIACF_OPEN_BROWSE")) == self.k("MQQSO_YES"),
                "input": h.get(self.k("MQIACF_OPEN_INPUT_TYPE"), 0) != self.k("MQQSO_NO"),
                "output": h.get(self.k("MQIACF_OPEN_OUTPUT")) == self.k("MQQSO_YES"),
                "uow": bool(h.get(self.k("MQCACF_UOW_START_DATE"))),
            })
        return out


def byte_strings(data: bytes, kind_code: int, parameter: int) -> list[bytes]:
    """The values of every MQCFBS of ``parameter`` in a PCF message in the native encoding
    (``kind_code``: MQCFT_BYTE_STRING; the libraries' unpack keeps one value of a repeated
    parameter, and a z/OS response may announce several response sets)."""
    out: list[bytes] = []
    pos, end = _CFH.size, len(data)
    count = _CFH.unpack_from(data, 0)[8] if end >= _CFH.size else 0
    for _ in range(count):
        if pos + 16 > end:
            break
        kind, length, param, size = struct.unpack_from("=4i", data, pos)
        if length < 8:
            break
        if kind == kind_code and param == parameter:
            out.append(bytes(data[pos + 16:pos + 16 + size]))
        pos += length
    return out


def mq_datetime(date: str | None, time: str | None) -> datetime | None:
    """``2024-01-02`` + ``03.04.05`` (the queue manager's local time) → an aware datetime
    in this machine's zone; None when blank."""
    if not date or not date.strip():
        return None
    t = (time or "00.00.00").strip() or "00.00.00"
    try:
        naive = datetime.strptime(f"{date.strip()} {t}", "%Y-%m-%d %H.%M.%S")
    except ValueError:
        return None
    return naive.astimezone()

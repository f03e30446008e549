"""The stand-in's command server: PCF requests put to SYSTEM.ADMIN.COMMAND.QUEUE, answered
over the embedded queue manager the way MQ's command server answers them.

Strict where MQ is: the MQCFH must be a command (3001), its ParameterCount must match
(3006), required parameters come first and in order — MQCA_Q_NAME, then MQIA_Q_TYPE for
CHANGE/CREATE (3035 otherwise); replies are MQCFT_RESPONSE messages of format MQADMIN, one
per object, MQCFC_LAST on the last, sent to the request's ReplyToQ with CorrelId = the
request's MsgId. Fixed-length strings are padded with blanks to their MQ length, as MQ
pads them. A queue named in ``QMgrDef.damaged`` answers 2101 (MQRC_OBJECT_DAMAGED) in its
own reply, and the others still answer. ``QMgrDef.zos_replies`` adds what a z/OS queue
manager sends besides (MQCFT_XR_MSG, MQCFT_XR_SUMMARY) and a stray reply without a queue
name, as pymqi hands them back.

A queue manager whose platform is z/OS (``QMgrDef.platform`` MQPL_ZOS) is strict the way
z/OS is: a request's MQCFH must be of version 3 (else 3003 MQRCCF_CFH_VERSION_ERROR: "Note
that z/OS requires MQCFH_VERSION_3", IBM MQ reason code 3003) and of type MQCFT_COMMAND_XR
(else 3001: "PCF responses in IBM MQ": MQCFT_COMMAND is supported on all platforms except
z/OS); it answers with extended responses only (MQCFT_XR_MSG, MQCFT_XR_ITEM,
MQCFT_XR_SUMMARY), each carrying MQBACF_RESPONSE_ID and MQCACF_RESPONSE_Q_MGR_NAME; a
command with a command scope (MQCACF_COMMAND_SCOPE) is answered in two sets — the
acceptance, announcing the next set with MQBACF_RESPONSE_SET, then the queue manager's
answer — each set numbered from 1 and ending with MQCFC_LAST (IBM MQ, "Extended
responses"). Elsewhere a command scope is refused (3015 MQRCCF_CFST_PARM_ID_ERROR: the
parameter applies to z/OS only).

Authorities as MQ's command server checks them (IBM MQ, "Authorizations for PCF commands",
https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.2.0/com.ibm.mq.sec.doc/q011190_.html):
every command needs +dsp on the queue manager (checked by the engine before a command is
handed here); Inquire Queue, Inquire Queue Names and Inquire Queue Status need +dsp on the
queue (a generic inquiry leaves out the queues without it), Inquire Queue Manager needs
nothing more; Change/Create/Delete Queue are the embedded queue manager's checks (+chg).
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueAttrs, QueueType, Usage

if TYPE_CHECKING:
    from fake_ibmmqc import Conn, Engine

# -- PCF structures --------------------------------------------------------------------------


@dataclass
class Param:
    """One PCF parameter: kind is int, str, ints, strs or bytes."""

    id: int
    value: Any
    kind: str
    type: int = 0  # the MQCFT_* it came as
    ccsid: int = 0  # a string's CodedCharSetId (0: MQCCSI_DEFAULT, the message's)


@dataclass
class PCFMessage:
    type: int
    command: int
    params: list[Param] = field(default_factory=list)
    version: int = 1
    seq: int = 1
    control: int = 1
    comp: int = 0
    reason: int = 0
    struc_length: int = 36
    declared_count: int = 0

    def pack(self, big_endian: bool, F: Any, codec: str = "utf-8") -> bytes:
        """The message's bytes; its strings (held as UTF-8) in ``codec``."""
        o = ">" if big_endian else "<"
        out = [struct.pack(o + "9i", self.type, 36, self.version, self.command, self.seq,
                           self.control, self.comp, self.reason, len(self.params))]
        for p in self.params:
            if codec != "utf-8" and p.kind in ("str", "strs"):
                p = recode(p, "utf-8", codec)
            out.append(pack_param(p, o, F))
        return b"".join(out)


def recode(p: Param, source: str, target: str) -> Param:
    """A string parameter's bytes from one codec to another (blanks are blanks)."""
    def one(b: bytes) -> bytes:
        return b.decode(source, errors="replace").encode(target, errors="replace")
    value = one(p.value) if p.kind == "str" else [one(v) for v in p.value]
    return Param(p.id, value, p.kind, p.type, p.ccsid)


def _pad4(b: bytes) -> bytes:
    return b + b"\x00" * (-len(b) % 4)


def pack_param(p: Param, o: str, F: Any) -> bytes:
    if p.kind == "int":
        return struct.pack(o + "4i", F.MQCFT_INTEGER, 16, p.id, p.value)
    if p.kind == "ints":
        vals = list(p.value)
        return struct.pack(o + f"4i{len(vals)}i", F.MQCFT_INTEGER_LIST, 16 + 4 * len(vals),
                           p.id, len(vals), *vals)
    if p.kind == "str":
        s = _pad4(p.value)
        return struct.pack(o + "5i", F.MQCFT_STRING, 20 + len(s), p.id, 0, len(p.value)) + s
    if p.kind == "strs":
        width = max((len(s) for s in p.value), default=0)
        width += -width % 4
        data = b"".join(s.ljust(width) for s in p.value)
        return struct.pack(o + "6i", F.MQCFT_STRING_LIST, 24 + len(data), p.id, 0,
                           len(p.value), width) + data
    if p.kind == "bytes":
        s = _pad4(p.value)
        return struct.pack(o + "4i", F.MQCFT_BYTE_STRING, 16 + len(s), p.id, len(p.value)) + s
    raise ValueError(p.kind)


class PCFFormatError(Exception):
    def __init__(self, reason: int, text: str) -> None:
        super().__init__(text)
        self.reason = reason


def parse_pcf(data: bytes, big_endian: bool, F: Any) -> PCFMessage:
    o = ">" if big_endian else "<"
    if len(data) < 36:
        raise PCFFormatError(F.MQRCCF_CFH_LENGTH_ERROR, "shorter than an MQCFH")
    (typ, length, version, command, seq, control, comp, reason,
     count) = struct.unpack_from(o + "9i", data, 0)
    msg = PCFMessage(typ, command, [], version, seq, control, comp, reason, length, count)
    if length != 36:
        raise PCFFormatError(F.MQRCCF_CFH_LENGTH_ERROR, f"StrucLength {length}")
    if version not in (1, 2, 3):
        raise PCFFormatError(F.MQRCCF_CFH_VERSION_ERROR, f"Version {version}")
    pos = 36
    while pos < len(data):
        if pos + 8 > len(data):
            raise PCFFormatError(F.MQRCCF_STRUCTURE_TYPE_ERROR, "truncated parameter")
        ptype, plen = struct.unpack_from(o + "2i", data, pos)
        if plen < 8 or pos + plen > len(data):
            raise PCFFormatError(F.MQRCCF_STRUCTURE_TYPE_ERROR, f"bad StrucLength {plen}")
        body = data[pos:pos + plen]
        if ptype == F.MQCFT_INTEGER:
            _, _, pid, value = struct.unpack_from(o + "4i", body)
            msg.params.append(Param(pid, value, "int", ptype))
        elif ptype == F.MQCFT_INTEGER_LIST:
            _, _, pid, n = struct.unpack_from(o + "4i", body)
            vals = list(struct.unpack_from(o + f"{n}i", body, 16))
            msg.params.append(Param(pid, vals, "ints", ptype))
        elif ptype == F.MQCFT_STRING:
            _, _, pid, ccsid, n = struct.unpack_from(o + "5i", body)
            msg.params.append(Param(pid, bytes(body[20:20 + n]), "str", ptype, ccsid))
        elif ptype == F.MQCFT_STRING_LIST:
            _, _, pid, ccsid, n, width = struct.unpack_from(o + "6i", body)
            vals = [bytes(body[24 + i * width:24 + (i + 1) * width]) for i in range(n)]
            msg.params.append(Param(pid, vals, "strs", ptype, ccsid))
        elif ptype == F.MQCFT_BYTE_STRING:
            _, _, pid, n = struct.unpack_from(o + "4i", body)
            msg.params.append(Param(pid, bytes(body[16:16 + n]), "bytes", ptype))
        elif ptype in (F.MQCFT_STRING_FILTER, F.MQCFT_INTEGER_FILTER,
                       F.MQCFT_BYTE_STRING_FILTER):
            (pid,) = struct.unpack_from(o + "i", body, 8)
            msg.params.append(Param(pid, None, "filter", ptype))
        else:
            raise PCFFormatError(F.MQRCCF_STRUCTURE_TYPE_ERROR, f"parameter type {ptype}")
        pos += plen
    if count != len(msg.params):
        raise PCFFormatError(F.MQRCCF_CFH_PARM_COUNT_ERROR,
                             f"ParameterCount {count}, {len(msg.params)} present")
    return msg


# -- the command server ------------------------------------------------------------------

# (QueueAttrs field, selector name, kind) — the queue manager's side of the mapping, written
# independently of the backend's.
QUEUE_ATTRS = [
    ("max_depth", "MQIA_MAX_Q_DEPTH", "int"),
    ("max_msg_length", "MQIA_MAX_MSG_LENGTH", "int"),
    ("put_inhibited", "MQIA_INHIBIT_PUT", "flag"),
    ("get_inhibited", "MQIA_INHIBIT_GET", "flag"),
    ("bothresh", "MQIA_BACKOUT_THRESHOLD", "int"),
    ("boqname", "MQCA_BACKOUT_REQ_Q_NAME", "name"),
    ("hardenbo", "MQIA_HARDEN_GET_BACKOUT", "flag"),
    ("description", "MQCA_Q_DESC", "desc"),
    ("usage", "MQIA_USAGE", "usage"),
    ("default_persistence", "MQIA_DEF_PERSISTENCE", "int"),
    ("default_priority", "MQIA_DEF_PRIORITY", "int"),
    ("target_q", "MQCA_BASE_Q_NAME", "name"),
    ("remote_q_name", "MQCA_REMOTE_Q_NAME", "name"),
    ("remote_qmgr_name", "MQCA_REMOTE_Q_MGR_NAME", "qmname"),
    ("xmit_q", "MQCA_XMIT_Q_NAME", "name"),
]
_TYPE_CODES = {QueueType.LOCAL: "MQQT_LOCAL", QueueType.MODEL: "MQQT_MODEL",
               QueueType.ALIAS: "MQQT_ALIAS", QueueType.REMOTE: "MQQT_REMOTE"}


class Refused(Exception):
    """A command's error reply: CompCode 2 and a reason."""

    def __init__(self, reason: int, params: list[Param] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.params = params or []


class CommandServer:
    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self._sets = 0
        #: every request the command server read (its MQCFH version and type included)
        self.requests: list[PCFMessage] = []
        self.C = engine.CMQC
        self.F = engine.CMQCFC

    def k(self, name: str) -> int:
        for mod in (self.C, self.F):
            if hasattr(mod, name):
                return int(getattr(mod, name))
        raise AttributeError(name)

    # strings padded with blanks to their MQ length, as MQ pads them
    def text(self, pid: str, value: str, length: int) -> Param:
        return Param(self.k(pid), value.encode("utf-8")[:length].ljust(length), "str")

    def integer(self, pid: str, value: int) -> Param:
        return Param(self.k(pid), int(value), "int")

    # -- entry -----------------------------------------------------------------------
    def handle(self, conn: Conn, request: PCFMessage) -> list[PCFMessage]:
        F = self.F
        zos = conn.qdef.platform == self.C.MQPL_ZOS
        scope = [p for p in request.params if p.id == self.k("MQCACF_COMMAND_SCOPE")]
        request.params = [p for p in request.params if p not in scope]
        self.requests.append(request)
        if zos and request.version != F.MQCFH_VERSION_3:
            return [self._error(request, F.MQRCCF_CFH_VERSION_ERROR)]
        if request.type not in (F.MQCFT_COMMAND, F.MQCFT_COMMAND_XR) or (
                zos and request.type != F.MQCFT_COMMAND_XR):
            return [self._error(request, F.MQRCCF_CFH_TYPE_ERROR)]
        if scope and not zos:
            return [self._error(request, F.MQRCCF_CFST_PARM_ID_ERROR)]
        commands = {
            F.MQCMD_INQUIRE_Q: self.inquire_q,
            F.MQCMD_INQUIRE_Q_NAMES: self.inquire_q_names,
            F.MQCMD_INQUIRE_Q_STATUS: self.inquire_q_status,
            F.MQCMD_CHANGE_Q: self.change_q,
            F.MQCMD_CREATE_Q: self.create_q,
            F.MQCMD_DELETE_Q: self.delete_q,
            F.MQCMD_SET_AUTH_REC: self.set_auth_rec,
            F.MQCMD_PING_Q_MGR: lambda conn, request: [],  # one empty response
            F.MQCMD_INQUIRE_Q_MGR: self.inquire_q_mgr,
        }
        fn = commands.get(request.command)
        if fn is None:
            return [self._error(request, F.MQRCCF_CFH_COMMAND_ERROR)]
        if any(p.kind == "filter" for p in request.params):
            return [self._error(request, F.MQRCCF_COMMAND_FAILED)]  # filters: not modelled
        try:
            items = fn(conn, request)
        except Refused as r:
            return [self._error(request, r.reason, r.params)]
        replies: list[PCFMessage] = []
        for item in items:
            if isinstance(item, Refused):
                replies.append(self._error(request, item.reason, item.params))
            else:
                replies.append(PCFMessage(F.MQCFT_RESPONSE, request.command, item))
        if not replies:
            replies.append(PCFMessage(F.MQCFT_RESPONSE, request.command, []))
        sets = [replies]
        if zos:
            sets = self._extended(request, replies, bool(scope))
        elif conn.qdef.zos_replies:
            sets = [self._zos(request, replies)]
        out = []
        for one in sets:
            for i, r in enumerate(one, 1):
                r.seq = i
                r.control = F.MQCFC_LAST if i == len(one) else F.MQCFC_NOT_LAST
            out += one
        return out

    def _extended(self, request: PCFMessage, replies: list[PCFMessage], scoped: bool
                  ) -> list[list[PCFMessage]]:
        """z/OS's extended responses, in sets (see the module docstring)."""
        F = self.F
        self._sets += 2
        first, answer = (b"SET%021d" % (self._sets - 1)), (b"SET%021d" % self._sets)
        qmname = self.text("MQCACF_RESPONSE_Q_MGR_NAME", self.e.current_qmgr, 48)

        def of(set_id: bytes) -> Param:
            return Param(self.k("MQBACF_RESPONSE_ID"), set_id, "bytes")

        body = self._zos(request, replies)
        for r in body:
            r.params.append(of(answer))
        if not scoped:
            return [body]
        accepted = PCFMessage(F.MQCFT_XR_MSG, request.command, [
            self.integer("MQIACF_COMMAND_INFO", F.MQCMDI_CMDSCOPE_ACCEPTED), of(first),
            Param(self.k("MQBACF_RESPONSE_SET"), answer, "bytes"), qmname])
        return [[accepted], body]

    def _zos(self, request: PCFMessage, replies: list[PCFMessage]) -> list[PCFMessage]:
        F = self.F
        qmname = self.text("MQCACF_RESPONSE_Q_MGR_NAME", self.e.current_qmgr, 48)
        accepted = PCFMessage(F.MQCFT_XR_MSG, request.command,
                              [self.integer("MQIACF_COMMAND_INFO", F.MQCMDI_COMMAND_ACCEPTED),
                               qmname])
        items = []
        for r in replies:
            if r.type == F.MQCFT_RESPONSE and r.comp == 0:
                r.type = F.MQCFT_XR_ITEM
            items.append(r)
        stray = PCFMessage(F.MQCFT_RESPONSE, request.command, [qmname])
        summary = PCFMessage(F.MQCFT_XR_SUMMARY, request.command, [qmname])
        return [accepted, *items, stray, summary]

    def _error(self, request: PCFMessage, reason: int, params: list[Param] | None = None
               ) -> PCFMessage:
        return PCFMessage(self.F.MQCFT_RESPONSE, request.command, params or [],
                          comp=self.C.MQCC_FAILED, reason=reason)

    # -- parameters --------------------------------------------------------------------
    def _first(self, request: PCFMessage, *names: str) -> list[Param]:
        """The required parameters, first and in this order (3035 otherwise)."""
        want = [self.k(n) for n in names]
        got = request.params[:len(want)]
        if [p.id for p in got] != want:
            raise Refused(self.F.MQRCCF_PARM_SEQUENCE_ERROR)
        return got

    @staticmethod
    def _name(p: Param) -> str:
        return p.value.rstrip(b" \x00").decode("utf-8", errors="replace")

    def _qtype(self, code: int) -> QueueType | None:
        for qt, n in _TYPE_CODES.items():
            if code == self.k(n):
                return qt
        return None

    def _mqerror(self, exc: MQError, name: str) -> Refused:
        F = self.F
        mapped = {2100: F.MQRCCF_OBJECT_ALREADY_EXISTS, 2043: F.MQRCCF_OBJECT_WRONG_TYPE,
                  2042: F.MQRCCF_OBJECT_OPEN, 2045: F.MQRCCF_Q_WRONG_TYPE,
                  2152: F.MQRCCF_OBJECT_NAME_ERROR}.get(exc.reason, exc.reason)
        return Refused(mapped, [self.text("MQCA_Q_NAME", name, 48)])

    # -- INQUIRE_Q ---------------------------------------------------------------------
    def may(self, conn: Conn, auth: str, name: str) -> bool:
        """Whether the request's user holds ``auth`` on queue ``name`` (the OAM's answer)."""
        granted = conn.qdef.admin_conn().effective_authorities(conn.principal, name)
        return granted is None or auth in granted

    def _matching(self, conn: Conn, pattern: str) -> list[QueueAttrs]:
        """The queues an inquiry names, as the user may display them: +dsp on each."""
        admin = conn.qdef.admin_conn()
        if "*" in pattern:
            found = []
            for q in admin.list_queues(pattern):
                if self.may(conn, "dsp", q.name):
                    found.append(q)
                else:  # what MQ writes for each queue a display skips
                    conn.qdef.error_log.append(
                        f"AMQ8245E: {conn.principal} is not authorized to display "
                        f"{q.name}")
            if not found:
                raise Refused(self.C.MQRC_UNKNOWN_OBJECT_NAME)
            return found
        try:
            q = admin.inquire_queue(pattern)
        except MQError as exc:
            raise self._mqerror(exc, pattern) from None
        if not self.may(conn, "dsp", pattern):
            raise Refused(self.C.MQRC_NOT_AUTHORIZED, [self.text("MQCA_Q_NAME", pattern, 48)])
        return [q]

    def inquire_q_mgr(self, conn: Conn, request: PCFMessage) -> list[Any]:
        qdef = conn.qdef
        return [[self.text("MQCA_Q_MGR_NAME", qdef.name, 48),
                 self.integer("MQIA_PLATFORM", qdef.platform),
                 self.integer("MQIA_CODED_CHAR_SET_ID", qdef.ccsid),
                 self.text("MQCA_COMMAND_INPUT_Q_NAME", qdef.command_queue, 48)]]

    def queue_params(self, q: QueueAttrs, selectors: set[int] | None) -> list[Param]:
        C = self.C
        out = [self.text("MQCA_Q_NAME", q.name, 48),
               self.integer("MQIA_Q_TYPE", self.k(_TYPE_CODES[q.type]))]
        from mqconsole.mq.queue import TYPE_ATTRIBUTES

        have = TYPE_ATTRIBUTES[q.type]
        values: list[Param] = []
        if q.type is QueueType.LOCAL:
            values.append(self.integer("MQIA_CURRENT_Q_DEPTH", q.depth or 0))
        for attr, sel, kind in QUEUE_ATTRS:
            if attr not in have:
                continue
            v = getattr(q, attr)
            if kind == "int":
                values.append(self.integer(sel, v))
            elif kind == "flag":
                values.append(self.integer(sel, 1 if v else 0))
            elif kind == "usage":
                values.append(self.integer(sel, C.MQUS_TRANSMISSION if Usage(v) is Usage.XMITQ
                                           else C.MQUS_NORMAL))
            elif kind == "desc":
                values.append(self.text(sel, v, C.MQ_Q_DESC_LENGTH))
            else:
                values.append(self.text(sel, v, 48))
        for sel, ts in (("CREATION", q.create_time), ("ALTERATION", q.alter_time)):
            local = ts.astimezone() if ts is not None else None
            values.append(self.text(f"MQCA_{sel}_DATE",
                                    local.strftime("%Y-%m-%d") if local else "",
                                    C.MQ_CREATION_DATE_LENGTH))
            values.append(self.text(f"MQCA_{sel}_TIME",
                                    local.strftime("%H.%M.%S") if local else "",
                                    C.MQ_CREATION_TIME_LENGTH))
        if selectors is not None and self.k("MQIACF_ALL") not in selectors:
            values = [p for p in values if p.id in selectors]
        return out + values

    def inquire_q(self, conn: Conn, request: PCFMessage) -> list[Any]:
        (name_p,) = self._first(request, "MQCA_Q_NAME")
        selectors: set[int] | None = None
        qtype_filter: int | None = None
        for p in request.params[1:]:
            if p.id == self.k("MQIACF_Q_ATTRS"):
                selectors = set(p.value if p.kind == "ints" else [p.value])
            elif p.id == self.k("MQIA_Q_TYPE"):
                qtype_filter = p.value
        out: list[Any] = []
        for q in self._matching(conn, self._name(name_p)):
            if qtype_filter not in (None, self.k("MQQT_ALL")) and \
                    self.k(_TYPE_CODES[q.type]) != qtype_filter:
                continue
            if q.name in conn.qdef.damaged:
                out.append(Refused(self.C.MQRC_OBJECT_DAMAGED,
                                   [self.text("MQCA_Q_NAME", q.name, 48)]))
                continue
            out.append(self.queue_params(q, selectors))
        if not out:
            raise Refused(self.C.MQRC_UNKNOWN_OBJECT_NAME)
        return out

    def inquire_q_names(self, conn: Conn, request: PCFMessage) -> list[Any]:
        (name_p,) = self._first(request, "MQCA_Q_NAME")
        found = self._matching(conn, self._name(name_p))
        names = [q.name.encode().ljust(48) for q in found]
        return [[Param(self.k("MQCACF_Q_NAMES"), names, "strs"),
                 Param(self.k("MQIACF_Q_TYPES"),
                       [self.k(_TYPE_CODES[q.type]) for q in found], "ints")]]

    # -- INQUIRE_Q_STATUS --------------------------------------------------------------
    def inquire_q_status(self, conn: Conn, request: PCFMessage) -> list[Any]:
        (name_p,) = self._first(request, "MQCA_Q_NAME")
        name = self._name(name_p)
        if self.e.lookup(conn.qdef, name) is not None and not self.may(conn, "dsp", name):
            raise Refused(self.C.MQRC_NOT_AUTHORIZED, [self.text("MQCA_Q_NAME", name, 48)])
        kind = self.k("MQIACF_Q_STATUS")
        for p in request.params[1:]:
            if p.id == self.k("MQIACF_Q_STATUS_TYPE"):
                kind = p.value
        try:
            st = conn.qm.queue_status(name)
        except MQError as exc:
            raise self._mqerror(exc, name) from None
        extra_in, extra_out = self.e.open_counts(conn.qdef, name)
        if kind == self.k("MQIACF_Q_HANDLE"):
            return [self._handle_params(name, h) for h in st.handles] + \
                [self._own_handle_params(name, h) for h in self.e.own_handles(conn.qdef, name)]
        C = self.C
        length = C.MQ_DATE_LENGTH

        def stamp(ts: datetime | None, what: str) -> list[Param]:
            local = ts.astimezone() if ts is not None else None
            return [self.text(f"MQCACF_LAST_{what}_DATE",
                              local.strftime("%Y-%m-%d") if local else "", length),
                    self.text(f"MQCACF_LAST_{what}_TIME",
                              local.strftime("%H.%M.%S") if local else "", C.MQ_TIME_LENGTH)]

        return [[
            self.text("MQCA_Q_NAME", name, 48),
            self.integer("MQIA_CURRENT_Q_DEPTH", st.depth),
            self.integer("MQIA_OPEN_INPUT_COUNT", st.open_input_count + extra_in),
            self.integer("MQIA_OPEN_OUTPUT_COUNT", st.open_output_count + extra_out),
            self.integer("MQIACF_UNCOMMITTED_MSGS", st.uncommitted_messages),
            self.integer("MQIACF_OLDEST_MSG_AGE",
                         0 if st.oldest_message_age is None else st.oldest_message_age),
            *stamp(st.last_get, "GET"), *stamp(st.last_put, "PUT"),
        ]]

    def _handle_params(self, name: str, h: dict[str, Any]) -> list[Param]:
        C, F = self.C, self.F
        started = h.get("opened") if h.get("uow") else None
        return [
            self.text("MQCA_Q_NAME", name, 48),
            self.integer("MQIACF_PROCESS_ID", int(h.get("pid") or 0)),
            self.text("MQCACF_USER_IDENTIFIER", str(h.get("user_id") or ""), 12),
            self.text("MQCACF_APPL_TAG", str(h.get("appl_tag") or ""), 28),
            self.integer("MQIACF_OPEN_BROWSE", F.MQQSO_YES if h.get("browse") else F.MQQSO_NO),
            self.integer("MQIACF_OPEN_INPUT_TYPE",
                         F.MQQSO_SHARED if h.get("input") else F.MQQSO_NO),
            self.integer("MQIACF_OPEN_OUTPUT", F.MQQSO_YES if h.get("output") else F.MQQSO_NO),
            self.text("MQCACF_UOW_START_DATE",
                      time.strftime("%Y-%m-%d") if started or h.get("uow") else "",
                      C.MQ_DATE_LENGTH),
        ]

    def _own_handle_params(self, name: str, h: dict[str, Any]) -> list[Param]:
        return self._handle_params(name, h)

    # -- CHANGE / CREATE / DELETE ------------------------------------------------------
    def _values(self, qtype: QueueType, params: list[Param]) -> dict[str, Any]:
        C = self.C
        by_sel = {self.k(sel): (attr, kind) for attr, sel, kind in QUEUE_ATTRS}
        out: dict[str, Any] = {}
        for p in params:
            if p.id == self.k("MQIACF_REPLACE"):
                continue
            if p.id not in by_sel:
                raise Refused(self.F.MQRCCF_PARM_SYNTAX_ERROR)
            attr, kind = by_sel[p.id]
            if kind in ("int",):
                out[attr] = p.value
            elif kind == "flag":
                if p.value not in (0, 1):
                    raise Refused(self.F.MQRCCF_ATTR_VALUE_ERROR)
                out[attr] = bool(p.value)
            elif kind == "usage":
                out[attr] = Usage.XMITQ if p.value == C.MQUS_TRANSMISSION else Usage.NORMAL
            else:
                out[attr] = p.value.rstrip(b" \x00").decode("utf-8", errors="replace")
        return out

    def change_q(self, conn: Conn, request: PCFMessage) -> list[Any]:
        name_p, type_p = self._first(request, "MQCA_Q_NAME", "MQIA_Q_TYPE")
        name = self._name(name_p)
        qtype = self._qtype(type_p.value)
        if qtype is None:
            raise Refused(self.F.MQRCCF_Q_TYPE_ERROR)
        actual = self.e.lookup(conn.qdef, name)
        if actual is None:
            raise Refused(self.C.MQRC_UNKNOWN_OBJECT_NAME)
        if actual.type is not qtype:
            raise Refused(self.F.MQRCCF_OBJECT_WRONG_TYPE)
        values = self._values(qtype, request.params[2:])
        try:
            conn.qm.change_queue(name, **values)
        except MQError as exc:
            raise self._mqerror(exc, name) from None
        except ValueError:
            raise Refused(self.F.MQRCCF_ATTR_VALUE_ERROR) from None
        return []

    def create_q(self, conn: Conn, request: PCFMessage) -> list[Any]:
        name_p, type_p = self._first(request, "MQCA_Q_NAME", "MQIA_Q_TYPE")
        name = self._name(name_p)
        qtype = self._qtype(type_p.value)
        if qtype is None:
            raise Refused(self.F.MQRCCF_Q_TYPE_ERROR)
        replace = any(p.id == self.k("MQIACF_REPLACE") and p.value == self.k("MQRP_YES")
                      for p in request.params)
        values = self._values(qtype, request.params[2:])
        attrs = QueueAttrs(name=name, type=qtype)
        for k, v in values.items():
            setattr(attrs, k, v)
        try:
            conn.qm.define_queue(attrs, replace=replace)
        except MQError as exc:
            raise self._mqerror(exc, name) from None
        except ValueError:
            raise Refused(self.F.MQRCCF_ATTR_VALUE_ERROR) from None
        return []

    def delete_q(self, conn: Conn, request: PCFMessage) -> list[Any]:
        (name_p,) = self._first(request, "MQCA_Q_NAME")
        name = self._name(name_p)
        if any(self.e.own_handles(conn.qdef, name)):
            raise Refused(self.F.MQRCCF_OBJECT_OPEN, [self.text("MQCA_Q_NAME", name, 48)])
        try:
            conn.qm.delete_queue(name)
        except MQError as exc:
            raise self._mqerror(exc, name) from None
        return []

    # -- SET_AUTH_REC (setmqaut) -------------------------------------------------------
    _AUTHS = {"MQAUTH_BROWSE": "browse", "MQAUTH_INPUT": "get", "MQAUTH_OUTPUT": "put",
              "MQAUTH_INQUIRE": "inq", "MQAUTH_SET": "set", "MQAUTH_CONNECT": "connect",
              "MQAUTH_DISPLAY": "dsp", "MQAUTH_CHANGE": "chg", "MQAUTH_DELETE": "dlt",
              "MQAUTH_CLEAR": "clr", "MQAUTH_CREATE": "crt", "MQAUTH_CONTROL": "ctrl",
              "MQAUTH_CONTROL_EXTENDED": "ctrlx", "MQAUTH_SET_ALL_CONTEXT": "setall",
              "MQAUTH_SET_IDENTITY_CONTEXT": "setid", "MQAUTH_PASS_ALL_CONTEXT": "passall",
              "MQAUTH_PASS_IDENTITY_CONTEXT": "passid",
              "MQAUTH_ALT_USER_AUTHORITY": "altusr", "MQAUTH_ALL": "all",
              "MQAUTH_ALL_ADMIN": "alladm", "MQAUTH_ALL_MQI": "allmqi"}

    def set_auth_rec(self, conn: Conn, request: PCFMessage) -> list[Any]:
        """setmqaut: the profile and the object type first, then the principals and the
        authorities to add or remove (the embedded queue manager's records)."""
        from mqconsole.backends.embedded.auth import normalize

        profile_p, type_p = self._first(request, "MQCACF_AUTH_PROFILE_NAME",
                                        "MQIACF_OBJECT_TYPE")
        qmgr = type_p.value == self.C.MQOT_Q_MGR
        if not qmgr and type_p.value != self.C.MQOT_Q:
            raise Refused(self.F.MQRCCF_OBJECT_TYPE_MISSING)
        names = {self.k(k): v for k, v in self._AUTHS.items()}
        principals: list[str] = []
        add: set[str] = set()
        remove: set[str] = set()
        for p in request.params[2:]:
            if p.id == self.k("MQCACF_PRINCIPAL_ENTITY_NAMES"):
                principals += [self._name(Param(0, v, "str")) for v in p.value]
            elif p.id == self.k("MQIACF_AUTH_ADD_AUTHS"):
                add |= normalize(names[v] for v in p.value)
            elif p.id == self.k("MQIACF_AUTH_REMOVE_AUTHS"):
                remove |= normalize(names[v] for v in p.value)
            else:
                raise Refused(self.F.MQRCCF_PARM_SYNTAX_ERROR)
        admin = conn.qdef.admin_conn()
        granted = admin.effective_authorities(conn.principal, "", object_type="qmgr")
        if granted is not None and "chg" not in granted:
            raise Refused(self.C.MQRC_NOT_AUTHORIZED)
        profile = "" if qmgr else self._name(profile_p)
        kind = "qmgr" if qmgr else "queue"
        for who in principals:
            current: set[str] = set()
            for rec in admin.authorities(who):
                if rec.object_type == kind and (qmgr or rec.profile == profile):
                    current |= rec.authorities
            admin.set_authority(who, profile, (current - remove) | add, object_type=kind)
        return []

"""A stand-in for IBM MQ's C layer — ``ibmmq.ibmmqc`` (and ``pymqi.pymqe``) — over
mqconsole's embedded queue manager, so the *real* Python code of ibmmq (and pymqi) runs in
the tests: its structure packing, ``Queue.get``'s 2080 retry, ``PCFExecute`` building and
parsing real PCF messages (real-mq.md, "Testing the real backend without a queue manager").

It takes the bytes the library packs (MQMD, MQOD, MQGMO, MQPMO, MQCNO, MQCD, MQSCO, MQCSP),
reads them by the C layouts, and answers as MQ does. It is strict where MQ is strict:

* open options: browse needs MQOO_BROWSE (2036), get MQOO_INPUT_* (2037), put MQOO_OUTPUT
  (2039), a set-all put MQOO_SET_ALL_CONTEXT (2095), a pass-all put MQOO_PASS_ALL_CONTEXT
  (2093) and a PMO.Context handle opened MQOO_SAVE_ALL_CONTEXT (2097) that got a message
  (2098; a browse saves none), MQGMO_MSG_UNDER_CURSOR a handle opened browse + input;
  MQGMO option clashes (browse + syncpoint, …) are 2046;
* authorities at MQOPEN (+browse, +get, +put, +inq, +set, +setall/+setid on the queue and the
  queue manager: 2035) and at the operation (the embedded queue manager's own checks);
* inhibited queues (2051/2016), MAXDEPTH, MAXMSGL, routing: the embedded queue manager's;
* matching: MatchOptions only from a GMO of version 2 or more; a version-1 GMO matches on
  MsgId and CorrelId as MQ does (so a reused MD narrows the match);
* 2080 (MQRC_TRUNCATED_MSG_FAILED, completion WARNING) leaves the message and the browse
  cursor where they were; the same call with a big enough buffer gets the same message;
* message properties as PROPCTL(COMPAT): a get without MQGMO_PROPERTIES_FORCE_MQRFH2 loses
  an RFH2 whose folders are none of mcd/jms/usr/mqext (and MQGMO_NO_PROPERTIES loses any);
* MQDISC commits (distributed MQ does), a dropped process is backed out;
* connections without MQCNO_HANDLE_SHARE_* are bound to the thread that made them (2018).

PCF requests put to SYSTEM.ADMIN.COMMAND.QUEUE are answered by ``fake_cmdserver``. A big-
endian queue manager (``QMgrDef(encoding=273)``) sends big-endian replies that only an
MQGET with MQGMO_CONVERT turns into the client's encoding.

Constants come from ibmmq's own pure-Python CMQC/CMQCFC/CMQXC, loaded by path (never
hand-copied). ``Engine.calls`` records every call (tests check the options the backend
used), ``Engine.fail_next`` injects a failure, ``Engine.internal_errors`` collects bugs of
the stand-in itself (a test fixture asserts it stays empty).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import importlib.util
import itertools
import os
import platform
import struct
import sys
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version as _dist_version
from pathlib import Path
from typing import Any

from fake_cmdserver import CommandServer, PCFFormatError, PCFMessage, parse_pcf, recode

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import EmbeddedCursor, EmbeddedQueueManager, open_embedded
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import BLANK_MSGID, MQMD, is_big_endian
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs, QueueType

NATIVE_BIG = sys.byteorder == "big"


# -- constants, from ibmmq's own definitions ---------------------------------------------------

def _ibmmq_dir() -> Path:
    spec = importlib.util.find_spec("ibmmq")  # locates the package without importing it
    if spec is None or spec.origin is None:
        raise ImportError("the stand-in needs the ibmmq package installed (its constants)")
    return Path(spec.origin).parent


def _platform_file() -> str:
    plat, mach = platform.system(), platform.machine()
    if plat == "Linux":
        return {"x86_64": "_CMQC_linux_x64.py", "aarch64": "_CMQC_linux_arm64.py",
                "s390x": "_CMQC_linux_s390x.py", "ppc64le": "_CMQC_linux_ppcle.py"
                }.get(mach, "_CMQC_linux_x64.py")
    return {"AIX": "_CMQC_aix.py", "Darwin": "_CMQC_macos.py",
            "Windows": "_CMQC_windows.py"}.get(plat, "_CMQC_linux_x64.py")


def _load_by_path(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_DIR = _ibmmq_dir()
CMQC = _load_by_path(_DIR / _platform_file(), "_standin_CMQC")
CMQCFC = _load_by_path(_DIR / "CMQCFC.py", "_standin_CMQCFC")
CMQXC = _load_by_path(_DIR / "CMQXC.py", "_standin_CMQXC")
C, F, X = CMQC, CMQCFC, CMQXC


# -- structures, by their C layouts (native alignment, as the libraries pack them) --------------

class Layout:
    def __init__(self, *fields: tuple[str, str]) -> None:
        self.fields: dict[str, tuple[int, str]] = {}
        prefix = "@"
        for name, fmt in fields:
            size = struct.calcsize("@" + fmt)
            end = struct.calcsize(prefix + fmt)
            self.fields[name] = (end - size, fmt)
            prefix += fmt
        self.size = struct.calcsize(prefix)

    def get(self, buf: bytes | None, name: str, default: Any = None) -> Any:
        if not buf:
            return default
        off, fmt = self.fields[name]
        if off + struct.calcsize("@" + fmt) > len(buf):
            return default
        vals = struct.unpack_from("@" + fmt, buf, off)
        return vals[0] if len(vals) == 1 else vals

    def put(self, buf: bytearray, name: str, value: Any) -> None:
        off, fmt = self.fields[name]
        struct.pack_into("@" + fmt, buf, off, value)


def with_token(gmo_raw: bytes, token: bytes | None) -> bytes:
    """The GMO as MQGET hands it back: a GMO of version 3 or more gets the MsgToken of the
    message got or browsed (the embedded queue manager's token of it)."""
    if token is None or GMO.get(gmo_raw, "Version", 0) < 3 or len(gmo_raw) < GMO.size:
        return gmo_raw
    out = bytearray(gmo_raw)
    GMO.put(out, "MsgToken", bytes(token[:16]).ljust(16, b"\x00"))
    return bytes(out)


OD = Layout(("StrucId", "4s"), ("Version", "i"), ("ObjectType", "i"), ("ObjectName", "48s"),
            ("ObjectQMgrName", "48s"), ("DynamicQName", "48s"), ("AlternateUserId", "12s"))
GMO = Layout(("StrucId", "4s"), ("Version", "i"), ("Options", "i"), ("WaitInterval", "i"),
             ("Signal1", "i"), ("Signal2", "i"), ("ResolvedQName", "48s"),
             ("MatchOptions", "i"), ("GroupStatus", "b"), ("SegmentStatus", "b"),
             ("Segmentation", "b"), ("Reserved1", "c"), ("MsgToken", "16s"),
             ("ReturnedLength", "i"))
PMO = Layout(("StrucId", "4s"), ("Version", "i"), ("Options", "i"), ("Timeout", "i"),
             ("Context", "i"))
CNO = Layout(("StrucId", "4s"), ("Version", "i"), ("Options", "i"), ("ClientConnOffset", "i"),
             ("ClientConnPtr", "P"), ("ConnTag", "128s"), ("SSLConfigPtr", "P"),
             ("SSLConfigOffset", "i"), ("ConnectionId", "24s"), ("SecurityParmsOffset", "i"),
             ("SecurityParmsPtr", "P"), ("CCDTUrlPtr", "P"), ("CCDTUrlOffset", "i"),
             ("CCDTUrlLength", "i"), ("Reserved", "q"), ("ApplName", "28s"))
CSP = Layout(("StrucId", "4s"), ("Version", "i"), ("AuthenticationType", "i"),
             ("Reserved1", "i"), ("UserPtr", "P"), ("UserOffset", "i"), ("UserLength", "i"),
             ("Reserved2", "q"), ("PasswordPtr", "P"), ("PasswordOffset", "i"),
             ("PasswordLength", "i"))
SCO = Layout(("StrucId", "4s"), ("Version", "i"), ("KeyRepository", "256s"),
             ("CryptoHardware", "256s"), ("AuthInfoRecCount", "i"), ("AuthInfoRecOffset", "i"),
             ("AuthInfoRecPtr", "P"), ("KeyResetCount", "i"), ("FipsRequired", "i"),
             ("EncryptionPolicySuiteB", "4i"), ("CertificateValPolicy", "i"),
             ("CertificateLabel", "64s"), ("KeyRepoPasswordPtr", "P"),
             ("KeyRepoPasswordOffset", "i"), ("KeyRepoPasswordLength", "i"))
_EXIT = f"{C.MQ_EXIT_NAME_LENGTH}s"
_EXDATA = f"{C.MQ_EXIT_DATA_LENGTH}s"
CD = Layout(
    ("ChannelName", "20s"), ("Version", "i"), ("ChannelType", "i"), ("TransportType", "i"),
    ("Desc", "64s"), ("QMgrName", "48s"), ("XmitQName", "48s"), ("ShortConnectionName", "20s"),
    ("MCAName", "20s"), ("ModeName", "8s"), ("TpName", "64s"), ("BatchSize", "i"),
    ("DiscInterval", "i"), ("ShortRetryCount", "i"), ("ShortRetryInterval", "i"),
    ("LongRetryCount", "i"), ("LongRetryInterval", "i"), ("SecurityExit", _EXIT),
    ("MsgExit", _EXIT), ("SendExit", _EXIT), ("ReceiveExit", _EXIT), ("SeqNumberWrap", "i"),
    ("MaxMsgLength", "i"), ("PutAuthority", "i"), ("DataConversion", "i"),
    ("SecurityUserData", _EXDATA), ("MsgUserData", _EXDATA), ("SendUserData", _EXDATA),
    ("ReceiveUserData", _EXDATA), ("UserIdentifier", "12s"), ("Password", "12s"),
    ("MCAUserIdentifier", "12s"), ("MCAType", "i"), ("ConnectionName", "264s"),
    ("RemoteUserIdentifier", "12s"), ("RemotePassword", "12s"), ("MsgRetryExit", _EXIT),
    ("MsgRetryUserData", _EXDATA), ("MsgRetryCount", "i"), ("MsgRetryInterval", "i"),
    ("HeartbeatInterval", "i"), ("BatchInterval", "i"), ("NonPersistentMsgSpeed", "i"),
    ("StrucLength", "i"), ("ExitNameLength", "i"), ("ExitDataLength", "i"),
    ("MsgExitsDefined", "i"), ("SendExitsDefined", "i"), ("ReceiveExitsDefined", "i"),
    ("MsgExitPtr", "P"), ("MsgUserDataPtr", "P"), ("SendExitPtr", "P"),
    ("SendUserDataPtr", "P"), ("ReceiveExitPtr", "P"), ("ReceiveUserDataPtr", "P"),
    ("ClusterPtr", "P"), ("ClustersDefined", "i"), ("NetworkPriority", "i"),
    ("LongMCAUserIdLength", "i"), ("LongRemoteUserIdLength", "i"), ("LongMCAUserIdPtr", "P"),
    ("LongRemoteUserIdPtr", "P"), ("MCASecurityId", "40s"), ("RemoteSecurityId", "40s"),
    ("SSLCipherSpec", "32s"), ("SSLPeerNamePtr", "P"), ("SSLPeerNameLength", "i"),
    ("SSLClientAuth", "i"), ("KeepAliveInterval", "i"), ("LocalAddress", "48s"),
    ("BatchHeartbeat", "i"), ("HdrCompList", "2i"), ("MsgCompList", "16i"),
    ("CLWLChannelRank", "i"), ("CLWLChannelPriority", "i"), ("CLWLChannelWeight", "i"),
    ("ChannelMonitoring", "i"), ("ChannelStatistics", "i"), ("SharingConversations", "i"),
    ("PropertyControl", "i"), ("MaxInstances", "i"), ("MaxInstancesPerClient", "i"),
    ("ClientChannelWeight", "i"), ("ConnectionAffinity", "i"), ("BatchDataLimit", "i"),
    ("UseDLQ", "i"), ("DefReconnect", "i"), ("CertificateLabel", "64s"))


def ccsid_codec(ccsid: int) -> str:
    """Python's codec for a CCSID (UTF-8 for 1208 and anything unknown)."""
    from mqconsole.mq.ccsid import codec_for

    return codec_for(ccsid) or "utf-8"


def _text(raw: bytes | None) -> str:
    return (raw or b"").split(b"\x00", 1)[0].rstrip(b" ").decode("latin-1")


def _pointer_string(ptr: int | None, length: int | None) -> bytes | None:
    if not ptr:
        return None
    return ctypes.string_at(ptr, length or 0)


def parse_md(raw: bytes) -> MQMD:
    return MQMD.unpack(raw, big_endian=NATIVE_BIG, ccsid=819)


def pack_md(md: MQMD, like: bytes) -> bytes:
    """``md`` as the caller's MD buffer holds it: same length, the caller's Version."""
    version = struct.unpack_from("@i", like, 4)[0] if len(like) >= 8 else 2
    out = bytearray(md.copy(version=2).pack(big_endian=NATIVE_BIG, ccsid=819, version=2))
    struct.pack_into("@i", out, 4, 1 if version < 2 else 2)
    if len(like) < len(out):
        return bytes(out[:len(like)])
    return bytes(out) + bytes(like[len(out):])


# -- the model -----------------------------------------------------------------------------------

@dataclass
class QMgrDef:
    """A queue manager the stand-in serves, over an embedded queue manager."""

    name: str
    connect: Callable[[str], EmbeddedQueueManager]  # principal → a new embedded connection
    admin: str  # the principal the stand-in looks objects up as (allowed everything)
    encoding: int = 546  # 273: a big-endian queue manager (PCF replies need MQGMO_CONVERT)
    ccsid: int = 1208
    platform: int = C.MQPL_UNIX
    command_level: int = 940
    description: str = ""
    password: str | None = None  # when set, every user must give it (else 2035 at connect)
    default_user: str = "mqm"  # the user of a connection that gives none
    zos_replies: bool = False
    damaged: set[str] = field(default_factory=set)
    command_server: bool = True
    command_queue: str = "SYSTEM.ADMIN.COMMAND.QUEUE"
    model_queues: tuple[str, ...] = ("SYSTEM.DEFAULT.MODEL.QUEUE",)
    #: model queues defined DEFTYPE(PERMDYN): the dynamic queue an MQOPEN makes of them
    #: outlives its MQCLOSE unless that says MQCO_DELETE / MQCO_DELETE_PURGE
    permanent_models: set[str] = field(default_factory=set)
    #: local queues defined SHARE(NO) (or DEFSOPT(EXCL), as z/OS defaults): every input
    #: open of them is exclusive, so a second one is refused with 2042
    noshare: set[str] = field(default_factory=set)
    #: MAXUMSGS: a put or get under syncpoint that would make a unit of work hold more
    #: (report messages it asks for counted too) fails with 2024
    max_uncommitted: int = 10000
    #: the recovery log's room for one unit of work, in bytes of the messages it puts (None:
    #: no limit). A queue manager logs every persistent message a unit puts before the
    #: unit may commit; a put past the log's room fails with 2102 MQRC_RESOURCE_PROBLEM
    #: (IBM MQ, "What happens when a disk gets full": "MQRC_RESOURCE_PROBLEM … the log is
    #: full"; and "Calculating the size of the log"). Here every put under syncpoint counts.
    log_bytes: int | None = None
    #: the client's reconnection default (DefRecon=YES in mqclient.ini, or a CCDT
    #: channel's DEFRECON(YES)): client connections that do not say
    #: MQCNO_RECONNECT_DISABLED are reconnected after a break, losing their unit of work
    client_reconnect: bool = False
    #: the server-connection channel's MAXMSGL (what sites running DLQ tools set); a
    #: client channel carries the smaller of it and the client's MQCD.MaxMsgLength: a
    #: longer message, or an MQGET buffer longer than that, is refused with 2010
    channel_max_msg_length: int = 100 * 1024 * 1024
    #: cluster queues hosted on other queue managers: name → the local queue standing for
    #: where their messages travel (SYSTEM.CLUSTER.TRANSMIT.QUEUE). Not in a plain
    #: INQUIRE_Q (2085); MQOPEN for output and MQPUT1 resolve them, input opens do not
    cluster_queues: dict[str, str] = field(default_factory=dict)
    #: the queue manager's error log, as far as the stand-in writes it (AMQ8245E for each
    #: queue a generic display skips for want of +dsp)
    error_log: list[str] = field(default_factory=list)
    #: MQCONNX checks +connect on the queue manager object (2035 without it); off by
    #: default, as the suite's restricted principals are granted queue authorities only
    check_connect: bool = False
    #: MQCONNX connects but answers this warning (2391 MQRC_SSL_ALREADY_INITIALIZED, …)
    connect_warning: int = 0
    #: TRIGGER TRIGTYPE(FIRST): queue → initiation queue. A put that makes the queue's
    #: depth 1 while no handle has it open for input (IPPROCS 0) puts a trigger message
    #: (MQTM, format MQTRIG) there. The depth counts uncommitted messages; the trigger
    #: message of a put under syncpoint is made available when its unit of work ends
    #: (committed or backed out, as MQ does).
    triggers: dict[str, str] = field(default_factory=dict)
    dynamic: dict[str, collections.deque] = field(default_factory=dict)
    #: (dynamic queue, CorrelId) of the PCF requests a stopped command server never
    #: answers: an MQGET waiting for that reply gets its 2033 without waiting
    unanswered: set[tuple[str, bytes]] = field(default_factory=set)
    _admin_conn: EmbeddedQueueManager | None = None

    def admin_conn(self) -> EmbeddedQueueManager:
        if self._admin_conn is None:
            self._admin_conn = self.connect(self.admin)
        return self._admin_conn

    def close(self) -> None:
        if self._admin_conn is not None:
            self._admin_conn.close()
            self._admin_conn = None

    @classmethod
    def for_file(cls, name: str, path: str | os.PathLike[str], admin: str,
                 **kw: Any) -> QMgrDef:
        p = str(path)
        return cls(name=name, connect=lambda principal: open_embedded(p, principal=principal),
                   admin=admin, **kw)


@dataclass
class Handle:
    hobj: int
    kind: str  # qmgr, queue, command, dynamic
    name: str
    options: int
    qmgr_name: str = ""
    cursor: EmbeddedCursor | None = None
    cursor_used: bool = False
    local: str = ""  # the local queue behind it (an alias's target)
    under: Message | None = None  # the message last browsed (under the cursor)
    stash: Message | None = None  # browsed but refused with 2080: the cursor did not move
    #: MQOO_SAVE_ALL_CONTEXT: the context of the message last got (destructively) through
    #: this handle, for a put that passes it (PMO.Context); None after a browse
    saved: MQMD | None = None
    owner: bool = False  # the handle that created this dynamic queue
    permanent: bool = False  # ... from a DEFTYPE(PERMDYN) model: kept unless deleted


@dataclass
class Conn:
    hconn: int
    qdef: QMgrDef
    principal: str
    qm: EmbeddedQueueManager
    options: int
    thread: int | None
    lock: threading.RLock = field(default_factory=threading.RLock)
    handles: dict[int, Handle] = field(default_factory=dict)
    pending_commands: list[tuple[MQMD, bytes]] = field(default_factory=list)
    broken: bool = False  # after a 2009: every later call answers 2009
    uncommitted: int = 0  # messages in the open unit of work (MAXUMSGS counts these)
    logged: int = 0  # bytes the open unit of work put (QMgrDef.log_bytes bounds them)
    reconnectable: bool = False  # a break reconnects it instead of ending it
    max_msg_length: int = 100 * 1024 * 1024  # negotiated with the channel
    #: the CCSID the client labels what it sends with MQCCSI_Q_MGR (its locale's; MQCCSID)
    client_ccsid: int = field(default_factory=lambda: int(os.environ.get("MQCCSID") or 819))
    uow_lost: bool = False  # reconnected inside a unit of work: 2003 until MQCMIT/MQBACK
    #: puts under syncpoint in the open unit of work, by queue (trigger conditions count
    #: uncommitted messages), and the trigger messages it made: made available when the
    #: unit of work ends, committed or backed out
    uow_puts: dict[str, int] = field(default_factory=dict)
    uow_triggers: list[str] = field(default_factory=list)


@dataclass
class Call:
    name: str
    hconn: int | None
    info: dict[str, Any]
    cc: int = 0
    rc: int = 0


class Failure(Exception):
    def __init__(self, rc: int, cc: int = C.MQCC_FAILED) -> None:
        super().__init__(rc)
        self.rc, self.cc = rc, cc


_ANY_INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
_RFH2_PROPERTY_FOLDERS = {"mcd", "jms", "usr", "mqext"}



class _Passed:
    """The context a pass-all put takes, as the handle PMO.Context named saved it (checked
    and copied into the MD by ``Engine._passed_context``), for the queue manager beneath."""

    def __init__(self, md: MQMD) -> None:
        self.md = md

    def saved_context(self) -> MQMD:
        return self.md

class Engine:
    """The queue managers, connections and handles of this process."""

    CMQC, CMQCFC, CMQXC = C, F, X

    def __init__(self) -> None:
        self.qmgrs: dict[str, QMgrDef] = {}
        self.conns: dict[int, Conn] = {}
        self.calls: collections.deque[Call] = collections.deque(maxlen=50_000)
        self.faults: list[dict[str, Any]] = []
        self.internal_errors: list[str] = []
        self.callback: Any = None
        self.current_qmgr = ""
        self._ids = itertools.count(1)
        self._lock = threading.RLock()
        self._msgids = itertools.count(1)
        self.server = CommandServer(self)
        #: MQGMO_WAIT driven by the test, not by time: a waiting MQGET ends when a message
        #: comes or ``expire_waits()`` says its WaitInterval ran out (False: in real time)
        self.clocked = False
        self._wait_generation = 0
        #: MQGETs waiting now, by queue, and how many waits have started
        self.waiting: collections.Counter[str] = collections.Counter()
        self.wait_starts = 0

    # -- administration (tests) --------------------------------------------------------
    def register(self, qdef: QMgrDef) -> QMgrDef:
        with self._lock:
            old = self.qmgrs.get(qdef.name)
            if old is not None:
                self.unregister(old.name)
            self.qmgrs[qdef.name] = qdef
        return qdef

    def unregister(self, name: str) -> None:
        with self._lock:
            qdef = self.qmgrs.pop(name, None)
            if qdef is None:
                return
            for conn in [c for c in self.conns.values() if c.qdef is qdef]:
                self._drop(conn, commit=False)
            qdef.close()

    def fail_next(self, call: str, rc: int, *, cc: int = C.MQCC_FAILED, count: int = 1,
                  effect: str | None = None) -> None:
        """The next ``count`` calls named ``call`` fail with ``rc`` before doing anything;
        ``effect`` ``"backout"``/``"commit"`` makes an MQCMIT do that first (a lost reply:
        the commit happened, the caller hears ``rc``).

        As MQ: 2009 (MQRC_CONNECTION_BROKEN) ends the connection — its open unit of work is
        backed out (after an ``effect="commit"`` there is none left) and every later call on
        it answers 2009; any other failed MQCMIT (2102, 2195, …) leaves the unit of work
        open until MQBACK. ``effect="break"``: the connection drops just before the call
        (``break_connection``; ``rc`` unused) — a reconnectable one goes on without its
        unit of work (2003 on its next syncpoint call), any other answers 2009.
        ``effect="interrupt"`` (MQCMIT): the connection drops while the commit completes —
        a reconnectable connection answers 2549, any other 2009 (``rc`` unused)."""
        self.faults.append({"call": call, "rc": rc, "cc": cc, "count": count,
                            "effect": effect})

    def expire_waits(self) -> None:
        """Every MQGET waiting now ends as its WaitInterval would: 2033."""
        self._wait_generation += 1

    def calls_named(self, name: str) -> list[Call]:
        return [c for c in self.calls if c.name == name]

    def clear_calls(self) -> None:
        self.calls.clear()
        self.server.requests.clear()

    @staticmethod
    def leftovers(qdef: QMgrDef) -> list[str]:
        """Dynamic queues that outlived the handles that made them: permanent dynamic
        queues (a DEFTYPE(PERMDYN) model) closed without MQCO_DELETE / MQCO_DELETE_PURGE,
        which MQ keeps for good (IBM MQ, "MQCLOSE Options": "MQCO_DELETE_PURGE ... Delete
        the queue, purging any messages on it"; a permanent dynamic queue closed with
        MQCO_NONE is retained)."""
        return sorted(n for n, _ in qdef.dynamic.items())

    def lookup(self, qdef: QMgrDef, name: str) -> QueueAttrs | None:
        try:
            return qdef.admin_conn().inquire_queue(name)
        except MQError as exc:
            if exc.reason == C.MQRC_UNKNOWN_OBJECT_NAME:
                return None
            raise

    def own_handles(self, qdef: QMgrDef, name: str) -> list[dict[str, Any]]:
        """This process's non-browse handles on a queue (browse ones are the embedded's)."""
        out = []
        for conn in list(self.conns.values()):
            if conn.qdef is not qdef:
                continue
            for h in list(conn.handles.values()):
                if h.kind == "queue" and name in (h.name, h.local) and h.cursor is None and \
                        h.options & (_ANY_INPUT | C.MQOO_OUTPUT):
                    out.append({"pid": os.getpid(), "user_id": conn.principal,
                                "appl_tag": "python", "browse": False,
                                "input": bool(h.options & _ANY_INPUT),
                                "output": bool(h.options & C.MQOO_OUTPUT), "uow": False})
        return out

    def open_counts(self, qdef: QMgrDef, name: str) -> tuple[int, int]:
        hs = self.own_handles(qdef, name)
        return sum(1 for h in hs if h["input"]), sum(1 for h in hs if h["output"])

    def input_count(self, qdef: QMgrDef, local: str) -> int:
        """IPPROCS of a local queue: the embedded's handles (browse cursors opened for
        input, in any process) and this process's input handles without a cursor."""
        try:
            embedded = qdef.admin_conn().queue_status(local).open_input_count
        except MQError:
            embedded = 0
        mine = 0
        for conn in list(self.conns.values()):
            if conn.qdef is qdef:
                mine += sum(1 for h in list(conn.handles.values())
                            if h.kind == "queue" and h.local == local and h.cursor is None
                            and h.options & _ANY_INPUT)
        return embedded + mine

    def _exclusive_holder(self, qdef: QMgrDef, local: str) -> bool:
        return any(h.kind == "queue" and h.local == local and
                   h.options & C.MQOO_INPUT_EXCLUSIVE
                   for conn in list(self.conns.values()) if conn.qdef is qdef
                   for h in list(conn.handles.values()))

    def _trigger(self, conn: Conn, name: str) -> None:
        """TRIGTYPE(FIRST): a trigger message when the depth became 1 with IPPROCS 0."""
        qdef = conn.qdef
        if name not in qdef.triggers:
            return
        if qdef.admin_conn().inquire_queue(name).depth != 1 or self.input_count(qdef, name):
            return
        self._trigger_message(qdef, name)

    def _trigger_in_unit(self, conn: Conn, name: str) -> None:
        """Before a put under syncpoint: a trigger event when the queue, its uncommitted
        messages counted, goes from 0 to 1 with IPPROCS 0 (delivered at the unit's end)."""
        qdef = conn.qdef
        if name in qdef.triggers and not conn.uow_puts.get(name) and \
                not qdef.admin_conn().inquire_queue(name).depth and \
                not self.input_count(qdef, name):
            conn.uow_triggers.append(name)
        conn.uow_puts[name] = conn.uow_puts.get(name, 0) + 1

    def _end_unit(self, conn: Conn) -> None:
        """The unit of work ended (committed, backed out, or lost): its trigger messages
        become available."""
        triggers, conn.uow_triggers = conn.uow_triggers, []
        conn.uow_puts.clear()
        for name in triggers:
            with contextlib.suppress(MQError):
                self._trigger_message(conn.qdef, name)

    def _trigger_message(self, qdef: QMgrDef, name: str) -> None:
        initq = qdef.triggers[name]
        admin = qdef.admin_conn()
        tm = struct.pack("@4si48s48s64si256s128s128s", b"TM  ", 1, name.encode().ljust(48),
                         b" " * 48, b" " * 64, C.MQAT_UNIX, b" " * 256, b" " * 128,
                         b" " * 128)
        admin.put(initq, Message(MQMD(format="MQTRIG  ", persistence=0), tm),
                  context=Context.NEW, syncpoint=False)

    # -- plumbing ----------------------------------------------------------------------
    def _call(self, name: str, hconn: int | None, fn: Callable[[dict[str, Any]], Any],
              fail: Callable[[int, int], Any]) -> Any:
        info: dict[str, Any] = {}
        call = Call(name, hconn, info)
        self.calls.append(call)
        conn = self.conns.get(hconn) if hconn is not None else None
        try:
            if hconn is not None and name != "MQCONNX":
                if conn is None:
                    raise Failure(C.MQRC_HCONN_ERROR)
                if conn.thread is not None and conn.thread != threading.get_ident():
                    raise Failure(C.MQRC_HCONN_ERROR)  # no MQCNO_HANDLE_SHARE_*: one thread
                if conn.options & C.MQCNO_HANDLE_SHARE_NO_BLOCK:
                    if not conn.lock.acquire(blocking=False):
                        raise Failure(C.MQRC_CALL_IN_PROGRESS)
                else:
                    conn.lock.acquire()
                try:
                    self.current_qmgr = conn.qdef.name
                    if conn.broken:
                        if name == "MQDISC":
                            self._drop(conn, commit=False)
                        raise Failure(C.MQRC_CONNECTION_BROKEN)
                    self._fault(name, conn)
                    return fn(info)
                finally:
                    conn.lock.release()
            self._fault(name, None)
            return fn(info)
        except Failure as f:
            call.cc, call.rc = f.cc, f.rc
            return fail(f.cc, f.rc)
        except MQError as exc:
            call.cc, call.rc = C.MQCC_FAILED, exc.reason
            info["detail"] = exc.detail
            return fail(C.MQCC_FAILED, exc.reason)
        except Exception as exc:  # a bug of the stand-in: recorded, answered 2195
            self.internal_errors.append(f"{name}: {type(exc).__name__}: {exc}")
            call.cc, call.rc = C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR
            return fail(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR)

    def break_connection(self, conn: Conn) -> None:
        """The network drops ``conn``: the queue manager backs out its unit of work. A
        reconnectable connection is made again at once (its handles reopened); a unit of
        work it had is lost, which its next MQPUT/MQGET under syncpoint and its MQCMIT
        answer with 2003 (MQRC_BACKED_OUT) until MQBACK. Any other answers 2009 from now."""
        had_uow = conn.uncommitted > 0 or bool(conn.pending_commands)
        conn.qm.backout()
        self._end_unit(conn)
        conn.pending_commands.clear()
        conn.uncommitted = 0
        conn.logged = 0
        if conn.reconnectable:
            conn.uow_lost = conn.uow_lost or had_uow
        else:
            conn.broken = True

    def _fault(self, name: str, conn: Conn | None) -> None:
        for f in self.faults:
            if f["call"] == name and f["count"] > 0:
                f["count"] -= 1
                if f["effect"] == "break" and conn is not None:
                    # the connection drops just before this call reaches the queue manager
                    self.break_connection(conn)
                    if conn.broken:
                        raise Failure(C.MQRC_CONNECTION_BROKEN)
                    return
                if f["effect"] == "interrupt" and conn is not None:
                    # the connection drops while the queue manager commits: it completes,
                    # the reply is lost; a reconnectable client is reconnected and hears
                    # 2549 (MQRC_CALL_INTERRUPTED), any other 2009
                    self._commit(conn)
                    self.break_connection(conn)
                    raise Failure(C.MQRC_CONNECTION_BROKEN if conn.broken
                                  else C.MQRC_CALL_INTERRUPTED)
                if f["effect"] == "backout" and conn is not None:
                    conn.qm.backout()
                    self._end_unit(conn)
                    conn.pending_commands.clear()
                    conn.uncommitted = 0
                    conn.logged = 0
                elif f["effect"] == "commit" and conn is not None:
                    self._commit(conn)
                if f["rc"] == C.MQRC_CONNECTION_BROKEN and conn is not None:
                    # the connection is gone: the queue manager backs out what it left
                    # open (unless the call completed: effect "commit"), and every later
                    # call on it answers 2009
                    conn.broken = True
                    conn.qm.backout()
                    self._end_unit(conn)
                    conn.pending_commands.clear()
                    conn.uncommitted = 0
                    conn.logged = 0
                raise Failure(f["rc"], f["cc"])

    def _conn(self, hconn: int) -> Conn:
        conn = self.conns.get(hconn)
        if conn is None:
            raise Failure(C.MQRC_HCONN_ERROR)
        return conn

    def _handle(self, conn: Conn, hobj: int) -> Handle:
        h = conn.handles.get(hobj)
        if h is None:
            raise Failure(C.MQRC_HOBJ_ERROR)
        return h

    def _require(self, conn: Conn, auth: str, name: str, object_type: str = "queue",
                 principal: str = "") -> None:
        who = principal or conn.principal
        granted = conn.qm.effective_authorities(
            who, name if object_type == "queue" else conn.qdef.name,
            object_type=object_type)
        if granted is not None and auth not in granted:
            raise MQError(C.MQRC_NOT_AUTHORIZED,
                          f"principal {who!r} lacks +{auth} on {object_type} {name!r}")

    @staticmethod
    def _may(conn: Conn, auth: str, name: str, object_type: str = "queue") -> bool:
        """Whether the connection's user holds ``auth`` on an object (as the OAM says)."""
        granted = conn.qdef.admin_conn().effective_authorities(
            conn.principal, name if object_type == "queue" else conn.qdef.name,
            object_type=object_type)
        return granted is None or auth in granted

    def _new_msgid(self, qdef: QMgrDef) -> bytes:
        return b"AMQ " + qdef.name[:12].ljust(12).encode() + \
            (os.getpid() << 32 | next(self._msgids)).to_bytes(8, "big")

    # -- MQCONN / MQCONNX / MQDISC -----------------------------------------------------
    def connx(self, name: bytes, options: int, cd: bytes | None, user: bytes | None,
              password: bytes | None, sco: bytes | None, ccdt: bytes | None,
              info: dict[str, Any]) -> int:
        qname = _text(name).lstrip("*")
        info.update(qmgr=qname, options=options, user=_text(user) if user else None,
                    password_given=password is not None, ccdt_url=_text(ccdt) or None)
        if cd:
            version = CD.get(cd, "Version")
            info["cd"] = {
                "ChannelName": _text(CD.get(cd, "ChannelName")), "Version": version,
                "ChannelType": CD.get(cd, "ChannelType"),
                "TransportType": CD.get(cd, "TransportType"),
                "ConnectionName": _text(CD.get(cd, "ConnectionName")),
                "SSLCipherSpec": _text(CD.get(cd, "SSLCipherSpec")) if version >= 7 else "",
                # MQCD.CertificateLabel is a field of version 11 on: below, MQ ignores it
                "CertificateLabel": _text(CD.get(cd, "CertificateLabel"))
                if version >= 11 else "",
                # MQCD.SSLPeerNamePtr/Length exist from version 7 on
                "SSLPeerName": (_pointer_string(CD.get(cd, "SSLPeerNamePtr"),
                                                CD.get(cd, "SSLPeerNameLength")) or b""
                                ).decode() if version >= 7 else "",
            }
        if sco:
            info["sco"] = {"KeyRepository": _text(SCO.get(sco, "KeyRepository")),
                           "CertificateLabel": _text(SCO.get(sco, "CertificateLabel")),
                           "KeyRepoPassword": None}
            if SCO.get(sco, "Version", 0) >= 6:  # MQSCO_VERSION_6: KeyRepoPassword
                given = _pointer_string(SCO.get(sco, "KeyRepoPasswordPtr"),
                                        SCO.get(sco, "KeyRepoPasswordLength"))
                info["sco"]["KeyRepoPassword"] = None if given is None else given.decode()

        client = bool(options & C.MQCNO_CLIENT_BINDING)
        if client and not cd and not ccdt and not any(
                os.environ.get(v) for v in ("MQSERVER", "MQCCDTURL", "MQCHLLIB")):
            raise Failure(C.MQRC_Q_MGR_NAME_ERROR)  # no channel definition to use
        if cd:
            if CD.get(cd, "ChannelType") != X.MQCHT_CLNTCONN or \
                    CD.get(cd, "TransportType") != X.MQXPT_TCP:
                raise Failure(C.MQRC_CHANNEL_CONFIG_ERROR)
            if info["cd"]["SSLCipherSpec"] and not info.get("sco", {}).get("KeyRepository") \
                    and not os.environ.get("MQSSLKEYR"):
                raise Failure(C.MQRC_KEY_REPOSITORY_ERROR)
            peer = info["cd"]["SSLPeerName"]
            if peer and info["cd"]["SSLCipherSpec"]:
                self._check_peer(peer)
        with self._lock:
            if not qname and len(self.qmgrs) == 1:
                qname = next(iter(self.qmgrs))
            qdef = self.qmgrs.get(qname)
        if qdef is None:
            raise Failure(C.MQRC_Q_MGR_NAME_ERROR)
        principal = _text(user) if user else qdef.default_user
        if qdef.check_connect:
            granted = qdef.admin_conn().effective_authorities(principal, qdef.name,
                                                             object_type="qmgr")
            if granted is not None and "connect" not in granted:
                raise Failure(C.MQRC_NOT_AUTHORIZED)  # +connect on the queue manager
        # CONNAUTH as IBM's developer image sets it: clients must authenticate, local
        # (bindings) connections only when they give a user
        if qdef.password is not None and (user or client) and (
                password is None or password.decode("utf-8", "replace") != qdef.password):
            raise Failure(C.MQRC_NOT_AUTHORIZED)
        qm = qdef.connect(principal)
        shared = options & (C.MQCNO_HANDLE_SHARE_BLOCK | C.MQCNO_HANDLE_SHARE_NO_BLOCK)
        conn = Conn(next(self._ids), qdef, principal, qm, options,
                    None if shared else threading.get_ident())
        if cd:  # negotiated: the smaller of the client's MQCD and the channel's MAXMSGL
            conn.max_msg_length = min(CD.get(cd, "MaxMsgLength"), qdef.channel_max_msg_length)
            info["cd"]["MaxMsgLength"] = CD.get(cd, "MaxMsgLength")
        elif client:  # a CCDT or MQSERVER: the channel's own definition
            conn.max_msg_length = qdef.channel_max_msg_length
        explicit = options & (C.MQCNO_RECONNECT | C.MQCNO_RECONNECT_Q_MGR)
        conn.reconnectable = (client or bool(cd)) and not (
            options & C.MQCNO_RECONNECT_DISABLED) and bool(explicit or qdef.client_reconnect)
        with self._lock:
            self.conns[conn.hconn] = conn
        info["hconn"] = conn.hconn
        return conn.hconn

    #: the distinguished name of the queue managers' certificate, as a client sees it
    CERTIFICATE_DN = "CN=QMGR,OU=MQ,O=Example,C=GB"

    def _check_peer(self, peer: str) -> None:
        """MQCD SSLPeerName against the queue manager's certificate, as SSLPEER is matched
        (IBM MQ, "SSLPEER rules": each attribute of the pattern must be in the name, its
        type not case sensitive, a value ending in * generic): 2399 for a pattern MQ cannot
        read, 2398 for one the certificate does not match."""
        def pairs(text: str) -> list[tuple[str, str]]:
            out = []
            for part in text.split(","):
                if "=" not in part:
                    raise Failure(C.MQRC_SSL_PEER_NAME_ERROR)
                k, v = part.split("=", 1)
                out.append((k.strip().upper(), v.strip()))
            return out

        have = pairs(self.CERTIFICATE_DN)
        for k, v in pairs(peer):
            if not any(hk == k and (hv == v or (v.endswith("*") and hv.startswith(v[:-1])))
                       for hk, hv in have):
                raise Failure(C.MQRC_SSL_PEER_NAME_MISMATCH)

    def connect_answer(self, hconn: int) -> tuple[int, int]:
        """(cc, rc) of a successful MQCONNX: OK, or the queue manager's connect warning."""
        rc = self.conns[hconn].qdef.connect_warning
        return (C.MQCC_WARNING, rc) if rc else (C.MQCC_OK, C.MQRC_NONE)

    def _drop(self, conn: Conn, *, commit: bool) -> None:
        self.conns.pop(conn.hconn, None)
        for h in list(conn.handles.values()):
            self._close(conn, h)
        try:
            if commit:
                self._commit(conn)
        finally:
            conn.qm.close()
            self._end_unit(conn)

    def disc(self, hconn: int) -> None:
        conn = self._conn(hconn)
        self._drop(conn, commit=True)  # distributed MQ commits on a normal MQDISC

    # -- MQOPEN / MQCLOSE --------------------------------------------------------------
    def open(self, conn: Conn, od: bytes, options: int, info: dict[str, Any]) -> tuple[int,
                                                                                        bytes]:
        otype = OD.get(od, "ObjectType")
        name = _text(OD.get(od, "ObjectName"))
        qmgr_name = _text(OD.get(od, "ObjectQMgrName"))
        info.update(object_type=otype, name=name, qmgr_name=qmgr_name, options=options)
        qdef = conn.qdef
        out = bytearray(od)
        if otype == C.MQOT_Q_MGR:
            if options & ~(C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING):
                raise Failure(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            self._require(conn, "inq", qdef.name, "qmgr")
            h = Handle(next(self._ids), "qmgr", qdef.name, options)
        elif otype != C.MQOT_Q:
            raise Failure(C.MQRC_OBJECT_TYPE_ERROR)
        elif name == qdef.command_queue:
            if options & (_ANY_INPUT | C.MQOO_BROWSE):
                raise Failure(C.MQRC_NOT_AUTHORIZED)  # only the command server reads it
            if options & C.MQOO_OUTPUT:
                self._require(conn, "put", name)  # MQOPEN for output: +put on the queue
            h = Handle(next(self._ids), "command", name, options)
        elif name in qdef.model_queues:
            # as MQ: any MQOPEN of a model queue creates a (temporary) dynamic queue, and
            # the OD comes back naming it. Its user needs the authority of the open options
            # on the model queue itself ("Considerations for model queues": you must be
            # able to open the model queue) and +dsp on it, which the OAM checks to copy
            # the model's definition (IBM, "Granting authority to put messages to a model
            # queue"; the PCF reply queues of IBM's tools are granted +dsp +get)
            self._require(conn, "dsp", name)
            for bit, auth in ((_ANY_INPUT, "get"), (C.MQOO_BROWSE, "browse"),
                              (C.MQOO_OUTPUT, "put"), (C.MQOO_INQUIRE, "inq")):
                if options & bit:
                    self._require(conn, auth, name)
            prefix = _text(OD.get(od, "DynamicQName")) or "AMQ.*"
            dyn = prefix.replace("*", f"{os.getpid():X}{next(self._ids):08X}")[:48]
            qdef.dynamic[dyn] = collections.deque()
            OD.put(out, "ObjectName", dyn.encode().ljust(48))
            info["dynamic"] = dyn
            h = Handle(next(self._ids), "dynamic", dyn, options, owner=True,
                       permanent=name in qdef.permanent_models)
        elif name in qdef.dynamic:
            h = Handle(next(self._ids), "dynamic", name, options)
        elif name in qdef.cluster_queues and not qmgr_name and \
                self.lookup(qdef, name) is None:
            if options & (_ANY_INPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_SET):
                raise Failure(C.MQRC_UNKNOWN_OBJECT_NAME)  # only a put resolves it
            info["cluster"] = qdef.cluster_queues[name]
            h = self._open_queue(conn, qdef.cluster_queues[name], "", options)
        else:
            who = ""
            if options & C.MQOO_ALTERNATE_USER_AUTHORITY:
                # IBM MQ, MQOO_ALTERNATE_USER_AUTHORITY: the open is validated with the OD's
                # AlternateUserId ("the call can succeed only if this AlternateUserId is
                # authorized to open the object with the specified access options"), and
                # the connection's own user needs +altusr on the queue manager
                self._require(conn, "altusr", qdef.name, "qmgr")
                who = _text(OD.get(od, "AlternateUserId"))
                info.update(alt_user=who)
            h = self._open_queue(conn, name, qmgr_name, options, who)
        conn.handles[h.hobj] = h
        info["hobj"] = h.hobj
        return h.hobj, bytes(out)

    def _open_queue(self, conn: Conn, name: str, qmgr_name: str, options: int,
                    principal: str = "") -> Handle:
        remote = bool(qmgr_name) and qmgr_name != conn.qdef.name
        if options & (_ANY_INPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_SET) and remote:
            raise Failure(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        attrs = None if remote else self.lookup(conn.qdef, name)
        if attrs is None and not remote:
            raise Failure(C.MQRC_UNKNOWN_OBJECT_NAME)
        checks = [(C.MQOO_BROWSE, "browse"), (_ANY_INPUT, "get"), (C.MQOO_OUTPUT, "put"),
                  (C.MQOO_INQUIRE, "inq"), (C.MQOO_SET, "set"),
                  (C.MQOO_SET_ALL_CONTEXT, "setall"), (C.MQOO_SET_IDENTITY_CONTEXT, "setid"),
                  (C.MQOO_PASS_ALL_CONTEXT, "passall"),
                  (C.MQOO_PASS_IDENTITY_CONTEXT, "passid")]
        for bit, auth in checks:
            if options & bit and not remote:
                self._require(conn, auth, name, principal=principal)
        for bit, auth in ((C.MQOO_SET_ALL_CONTEXT, "setall"),
                          (C.MQOO_SET_IDENTITY_CONTEXT, "setid")):
            if options & bit:
                self._require(conn, auth, conn.qdef.name, "qmgr", principal=principal)
        if attrs is not None and options & (_ANY_INPUT | C.MQOO_BROWSE) and \
                attrs.type in (QueueType.REMOTE, QueueType.MODEL):
            raise Failure(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        local = name
        if attrs is not None and attrs.type is QueueType.ALIAS:
            local = attrs.target_q
        if options & _ANY_INPUT and self._exclusive_holder(conn.qdef, local):
            raise Failure(C.MQRC_OBJECT_IN_USE)
        if options & _ANY_INPUT and (local in conn.qdef.noshare or
                                     options & C.MQOO_INPUT_EXCLUSIVE) and \
                self.input_count(conn.qdef, local):
            raise Failure(C.MQRC_OBJECT_IN_USE)  # SHARE(NO): every input open is exclusive
        h = Handle(next(self._ids), "queue", name, options, qmgr_name=qmgr_name, local=local)
        if options & C.MQOO_BROWSE:
            h.cursor = conn.qm.browse(name, for_get=bool(options & _ANY_INPUT))
        return h

    def _close(self, conn: Conn, h: Handle, options: int = 0) -> None:
        conn.handles.pop(h.hobj, None)
        if h.cursor is not None:
            h.cursor.close()
            h.cursor = None
        deleting = options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE)
        if h.kind == "dynamic" and h.owner and (not h.permanent or deleting):
            conn.qdef.dynamic.pop(h.name, None)

    # -- MQPUT / MQPUT1 ----------------------------------------------------------------
    def _put_options(self, pmo: bytes, open_options: int | None, info: dict[str, Any]
                     ) -> tuple[Context, bool, bool]:
        opts = PMO.get(pmo, "Options")
        info["pmo_options"] = opts
        if opts & C.MQPMO_SYNCPOINT and opts & C.MQPMO_NO_SYNCPOINT:
            raise Failure(C.MQRC_OPTIONS_ERROR)
        ctx_bits = opts & (C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_SET_IDENTITY_CONTEXT |
                           C.MQPMO_PASS_ALL_CONTEXT | C.MQPMO_PASS_IDENTITY_CONTEXT |
                           C.MQPMO_DEFAULT_CONTEXT | C.MQPMO_NO_CONTEXT)
        if bin(ctx_bits).count("1") > 1:
            raise Failure(C.MQRC_OPTIONS_ERROR)
        context = Context.NEW
        if ctx_bits & C.MQPMO_PASS_ALL_CONTEXT:
            if open_options is not None and not open_options & C.MQOO_PASS_ALL_CONTEXT:
                raise Failure(C.MQRC_NOT_OPEN_FOR_PASS_ALL)
            # the queue manager beneath checks +passall on the queue (not +setall)
            return Context.PASS_ALL, bool(opts & C.MQPMO_SYNCPOINT), bool(
                opts & C.MQPMO_NEW_MSG_ID)
        if ctx_bits & C.MQPMO_PASS_IDENTITY_CONTEXT:
            if open_options is not None and not open_options & (
                    C.MQOO_PASS_IDENTITY_CONTEXT | C.MQOO_PASS_ALL_CONTEXT):
                raise Failure(C.MQRC_NOT_OPEN_FOR_PASS_IDENT)
            return Context.SET_IDENTITY, bool(opts & C.MQPMO_SYNCPOINT), bool(
                opts & C.MQPMO_NEW_MSG_ID)
        if ctx_bits & C.MQPMO_SET_ALL_CONTEXT:
            if open_options is not None and not open_options & C.MQOO_SET_ALL_CONTEXT:
                raise Failure(C.MQRC_NOT_OPEN_FOR_SET_ALL)
            context = Context.SET_ALL
        elif ctx_bits & C.MQPMO_SET_IDENTITY_CONTEXT:
            if open_options is not None and not open_options & (
                    C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT):
                raise Failure(C.MQRC_NOT_OPEN_FOR_SET_IDENT)
            context = Context.SET_IDENTITY
        return context, bool(opts & C.MQPMO_SYNCPOINT), bool(opts & C.MQPMO_NEW_MSG_ID)

    def _passed_context(self, conn: Conn, pmo: bytes, md: MQMD, name: str,
                        open_options: int | None) -> MQMD:
        """MQPMO_PASS_ALL_CONTEXT / _PASS_IDENTITY_CONTEXT: the context saved on the handle
        PMO.Context names (opened MQOO_SAVE_ALL_CONTEXT, a message got through it, not
        browsed) replaces the MD's: 2097 for a handle that saves none, 2098 when it holds
        none. MQPUT1 needs +passall/+passid on the queue (MQOPEN checked it for MQPUT).

        IBM's reason codes: 2097 MQRC_CONTEXT_HANDLE_ERROR, "the handle specified in the
        Context field ... is either not a valid queue handle, or ... the queue was not
        opened with MQOO_SAVE_ALL_CONTEXT"
        (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041580_.html); 2098
        MQRC_CONTEXT_NOT_AVAILABLE, the handle "has no context associated with it. This
        arises if no message has yet been successfully retrieved with the queue handle
        ..., or if the last successful MQGET call was a browse"
        (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041590_.html)."""
        opts = PMO.get(pmo, "Options")
        every = bool(opts & C.MQPMO_PASS_ALL_CONTEXT)
        if not every and not opts & C.MQPMO_PASS_IDENTITY_CONTEXT:
            return md
        if open_options is None:
            self._require(conn, "passall" if every else "passid", name)
        src = conn.handles.get(PMO.get(pmo, "Context"))
        if src is None or not src.options & C.MQOO_SAVE_ALL_CONTEXT:
            raise Failure(C.MQRC_CONTEXT_HANDLE_ERROR)
        if src.saved is None:
            raise Failure(C.MQRC_CONTEXT_NOT_AVAILABLE)
        c = src.saved
        identity = {"user_identifier": c.user_identifier,
                    "accounting_token": c.accounting_token,
                    "appl_identity_data": c.appl_identity_data}
        if every:
            identity.update(put_appl_type=c.put_appl_type, put_appl_name=c.put_appl_name,
                            put_date=c.put_date, put_time=c.put_time,
                            appl_origin_data=c.appl_origin_data)
        return md.copy(**identity)

    def _put(self, conn: Conn, kind: str, name: str, qmgr_name: str, md_raw: bytes,
             pmo: bytes, body: bytes, open_options: int | None, info: dict[str, Any],
             alt_user: str = "") -> bytes:
        md = parse_md(md_raw)
        if len(body) > conn.max_msg_length:
            raise Failure(C.MQRC_DATA_LENGTH_ERROR)  # longer than the channel carries
        context, syncpoint, new_id = self._put_options(pmo, open_options, info)
        md = self._passed_context(conn, pmo, md, name, open_options)
        info.update(queue=name, context=context.value, syncpoint=syncpoint, length=len(body),
                    ccsid=md.ccsid)
        qdef = conn.qdef
        held = 1 + self._reports(md, C.MQRO_COA) if syncpoint else 0
        if syncpoint and conn.uow_lost:
            raise Failure(C.MQRC_BACKED_OUT)  # reconnected: the unit of work is gone
        self._room(conn, held)
        if syncpoint:
            self._log(conn, len(body))
        if kind in ("command", "dynamic"):
            if md.msg_id == BLANK_MSGID or new_id:
                md = md.copy(msg_id=self._new_msgid(qdef))
            if context not in (Context.SET_ALL, Context.PASS_ALL):
                md = md.copy(user_identifier=conn.principal[:12], backout_count=0)
            if kind == "command":
                if syncpoint:
                    conn.pending_commands.append((md, body))
                else:
                    self._command(conn, md, body)
            else:
                qdef.dynamic[name].append((md, body, None))
            conn.uncommitted += held
            conn.logged += len(body) if syncpoint else 0
            return pack_md(md, md_raw)
        if syncpoint and not qmgr_name:
            self._trigger_in_unit(conn, name)
        put = conn.qm.put(name, Message(md, body), context=context, syncpoint=syncpoint,
                          qmgr_name=qmgr_name, new_msg_id=new_id, alt_user=alt_user,
                          pass_from=_Passed(md) if context is Context.PASS_ALL else None)
        if not syncpoint and not qmgr_name:
            self._trigger(conn, name)
        conn.uncommitted += held
        conn.logged += len(body) if syncpoint else 0
        return pack_md(put.md, md_raw)

    def put(self, conn: Conn, hobj: int, md: bytes, pmo: bytes, body: bytes,
            info: dict[str, Any]) -> bytes:
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_OUTPUT:
            raise Failure(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        return self._put(conn, h.kind, h.name, h.qmgr_name, md, pmo, body, h.options, info)

    def put1(self, conn: Conn, od: bytes, md: bytes, pmo: bytes, body: bytes,
             info: dict[str, Any]) -> bytes:
        if OD.get(od, "ObjectType") != C.MQOT_Q:
            raise Failure(C.MQRC_OBJECT_TYPE_ERROR)
        name = _text(OD.get(od, "ObjectName"))
        qmgr_name = _text(OD.get(od, "ObjectQMgrName"))
        info.update(qmgr_name=qmgr_name)
        kind = "command" if name == conn.qdef.command_queue else (
            "dynamic" if name in conn.qdef.dynamic else "queue")
        if kind == "command":
            self._require(conn, "put", name)  # MQPUT1 checks +put as MQOPEN for output
        if kind == "queue" and name in conn.qdef.cluster_queues and not qmgr_name and \
                self.lookup(conn.qdef, name) is None:
            info["cluster"] = name = conn.qdef.cluster_queues[name]
        alt_user = ""
        if PMO.get(pmo, "Options") & C.MQPMO_ALTERNATE_USER_AUTHORITY:
            alt_user = _text(OD.get(od, "AlternateUserId"))
            info.update(alt_user=alt_user)
        return self._put(conn, kind, name, qmgr_name, md, pmo, body, None, info,
                         alt_user=alt_user)

    # -- the command server ------------------------------------------------------------
    def _command(self, conn: Conn, md: MQMD, body: bytes) -> None:
        qdef = conn.qdef
        if not qdef.command_server:
            # nobody reads the command queue: the requester's MQGET times out. The
            # stand-in knows no reply will come, so it answers that wait's 2033 at once
            # instead of passing the WaitInterval in real time (``_get_dynamic``)
            reply_q = md.reply_to_q.strip(" \x00")
            if reply_q in qdef.dynamic:
                qdef.unanswered.add((reply_q, md.correl_id if md.report &
                                     C.MQRO_PASS_CORREL_ID else md.msg_id))
            return
        F = CMQCFC
        big = is_big_endian(md.encoding)
        if md.format != "MQADMIN ":
            replies = [PCFMessage(F.MQCFT_RESPONSE, 0, [], comp=C.MQCC_FAILED,
                                  reason=F.MQRCCF_MD_FORMAT_ERROR)]
        else:
            try:
                request = parse_pcf(body, big, F)
            except PCFFormatError as exc:
                replies = [PCFMessage(F.MQCFT_RESPONSE, 0, [], comp=C.MQCC_FAILED,
                                      reason=exc.reason)]
            else:
                # the command server reads each string in the CCSID it is labelled with:
                # its own CodedCharSetId, else (MQCCSI_DEFAULT) the message's, where
                # MQCCSI_Q_MGR means the client's CCSID for a client and the queue
                # manager's in bindings (IBM MQ, MQMD CodedCharSetId; MQCFST
                # CodedCharSetId). The server works in UTF-8 here
                bindings = bool(conn.options & C.MQCNO_LOCAL_BINDING)
                label = md.ccsid or (qdef.ccsid if bindings else conn.client_ccsid)
                strings = [p for p in request.params if p.kind in ("str", "strs")]
                request.params = [
                    recode(p, ccsid_codec(p.ccsid or label), "utf-8")
                    if p.kind in ("str", "strs") else p for p in request.params]
                if label == qdef.ccsid and any(p.ccsid not in (0, qdef.ccsid)
                                               for p in strings):
                    # a message in the queue manager's own CCSID is not converted, and a
                    # string labelled with another CCSID is refused: 3049
                    # (MQRCCF_CCSID_ERROR, IBM MQ "PCF reason codes": "Coded character-set
                    # identifier error ... not the queue manager's CCSID")
                    replies = [PCFMessage(F.MQCFT_RESPONSE, request.command, [],
                                          comp=C.MQCC_FAILED, reason=F.MQRCCF_CCSID_ERROR)]
                elif not self._may(conn, "dsp", qdef.name, "qmgr"):
                    # IBM MQ, "Authorizations for PCF commands" (Multiplatforms): the user
                    # of every PCF command needs +connect and +dsp on the queue manager
                    # object besides the object's own authority; MQ checks it before the
                    # command runs (https://www.ibm.com/support/knowledgecenter/
                    # SSFKSJ_9.2.0/com.ibm.mq.sec.doc/q011190_.html)
                    replies = [PCFMessage(F.MQCFT_RESPONSE, request.command, [],
                                          comp=C.MQCC_FAILED, reason=C.MQRC_NOT_AUTHORIZED)]
                else:
                    replies = self.server.handle(conn, request)
        reply_q = md.reply_to_q.strip(" \x00")
        correl = md.correl_id if md.report & C.MQRO_PASS_CORREL_ID else md.msg_id
        for r in replies:
            rmd = MQMD(format="MQADMIN ", msg_type=C.MQMT_REPLY, correl_id=correl,
                       msg_id=self._new_msgid(qdef), encoding=qdef.encoding, ccsid=qdef.ccsid,
                       priority=0, persistence=0, user_identifier=conn.principal[:12])
            self._deliver_reply(conn, reply_q, rmd, r)

    def _deliver_reply(self, conn: Conn, reply_q: str, md: MQMD, reply: PCFMessage) -> None:
        qdef = conn.qdef
        if reply_q in qdef.dynamic:
            qdef.dynamic[reply_q].append((md, None, reply))
            return
        body = reply.pack(is_big_endian(qdef.encoding), CMQCFC, ccsid_codec(qdef.ccsid))
        with contextlib.suppress(MQError):  # MQ would put it on the dead-letter queue
            conn.qm.put(reply_q, Message(md, body), context=Context.SET_ALL, syncpoint=False)

    # -- MQGET -------------------------------------------------------------------------
    def get(self, conn: Conn, hobj: int, md_raw: bytes, gmo_raw: bytes, maxlen: int,
            info: dict[str, Any]) -> tuple[bytes, bytes, int, int, int]:
        """(data, md, actual length, cc, rc) — a 2080 is returned, not raised."""
        h = self._handle(conn, hobj)
        if maxlen > conn.max_msg_length:
            raise Failure(C.MQRC_DATA_LENGTH_ERROR)  # a buffer longer than the channel carries
        version = GMO.get(gmo_raw, "Version")
        opts = GMO.get(gmo_raw, "Options")
        match = GMO.get(gmo_raw, "MatchOptions") if version >= 2 else \
            C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID  # MQ ignores them on version 1
        wait_ms = GMO.get(gmo_raw, "WaitInterval")
        md_in = parse_md(md_raw)
        mdv = md_in.version
        info.update(md_version=mdv, queue=h.name, gmo_version=version, options=opts, match=match,
                    maxlen=maxlen, raw_match=GMO.get(gmo_raw, "MatchOptions"))
        browse_bits = opts & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT |
                              C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
        under = opts & C.MQGMO_MSG_UNDER_CURSOR
        if bin(browse_bits | under).count("1") > 1:
            raise Failure(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQGMO_SYNCPOINT and opts & C.MQGMO_NO_SYNCPOINT:
            raise Failure(C.MQRC_OPTIONS_ERROR)
        if browse_bits and opts & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT):
            raise Failure(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQGMO_WAIT and opts & C.MQGMO_NO_WAIT:
            raise Failure(C.MQRC_OPTIONS_ERROR)
        if browse_bits and not h.options & C.MQOO_BROWSE:
            raise Failure(C.MQRC_NOT_OPEN_FOR_BROWSE)
        if not browse_bits and not h.options & _ANY_INPUT:
            raise Failure(C.MQRC_NOT_OPEN_FOR_INPUT)
        if under and not h.options & C.MQOO_BROWSE:
            raise Failure(C.MQRC_NOT_OPEN_FOR_BROWSE)
        want_id = md_in.msg_id if match & C.MQMO_MATCH_MSG_ID and \
            md_in.msg_id != BLANK_MSGID else None
        want_correl = md_in.correl_id if match & C.MQMO_MATCH_CORREL_ID and \
            md_in.correl_id != BLANK_MSGID else None
        accept = bool(opts & C.MQGMO_ACCEPT_TRUNCATED_MSG)
        syncpoint = bool(opts & C.MQGMO_SYNCPOINT)
        deadline = time.monotonic() + (min(wait_ms, 600_000) if wait_ms >= 0 else 600_000) \
            / 1000 if opts & C.MQGMO_WAIT else None
        if h.kind == "dynamic":
            return self._get_dynamic(conn, h, md_raw, md_in, opts, want_id, want_correl,
                                     maxlen, accept, deadline)
        if h.kind != "queue":
            raise Failure(C.MQRC_NOT_OPEN_FOR_INPUT)
        # MQGMO_WAIT (IBM MQ, "MQGMO_WAIT": the call waits until a suitable message arrives
        # or the WaitInterval expires, then 2033): a browse's message past its cursor
        generation = self._wait_generation
        try:
            return self._get_loop(conn, h, md_raw, opts, browse_bits, syncpoint, under,
                                  want_id, want_correl, maxlen, accept, mdv, info, deadline,
                                  generation)
        finally:
            if info.get("waited"):
                self.waiting[h.name] -= 1

    def _get_loop(self, conn: Conn, h: Handle, md_raw: bytes, opts: int, browse_bits: int,
                  syncpoint: bool, under: int, want_id: bytes | None,
                  want_correl: bytes | None, maxlen: int, accept: bool, mdv: int,
                  info: dict[str, Any], deadline: float | None, generation: int
                  ) -> tuple[bytes, bytes, int, int, int]:
        while True:
            if browse_bits:
                result = self._browse(conn, h, opts, want_id, want_correl, maxlen, accept,
                                      mdv)
            else:
                if syncpoint and conn.uow_lost:
                    raise Failure(C.MQRC_BACKED_OUT)  # reconnected: the unit of work is gone
                if syncpoint:
                    self._room(conn, 1)
                if under:
                    result = self._get_under_cursor(conn, h, opts, maxlen, accept, syncpoint,
                                                    mdv)
                else:
                    result = self._get_destructive(conn, h, opts, want_id, want_correl,
                                                   maxlen, accept, syncpoint, mdv)
                if result is not None and syncpoint and \
                        result[4] != C.MQRC_TRUNCATED_MSG_FAILED:
                    conn.uncommitted += 1 + self._reports(result[0].md, C.MQRO_COD)
            if result is not None:
                msg, data, length, cc, rc = result
                info.update(length=length, rc=rc, token=msg.token)
                if h.options & C.MQOO_SAVE_ALL_CONTEXT and rc != C.MQRC_TRUNCATED_MSG_FAILED:
                    h.saved = None if browse_bits else msg.md
                return data, pack_md(msg.md, md_raw), length, cc, rc
            if deadline is None or generation != self._wait_generation or (
                    not self.clocked and time.monotonic() >= deadline):
                raise Failure(C.MQRC_NO_MSG_AVAILABLE)
            if not info.get("waited"):
                info["waited"] = True
                self.waiting[h.name] += 1
                self.wait_starts += 1
            time.sleep(0.01)

    def _properties(self, msg: Message, opts: int, qdef: QMgrDef) -> Message:
        """PROPCTL(COMPAT): what a get without a message handle delivers."""
        if opts & C.MQGMO_PROPERTIES_FORCE_MQRFH2 or msg.md.format != "MQHRF2  ":
            return msg
        from mqconsole.mq.rfh2 import MQRFH2

        try:
            rfh = MQRFH2.unpack(msg.body, 0, big_endian=is_big_endian(msg.md.encoding),
                                ccsid=msg.md.ccsid or qdef.ccsid)
        except Exception:
            return msg
        if not opts & C.MQGMO_NO_PROPERTIES and \
                _RFH2_PROPERTY_FOLDERS & set(rfh.folder_names()):
            return msg  # properties of mcd/jms/usr/mqext: all delivered in the RFH2
        md = msg.md.copy(format=rfh.format, encoding=rfh.encoding,
                         ccsid=msg.md.ccsid if rfh.ccsid == -2 else rfh.ccsid)
        return Message(md, msg.body[rfh.struc_length:])

    @staticmethod
    def _for_md_version(msg: Message, md_version: int) -> Message:
        """A version-1 MD has no room for the version-2 fields: when the message uses them,
        MQ puts an MQMDE holding them in front of the body (format MQHMDE)."""
        md = msg.md
        if md_version >= 2 or md.version < 2 or (
                md.group_id == BLANK_MSGID and md.msg_seq_number == 1 and md.offset == 0
                and md.msg_flags == 0 and md.original_length == -1):
            return msg
        from mqconsole.mq.xqh import FORMAT_MDE, MQMDE

        mde = MQMDE(encoding=md.encoding, ccsid=md.ccsid, format=md.format,
                    group_id=md.group_id, msg_seq_number=md.msg_seq_number, offset=md.offset,
                    msg_flags=md.msg_flags, original_length=md.original_length)
        head = mde.pack(big_endian=is_big_endian(md.encoding), ccsid=819)
        return Message(md.copy(version=1, format=FORMAT_MDE), head + msg.body)

    def _answer(self, msg: Message, opts: int, maxlen: int, accept: bool, qdef: QMgrDef,
                md_version: int = 2) -> tuple[Message, bytes, int, int, int]:
        shown = self._for_md_version(self._properties(msg, opts, qdef), md_version)
        if shown is not msg:
            shown.token = msg.token  # MQ names the message, whatever is delivered of it
        length = len(shown.body)
        if length > maxlen:
            rc = C.MQRC_TRUNCATED_MSG_ACCEPTED if accept else C.MQRC_TRUNCATED_MSG_FAILED
            return shown, shown.body[:maxlen], length, C.MQCC_WARNING, rc
        return shown, shown.body, length, C.MQCC_OK, C.MQRC_NONE

    @staticmethod
    def _matches(msg: Message, want_id: bytes | None, want_correl: bytes | None) -> bool:
        return (want_id is None or msg.md.msg_id == want_id) and \
            (want_correl is None or msg.md.correl_id == want_correl)

    def _browse(self, conn: Conn, h: Handle, opts: int, want_id: bytes | None,
                want_correl: bytes | None, maxlen: int, accept: bool, mdv: int
                ) -> tuple[Message, bytes, int, int, int] | None:
        if opts & C.MQGMO_BROWSE_MSG_UNDER_CURSOR:
            if h.under is None or h.stash is not None:
                raise Failure(C.MQRC_NO_MSG_UNDER_CURSOR)
            return self._answer(h.under, opts, maxlen, accept, conn.qdef, mdv)
        if opts & C.MQGMO_BROWSE_FIRST and h.cursor_used:
            assert h.cursor is not None
            h.cursor.close()
            h.cursor = conn.qm.browse(h.name, for_get=bool(h.options & _ANY_INPUT))
            h.stash = h.under = None
        h.cursor_used = True
        assert h.cursor is not None
        msg = h.stash
        h.stash = None
        while msg is None or not self._matches(msg, want_id, want_correl):
            msg = h.cursor.next()
            if msg is None:
                return None  # 2033: the cursor stays where it was
        answer = self._answer(msg, opts, maxlen, accept, conn.qdef, mdv)
        if answer[4] == C.MQRC_TRUNCATED_MSG_FAILED:
            h.stash = msg  # not browsed: the same call with a bigger buffer gets it
        else:
            h.under = msg
        return answer

    def _get_under_cursor(self, conn: Conn, h: Handle, opts: int, maxlen: int, accept: bool,
                          syncpoint: bool, mdv: int) -> tuple[Message, bytes, int, int, int] | None:
        if not h.options & _ANY_INPUT:
            raise Failure(C.MQRC_NOT_OPEN_FOR_INPUT)
        if h.stash is not None:
            # MQ's cursor is still on the message before the refused one; the embedded
            # cursor has moved on. Not modelled (nothing in mqconsole does this).
            raise Failure(C.MQRC_UNEXPECTED_ERROR)
        if h.under is None:
            raise Failure(C.MQRC_NO_MSG_UNDER_CURSOR)
        assert h.cursor is not None
        qdef = conn.qdef
        answer = self._answer(h.under, opts, maxlen, accept, qdef, mdv)
        if answer[4] == C.MQRC_TRUNCATED_MSG_FAILED:
            return answer  # nothing taken; the cursor stays
        taken = h.cursor.get_current(syncpoint=syncpoint)
        h.under = None
        return self._answer(taken, opts, maxlen, True, qdef, mdv)

    def _peek(self, conn: Conn, name: str, want_id: bytes | None, want_correl: bytes | None
              ) -> Message | None:
        """The message a destructive get would take (looked at as the queue manager)."""
        with conn.qdef.admin_conn().browse(name) as cur:
            while True:
                batch = cur.next_batch(50)
                for m in batch:
                    if self._matches(m, want_id, want_correl):
                        return m
                if len(batch) < 50:
                    return None

    def _get_destructive(self, conn: Conn, h: Handle, opts: int, want_id: bytes | None,
                         want_correl: bytes | None, maxlen: int, accept: bool, syncpoint: bool,
                         mdv: int) -> tuple[Message, bytes, int, int, int] | None:
        if not accept:
            peeked = self._peek(conn, h.name, want_id, want_correl)
            if peeked is None:
                return None
            answer = self._answer(peeked, opts, maxlen, accept, conn.qdef, mdv)
            if answer[4] == C.MQRC_TRUNCATED_MSG_FAILED:
                return answer  # the message stays on the queue
            if want_id is None and want_correl is not None:
                want_id = peeked.md.msg_id
        try:
            if want_id is not None:
                taken = conn.qm.get_by_msgid(h.name, want_id, want_correl, syncpoint=syncpoint)
            else:
                taken = conn.qm.get(h.name, syncpoint=syncpoint)
        except MQError as exc:
            if exc.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        answer = self._answer(taken, opts, maxlen, accept, conn.qdef, mdv)
        if answer[4] == C.MQRC_TRUNCATED_MSG_FAILED:  # another consumer raced the peek
            self.internal_errors.append(f"MQGET on {h.name}: a race took a longer message")
        return answer

    def _get_dynamic(self, conn: Conn, h: Handle, md_raw: bytes, md_in: MQMD, opts: int,
                     want_id: bytes | None, want_correl: bytes | None, maxlen: int,
                     accept: bool, deadline: float | None
                     ) -> tuple[bytes, bytes, int, int, int]:
        q = conn.qdef.dynamic.get(h.name)
        if q is None:
            raise Failure(C.MQRC_Q_DELETED)
        while True:
            for i, (md, body, reply) in enumerate(list(q)):
                if (want_id is None or md.msg_id == want_id) and \
                        (want_correl is None or md.correl_id == want_correl):
                    if reply is not None:
                        # the queue manager's strings are in its CCSID; MQGMO_CONVERT
                        # turns them (and the integers) into what the getter asks for
                        big = is_big_endian(md.encoding)
                        ccsid = md.ccsid
                        if opts & C.MQGMO_CONVERT and md.format == "MQADMIN ":
                            big = is_big_endian(md_in.encoding)
                            ccsid = md_in.ccsid or conn.client_ccsid
                            md = md.copy(encoding=md_in.encoding, ccsid=ccsid)
                        body = reply.pack(big, CMQCFC, ccsid_codec(ccsid))
                    length = len(body)
                    if length > maxlen and not accept:
                        return (body[:maxlen], pack_md(md, md_raw), length, C.MQCC_WARNING,
                                C.MQRC_TRUNCATED_MSG_FAILED)
                    if not opts & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT):
                        del q[i]
                    cc, rc = (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED) \
                        if length > maxlen else (C.MQCC_OK, C.MQRC_NONE)
                    return body[:maxlen], pack_md(md, md_raw), length, cc, rc
            if deadline is None or time.monotonic() >= deadline or \
                    (h.name, want_correl) in conn.qdef.unanswered:
                # (a reply a stopped command server never sends: the WaitInterval's 2033
                # now, as MQ gives it when the interval has passed)
                conn.qdef.unanswered.discard((h.name, want_correl))
                raise Failure(C.MQRC_NO_MSG_AVAILABLE)
            conn.lock.release()  # let others answer meanwhile
            try:
                time.sleep(0.01)
            finally:
                conn.lock.acquire()

    # -- MQINQ / MQSET -----------------------------------------------------------------
    def inquire(self, conn: Conn, hobj: int, selectors: list[int]) -> tuple[list[int],
                                                                             bytes]:
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_INQUIRE:
            raise Failure(C.MQRC_NOT_OPEN_FOR_INQUIRE)
        qdef = conn.qdef
        ints: list[int] = []
        chars = b""
        if h.kind == "qmgr":
            info = conn.qm.inquire_qmgr()
            int_values = {C.MQIA_PLATFORM: qdef.platform,
                          C.MQIA_COMMAND_LEVEL: qdef.command_level,
                          C.MQIA_CODED_CHAR_SET_ID: qdef.ccsid,
                          C.MQIA_MAX_UNCOMMITTED_MSGS: qdef.max_uncommitted,
                          C.MQIA_MAX_MSG_LENGTH: 104857600}
            char_values = {C.MQCA_Q_MGR_NAME: (qdef.name, C.MQ_Q_MGR_NAME_LENGTH),
                           C.MQCA_DEAD_LETTER_Q_NAME: (info.dead_letter_queue,
                                                       C.MQ_Q_NAME_LENGTH),
                           C.MQCA_Q_MGR_DESC: (qdef.description or info.description,
                                               C.MQ_Q_MGR_DESC_LENGTH),
                           C.MQCA_COMMAND_INPUT_Q_NAME: (qdef.command_queue,
                                                         C.MQ_Q_NAME_LENGTH)}
        elif h.kind == "queue":
            a = self.lookup(qdef, h.name)
            if a is None:
                raise Failure(C.MQRC_Q_DELETED)
            # the selectors MQINQ answers for each queue type (IBM MQ, "MQINQ - Inquire
            # object attributes": a selector the type does not have is an error)
            int_values = {C.MQIA_Q_TYPE: {QueueType.LOCAL: C.MQQT_LOCAL,
                                          QueueType.ALIAS: C.MQQT_ALIAS,
                                          QueueType.REMOTE: C.MQQT_REMOTE,
                                          QueueType.MODEL: C.MQQT_MODEL}[a.type],
                          C.MQIA_DEF_PERSISTENCE: a.default_persistence,
                          C.MQIA_DEF_PRIORITY: a.default_priority}
            char_values = {C.MQCA_Q_NAME: (a.name, C.MQ_Q_NAME_LENGTH),
                           C.MQCA_Q_DESC: (a.description, C.MQ_Q_DESC_LENGTH)}
            if a.type in (QueueType.LOCAL, QueueType.ALIAS, QueueType.MODEL):
                int_values.update({C.MQIA_INHIBIT_PUT: int(a.put_inhibited),
                                   C.MQIA_INHIBIT_GET: int(a.get_inhibited)})
            if a.type is QueueType.LOCAL:
                int_values.update({C.MQIA_CURRENT_Q_DEPTH: a.depth or 0,
                                   C.MQIA_MAX_Q_DEPTH: a.max_depth,
                                   C.MQIA_MAX_MSG_LENGTH: a.max_msg_length,
                                   C.MQIA_BACKOUT_THRESHOLD: a.bothresh,
                                   C.MQIA_HARDEN_GET_BACKOUT: C.MQQA_BACKOUT_HARDENED
                                   if a.hardenbo else C.MQQA_BACKOUT_NOT_HARDENED,
                                   C.MQIA_USAGE: C.MQUS_TRANSMISSION
                                   if str(a.usage.value) == "xmitq" else C.MQUS_NORMAL})
                char_values[C.MQCA_BACKOUT_REQ_Q_NAME] = (a.boqname, C.MQ_Q_NAME_LENGTH)
            elif a.type is QueueType.ALIAS:
                char_values[C.MQCA_BASE_Q_NAME] = (a.target_q, C.MQ_Q_NAME_LENGTH)
            elif a.type is QueueType.REMOTE:
                char_values.update({
                    C.MQCA_REMOTE_Q_NAME: (a.remote_q_name, C.MQ_Q_NAME_LENGTH),
                    C.MQCA_REMOTE_Q_MGR_NAME: (a.remote_qmgr_name, C.MQ_Q_MGR_NAME_LENGTH),
                    C.MQCA_XMIT_Q_NAME: (a.xmit_q, C.MQ_Q_NAME_LENGTH)})
        else:
            raise Failure(C.MQRC_SELECTOR_NOT_FOR_TYPE)
        for s in selectors:
            if s in int_values:
                ints.append(int(int_values[s]))
            elif s in char_values:
                text, n = char_values[s]
                chars += text.encode("utf-8")[:n].ljust(n)
            else:
                raise Failure(C.MQRC_SELECTOR_ERROR)
        return ints, chars

    def set(self, conn: Conn, hobj: int, selectors: list[int], ints: list[int]) -> None:
        h = self._handle(conn, hobj)
        if not h.options & C.MQOO_SET:
            raise Failure(C.MQRC_NOT_OPEN_FOR_SET)
        changes: dict[str, bool] = {}
        for s, v in zip(selectors, ints, strict=False):
            if s == C.MQIA_INHIBIT_GET:
                changes["get_inhibited"] = bool(v)
            elif s == C.MQIA_INHIBIT_PUT:
                changes["put_inhibited"] = bool(v)
            else:
                raise Failure(C.MQRC_SELECTOR_ERROR)
        conn.qdef.admin_conn().change_queue(h.name, **changes)  # +set was checked at MQOPEN

    # -- units of work -----------------------------------------------------------------
    @staticmethod
    def _room(conn: Conn, n: int) -> None:
        """MAXUMSGS: 2024 (nothing done) unless ``n`` more messages fit in the unit of work
        (the caller adds them to ``conn.uncommitted`` once the call went through)."""
        if conn.uncommitted + n > conn.qdef.max_uncommitted:
            raise Failure(C.MQRC_SYNCPOINT_LIMIT_REACHED)

    @staticmethod
    def _log(conn: Conn, n: int) -> None:
        """The recovery log (``QMgrDef.log_bytes``): 2102 (nothing done) unless ``n`` more
        bytes fit in what the unit of work has logged."""
        limit = conn.qdef.log_bytes
        if limit is not None and conn.logged + n > limit:
            raise Failure(C.MQRC_RESOURCE_PROBLEM)

    @staticmethod
    def _reports(md: MQMD, bits: int) -> int:
        """1 when the message asks for a report (COA on arrival, COD on delivery) that the
        queue manager makes in the same unit of work."""
        return 1 if md.report & bits else 0

    def _commit(self, conn: Conn) -> None:
        pending, conn.pending_commands = conn.pending_commands, []
        conn.uncommitted = 0
        conn.logged = 0
        conn.qm.commit()
        self._end_unit(conn)
        for md, body in pending:
            self._command(conn, md, body)

    def commit(self, conn: Conn) -> None:
        if conn.uow_lost:  # reconnected inside the unit of work: it was backed out
            conn.uow_lost = False
            conn.qm.backout()
            raise Failure(C.MQRC_BACKED_OUT)
        self._commit(conn)

    def backout(self, conn: Conn) -> None:
        conn.uow_lost = False
        conn.pending_commands.clear()
        conn.uncommitted = 0
        conn.logged = 0
        conn.qm.backout()
        self._end_unit(conn)


ENGINE = Engine()


# -- the ibmmqc module functions ------------------------------------------------------------

def _struc_versions() -> dict[str, int]:
    return {"cno": C.MQCNO_CURRENT_VERSION, "cd": X.MQCD_CURRENT_VERSION,
            "csp": C.MQCSP_CURRENT_VERSION, "gmo": C.MQGMO_CURRENT_VERSION,
            "od": C.MQOD_CURRENT_VERSION, "pmo": C.MQPMO_CURRENT_VERSION,
            "sco": C.MQSCO_CURRENT_VERSION, "sts": C.MQSTS_CURRENT_VERSION,
            "sd": C.MQSD_CURRENT_VERSION, "bno": C.MQBNO_CURRENT_VERSION,
            "cbd": C.MQCBD_CURRENT_VERSION, "cbc": C.MQCBC_CURRENT_VERSION}


def _ibmmq_version() -> str:
    try:
        return _dist_version("ibmmq")
    except Exception:
        return "0"


def make_ibmmqc(engine: Engine = ENGINE) -> types.ModuleType:
    """A module with the shape of ``ibmmq.ibmmqc`` over ``engine``."""
    m = types.ModuleType("ibmmq.ibmmqc", "stand-in for ibmmq's C extension (tests only)")
    m.__version__ = _ibmmq_version()  # type: ignore[attr-defined]
    m.__cmdlevel__ = C.MQCMDL_CURRENT_LEVEL  # type: ignore[attr-defined]
    m.__mqbuild__ = "standin"  # type: ignore[attr-defined]
    m.__strucversions__ = _struc_versions()  # type: ignore[attr-defined]
    m.ENGINE = engine  # type: ignore[attr-defined]

    def MQCBINIT(fn: Any) -> None:
        engine.callback = fn

    def MQLOGCF(*args: Any) -> None:
        return None

    def MQCONN(name: bytes) -> tuple[int, int, int]:
        return MQCONNX(name, None, None, None, None, None)

    def MQCONNX(name: bytes, cno: bytes | None, cd: bytes | None, csp: bytes | None,
                sco: bytes | None, bno: bytes | None) -> tuple[int, int, int]:
        def run(info: dict[str, Any]) -> tuple[int, int, int]:
            options = CNO.get(cno, "Options", 0) or 0
            ccdt = None
            if cno and CNO.get(cno, "Version", 0) >= 6:
                ccdt = _pointer_string(CNO.get(cno, "CCDTUrlPtr"),
                                       CNO.get(cno, "CCDTUrlLength"))
            user = password = None
            if csp:
                user = _pointer_string(CSP.get(csp, "UserPtr"), CSP.get(csp, "UserLength"))
                password = _pointer_string(CSP.get(csp, "PasswordPtr"),
                                           CSP.get(csp, "PasswordLength"))
            if cno and CNO.get(cno, "Version", 0) >= 7:  # MQCNO_VERSION_7: ApplName
                info["appl_name"] = _text(CNO.get(cno, "ApplName"))
            hconn = engine.connx(name, options, cd, user, password, sco, ccdt, info)
            return (hconn, *engine.connect_answer(hconn))
        return engine._call("MQCONNX", None, run, lambda cc, rc: (0, cc, rc))

    def MQDISC(hconn: int) -> tuple[int, int]:
        def run(info: dict[str, Any]) -> tuple[int, int]:
            engine.disc(hconn)
            return 0, 0
        return engine._call("MQDISC", hconn, run, lambda cc, rc: (cc, rc))

    def MQOPEN(hconn: int, od: bytes, options: int) -> tuple[int, bytes, int, int]:
        def run(info: dict[str, Any]) -> tuple[int, bytes, int, int]:
            hobj, out = engine.open(engine._conn(hconn), od, options, info)
            return hobj, out, 0, 0
        return engine._call("MQOPEN", hconn, run, lambda cc, rc: (0, od, cc, rc))

    def MQCLOSE(hconn: int, hobj: int, options: int) -> tuple[int, int]:
        def run(info: dict[str, Any]) -> tuple[int, int]:
            conn = engine._conn(hconn)
            engine._close(conn, engine._handle(conn, hobj), options)
            return 0, 0
        return engine._call("MQCLOSE", hconn, run, lambda cc, rc: (cc, rc))

    def MQPUT(hconn: int, hobj: int, md: bytes, pmo: bytes, body: bytes
              ) -> tuple[bytes, bytes, int, int]:
        def run(info: dict[str, Any]) -> tuple[bytes, bytes, int, int]:
            if not isinstance(body, bytes):
                raise Failure(C.MQRC_BUFFER_ERROR)
            return engine.put(engine._conn(hconn), hobj, md, pmo, body, info), pmo, 0, 0
        return engine._call("MQPUT", hconn, run, lambda cc, rc: (md, pmo, cc, rc))

    def MQPUT1(hconn: int, od: bytes, md: bytes, pmo: bytes, body: bytes
               ) -> tuple[bytes, bytes, int, int]:
        def run(info: dict[str, Any]) -> tuple[bytes, bytes, int, int]:
            if not isinstance(body, bytes):
                raise Failure(C.MQRC_BUFFER_ERROR)
            return engine.put1(engine._conn(hconn), od, md, pmo, body, info), pmo, 0, 0
        return engine._call("MQPUT1", hconn, run, lambda cc, rc: (md, pmo, cc, rc))

    def MQGET(hconn: int, hobj: int, md: bytes, gmo: bytes, maxlen: int
              ) -> tuple[bytes, bytes, bytes, int, int, int]:
        def run(info: dict[str, Any]) -> tuple[bytes, bytes, bytes, int, int, int]:
            data, md_out, length, cc, rc = engine.get(engine._conn(hconn), hobj, md, gmo,
                                                      maxlen, info)
            return data, md_out, with_token(gmo, info.get("token")), length, cc, rc
        return engine._call("MQGET", hconn, run, lambda cc, rc: (b"", md, gmo, 0, cc, rc))

    def MQINQ(hconn: int, hobj: int, selectors: list[int], int_attrs: list[int], nint: int,
              nchar: int, charlen: int) -> tuple[list[int], bytes, int, int]:
        def run(info: dict[str, Any]) -> tuple[list[int], bytes, int, int]:
            ints, chars = engine.inquire(engine._conn(hconn), hobj, list(selectors))
            if len(ints) != nint or len(chars) != charlen:
                raise Failure(C.MQRC_CHAR_ATTR_LENGTH_ERROR)
            return ints, chars, 0, 0
        return engine._call("MQINQ", hconn, run, lambda cc, rc: ([], b"", cc, rc))

    def MQSET(hconn: int, hobj: int, selectors: list[int], ints: list[int], chars: bytes
              ) -> tuple[int, int]:
        def run(info: dict[str, Any]) -> tuple[int, int]:
            engine.set(engine._conn(hconn), hobj, list(selectors), list(ints))
            return 0, 0
        return engine._call("MQSET", hconn, run, lambda cc, rc: (cc, rc))

    def MQCMIT(hconn: int) -> tuple[int, int]:
        def run(info: dict[str, Any]) -> tuple[int, int]:
            engine.commit(engine._conn(hconn))
            return 0, 0
        return engine._call("MQCMIT", hconn, run, lambda cc, rc: (cc, rc))

    def MQBACK(hconn: int) -> tuple[int, int]:
        def run(info: dict[str, Any]) -> tuple[int, int]:
            engine.backout(engine._conn(hconn))
            return 0, 0
        return engine._call("MQBACK", hconn, run, lambda cc, rc: (cc, rc))

    def _unsupported(*args: Any) -> tuple[int, int]:
        return C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED

    for fn in (MQCBINIT, MQLOGCF, MQCONN, MQCONNX, MQDISC, MQOPEN, MQCLOSE, MQPUT, MQPUT1,
               MQGET, MQINQ, MQSET, MQCMIT, MQBACK):
        setattr(m, fn.__name__, fn)
    for name in ("MQBEGIN", "MQSTAT", "MQSUB", "MQSUBRQ", "MQCB", "MQCTL", "MQCRTMH",
                 "MQDLTMH", "MQSETMP", "MQINQMP", "MQDLTMP"):
        setattr(m, name, _unsupported)
    return m


def make_pymqe(engine: Engine = ENGINE) -> types.ModuleType:
    """A module with the shape of ``pymqi.pymqe`` (pymqi 1.12) over ``engine``."""
    base = make_ibmmqc(engine)
    m = types.ModuleType("pymqi.pymqe", "stand-in for pymqi's C extension (tests only)")
    m.__mqlevels__ = ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5",  # type: ignore
                      "8.0.0", "9.0.0")
    m.__mqbuild__ = "client"  # type: ignore[attr-defined]
    m.ENGINE = engine  # type: ignore[attr-defined]
    for name in ("MQCONN", "MQDISC", "MQOPEN", "MQCLOSE", "MQPUT", "MQPUT1", "MQGET",
                 "MQCMIT", "MQBACK", "MQBEGIN", "MQSTAT", "MQSUB", "MQCRTMH", "MQSETMP",
                 "MQINQMP"):
        setattr(m, name, getattr(base, name))

    def MQCONNX(name: bytes, options: int, cd: bytes | None, user_password: dict[str, bytes],
                sco: bytes | None) -> tuple[int, int, int]:
        def run(info: dict[str, Any]) -> tuple[int, int, int]:
            user = (user_password or {}).get("user")
            password = (user_password or {}).get("password")
            hconn = engine.connx(name, options, cd, user, password, sco, None, info)
            return (hconn, *engine.connect_answer(hconn))
        return engine._call("MQCONNX", None, run, lambda cc, rc: (0, cc, rc))

    def MQINQ(hconn: int, hobj: int, selector: int) -> tuple[Any, int, int]:
        def run(info: dict[str, Any]) -> tuple[Any, int, int]:
            ints, chars = engine.inquire(engine._conn(hconn), hobj, [selector])
            return (ints[0] if ints else chars), 0, 0
        return engine._call("MQINQ", hconn, run, lambda cc, rc: (None, cc, rc))

    def MQSET(hconn: int, hobj: int, selector: int, value: Any) -> tuple[int, int]:
        def run(info: dict[str, Any]) -> tuple[int, int]:
            engine.set(engine._conn(hconn), hobj, [selector], [value])
            return 0, 0
        return engine._call("MQSET", hconn, run, lambda cc, rc: (cc, rc))

    m.MQCONNX = MQCONNX  # type: ignore[attr-defined]
    m.MQINQ = MQINQ  # type: ignore[attr-defined]
    m.MQSET = MQSET  # type: ignore[attr-defined]
    return m


IBMMQC = make_ibmmqc()
PYMQE = make_pymqe()

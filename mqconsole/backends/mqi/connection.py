"""The real IBM MQ backend: the ``QueueManager`` protocol over MQI and PCF (docs/backends.md
has the method → call table; docs/real-mq.md says how to connect).

One ``MQIQueueManager`` is one MQCONNX. It is made with ``MQCNO_HANDLE_SHARE_BLOCK`` (rule 8:
usable from the TUI's worker threads; calls are also serialised here), and browsing in the
TUI should use its own connection (``new_connection()``; rule 9). Messages travel as bytes
exactly as MQ holds them: every get asks for ``MQGMO_PROPERTIES_FORCE_MQRFH2`` so message
properties arrive as an RFH2 in the body and a put sends them back unchanged.

Things MQ does that this class keeps honest:

* ``close()`` issues MQBACK before MQDISC: a normal MQDISC *commits* on distributed MQ, the
  protocol promises a backout. A connection object dropped without ``close()`` is backed out
  the same way by its finalizer.
* A put returns the message as stored: BackoutCount 0 (MQ ignores it on a put and leaves the
  caller's value in the MD).
* ``commit()`` reports 2003 (backed out instead) as such, 2009/2018/2548/2549 as
  ``CommitOutcomeUnknown`` (it never guesses), and backs out after any other failure (MQ
  leaves the unit of work open then); the unit of work stays marked open until an MQBACK
  succeeds.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from mqconsole.mq.errors import (
    COMMIT_OUTCOME_UNKNOWN_REASONS,
    CommitOutcomeUnknown,
    MQError,
)
from mqconsole.mq.message import Message
from mqconsole.mq.names import reason_name
from mqconsole.mq.queue import (
    CHANGEABLE,
    TYPE_ATTRIBUTES,
    QMgrInfo,
    QueueAttrs,
    QueueStatus,
    QueueType,
    Usage,
    check_attribute,
    is_valid_name,
)
from mqconsole.mq.reasons import (
    MQRC_BACKED_OUT,
    MQRC_CALL_INTERRUPTED,
    MQRC_CHANNEL_CONFIG_ERROR,
    MQRC_CONNECTION_BROKEN,
    MQRC_HCONN_ERROR,
    MQRC_HOST_NOT_AVAILABLE,
    MQRC_JSSE_ERROR,
    MQRC_KEY_REPOSITORY_ERROR,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_NOT_AUTHORIZED,
    MQRC_OBJECT_ALREADY_EXISTS,
    MQRC_OBJECT_IN_USE,
    MQRC_OBJECT_NAME_ERROR,
    MQRC_OBJECT_TYPE_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_Q_MGR_NAME_ERROR,
    MQRC_Q_MGR_NOT_AVAILABLE,
    MQRC_Q_MGR_QUIESCING,
    MQRC_Q_MGR_STOPPING,
    MQRC_Q_NOT_EMPTY,
    MQRC_RECONNECT_FAILED,
    MQRC_SELECTOR_ERROR,
    MQRC_SSL_INITIALIZATION_ERROR,
    MQRC_UNEXPECTED_ERROR,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_CHANNEL_NAME,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR,
)

from ..base import Context
from . import shim
from ._structs import blank_md, gmo, md_to_lib, message_from_lib, name_bytes
from .cursor import MQICursor
from .pcf import PCFSession

log = logging.getLogger(__name__)

DEFAULT_BUFFER = 64 * 1024  # first MQGET buffer; 2080 grows it to the message's length
MAX_REMEMBERED_BUFFER = 4 * 1024 * 1024
MAX_MSG_LENGTH = 100 * 1024 * 1024  # MQCD.MaxMsgLength: MQ's largest message
APPL_NAME = "mqconsole"  # MQCNO.ApplName: what DIS CONN and queue status show
_PLATFORM_NAMES = ("UNIX", "ZOS", "WINDOWS_NT", "OS400", "NSK", "APPLIANCE", "WINDOWS",
                   "VMS", "OS2", "VSE", "TPF", "OPEN_TP1", "VM")
# Hints added to the sentence of an MQError, by reason.
_HINTS = {
    MQRC_CONNECTION_BROKEN: "the connection to the queue manager broke",
    MQRC_Q_MGR_NAME_ERROR: ("no queue manager of that name answers on this connection (check "
                            "queue_manager, the channel definition table or MQSERVER)"),
    MQRC_Q_MGR_NOT_AVAILABLE: ("the queue manager is not available (is it running, and its "
                               "listener?)"),
    MQRC_Q_MGR_QUIESCING: "the queue manager is quiescing",
    MQRC_Q_MGR_STOPPING: "the queue manager is stopping",
    MQRC_HOST_NOT_AVAILABLE: ("nothing accepted the connection at that host and port (is the "
                              "listener up?)"),
    MQRC_CHANNEL_CONFIG_ERROR: ("the channel definition is not usable (check channel and "
                                "connection_name)"),
    MQRC_UNKNOWN_CHANNEL_NAME: ("the server-connection channel refused the client (check its "
                                "definition and CHLAUTH rules)"),
    MQRC_SSL_INITIALIZATION_ERROR: ("TLS could not start: check cipher_spec (the channel's "
                                    "SSLCIPH), key_repository and certificate_label"),
    MQRC_KEY_REPOSITORY_ERROR: ("the key repository could not be used (key_repository is the "
                                "stem, without .kdb)"),
    MQRC_JSSE_ERROR: ("the TLS handshake failed: the CipherSpec does not match the channel's "
                      "SSLCIPH"),
    MQRC_BACKED_OUT: "the unit of work was backed out instead of committed",
    MQRC_CALL_INTERRUPTED: ("the connection was lost during the call and re-established: MQ "
                            "cannot tell whether the unit of work was committed"),
}
# Why a commit's outcome is unknown, by reason.
_UNKNOWN_HINTS = {
    MQRC_CONNECTION_BROKEN: ("the connection broke during the commit (for a client the commit "
                             "may still have completed)"),
    MQRC_HCONN_ERROR: "the connection handle was no longer valid at the commit",
    MQRC_RECONNECT_FAILED: ("the connection was lost during the commit and could not be "
                            "re-established"),
    MQRC_CALL_INTERRUPTED: "the connection was lost during the commit and re-established",
}


@dataclass(frozen=True)
class MQConnectSettings:
    """How to reach one queue manager (the ``mq`` profile's backend settings).

    Client: ``channel`` + ``connection_name`` (``host(port)[,host(port)…]``), with TLS through
    ``cipher_spec`` (at most 32 characters), ``key_repository`` (the key database stem) and
    ``certificate_label``; or a client channel definition table (``ccdt_url``); or neither,
    and the MQ client takes ``MQSERVER``/``MQCCDTURL``/``MQCHLLIB`` from the environment.
    ``bindings=True`` connects locally (the program runs on the queue manager's machine).
    ``password`` is never logged or shown (it is left out of ``repr``).
    """

    queue_manager: str = ""
    connection_name: str | None = None
    channel: str | None = None
    cipher_spec: str | None = None
    key_repository: str | None = None
    certificate_label: str | None = None
    ccdt_url: str | None = None
    bindings: bool = False
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    password_env: str | None = None  # for spec(): a child reads the password from here
    #: the password of a PKCS#12 key repository (MQSCO.KeyRepoPassword; never shown)
    key_repository_password: str | None = field(default=None, repr=False)
    key_repository_password_env: str | None = None
    library: str = "auto"  # "auto" (ibmmq, then pymqi), "ibmmq" or "pymqi"
    response_wait_interval: int = 5000  # ms to wait for a PCF reply
    model_queue: str = "SYSTEM.DEFAULT.MODEL.QUEUE"
    dynamic_queue: str = "MQCONSOLE.*"
    command_queue: str = "SYSTEM.ADMIN.COMMAND.QUEUE"
    buffer_size: int = DEFAULT_BUFFER
    #: the queues the operator works with (MQ's generic name): a listing of all queues
    #: asks for these only — each queue a generic display skips for want of +dsp writes
    #: AMQ8245 to the queue manager's log
    queues: str = "*"

    def __post_init__(self) -> None:
        if self.cipher_spec is not None and len(self.cipher_spec) > 32:
            raise MQError(
                MQRC_SSL_INITIALIZATION_ERROR,
                f"cipher_spec {self.cipher_spec!r} is {len(self.cipher_spec)} "
                "characters; MQ takes at most 32 (a longer name is cut "
                "silently and the connection fails with 2393)",
            )
        if self.channel is not None and len(self.channel) > 20:
            raise MQError(
                MQRC_CHANNEL_CONFIG_ERROR, f"channel {self.channel!r} is longer than 20 characters"
            )
        if self.connection_name is not None and len(self.connection_name) > 264:
            raise MQError(
                MQRC_CHANNEL_CONFIG_ERROR, "connection_name is longer than 264 characters"
            )
        if self.buffer_size < 1:
            raise ValueError("buffer_size must be positive")

    @property
    def mode(self) -> str:
        """``bindings``, ``client`` (channel + connection name), ``ccdt`` or ``environment``
        (MQSERVER / MQCCDTURL / MQCHLLIB)."""
        if self.bindings:
            return "bindings"
        if self.channel and self.connection_name:
            return "client"
        if self.ccdt_url:
            return "ccdt"
        return "environment"

    def resolved_password(self) -> str | None:
        if self.password is not None:
            return self.password
        if self.password_env:
            return os.environ.get(self.password_env)
        return None

    def resolved_key_repository_password(self) -> str | None:
        if self.key_repository_password is not None:
            return self.key_repository_password
        if self.key_repository_password_env:
            return os.environ.get(self.key_repository_password_env)
        return None

    def to_spec(self) -> dict[str, object]:
        """A picklable description for ``open_from_spec`` (the password only by its
        environment variable, never itself)."""
        out: dict[str, object] = {"backend": "mq"}
        for k, v in asdict(self).items():
            if k not in ("password", "key_repository_password") and v is not None:
                out[k] = v
        return out

    @classmethod
    def from_mapping(cls, spec: Mapping[str, object]) -> MQConnectSettings:
        known = {f for f in cls.__dataclass_fields__}
        kw = {k: v for k, v in spec.items() if k in known}
        return cls(**kw)  # type: ignore[arg-type]


def _release(lib: shim.MQLibrary, qmgr: Any, pcf: list[PCFSession | None]) -> None:
    """MQBACK then MQDISC (distributed MQ would commit on a plain MQDISC)."""
    session = pcf[0]
    if session is not None:
        session.close()
    try:
        qmgr.backout()
    except Exception:  # a normal MQDISC would commit what could not be backed out: leave
        log.debug("backout at close failed; not disconnecting", exc_info=True)  # it to MQ
        return
    try:
        qmgr.disconnect()
    except Exception:  # nothing to be done about a failing disconnect
        log.debug("disconnect at close failed", exc_info=True)


class MQIQueueManager:
    """A connection to a real IBM MQ queue manager (protocol ``QueueManager``)."""

    backend = "mq"

    def __init__(self, settings: MQConnectSettings, *, library: shim.MQLibrary | None = None
                 ) -> None:
        self.settings = settings
        self.lib = library or shim.load(settings.library)
        self._lock = threading.RLock()
        self._closed = True
        self._uow = False
        self._buffer = settings.buffer_size
        self._name = settings.queue_manager.strip()
        self._ccsid = 1208
        #: MAXUMSGS, read at connect (None when the queue manager could not be asked):
        #: operations cap their batch to it (ops/uowlimit.py)
        self.max_uncommitted: int | None = None
        #: the MQCONNX warning the connection was made with (2391, …), or None
        self.connect_warning: int | None = None
        self._encoding: int | None = None  # the queue manager's, once a ping told it
        self._pcf_holder: list[PCFSession | None] = [None]
        #: queues the last list_queues left out because their inquiry failed (name → MQRC)
        self.last_listing_failures: dict[str, int] = {}
        #: why PCF is not used on this connection, once found (the command server sent no
        #: reply, or the queue manager refused PCF): queues are then looked up with MQOPEN +
        #: MQINQ on the queue itself, and a listing names the profile's ``queues``
        self.pcf_unavailable: str | None = None
        #: one line about the last listing when it could not ask the command server
        self.last_listing_note: str | None = None
        self._qmgr = self._connect()
        self._closed = False
        self._finalizer = weakref.finalize(self, _release, self.lib, self._qmgr,
                                           self._pcf_holder)
        with contextlib.suppress(MQError):  # +inq on the queue manager may be missing
            info = self._inquire_qmgr()
            self._name, self._ccsid = info.name or self._name, info.ccsid
            self.max_uncommitted = info.max_uncommitted

    # -- connecting --------------------------------------------------------------------
    def _cd(self) -> Any:
        s, X = self.settings, self.lib.CMQXC
        cd = self.lib.module.CD()
        cd.ChannelName = (s.channel or "").encode("ascii")
        cd.ConnectionName = (s.connection_name or "").encode("ascii")
        # rule 3: MQCHT_*, MQXPT_* and MQCD_VERSION_* live in CMQXC
        cd.ChannelType = X.MQCHT_CLNTCONN
        cd.TransportType = X.MQXPT_TCP
        # the libraries default to 4 MB; dead-letter queues hold bigger messages (the
        # channel negotiates the smaller of this and the server-connection's MAXMSGL)
        cd.MaxMsgLength = MAX_MSG_LENGTH
        if s.cipher_spec:
            cd.SSLCipherSpec = s.cipher_spec.encode("ascii")
            cd.Version = max(int(cd.Version), X.MQCD_VERSION_7)
        if s.certificate_label and hasattr(cd, "CertificateLabel"):
            # MQCD.CertificateLabel exists from version 11 (MQ 8); pymqi's default
            # version 6 sends the structure without it
            cd.CertificateLabel = s.certificate_label.encode("utf-8")
            cd.Version = max(int(cd.Version), X.MQCD_VERSION_11)
        return cd

    def _sco(self) -> Any:
        s = self.settings
        sco = self.lib.module.SCO()
        if s.key_repository:
            sco.KeyRepository = s.key_repository.encode("utf-8")
        if s.certificate_label:
            if not hasattr(sco, "CertificateLabel"):
                raise MQError(
                    MQRC_SSL_INITIALIZATION_ERROR,
                    f"{self.lib.name} {self.lib.version} was built without "
                    "MQSCO.CertificateLabel: certificate_label cannot be sent",
                )
            sco.CertificateLabel = s.certificate_label.encode("utf-8")
        key_password = s.resolved_key_repository_password()
        if key_password is not None:  # a PKCS#12 key repository (MQSCO version 6, MQ 9.3)
            if not hasattr(sco, "KeyRepoPassword"):
                raise MQError(
                    MQRC_KEY_REPOSITORY_ERROR,
                    f"{self.lib.name} {self.lib.version} cannot send "
                    "MQSCO.KeyRepoPassword: a password-protected key "
                    "repository needs ibmmq (library: ibmmq)",
                )
            sco.Version = max(int(sco.Version), self.lib.CMQC.MQSCO_VERSION_6)
            sco.KeyRepoPassword = key_password.encode("utf-8")
        return sco

    def _connect(self) -> Any:
        s, lib, C = self.settings, self.lib, self.lib.CMQC
        # rule 8 (pymqi does not add it); reconnection off, whatever mqclient.ini or the
        # CCDT says: a reconnect backs out the unit of work and later calls answer 2003
        options = C.MQCNO_HANDLE_SHARE_BLOCK | C.MQCNO_RECONNECT_DISABLED
        kwargs: dict[str, Any] = {}
        if s.bindings:
            options |= C.MQCNO_LOCAL_BINDING
        else:
            options |= C.MQCNO_CLIENT_BINDING
            if s.mode == "client":
                kwargs["cd"] = self._cd()
            if s.key_repository or s.certificate_label or \
                    s.resolved_key_repository_password() is not None:
                kwargs["sco"] = self._sco()
        if s.user:
            kwargs["user"] = s.user
            kwargs["password"] = s.resolved_password() or ""
        if lib.name == "ibmmq":
            cno = lib.module.CNO()
            cno.Options = options
            # version 7: ApplName, so DIS CONN / DIS QSTATUS name this application
            cno.Version = max(int(cno.Version), C.MQCNO_VERSION_7)
            cno.ApplName = APPL_NAME.encode("ascii")
            if s.ccdt_url and not s.bindings and s.mode != "client":
                cno.CCDTUrl = s.ccdt_url.encode("utf-8")  # this connection's table only
            kwargs["cno"] = cno
        else:
            kwargs["opts"] = options
            if s.ccdt_url and not s.bindings and s.mode != "client":
                # pymqi's MQCNO has no CCDTUrl; changing MQCCDTURL in os.environ would
                # change it for every connection of the process
                raise MQError(
                    MQRC_CHANNEL_CONFIG_ERROR,
                    "pymqi cannot give a client channel definition table "
                    "to one connection (ccdt_url): use library ibmmq, or "
                    "set MQCCDTURL in the environment before starting "
                    "mqconsole and leave ccdt_url out",
                )
        qmgr = lib.module.QueueManager(None)
        where = s.queue_manager or "the default queue manager"
        try:
            qmgr.connect_with_options(name_bytes(s.queue_manager, "queue manager"), **kwargs)
        except lib.MQMIError as exc:
            if exc.comp == C.MQCC_WARNING:  # connected (2391 TLS already set up, …)
                self.connect_warning = int(exc.reason)
                log.warning("connected to %s with a warning: %s", where,
                            MQError(exc.reason, completion=exc.comp))
                return qmgr
            if exc.reason == MQRC_NOT_AUTHORIZED:
                user = s.user or "the user this process runs as"
                raise MQError(
                    MQRC_NOT_AUTHORIZED,
                    f"cannot connect to {where} ({self._describe()}): the "
                    f"queue manager refused {user} — check CONNAUTH (user "
                    "and password), the channel's CHLAUTH rules (the "
                    "default BLOCKUSER(*MQADMIN) refuses administrators on "
                    "client channels) and +connect for the user on the "
                    "queue manager",
                    completion=exc.comp,
                ) from exc
            raise self._error(exc.reason, exc.comp, f"connect to {where} ({self._describe()})",
                              obj=where) from exc
        return qmgr

    def _describe(self) -> str:
        s = self.settings
        if s.mode == "client":
            tls = f", TLS {s.cipher_spec}" if s.cipher_spec else ""
            return f"client, channel {s.channel} at {s.connection_name}{tls}"
        if s.mode == "ccdt":
            return f"client, channel definition table {s.ccdt_url}"
        if s.mode == "bindings":
            return "bindings mode"
        return "client, MQSERVER/MQCCDTURL/MQCHLLIB from the environment"

    # -- plumbing ----------------------------------------------------------------------
    def _error(self, reason: int, comp: int, what: str, *, auth: str = "", obj: str = "",
               hint: str = "") -> MQError:
        text = f"cannot {what}"
        user = self.settings.user or "the connecting user"
        if reason == MQRC_NOT_AUTHORIZED and auth:
            text += f": {user} needs {auth} on {obj!r}" if obj else f": {user} needs {auth}"
            text += hint
        elif reason == MQRC_UNKNOWN_OBJECT_NAME and obj:
            text += f": {obj!r} does not exist on {self._name or 'the queue manager'}"
        elif reason in _HINTS:
            text += f": {_HINTS[reason]}"
        return MQError(reason, text, completion=comp or 2)

    @contextlib.contextmanager
    def _call(self, what: str, *, auth: str = "", obj: str = "", hint: str = ""
              ) -> Iterator[None]:
        with self._lock:
            if self._closed:
                raise MQError(MQRC_HCONN_ERROR, f"cannot {what}: this connection to "
                                    f"{self._name or 'the queue manager'} is closed")
            try:
                yield
            except self.lib.MQMIError as exc:
                raise self._error(exc.reason, exc.comp, what, auth=auth, obj=obj,
                                  hint=hint) from exc
            except self.lib.PYIFError as exc:
                raise MQError(MQRC_HCONN_ERROR, f"cannot {what}: {exc}") from exc

    def _pcf(self) -> PCFSession:
        session = self._pcf_holder[0]
        if session is None:
            s = self.settings
            session = PCFSession(self.lib, self._qmgr,
                                 response_wait_interval=s.response_wait_interval,
                                 model_queue=s.model_queue, dynamic_queue=s.dynamic_queue,
                                 command_queue=s.command_queue)
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

    def _open(self, queue: str, options: int, *, what: str = "") -> Any:
        """MQOPEN; a 2042 (another handle holds the queue exclusively) names the holders."""
        wanted = name_bytes(queue)
        od = self.lib.module.OD(ObjectName=wanted)
        try:
            handle = self.lib.module.Queue(self._qmgr, od,
                                           options | self.lib.CMQC.MQOO_FAIL_IF_QUIESCING)
        except self.lib.MQMIError as exc:
            if exc.reason != MQRC_OBJECT_IN_USE:
                raise
            raise MQError(
                MQRC_OBJECT_IN_USE,
                f"cannot {what or f'open {queue!r}'}: it is open exclusively "
                f"(SHARE(NO) or DEFSOPT(EXCL) with another input handle, or "
                f"an MQOO_INPUT_EXCLUSIVE open); {self._holders(queue)}",
                completion=exc.comp,
            ) from exc
        opened = bytes(getattr(od, "ObjectName", wanted) or b"").strip(b" \x00")
        if opened and opened != wanted:
            # a model queue: MQOPEN made a dynamic queue of it; MQCO_DELETE_PURGE deletes
            # it again even when the model is DEFTYPE(PERMDYN) (a plain MQCLOSE keeps a
            # permanent dynamic queue for good)
            with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
                handle.close(self.lib.CMQC.MQCO_DELETE_PURGE)
            raise MQError(
                MQRC_OPTION_NOT_VALID_FOR_TYPE,
                f"cannot {what or f'open {queue!r}'}: it is a model queue, "
                "which holds no messages (opening it creates a new dynamic "
                f"queue, {opened.decode('latin-1')!r}); name a local queue",
            )
        return handle

    def _holders(self, queue: str) -> str:
        """Who holds ``queue`` open (queue status: IPPROCS/OPPROCS and the handles)."""
        try:
            status = self._pcf().queue_status(queue)
        except (self.lib.MQMIError, MQError) as exc:
            reason = getattr(exc, "reason", 0)
            return (f"who holds it is not known (queue status: {reason_name(reason)}, "
                    f"{reason}; DIS QSTATUS({queue}) TYPE(HANDLE) shows it)")
        holders = []
        for h in status.handles:
            if not h.get("input"):
                continue
            who = [f"pid {h['pid']}" if h.get("pid") else "",
                   f"user {h['user_id']}" if h.get("user_id") else "",
                   f"application {h['appl_tag']!r}" if h.get("appl_tag") else "",
                   f"channel {h['channel']}" if h.get("channel") else "",
                   f"from {h['conn_name']}" if h.get("conn_name") else ""]
            holders.append(" ".join(w for w in who if w) or "an unnamed handle")
        text = (f"IPPROCS {status.open_input_count}, OPPROCS {status.open_output_count}")
        if holders:
            text += "; open for input by " + "; ".join(holders)
        return text

    def _close_handle(self, handle: Any) -> None:
        with self._lock:
            if self._closed:
                return  # MQDISC closed it
            with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
                handle.close()

    def _get(self, handle: Any, options: int, match: int, *, size: int | None = None,
             msg_id: bytes | None = None, correl_id: bytes | None = None,
             empty_ok: bool = False) -> Message | None:
        """One MQGET with a fresh MD and GMO; a 2080 grows the buffer to the message's length
        and repeats the same call (the message, or the cursor, stayed where it was). Returns
        None for 2033 (no message) when ``empty_ok``; other reasons raise.

        A message longer than the channel's MAXMSGL cannot come over it: the grown buffer
        is refused with 2010. A browse then reads a preview (MQGMO_ACCEPT_TRUNCATED_MSG
        with the buffer that fitted: ``Message.truncated_from`` says how long it is, and
        nothing puts or saves it); any other get raises 2010 saying so. Only a buffer that
        got a message is remembered for the next call."""
        lib, C = self.lib, self.lib.CMQC
        length = fitted = max(size or 0, self._buffer)
        while True:
            md = blank_md(lib, msg_id=msg_id, correl_id=correl_id)
            g = gmo(lib, options, match)
            try:
                body = handle.get(length, md, g)
            except lib.MQMIError as exc:
                if exc.reason == C.MQRC_TRUNCATED_MSG_FAILED:
                    fitted = length
                    grown = int(getattr(exc, "original_length", 0) or 0)
                    length = grown if grown > length else length * 2
                    continue
                if exc.reason == C.MQRC_DATA_LENGTH_ERROR and length > fitted:
                    return self._too_big(handle, options, match, fitted, length)
                if empty_ok and exc.reason == C.MQRC_NO_MSG_AVAILABLE:
                    return None
                raise
            if length > self._buffer:
                self._buffer = min(length, MAX_REMEMBERED_BUFFER)
            return message_from_lib(md, body, g)

    def _too_big(self, handle: Any, options: int, match: int, fitted: int, length: int
                 ) -> Message:
        """2010 for a buffer of the message's ``length``: a preview for a browse."""
        lib, C = self.lib, self.lib.CMQC
        why = (f"the message is {length} bytes, more than this client channel carries "
               "(its MAXMSGL, the smaller of the client's and the server-connection "
               "channel's): it cannot be got, moved or saved over this channel")
        if not options & (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT):
            raise MQError(C.MQRC_DATA_LENGTH_ERROR, why)
        md = blank_md(lib)
        g = gmo(lib, options | C.MQGMO_ACCEPT_TRUNCATED_MSG, match)
        try:
            body = handle.get(fitted, md, g)
        except lib.MQMIError as exc:
            if exc.reason != C.MQRC_TRUNCATED_MSG_ACCEPTED:
                raise
            body = bytes(getattr(exc, "message", b"") or b"")
            length = int(getattr(exc, "original_length", 0) or length)
        out = message_from_lib(md, body, g)
        out.truncated_from = length
        return out

    # -- the queue manager -------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    def _platform(self, code: int) -> str:
        for short in _PLATFORM_NAMES:
            if getattr(self.lib.CMQC, f"MQPL_{short}", None) == code:
                return short
        return str(code)

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

    # -- queues (PCF) --------------------------------------------------------------------
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

    def queue_status(self, name: str) -> QueueStatus:
        with self._call(f"show the status of queue {name!r}", auth="+dsp", obj=name):
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

    # -- messages (MQI) ------------------------------------------------------------------
    def browse(self, queue: str, *, for_get: bool = False) -> MQICursor:
        """MQOPEN MQOO_BROWSE; ``for_get`` adds MQOO_INPUT_SHARED (the cursor then gets the
        message under it). Only an operation that gets opens for input: an input handle
        counts in IPPROCS (FIRST/DEPTH triggers wait for it to close) and is exclusive on
        a SHARE(NO) queue (its consumers get 2042 meanwhile)."""
        C = self.lib.CMQC
        options = C.MQOO_BROWSE | (C.MQOO_INPUT_SHARED if for_get else 0)
        what = f"{'open' if for_get else 'browse'} {queue!r}" + (
            " to get messages" if for_get else "")
        with self._call(what, auth="+browse and +get" if for_get else "+browse", obj=queue):
            handle = self._open(queue, options, what=what)
            return MQICursor(self, queue, handle, can_get=for_get)

    def _get_from(self, queue: str, *, syncpoint: bool, msg_id: bytes | None = None,
                  correl_id: bytes | None = None) -> Message:
        C = self.lib.CMQC
        handle = self._open(queue, C.MQOO_INPUT_SHARED, what=f"get from {queue!r}")
        try:
            match = C.MQMO_NONE
            if msg_id is not None:
                match |= C.MQMO_MATCH_MSG_ID
            if correl_id is not None:
                match |= C.MQMO_MATCH_CORREL_ID
            options = C.MQGMO_NO_WAIT | (C.MQGMO_SYNCPOINT if syncpoint else
                                         C.MQGMO_NO_SYNCPOINT)
            msg = self._get(handle, options, match, msg_id=msg_id, correl_id=correl_id)
            assert msg is not None
            if syncpoint:
                self._uow = True
            return msg
        finally:
            with contextlib.suppress(self.lib.MQMIError, self.lib.PYIFError):
                handle.close()

    def get(self, queue: str, *, syncpoint: bool = True) -> Message:
        with self._call(f"get a message from {queue!r}", auth="+get", obj=queue):
            return self._get_from(queue, syncpoint=syncpoint)

    def get_by_msgid(self, queue: str, msg_id: bytes, correl_id: bytes | None = None, *,
                     syncpoint: bool = True) -> Message:
        with self._call(f"get message {bytes(msg_id).hex().upper()} from {queue!r}",
                        auth="+get", obj=queue):
            return self._get_from(queue, syncpoint=syncpoint, msg_id=bytes(msg_id),
                                  correl_id=None if correl_id is None else bytes(correl_id))

    def put(self, queue: str, message: Message, *, context: Context = Context.SET_ALL,
            syncpoint: bool = True, qmgr_name: str = "", new_msg_id: bool = False,
            alt_user: str = "") -> Message:
        context = Context(context)
        alt_user = alt_user.strip() if alt_user else ""
        C = self.lib.CMQC
        target = f"{queue!r}" + (f" on {qmgr_name}" if qmgr_name.strip() else "")
        auth, hint = {
            Context.SET_ALL: ("+put and +setall", " and +setall on the queue manager (to keep "
                              "the message's context); or put with --new-context to give it "
                              "a new one"),
            Context.SET_IDENTITY: ("+put and +setid", " and +setid on the queue manager"),
            Context.NEW: ("+put", "")}[context]
        if alt_user:
            target += f" as {alt_user!r} (alternate user authority)"
            hint = (f" for {alt_user!r}{hint}, and +altusr on the queue manager for the "
                    "connection's user")
        if message.truncated_from is not None:
            raise MQError(C.MQRC_DATA_LENGTH_ERROR, f"cannot put to {target}: only the first "
                          f"{len(message.body)} of the message's {message.truncated_from} "
                          "bytes came over this channel (its MAXMSGL is smaller): it cannot "
                          "be moved over this channel")
        with self._call(f"put to {target}", auth=auth, obj=queue, hint=hint):
            od = self.lib.module.OD(ObjectName=name_bytes(queue),
                                    ObjectQMgrName=name_bytes(qmgr_name or "", "queue manager"))
            if alt_user:  # MQPUT1 authorized as the message's user (PUTAUT(CTX))
                od.AlternateUserId = alt_user.encode("utf-8", "replace")[:12].ljust(12)
            md = md_to_lib(self.lib, message.md.copy(backout_count=0))
            options = (C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT) | \
                C.MQPMO_FAIL_IF_QUIESCING | {
                    Context.SET_ALL: C.MQPMO_SET_ALL_CONTEXT,
                    Context.SET_IDENTITY: C.MQPMO_SET_IDENTITY_CONTEXT,
                    Context.NEW: C.MQPMO_DEFAULT_CONTEXT}[context]
            if new_msg_id:
                options |= C.MQPMO_NEW_MSG_ID
            if alt_user:
                options |= C.MQPMO_ALTERNATE_USER_AUTHORITY
            pmo = self.lib.module.PMO(Options=options)
            body = bytes(message.body)
            self._qmgr.put1(od, body, md, pmo)
            if syncpoint:
                self._uow = True
            put = message_from_lib(md, body)
            put.md.backout_count = 0  # MQ stores 0 and leaves the caller's value in the MD
            return put

    # -- units of work -------------------------------------------------------------------
    @property
    def in_unit_of_work(self) -> bool:
        return self._uow

    def commit(self) -> None:
        """MQCMIT, and what its failure means (docs/real-mq.md, "Commit outcomes"):

        * 2003: backed out instead (MQError 2003; the unit of work is over);
        * 2009, 2018, 2548, 2549: it may have committed (``CommitOutcomeUnknown``);
        * anything else: MQ keeps the unit of work open, so MQBACK is issued here; the error
          is raised once MQBACK succeeded (the unit of work is over, nothing of it
          happened). When MQBACK fails as well the unit of work stays marked open (a later
          ``backout()`` or ``close()`` tries again) and the outcome is unknown.
        """
        what = "commit"
        with self._call(what):
            try:
                self._qmgr.commit()
            except self.lib.MQMIError as exc:
                reason, comp = exc.reason, exc.comp
                if reason == MQRC_BACKED_OUT:
                    self._uow = False
                    raise MQError(MQRC_BACKED_OUT, "commit failed: the unit of work was backed out "
                                        "instead (nothing of it happened)",
                                  completion=comp) from exc
                if reason in COMMIT_OUTCOME_UNKNOWN_REASONS:
                    self._uow = False  # the connection is gone, and its unit of work with it
                    raise CommitOutcomeUnknown(
                        reason, f"commit: {_UNKNOWN_HINTS.get(reason, _HINTS.get(reason, ''))}"
                        " — MQ cannot tell whether the unit of work was committed",
                        completion=comp) from exc
                try:
                    self._qmgr.backout()
                except self.lib.MQMIError as back:
                    raise CommitOutcomeUnknown(
                        reason, f"commit failed ({reason_name(reason)}, {reason}) and the "
                        f"backout after it failed too ({reason_name(back.reason)}, "
                        f"{back.reason}): the unit of work is still open and its outcome "
                        "unknown", completion=comp) from exc
                self._uow = False
                raise MQError(reason, f"commit failed ({_HINTS.get(reason, 'see the reason')}"
                                      "); the unit of work was backed out (nothing of it "
                                      "happened)", completion=comp) from exc
            self._uow = False

    def backout(self) -> None:
        """MQBACK; the unit of work stays marked open until an MQBACK succeeds."""
        with self._call("back out"):
            self._qmgr.backout()
            self._uow = False

    # -- connections ---------------------------------------------------------------------
    def new_connection(self) -> MQIQueueManager:
        """Another MQCONNX with the same settings (give browsing its own: rule 9)."""
        with self._call("open another connection"):
            pass
        return MQIQueueManager(self.settings, library=self.lib)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._uow = False
        self._finalizer()  # MQBACK, then MQDISC

    def __enter__(self) -> MQIQueueManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "connected"
        return (f"<MQIQueueManager {self._name or '?'} via {self.lib.name} "
                f"({self._describe()}), {state}>")


def open_mq(settings: MQConnectSettings, *, library: shim.MQLibrary | None = None
            ) -> MQIQueueManager:
    """Connect to a real queue manager (raises ``shim.MQLibraryMissing`` without MQ's client
    library, MQError for a failed connection)."""
    return MQIQueueManager(settings, library=library)


def settings_from_profile(profile: object, *, password: str | None = None
                          ) -> MQConnectSettings:
    """MQConnectSettings from a profile's ``mq`` backend (read by duck typing)."""
    b = getattr(profile, "backend", profile)

    def opt(name: str) -> Any:
        return getattr(b, name, None)

    return MQConnectSettings(
        queue_manager=opt("queue_manager") or "", connection_name=opt("connection_name"),
        channel=opt("channel"), cipher_spec=opt("cipher_spec"),
        key_repository=None if opt("key_repository") is None else str(opt("key_repository")),
        certificate_label=opt("certificate_label"),
        ccdt_url=None if opt("ccdt_url") is None else str(opt("ccdt_url")),
        bindings=bool(opt("bindings")), user=opt("user"), password=password,
        password_env=opt("password_env"), library=opt("library") or "auto",
        queues=_queues_setting(opt("queues")),
        key_repository_password_env=opt("key_repository_password_env"))


def _queues_setting(value: object) -> str:
    """The profile's ``queues`` (one name or a list) as the comma-separated setting."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) or "*"
    return str(value or "*")


def open_profile_mq(profile: object) -> MQIQueueManager:
    """Open an ``mq`` profile: the library first (so a missing one is said before any password
    prompt), then the password (environment variable or prompt), then MQCONNX."""
    lib = shim.load(getattr(getattr(profile, "backend", profile), "library", None) or "auto")
    password = None
    resolve = getattr(profile, "resolve_password", None)
    if callable(resolve):
        password = resolve()
    return MQIQueueManager(settings_from_profile(profile, password=password), library=lib)

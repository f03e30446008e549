"""MQCONNX: the channel (MQCD), TLS (MQSCO) and connect options (MQCNO) from the settings,
and MQBACK then MQDISC at the end."""

from __future__ import annotations

import ctypes
import logging
from typing import Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import (
    MQRC_CHANNEL_CONFIG_ERROR,
    MQRC_KEY_REPOSITORY_ERROR,
    MQRC_NOT_AUTHORIZED,
    MQRC_SSL_INITIALIZATION_ERROR,
)

from . import shim
from ._structs import name_bytes
from .calls import Calls
from .pcf import PCFSession
from .settings import APPL_NAME, MAX_MSG_LENGTH

log = logging.getLogger(__name__)

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


class Connecting(Calls):
    """Making the connection (MQCONNX) and saying how it was made."""

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
        if s.ssl_peer_name:  # MQCD.SSLPeerNamePtr/Length (version 7 on)
            peer = s.ssl_peer_name.encode("utf-8")
            if self.lib.name == "ibmmq":
                cd.SSLPeerNamePtr = peer  # ibmmq makes the pointer at MQCONNX
            else:  # pymqi passes the structure as it is: point at a buffer kept meanwhile
                self._peer_buffer = ctypes.create_string_buffer(peer)
                cd.SSLPeerNamePtr = ctypes.addressof(self._peer_buffer)
                cd.SSLPeerNameLength = len(peer)
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

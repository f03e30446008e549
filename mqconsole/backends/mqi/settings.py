"""How to reach one queue manager: ``MQConnectSettings`` (the ``mq`` profile's backend
settings; docs/real-mq.md) and reading them from a profile."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import (
    MQRC_CHANNEL_CONFIG_ERROR,
    MQRC_SSL_INITIALIZATION_ERROR,
)

DEFAULT_BUFFER = 64 * 1024  # first MQGET buffer; 2080 grows it to the message's length
MAX_MSG_LENGTH = 100 * 1024 * 1024  # MQCD.MaxMsgLength: MQ's largest message
APPL_NAME = "mqconsole"  # MQCNO.ApplName: what DIS CONN and queue status show


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
    ssl_peer_name: str | None = None  # MQCD.SSLPeerName: the channel's SSLPEER pattern
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
    #: the model PCF reply queues are made from (None: SYSTEM.DEFAULT.MODEL.QUEUE)
    model_queue: str | None = None
    #: their DynamicQName (None: MQCONSOLE.*)
    dynamic_queue_prefix: str | None = None
    #: the command server's queue; None: MQCA_COMMAND_INPUT_Q_NAME by MQINQ (z/OS:
    #: SYSTEM.COMMAND.INPUT, elsewhere SYSTEM.ADMIN.COMMAND.QUEUE)
    command_queue: str | None = None
    #: z/OS: MQCACF_COMMAND_SCOPE of every PCF command (a queue manager of the queue-sharing
    #: group, or *); None: the queue manager connected to
    command_scope: str | None = None
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
        if self.ccdt_url and not self.bindings and not (self.channel and
                                                         self.connection_name):
            for name in ("cipher_spec", "ssl_peer_name"):
                if getattr(self, name):
                    raise MQError(MQRC_CHANNEL_CONFIG_ERROR, f"{name} is not used with "
                                  "ccdt_url: the client channel definition table decides the "
                                  "channel's TLS (its SSLCIPH and SSLPEER)")
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
        """A picklable description for ``open_backend`` (the password only by its
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


"""The ``backend:`` of a profile: the embedded queue manager, or a real IBM MQ one.

No model here holds a password: an ``mq`` backend names an environment variable
(``password_env``) or asks for a prompt (``password_prompt``), so no dump, repr or log can
show one.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from mqconsole import paths

from .checks import (
    Model,
    base_dir,
    check_connection_name,
    check_mq_name,
    err,
    not_blank,
    resolve_path,
    sized,
)

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_URL_SCHEMES = ("file", "http", "https", "ftp")

PASSWORD_REFUSED = (
    "passwords never go in the config file; name an environment variable holding it "
    "with password_env, or set password_prompt: true to be asked"
)


class EmbeddedBackendConfig(Model):
    """The bundled SQLite queue manager (a file, or ``:memory:``)."""

    type: Literal["embedded"] = "embedded"
    path: str | None = Field(
        default=None,
        description="SQLite file of the embedded queue manager, or :memory:",
        validate_default=True,
    )
    principal: str | None = Field(
        default=None, description="user name checked against the embedded authorities"
    )

    @field_validator("path")
    @classmethod
    def _path(cls, value: str | None, info: ValidationInfo) -> str:
        if value is None:
            return str(paths.default_embedded_path())
        not_blank(value, "must not be empty (leave it out for the default file)")
        if value == ":memory:":
            return value
        return str(resolve_path(value, base_dir(info)))

    @field_validator("principal")
    @classmethod
    def _principal(cls, value: str | None) -> str | None:
        return not_blank(value)

    @property
    def in_memory(self) -> bool:
        return self.path == ":memory:"


class MQBackendConfig(Model):
    """A real IBM MQ queue manager, as a client or in bindings mode."""

    type: Literal["mq"] = "mq"
    queue_manager: str | None = Field(
        default=None, description="queue manager name (or *GROUP with a CCDT)"
    )
    connection_name: str | None = Field(default=None, description="host(port)[,host(port)...]")
    channel: str | None = Field(default=None, description="server-connection channel")
    cipher_spec: str | None = Field(default=None, description="TLS CipherSpec, at most 32")
    ssl_peer_name: str | None = Field(
        default=None, description="the distinguished name the queue manager's certificate "
        "must match (the channel's SSLPEER pattern, e.g. CN=QM1,O=Example)")
    key_repository: str | None = Field(default=None, description="key repository stem")
    certificate_label: str | None = Field(default=None, description="client certificate label")
    key_repository_password_env: str | None = Field(
        default=None, description="environment variable holding a PKCS#12 key repository's "
                                  "password"
    )
    ccdt_url: str | None = Field(default=None, description="client channel definition table")
    bindings: bool = Field(default=False, description="connect in bindings mode (local)")
    user: str | None = Field(default=None, description="user id sent in the MQCSP")
    password_env: str | None = Field(
        default=None, description="environment variable holding the password"
    )
    password_prompt: bool = Field(default=False, description="ask for the password")
    library: Literal["auto", "ibmmq", "pymqi"] = Field(
        default="auto", description="the Python MQI binding: auto (ibmmq, then pymqi), ibmmq "
                                    "or pymqi"
    )
    queues: str | list[str] = Field(
        default="*", description="the queues this operator works with: MQ's generic name "
        "(APP.*), or a list of generic names and queue names: the console's queue list and "
        "every listing of all queues ask for these only (each queue a display skips for "
        "want of +dsp writes AMQ8245 to the queue manager's log); without the command "
        "server a listing shows the queue names of the list"
    )

    command_queue: str | None = Field(
        default=None, description="the command server's queue PCF requests go to; left out: "
        "MQCA_COMMAND_INPUT_Q_NAME by MQINQ (SYSTEM.COMMAND.INPUT on z/OS, "
        "SYSTEM.ADMIN.COMMAND.QUEUE elsewhere)"
    )
    model_queue: str | None = Field(
        default=None, description="the model queue PCF reply queues are made from "
        "(SYSTEM.DEFAULT.MODEL.QUEUE when left out); needs +dsp +get"
    )
    dynamic_queue_prefix: str | None = Field(
        default=None, description="the name of the reply queues made from the model queue: "
        "at most 33 characters and a * the queue manager completes (MQCONSOLE.* when left "
        "out)"
    )
    command_scope: str | None = Field(
        default=None, description="z/OS only: the queue managers of the queue-sharing "
        "group a command runs on (a queue manager name, or *); left out: the one connected to"
    )

    @field_validator("command_queue", "model_queue")
    @classmethod
    def _admin_queue(cls, value: str | None, info: ValidationInfo) -> str | None:
        check_mq_name(value, f"queue name ({info.field_name})", 48)
        return value

    @field_validator("dynamic_queue_prefix")
    @classmethod
    def _dynamic(cls, value: str | None) -> str | None:
        if value is None:
            return None
        # MQOD DynamicQName: a trailing * is replaced by the queue manager with characters
        # that make the name unique; at most 33 characters may come before it (IBM MQ,
        # "DynamicQName (MQCHAR48)")
        body = value[:-1] if value.endswith("*") else ""
        if not value.endswith("*") or "*" in body:
            raise err("mq_name", "must end with one * that the queue manager completes "
                      "(MQCONSOLE.*), with no other *")
        check_mq_name(body, "dynamic queue prefix", 33)
        return value

    @field_validator("command_scope")
    @classmethod
    def _scope(cls, value: str | None) -> str | None:
        if value is not None and value != "*":
            check_mq_name(value, "command scope (a queue manager name, or *)", 48)
        return value

    @field_validator("queues")
    @classmethod
    def _queues(cls, value: str | list[str]) -> str | list[str]:
        for one in [value] if isinstance(value, str) else value:
            if one == "*":
                continue
            body = one[:-1] if one.endswith("*") else one
            if "*" in body:
                raise err("mq_name", "not a generic queue name: MQ takes one * at the end "
                          "only (APP.*)")
            check_mq_name(body, "generic queue name", 47 if one.endswith("*") else 48)
        if isinstance(value, list) and not value:
            raise err("mq_name", "give at least one queue name or generic name")
        return value

    @field_validator("queue_manager")
    @classmethod
    def _qmgr(cls, value: str | None) -> str | None:
        check_mq_name(value, "queue manager name", 48, group=True)
        return value

    @field_validator("channel")
    @classmethod
    def _channel(cls, value: str | None) -> str | None:
        check_mq_name(value, "channel name", 20)
        return value

    @field_validator("connection_name")
    @classmethod
    def _conname(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            check_connection_name(value)
        except ValueError as exc:
            raise err("connection_name", f"not a connection name list: {exc}") from None
        return ",".join(part.strip() for part in value.split(","))

    @field_validator("cipher_spec")
    @classmethod
    def _cipher(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.strip() or re.search(r"\s", value):
            raise err("cipher_spec", "must be a CipherSpec name without spaces")
        if len(value) > 32:
            raise err(
                "cipher_spec_too_long",
                f"is {len(value)} characters; MQ allows at most 32 (it truncates longer "
                "ones silently and the connection fails with 2393 MQRC_SSL_INITIALIZATION_ERROR)",
            )
        return value

    @field_validator("ssl_peer_name")
    @classmethod
    def _peer(cls, value: str | None) -> str | None:
        if value is not None and "=" not in value:
            raise err("ssl_peer_name", "must be a distinguished name pattern such as "
                      "CN=QM1,O=Example (attribute=value, comma separated)")
        return sized(value, "ssl_peer_name", 1024)

    @field_validator("key_repository")
    @classmethod
    def _keyr(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        not_blank(value)
        return str(resolve_path(value, base_dir(info)))

    @field_validator("certificate_label")
    @classmethod
    def _certlabl(cls, value: str | None) -> str | None:
        return sized(value, "certificate_label", 64)

    @field_validator("ccdt_url")
    @classmethod
    def _ccdt(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        not_blank(value)
        scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", value)
        if scheme:
            if scheme.group(1).lower() not in _URL_SCHEMES:
                raise err(
                    "ccdt_url", "must be a file path or a file://, http://, https:// or ftp:// URL"
                )
            return value
        return resolve_path(value, base_dir(info)).as_uri()

    @field_validator("user")
    @classmethod
    def _user(cls, value: str | None) -> str | None:
        return sized(value, "user", 1024)

    @field_validator("password_env")
    @classmethod
    def _penv(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise err(
                "password_env",
                "must be the name of an environment variable (letters, digits, _), "
                "not the password itself",
            )
        return value

    @model_validator(mode="before")
    @classmethod
    def _no_password(cls, data: Any) -> Any:
        if isinstance(data, dict) and "password" in data:
            raise err("password_in_file", PASSWORD_REFUSED, at=("password",))
        return data

    @model_validator(mode="after")
    def _consistent(self) -> MQBackendConfig:
        if self.bindings:
            for name in ("connection_name", "channel", "ccdt_url", "cipher_spec",
                         "ssl_peer_name"):
                if getattr(self, name) is not None:
                    raise err(
                        "bindings_conflict",
                        f"bindings mode connects locally and takes no {name}; drop one of the two",
                        at=("bindings",),
                    )
        if self.connection_name is not None and self.channel is None:
            raise err(
                "channel_missing",
                "a connection_name needs a channel too",
                at=("connection_name",),
            )
        if self.connection_name is not None and self.ccdt_url is not None:
            raise err(
                "ccdt_conflict",
                "set connection_name and channel, or ccdt_url, not both",
                at=("ccdt_url",),
            )
        for name in ("cipher_spec", "ssl_peer_name"):
            if getattr(self, name) is None:
                continue
            if self.ccdt_url is not None:
                raise err("ccdt_tls_conflict", f"a client channel definition table decides "
                          f"the channel's TLS (its SSLCIPH and SSLPEER): drop {name}, or "
                          "give connection_name and channel instead of ccdt_url",
                          at=(name,))
            if self.connection_name is None or self.channel is None:
                raise err("tls_without_channel", f"{name} goes with connection_name and "
                          "channel (MQSERVER cannot carry TLS: without them it is ignored)",
                          at=(name,))
        if self.ssl_peer_name is not None and self.cipher_spec is None:
            raise err("peer_without_cipher", "ssl_peer_name is checked only on a TLS channel: "
                      "set cipher_spec too", at=("ssl_peer_name",))
        if (self.password_env or self.password_prompt) and self.user is None:
            field = "password_env" if self.password_env else "password_prompt"
            raise err("user_missing", "a password needs a user: set user", at=(field,))
        return self


Backend = Annotated[EmbeddedBackendConfig | MQBackendConfig, Field(discriminator="type")]

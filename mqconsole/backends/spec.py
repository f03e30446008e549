"""Which queue manager to open, as plain values: :class:`BackendSpec`.

The faces build one from a configuration profile (``cli/backendspec.py``) and hand it down;
the core never reads the configuration object. A spec holds no password: a real queue
manager's comes from the environment variable it names (``password_env``, read when the
connection is opened, so a child process or a Spark executor reads its own) or from the
``ask_password`` callback given to :func:`mqconsole.backends.open.open_backend` — the CLI
asks on the terminal, the console in a dialog. A spec is picklable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import MQRC_NOT_AUTHORIZED

if TYPE_CHECKING:
    from .mqi import MQConnectSettings

#: asks the operator for a password (the prompt says for whom); None: the operator declined
AskPassword = Callable[[str], "str | None"]

MEMORY = ":memory:"


class PasswordUnavailable(MQError):
    """No password to connect with: the variable ``password_env`` names is unset and no
    prompt is allowed, nothing here can ask, or the operator declined (2035, said before
    MQCONNX)."""

    def __init__(self, text: str) -> None:
        super().__init__(MQRC_NOT_AUTHORIZED, text)


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """One queue manager: the embedded one (``path``: a file or ``:memory:``) or a real
    one reached with ``mq`` (``password_prompt``: ask for its password when
    ``password_env`` gives none). ``profile`` names it in sentences."""

    kind: Literal["embedded", "mq"] = "embedded"
    profile: str = ""
    path: str = ""  # embedded: the file (absolute) or ":memory:"
    principal: str | None = None  # embedded: the user its authorities check
    create: bool = False  # embedded: create the file when missing (else it must exist)
    name: str = "QM1"  # embedded: the name of a queue manager created here
    mq: MQConnectSettings | None = None
    password_prompt: bool = False

    @classmethod
    def embedded(cls, path: str, *, principal: str | None = None, create: bool = False,
                 name: str = "QM1", profile: str = "") -> BackendSpec:
        return cls(kind="embedded", path=str(path), principal=principal or None,
                   create=create, name=name, profile=profile)

    @classmethod
    def from_mapping(cls, spec: Mapping[str, object]) -> BackendSpec:
        """From ``{"backend": "embedded", "path": ..., "principal": ...}`` or
        ``MQConnectSettings.to_spec()``'s ``{"backend": "mq", ...}`` (what a child process
        is given on its command line)."""
        kind = spec.get("backend", "embedded")
        if kind == "embedded":
            principal = spec.get("principal")
            return cls.embedded(str(spec["path"]), principal=str(principal) if principal else None,
                                create=bool(spec.get("create", False)),
                                name=str(spec.get("name", "QM1")))
        if kind == "mq":
            from .mqi import MQConnectSettings

            return cls(kind="mq", mq=MQConnectSettings.from_mapping(spec))
        raise ValueError(f"unknown backend {kind!r} (known: embedded, mq)")

    @property
    def in_memory(self) -> bool:
        return self.kind == "embedded" and self.path == MEMORY

    def password_prompt_text(self) -> str:
        user = self.mq.user if self.mq is not None and self.mq.user else "the user"
        return f"MQ password for {user} (profile {self.profile or '?'}): "


__all__ = ["AskPassword", "BackendSpec", "PasswordUnavailable"]

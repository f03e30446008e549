"""The values plugins hand mqconsole and mqconsole hands plugins."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mqconsole.mq.message import Message

Scope = Literal["message", "selection", "queue"]
SCOPES: tuple[str, ...] = ("message", "selection", "queue")


@dataclass(frozen=True, slots=True)
class Decoded:
    """A payload decoded by a plugin: a tab title and plain text (never markup)."""

    title: str
    text: str


@dataclass(frozen=True, slots=True)
class ActionContext:
    """What an action's ``run`` gets besides the messages.

    ``connection`` is the open queue manager (the backend protocol), ``profile`` the
    profile's name, ``queue`` the queue the messages were selected on, ``settings`` the
    plugin's own ``plugins.settings.<name>``; ``progress(done, total)`` and ``cancelled()``
    let a long action report and stop.
    """

    connection: Any
    profile: str
    queue: str
    settings: dict[str, Any] = field(default_factory=dict)
    progress: Callable[[int, int | None], None] = lambda done, total: None
    cancel: threading.Event = field(default_factory=threading.Event)
    read_only: bool = False

    def cancelled(self) -> bool:
        return self.cancel.is_set()


@dataclass(frozen=True, slots=True)
class ActionSummary:
    """What an action did: counts, one sentence for the operator, files it wrote."""

    done: int = 0
    failed: int = 0
    sentence: str = ""
    files: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class Action:
    """An operator action a plugin offers.

    ``scope``: ``message`` (the message under the cursor), ``selection`` (the marked
    messages) or ``queue`` (every message of the queue). A ``dangerous`` action is
    confirmed first and absent in read-only profiles.
    ``run(context, messages) -> ActionSummary``.
    """

    id: str
    title: str
    scope: Scope
    dangerous: bool
    run: Callable[[ActionContext, list[Message]], ActionSummary]


@dataclass(frozen=True, slots=True)
class AuditColumn:
    """A column of the audit snapshot: ``spark_type`` is a Spark SQL type string
    (``"string"``, ``"bigint"``, ...); ``compute(message)`` gives its value."""

    name: str
    spark_type: str
    compute: Callable[[Message], Any]


# -- what the host returns: results with the plugin they came from ---------------------------

@dataclass(frozen=True, slots=True)
class DecodedResult:
    plugin: str
    title: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"plugin": self.plugin, "title": self.title, "text": self.text}


@dataclass(frozen=True, slots=True)
class RegisteredAction:
    plugin: str
    action: Action

    @property
    def id(self) -> str:
        return self.action.id


@dataclass(frozen=True, slots=True)
class RegisteredColumn:
    plugin: str
    column: AuditColumn

    @property
    def full_name(self) -> str:
        return f"{self.plugin}_{self.column.name}"


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One line of ``mqconsole plugins``: status is ``loaded``, ``disabled`` or
    ``error: <sentence>``."""

    name: str
    version: str
    source: str
    hooks: tuple[str, ...]
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "source": self.source,
                "hooks": list(self.hooks), "status": self.status}

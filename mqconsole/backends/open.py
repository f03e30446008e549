"""Open a backend: the one place that knows every backend's constructor.

``open_embedded`` opens the embedded queue manager (the default backend). Other backends
(real MQ over ``ibmmq``/``pymqi``) add their opener here; ``open_from_spec`` picks one from
a plain, picklable description (what a child process or a config profile carries).
"""

from __future__ import annotations

from collections.abc import Mapping

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import MQRC_Q_MGR_NOT_AVAILABLE

from .base import QueueManager
from .embedded import DEFAULT_BUSY_TIMEOUT, DEFAULT_DLQ, EmbeddedQueueManager
from .embedded.connection import open_embedded


def open_from_spec(spec: Mapping[str, object]) -> QueueManager:
    """Open a backend from ``{"backend": "embedded", "path": ..., "principal": ...}``."""
    kind = spec.get("backend", "embedded")
    if kind == "embedded":
        principal = spec.get("principal")
        return open_embedded(str(spec["path"]),
                             principal=str(principal) if principal else None,
                             create=bool(spec.get("create", False)),
                             name=str(spec.get("name", "QM1")))
    if kind == "mq":  # the real IBM MQ backend (imports ibmmq/pymqi only now)
        from .mqi import MQConnectSettings, open_mq

        return open_mq(MQConnectSettings.from_mapping(spec))
    raise ValueError(f"unknown backend {kind!r} (known: embedded, mq)")


def open_profile(profile: object, *, principal: str | None = None) -> QueueManager:
    """Open the backend a configuration profile names (read by duck typing: ``backend.type``
    ``"embedded"`` with ``path`` and ``principal``, or ``"mq"``: a real queue manager, whose
    user is the profile's, so ``principal`` applies to embedded profiles only)."""
    backend = getattr(profile, "backend", profile)
    kind = getattr(backend, "type", "embedded")
    if kind == "embedded":
        return open_embedded(str(backend.path),  # type: ignore[attr-defined]
                             principal=principal or getattr(backend, "principal", None))
    if kind == "mq":  # the real IBM MQ backend: a missing MQ client library is MQError 2059
        from .mqi import open_profile_mq

        return open_profile_mq(profile)
    name = getattr(profile, "name", "?")
    raise MQError(MQRC_Q_MGR_NOT_AVAILABLE, f"profile {name!r} uses an unknown backend {kind!r}")


__all__ = ["DEFAULT_BUSY_TIMEOUT", "DEFAULT_DLQ", "EmbeddedQueueManager", "open_embedded",
           "open_from_spec", "open_profile"]

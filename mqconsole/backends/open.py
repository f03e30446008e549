"""Open a backend: the one place that knows every backend's constructor.

:func:`open_backend` opens what a :class:`~mqconsole.backends.spec.BackendSpec` names — the
embedded queue manager (the default backend) or a real one over ``ibmmq``/``pymqi`` — and
is the one opener every face, the audit's executors and child processes use. A password is
never in the spec: ``password_env``'s variable, else ``ask_password`` when the spec says
``password_prompt`` (the CLI asks on the terminal, the console in a dialog).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from .base import QueueManager
from .embedded import DEFAULT_BUSY_TIMEOUT, DEFAULT_DLQ, EmbeddedQueueManager
from .embedded.connection import open_embedded
from .spec import AskPassword, BackendSpec, PasswordUnavailable


def open_backend(spec: BackendSpec | Mapping[str, object], *,
                 ask_password: AskPassword | None = None) -> QueueManager:
    """Open the queue manager ``spec`` names (a mapping: :meth:`BackendSpec.from_mapping`).

    An embedded file must exist unless ``spec.create`` (the store refuses a missing one
    with 2058 and says how to create it). A real queue manager: its MQ library first (so a
    missing one is said before any prompt), then the password, then MQCONNX."""
    if not isinstance(spec, BackendSpec):
        spec = BackendSpec.from_mapping(spec)
    if spec.kind == "embedded":
        return open_embedded(spec.path, principal=spec.principal, create=spec.create,
                             name=spec.name)
    if spec.kind == "mq" and spec.mq is not None:
        from .mqi import MQIQueueManager, load  # imports ibmmq/pymqi only now

        settings = spec.mq
        lib = load(settings.library)  # a missing MQ client library is MQError 2059
        password = _password(spec, ask_password)
        if password is not None:
            settings = dataclasses.replace(settings, password=password)
        return MQIQueueManager(settings, library=lib)
    raise ValueError(f"profile {spec.profile or '?'} names an unknown backend {spec.kind!r}")


def reopen_spec(qm: object) -> BackendSpec | None:
    """What another process of the console's opens to reach the queue manager ``qm`` is
    connected to, as ``qm`` was opened: an embedded file as the same principal, a real
    queue manager with ``qm``'s own settings — the password the operator gave with them
    (a spec given to a child over its pipe, never on its command line or in its
    environment). None for what no other process can open (``:memory:``, a test's stand-in).
    """
    if isinstance(qm, EmbeddedQueueManager):
        if qm.location == ":memory:":
            return None
        return BackendSpec.embedded(qm.location, principal=qm.principal)
    settings = getattr(qm, "settings", None)
    from .mqi.settings import MQConnectSettings  # plain values: imports no MQ library

    if isinstance(settings, MQConnectSettings):
        return BackendSpec(kind="mq", mq=settings)
    return None


def _password(spec: BackendSpec, ask_password: AskPassword | None) -> str | None:
    """The password ``spec`` connects with: its own (a child's), ``password_env``'s variable
    when set and not empty, else the operator's answer when ``password_prompt``."""
    settings = spec.mq
    assert settings is not None
    if settings.password is not None:
        return settings.password
    env = settings.password_env
    if env and os.environ.get(env):
        return os.environ[env]
    if spec.password_prompt:
        if ask_password is None:
            raise PasswordUnavailable(
                f"profile {spec.profile or '?'} asks for its password at a prompt, and "
                "nothing here can ask: name an environment variable with password_env")
        answer = ask_password(spec.password_prompt_text())
        if answer is None:
            raise PasswordUnavailable(
                f"no password given for profile {spec.profile or '?'}: not connected")
        return answer
    if env:
        raise PasswordUnavailable(
            f"the environment variable {env} named by password_env (profile "
            f"{spec.profile or '?'}) is not set; set it, or set password_prompt: true to be "
            "asked")
    return None


__all__ = ["DEFAULT_BUSY_TIMEOUT", "DEFAULT_DLQ", "AskPassword", "BackendSpec",
           "EmbeddedQueueManager", "PasswordUnavailable", "open_backend", "open_embedded",
           "reopen_spec"]

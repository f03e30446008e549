"""A configuration profile's ``backend:`` as the plain :class:`BackendSpec` the core opens
(the faces read the configuration and pass plain values down: docs/architecture.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqconsole.backends.spec import BackendSpec

if TYPE_CHECKING:
    from mqconsole.config import Profile


def spec_of(profile: Profile) -> BackendSpec:
    """The queue manager ``profile`` names: an embedded file (never created here) or a real
    one, every ``mq`` setting carried (the password only by ``password_env``'s name)."""
    from mqconsole.config import MQBackendConfig

    backend = profile.backend
    if not isinstance(backend, MQBackendConfig):
        return BackendSpec.embedded(str(backend.path), principal=backend.principal,
                                    profile=profile.name)
    from mqconsole.backends.mqi import MQConnectSettings

    queues = backend.queues
    settings = MQConnectSettings(
        queue_manager=backend.queue_manager or "", connection_name=backend.connection_name,
        channel=backend.channel, cipher_spec=backend.cipher_spec,
        ssl_peer_name=backend.ssl_peer_name,
        key_repository=backend.key_repository, certificate_label=backend.certificate_label,
        ccdt_url=backend.ccdt_url, bindings=backend.bindings, user=backend.user,
        password_env=backend.password_env, library=backend.library,
        queues=",".join(queues) if isinstance(queues, list) else queues,
        model_queue=backend.model_queue, dynamic_queue_prefix=backend.dynamic_queue_prefix,
        command_queue=backend.command_queue, command_scope=backend.command_scope,
        key_repository_password_env=backend.key_repository_password_env)
    return BackendSpec(kind="mq", profile=profile.name, mq=settings,
                       password_prompt=backend.password_prompt)


__all__ = ["spec_of"]

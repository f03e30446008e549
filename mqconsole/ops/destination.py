"""Another queue manager to move or copy to (the CLI's ``--dest-embedded PATH`` and
``--dest-profile NAME``, the console's "another queue manager"): one opener for both faces,
and the warning both say before they ask — between two queue managers nothing is atomic.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation.core import OperationError

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager
    from mqconsole.backends.spec import AskPassword, BackendSpec


def open_embedded_destination(path: str) -> QueueManager:
    """The embedded queue manager at ``path`` (it must exist: nothing is created)."""
    from mqconsole.backends.open import open_backend
    from mqconsole.backends.spec import BackendSpec

    file = path if path == ":memory:" else str(Path(path).expanduser())
    return open_backend(BackendSpec.embedded(file))


def open_profile_destination(spec: BackendSpec, verb: str, *, read_only: bool = False,
                             ask_password: AskPassword | None = None) -> QueueManager:
    """The queue manager of a configuration profile (``spec``); a ``read_only`` one is
    refused (``verb``: "moving", "copying")."""
    from mqconsole.backends.open import open_backend

    if read_only:
        raise OperationError(f"profile {spec.profile or '?'} is read-only: {verb} "
                             "messages to it refused", ExitCode.REFUSED)
    return open_backend(spec, ask_password=ask_password)


def not_atomic(source: str, dest_qmgr: str) -> str:
    """What a move to another queue manager risks (said before the question)."""
    return (f"a move to another queue manager ({dest_qmgr.strip()}) is not atomic: each batch "
            f"is committed there first and then removed from {source}, so a failure in "
            "between leaves duplicates (on both queues, reported), never a loss")


__all__ = ["not_atomic", "open_embedded_destination", "open_profile_destination"]

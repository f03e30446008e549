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


def open_embedded_destination(path: str) -> QueueManager:
    """The embedded queue manager at ``path`` (it must exist: nothing is created)."""
    from mqconsole.backends.open import open_embedded

    file = Path(path).expanduser()
    if path != ":memory:" and not file.is_file():
        raise OperationError(f"no embedded queue manager at {path}", ExitCode.UNAVAILABLE)
    return open_embedded(str(file))


def open_profile_destination(profile: object, verb: str) -> QueueManager:
    """The queue manager of a configuration ``profile``; a read-only one is refused
    (``verb``: "moving", "copying")."""
    from mqconsole.backends.open import open_profile

    if getattr(profile, "read_only", False):
        raise OperationError(f"profile {getattr(profile, 'name', '?')} is read-only: {verb} "
                             "messages to it refused", ExitCode.REFUSED)
    return open_profile(profile)


def not_atomic(source: str, dest_qmgr: str) -> str:
    """What a move to another queue manager risks (said before the question)."""
    return (f"a move to another queue manager ({dest_qmgr.strip()}) is not atomic: each batch "
            f"is committed there first and then removed from {source}, so a failure in "
            "between leaves duplicates (on both queues, reported), never a loss")


__all__ = ["not_atomic", "open_embedded_destination", "open_profile_destination"]

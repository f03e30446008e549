"""The embedded queue manager: SQLite in WAL mode at a file path (shared by processes) or
``:memory:`` (a private file in RAM). The default backend; it needs nothing installed.

Open one with ``mqconsole.backends.open.open_embedded``; create a file with
``create_queue_manager``. Behaviour and limits: docs/backends.md.
"""

from .auth import AUTHORITY_NAMES, AuthorityRecord
from .connection import (
    EmbeddedQueueManager,
    create_queue_manager,
    default_principal,
    open_embedded,
)
from .cursor import EmbeddedCursor
from .schema import SCHEMA_VERSION
from .store import (
    DEFAULT_BUSY_TIMEOUT,
    DEFAULT_DLQ,
    MEMORY,
    QueueManagerExistsError,
    create_file,
)

__all__ = [
    "AUTHORITY_NAMES",
    "DEFAULT_BUSY_TIMEOUT",
    "DEFAULT_DLQ",
    "MEMORY",
    "SCHEMA_VERSION",
    "AuthorityRecord",
    "EmbeddedCursor",
    "EmbeddedQueueManager",
    "QueueManagerExistsError",
    "create_file",
    "create_queue_manager",
    "default_principal",
    "open_embedded",
]

"""The real IBM MQ backend over IBM's ``ibmmq`` package, or ``pymqi`` (docs/real-mq.md).

Importing this package imports neither library: :func:`shim.load` does, when a connection
is opened, and says in one sentence what is missing when IBM's MQ client library is not
installed (``shim.MQLibraryMissing``).
"""

from .connection import (
    MQConnectSettings,
    MQIQueueManager,
)
from .cursor import MQICursor
from .shim import MQLibrary, MQLibraryMissing, load

__all__ = [
    "MQConnectSettings",
    "MQICursor",
    "MQIQueueManager",
    "MQLibrary",
    "MQLibraryMissing",
    "load",
]

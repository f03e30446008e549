"""The real IBM MQ backend: the ``QueueManager`` protocol over MQI and PCF (docs/backends.md
has the method → call table; docs/real-mq.md says how to connect).

One ``MQIQueueManager`` is one MQCONNX. It is made with ``MQCNO_HANDLE_SHARE_BLOCK`` (rule 8:
usable from the TUI's worker threads; calls are also serialised here), and browsing in the
TUI should use its own connection (``new_connection()``; rule 9). Messages travel as bytes
exactly as MQ holds them: every get asks for ``MQGMO_PROPERTIES_FORCE_MQRFH2`` so message
properties arrive as an RFH2 in the body and a put sends them back unchanged.

Things MQ does that this class keeps honest:

* ``close()`` issues MQBACK before MQDISC: a normal MQDISC *commits* on distributed MQ, the
  protocol promises a backout. A connection object dropped without ``close()`` is backed out
  the same way by its finalizer.
* A put returns the message as stored: BackoutCount 0 (MQ ignores it on a put and leaves the
  caller's value in the MD).
* ``commit()`` reports 2003 (backed out instead) as such, 2009/2018/2548/2549 as
  ``CommitOutcomeUnknown`` (it never guesses), and backs out after any other failure (MQ
  leaves the unit of work open then); the unit of work stays marked open until an MQBACK
  succeeds.

The class is made of parts with one job each, each building on the ones below it:

* ``calls.Calls`` — the connection's state and the call guard (failures as one sentence,
  with ``hints``);
* ``connecting.Connecting`` — MQCONNX from the ``settings`` (channel, TLS, CCDT);
* ``inquiry.Inquiry`` — MQINQ on the queue manager and on queues (no command server needed);
* ``admin.Admin`` — the PCF commands (``pcf.PCFSession``), falling back to ``inquiry``;
* ``messages.Messages`` — MQOPEN, MQGET, browse cursors (``cursor``), MQPUT1;
* ``units.UnitsOfWork`` — MQCMIT and MQBACK.

Here: the constructor, connections, and the functions that open one.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

from mqconsole.mq.errors import MQError

from . import shim
from .connecting import Connecting, _release
from .messages import Messages
from .pcf import PCFSession
from .settings import MQConnectSettings
from .units import UnitsOfWork


class MQIQueueManager(Messages, UnitsOfWork, Connecting):
    """A connection to a real IBM MQ queue manager (protocol ``QueueManager``)."""

    def __init__(self, settings: MQConnectSettings, *, library: shim.MQLibrary | None = None
                 ) -> None:
        self.settings = settings
        self.lib = library or shim.load(settings.library)
        self._lock = threading.RLock()
        self._closed = True
        self._uow = False
        self._buffer = settings.buffer_size
        self._name = settings.queue_manager.strip()
        self._ccsid = 1208
        #: MAXUMSGS, read at connect (None when the queue manager could not be asked):
        #: operations cap their batch to it (ops/uowlimit.py)
        self.max_uncommitted: int | None = None
        #: the MQCONNX warning the connection was made with (2391, …), or None
        self.connect_warning: int | None = None
        self._encoding: int | None = None  # the queue manager's, once a ping told it
        self._pcf_holder: list[PCFSession | None] = [None]
        #: queues the last list_queues left out because their inquiry failed (name → MQRC)
        self.last_listing_failures: dict[str, int] = {}
        #: why PCF is not used on this connection, once found (the command server sent no
        #: reply, or the queue manager refused PCF): queues are then looked up with MQOPEN +
        #: MQINQ on the queue itself, and a listing names the profile's ``queues``
        self.pcf_unavailable: str | None = None
        #: one line about the last listing when it could not ask the command server
        self.last_listing_note: str | None = None
        self.platform = None
        self._qmgr = self._connect()
        self._closed = False
        self._finalizer = weakref.finalize(self, _release, self.lib, self._qmgr,
                                           self._pcf_holder)
        with contextlib.suppress(MQError):  # +inq on the queue manager may be missing
            info = self._inquire_qmgr()
            self._name, self._ccsid = info.name or self._name, info.ccsid
            self.platform = info.platform
            self.max_uncommitted = info.max_uncommitted

    def new_connection(self) -> MQIQueueManager:
        """Another MQCONNX with the same settings (give browsing its own: rule 9)."""
        with self._call("open another connection"):
            pass
        return MQIQueueManager(self.settings, library=self.lib)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._uow = False
        self._finalizer()  # MQBACK, then MQDISC

    def __enter__(self) -> MQIQueueManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "connected"
        return (f"<MQIQueueManager {self._name or '?'} via {self.lib.name} "
                f"({self._describe()}), {state}>")


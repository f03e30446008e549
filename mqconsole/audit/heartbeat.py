"""A running export's heartbeat: how the next export and ``audit clean`` tell a killed
export's staging folder from a live one's on any store (issue 25 item 2).

While an export runs, a daemon thread of the exporting process (the driver, or the Connect
client) writes :data:`~.store.HEARTBEAT` in its staging folder (or in ``--out`` beside the
claim, where it writes in place) every :data:`~.store.BEAT_SECONDS`, through the
snapshot's own store: the driver's disk, Hadoop's ``FileSystem`` in the driver's JVM, or
the Connect server's side, so it reaches every file system the export writes to. A beat
is the file removed and created again (``remove`` then ``write_new``, in one
:meth:`~.store.Store.many`: one round trip, and no operation a server's plugin built by an
older mqconsole lacks). It holds the writer's host, process and time, and the bound after
which its export may be taken for gone (:meth:`~.store.Store.beat_bound`); the judge
(:func:`~.store.gone`) reads the file's modification time as the file system set it, not
the time written in it (two machines' clocks).

How late a beat can be depends on how the store writes it:

- the driver's disk and Hadoop's ``FileSystem`` in the driver's JVM (a classic session),
  and mqconsole's plugin on a Connect server's driver (any URI but ``file:``: the plugin
  does the operations while the server plans the request, with no executor): late only
  by a stall of that process, so the bound is :data:`~.store.STALE_SECONDS` (20 beats);
- over Spark Connect with a ``file:`` snapshot, each beat is a one-task Spark job on an
  executor (serverstore.py), and under Spark's default FIFO scheduler a job starts its
  task only once every earlier job (this export's own read and write, its count) has
  started all of its tasks: a beat waits behind them, for as long as the export's longest
  job. No bound of minutes is safe there (a large export on a small cluster holds every
  slot for longer), so such a heartbeat declares :data:`~.store.QUEUED_STALE_SECONDS`,
  generous enough for the longest job an export runs; a judge never removes a live
  export's staging for a beat that waited for a slot. (Writing those beats elsewhere was
  weighed and left: the server's driver need not see the executors' ``file:`` folder, and
  a beat task of its own would hold one of the export's cores from start to end.)

A beat that fails is logged (the first failure, and the recovery) and never fails the
export; the thread goes on beating until the export stops it.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from .store import BEAT_SECONDS, HEARTBEAT, Op, heartbeat_text, join, op

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger(__name__)


class Heartbeat:
    """The heartbeat of the export staging ``folder`` through ``store``: :meth:`ops` is the
    first beat (written with the folder or the claim), :meth:`start` beats every ``every``
    seconds (:data:`~.store.BEAT_SECONDS`) from a daemon thread until :meth:`stop`, after
    which it writes no more."""

    def __init__(self, store: Store, folder: str, every: float | None = None) -> None:
        self.store = store
        self.uri = join(folder, HEARTBEAT)
        self.every = BEAT_SECONDS if every is None else every
        self.stale_after = store.beat_bound(folder)
        self.beats = 0  # written by the thread
        self.failures = 0  # in a row
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def ops(self) -> list[Op]:
        """One beat, as store operations: the heartbeat removed and written again."""
        return [op("remove", uri=self.uri),
                op("write_new", uri=self.uri, text=heartbeat_text(self.stale_after, self.every))]

    def beat(self) -> bool:
        """Write one beat; False (logged when it starts failing) when the store refused."""
        try:
            self.store.many(self.ops())
        except Exception as e:  # never the export's failure: it goes on, and so do we
            if not self.failures:
                log.warning("the export's heartbeat %s could not be written (%s: %s); "
                            "retrying every %g s", self.uri, type(e).__name__, e, self.every)
            self.failures += 1
            return False
        if self.failures:
            log.warning("the export's heartbeat %s is written again, after %d failures",
                        self.uri, self.failures)
            self.failures = 0
        self.beats += 1
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.beat()
            except BaseException:  # pragma: no cover - beat() catches what a store raises
                log.exception("the export's heartbeat %s", self.uri)

    def start(self) -> Heartbeat:
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="mqconsole-export-heartbeat")
        self._thread.start()
        return self

    def stop(self) -> None:
        """No beat after this returns (one being written is waited for)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


__all__ = ["Heartbeat"]

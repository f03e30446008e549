"""Where the console's audit jobs (``audit.jobs``) run: an :class:`AuditRunner`.

Two kinds, one interface:

- :class:`~mqconsole.audit.child.ChildRunner`, the console's default: the jobs run in a child
  process (``python -m mqconsole.audit.child``) that starts Spark and imports its Python
  libraries (pyspark, pandas, numpy, pyarrow: over 600 modules, about 75 MB a process keeps
  for its life — Python cannot unload a module). The console never imports them; the child,
  its Spark session and its JVM end when the audit screen closes.
- :class:`InProcessRunner`: the jobs run in this process on the Spark session a starter
  gives (the tests: their one session per test process, the ``spark`` fixture).

A runner's calls block (the screen calls them in a thread worker) and raise
:class:`~mqconsole.audit.jobs.Cancelled` when the operator cancelled, else an error whose
``jobs.sentence`` is the one sentence to show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from . import jobs

if TYPE_CHECKING:
    from .drill import Drill
    from .jobs import ExportJob, SparkStarter, Watch


class AuditRunner(Protocol):
    """Runs the audit screen's jobs on the Spark master it was made for."""

    def export(self, job: ExportJob, watch: Watch) -> dict[str, Any]:
        """The export and its report: ``{"rows": exported, "report": the report}``."""
        ...

    def report(self, folder: str, as_of: datetime, watch: Watch) -> dict[str, Any]:
        """The report of an existing snapshot folder (a URI: ``store.to_uri``)."""
        ...

    def queues_holding(self, folder: str, found: Drill) -> list[tuple[str, str, int]]:
        """(qmgr, queue, count) of the snapshot's queues holding a row's messages."""
        ...

    def close(self) -> None:
        """The screen closed: what runs is cancelled, and what the runner holds is let go
        (without waiting: never blocks the console)."""
        ...


class InProcessRunner:
    """The jobs in this process, on the session ``start`` gives for the master (with the
    console's Spark settings, ``conf``, when there are some: ``start(master, conf=…)``)."""

    def __init__(self, master: str | None, start: Callable[..., Any] = jobs.start_spark, *,
                 conf: Mapping[str, str] | None = None) -> None:
        self.master = master
        self.start: SparkStarter = jobs.starter(start, conf)

    def export(self, job: ExportJob, watch: Watch) -> dict[str, Any]:
        return jobs.export(self.start, self.master, job, watch)

    def report(self, folder: str, as_of: datetime, watch: Watch) -> dict[str, Any]:
        return jobs.report(self.start, self.master, folder, as_of, watch)

    def queues_holding(self, folder: str, found: Drill) -> list[tuple[str, str, int]]:
        return jobs.queues_holding(self.start, self.master, folder, found)

    def close(self) -> None:
        """Nothing to let go: the session is this process's (kept for its next audit)."""


def default_runner(master: str | None, *, conf: Mapping[str, str] | None = None
                   ) -> AuditRunner:
    """The console's: the jobs in a child process of their own (Spark started there with
    ``conf``, the console's ``tui.audit_conf``)."""
    from .child import ChildRunner

    return ChildRunner(master, conf=conf)


__all__ = ["AuditRunner", "InProcessRunner", "default_runner"]

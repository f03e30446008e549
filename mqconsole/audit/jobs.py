"""The console's audit jobs, written once: an export and its report, a report, the queues a
drill-down's row is on.

The audit screen asks an :class:`~mqconsole.audit.runner.AuditRunner` for them, which runs
them in the audit's own process (``audit.child``, the console's default: Spark's Python
libraries — pyspark, pandas, numpy, pyarrow — are never imported by the console, and their
memory goes when the screen closes) or in this one (``InProcessRunner``: the tests, on their
one Spark session). Either way the same functions below run, told the operator's cancel and
telling the screen their progress through a :class:`Watch`.

This module imports nothing heavy: what needs Spark is imported inside the functions.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import AuditError, spark_failure

if TYPE_CHECKING:
    from mqconsole.plugins.host import PluginHost

    from .drill import Drill

#: starts (or gives back) the Spark session for a master (``tui.audit_master``; None: local)
#: (with the console's Spark settings, ``tui.audit_conf``, bound: :func:`starter`)
SparkStarter = Callable[[str | None], Any]


class Cancelled(Exception):
    """The operator cancelled (a notification, not an error)."""


def _nothing(*_args: Any) -> None:
    return None


@dataclass(frozen=True)
class Watch:
    """What a job hears and tells while it runs: the operator's cancel, a status line, the
    progress bar (messages read of the total, when known), and its notes: what the operator
    must know and keep seeing once the job is over (the snapshot's notes — a queue that
    changed while it was exported —, and a report's doubt — its data disagrees with its
    manifest), each a sentence the CLI says too. The callbacks are called from the job's
    thread."""

    cancel: threading.Event = field(default_factory=threading.Event)
    status: Callable[[str], None] = _nothing
    progress: Callable[[int, int | None, str], None] = _nothing
    note: Callable[[str], None] = _nothing


@dataclass(frozen=True)
class ExportJob:
    """An export of the console's profile: the queues (a comma list of names and patterns)
    into a new snapshot folder, with the site plugins' audit columns; then its report as of
    ``as_of`` (None: when the report starts, after the export)."""

    patterns: str
    folder: str  # a URI (``store.to_uri``): a Hadoop one as given, a path as ``file:``
    profile: str
    connection: object  # a BackendSpec (plain values, no password) or its mapping
    as_of: datetime | None = None
    plugins: PluginHost | None = None


def is_remote(master: str | None) -> bool:
    """A Spark Connect server (``sc://…``): the client looks at no folder itself."""
    return bool(master and master.startswith("sc://"))


def start_spark(master: str | None, conf: Mapping[str, str] | None = None) -> Any:
    """The Spark session of the console's audits (reused once started): ``tui.audit_master``,
    else the site's (``spark-defaults.conf``) or local[*], a Spark Connect server for
    ``sc://…``; with ``conf``
    (``tui.audit_conf``: the audit commands' ``--conf``) as they give it."""
    from .session import SparkSettings, default_master, start_session

    if is_remote(master):
        from .remote import connect, set_conf

        session = connect(str(master))
        set_conf(session, dict(conf or {}))
        return session
    return start_session(SparkSettings(master=master or default_master(),
                                       conf=dict(conf or {})))


def starter(start: Callable[..., Any], conf: Mapping[str, str] | None) -> SparkStarter:
    """``start`` with the console's Spark settings bound (``start(master, conf=conf)``);
    ``start`` itself when there are none (a starter of one argument, the tests')."""
    if not conf:
        return start
    return partial(start, conf=dict(conf))


def sentence(error: BaseException) -> str:
    """One sentence for a failed job (never a traceback); the screen cleans it for show."""
    from mqconsole.mq.errors import MQError

    from .java import SparkUnavailable
    from .session import BadMaster

    if isinstance(error, Cancelled | AuditError | SparkUnavailable | BadMaster | MQError
                  | ValueError):
        return str(error)
    said = spark_failure(error, "the audit job")  # a failed Spark job: its reason
    if said is not error:
        return str(said)
    return f"the audit failed: {type(error).__name__}: {_head(error)}"


def _head(error: BaseException) -> str:
    """What an unexpected error says, without the stack trace it may carry: its first line,
    and for py4j's "An error occurred while calling o42.parquet." the Java exception's own
    line after it (": java.io.IOException: ..."), never the "at ..." lines below."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    head = lines[0]
    if len(lines) > 1 and lines[1].startswith(":"):
        head = f"{head} {lines[1].lstrip(': ')}"
    return head[:300]


def as_cancelled(what: str, error: BaseException, cancel: threading.Event,
                 unreadable: str | None = None) -> BaseException:
    """Spark's own words for a job the operator cancelled are "cancelled" (an audit error —
    a full disk, a bad snapshot — is still said as it is); a Spark job that failed is the
    CLI's sentence (``errors.spark_failure``: "the report failed in Spark: …"; with
    ``unreadable``, an input Spark refused is "<unreadable>: …")."""
    if cancel.is_set() and not isinstance(error, Cancelled | AuditError):
        return Cancelled(f"{what} cancelled")
    return spark_failure(error, f"the {what}", unreadable=unreadable)  # the CLI's sentence


def report(start: SparkStarter, master: str | None, folder: str | Path, as_of: datetime,
           watch: Watch) -> dict[str, Any]:
    """The report of the snapshot at ``folder`` (a missing folder is said before Spark
    starts, where this process can look); as the CLI's report, the snapshot's notes (what
    its export said about it) and the report's doubts are told to ``watch.note``."""
    try:
        from .report import build_report
        from .snapshot import open_snapshot, precheck, snapshot_notes

        precheck(folder, remote=is_remote(master))
        spark = start(master)
        if watch.cancel.is_set():
            raise Cancelled("report cancelled")
        watcher = cancel_jobs_when(watch.cancel, spark)
        try:
            opened = open_snapshot(spark, folder)  # once, for its notes and its report
            for text in snapshot_notes(opened):
                watch.note(text)
            result = build_report(spark, opened, as_of=as_of, progress=watch.status,
                                  warn=watch.note)
        finally:
            watcher.set()
        if watch.cancel.is_set():
            raise Cancelled("report cancelled")
        return result
    except BaseException as e:
        from .snapshot import unreadable

        raise as_cancelled("report", e, watch.cancel, unreadable=unreadable(folder)) from None


def export(start: SparkStarter, master: str | None, job: ExportJob,
           watch: Watch) -> dict[str, Any]:
    """The export, then its report: ``{"rows": exported, "report": the report}``; what the
    export says about its snapshot (a queue that changed while it was read: the CLI's
    export says it too) and the report's doubts are told to ``watch.note``."""
    try:
        return _export(start, master, job, watch)
    except BaseException as e:
        raise as_cancelled("export", e, watch.cancel) from None


def _export(start: SparkStarter, master: str | None, job: ExportJob,
            watch: Watch) -> dict[str, Any]:
    from mqconsole.ops.words import counted

    from .java import check_pyspark

    check_pyspark()  # how to get it, not an import error (the source imports pyspark)
    from .datasource import plugin_columns
    from .export import ExportRequest, plan_export, run_export
    from .report import build_report
    from .sources import split_patterns

    request = ExportRequest(out=job.folder, patterns=split_patterns(job.patterns),
                            connections={job.profile: job.connection},
                            plugin_columns=plugin_columns(job.plugins)
                            if job.plugins is not None else (),
                            remote=is_remote(master))
    plan = plan_export(request)
    total = plan.rows_expected or None
    spark = start(master)
    if watch.cancel.is_set():
        raise Cancelled("export cancelled: nothing was written")
    watch.progress(0, total, "exporting")

    def progress(states: list[Any]) -> None:
        read = sum(s.read for s in states)
        per_queue = ", ".join(f"{s.queue} {s.read:,}" for s in states)
        watch.progress(read, total, f"read {read:,}: {per_queue}")

    summary = run_export(spark, plan, report=progress, cancel=watch.cancel, note=watch.note)
    watch.status(f"exported {counted(summary.rows, grouped=True)}; counting…")
    result = build_report(spark, job.folder, as_of=job.as_of, warn=watch.note)
    return {"rows": summary.rows, "report": result}


def queues_holding(start: SparkStarter, master: str | None, folder: str | Path,
                   found: Drill) -> list[tuple[str, str, int]]:
    """(qmgr, queue, count) of the snapshot's queues holding a row's messages, most first."""
    from . import drill

    return drill.queues_holding(start(master), folder, found)


def cancel_jobs_when(cancel: threading.Event, spark: Any) -> threading.Event:
    """Cancel Spark's running jobs when ``cancel`` is set; set the returned event to stop."""
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.3):
            if cancel.is_set():
                from .remote import cancel_all

                cancel_all(spark)
                return

    threading.Thread(target=watch, daemon=True, name="audit-cancel").start()
    return done


__all__ = ["Cancelled", "ExportJob", "SparkStarter", "Watch", "as_cancelled", "export",
           "is_remote", "queues_holding", "report", "sentence", "start_spark", "starter"]

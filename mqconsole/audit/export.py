"""The snapshot job: browse queues (or read saved files) once into a Parquet dataset.

``plan_export`` checks everything that can be checked before Spark starts (the output
folder, the connections, the queues each pattern names, the files) and notes the depths at
the start; ``run_export`` runs the Spark job and commits the folder. The folder is staged
beside ``--out`` under a temporary name, then committed: the manifest naming every data
file with its rows, then ``_SUCCESS`` (the commit marker, written last), then published
under ``--out`` by claiming the name atomically (``mkdir``, which fails when the name is
taken: an ``--out`` made by another export while this one ran is refused here too, exit 2)
and renaming the staged folder onto the claimed, empty one::

    DIR/manifest.json    schema version, columns, sources (depths at start and end, rows),
                         files (every data file and its rows), times, format, Spark master
    DIR/_SUCCESS         the commit marker: readers trust a snapshot that has it, and only
                         the files its manifest lists
    DIR/messages/        the dataset, partitioned queue=…, sorted by put time in each file,
                         Parquet (zstd) or CSV
    DIR/_summary/        the report's aggregates (Parquet snapshots only: summary.py)

Folders are 0700 and files 0600 (a snapshot may hold payloads). ``--out`` that exists is
refused unless ``replace`` (and then only when it is a snapshot). Browse only: an audit
never removes a message.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqconsole.mq.errors import MQError
from mqconsole.ops.dmpfile import DmpReader

from .columns import PARTITION_COLUMNS, SCHEMA_VERSION, snapshot_columns
from .errors import AuditError, AuditInputError, NoSpace, SparkFailed
from .progress import Progress, read_progress
from .remote import cancel_all, master_of
from .sources import (
    QueueSource,
    SourceError,
    check_file,
    connected,
    connection_refusal,
    expand_queues,
    split_queue,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from .datasource import PluginColumn

MANIFEST = "manifest.json"
COMMIT_MARKER = "_SUCCESS"
DATA_DIR = "messages"
PROGRESS_DIR = ".progress"
PARTIALS_DIR = ".partials"  # what each reader folded for the stored aggregates
MIN_SPLIT_ROWS = 100_000  # a queue is read in stretches of at least these
FORMATS = ("parquet", "csv")


class ExportCancelled(AuditError):
    """The operator cancelled the export; nothing was written (exit 1)."""

    code = 1


@dataclass(frozen=True)
class ExportRequest:
    """What to export. ``connections``: name → profile object or backend spec; the first is
    the profile in use, the others ``--also-profile``."""

    out: Path
    connections: Mapping[str, object] = field(default_factory=dict)
    patterns: Sequence[str] = ()
    files: Sequence[str] = ()
    format: str = "parquet"
    with_payload: bool = False
    replace: bool = False
    plugin_columns: Sequence[PluginColumn] = ()


@dataclass
class QueuePlan:
    key: str
    qmgr: str
    queue: str
    depth_start: int | None
    depth_end: int | None = None
    rows: int = 0


@dataclass
class FilePlan:
    path: str
    qmgr: str
    queue: str
    tool: str | None
    rows: int = 0


@dataclass
class ExportPlan:
    request: ExportRequest
    queues: list[QueuePlan]
    files: list[FilePlan]
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    notes: list[str] = field(default_factory=list)  # what the manifest and report say

    @property
    def sources(self) -> int:
        return len(self.queues) + len(self.files)


@dataclass
class ExportSummary:
    out: str
    rows: int
    queues: list[dict[str, Any]]
    files: list[dict[str, Any]]
    seconds: float
    format: str

    def to_json(self) -> dict[str, Any]:
        return {"out": self.out, "rows": self.rows, "queues": self.queues,
                "files": self.files, "seconds": round(self.seconds, 3), "format": self.format}


# -- planning (no Spark) ------------------------------------------------------------------

def _check_out(out: Path, replace: bool) -> None:
    from mqconsole.ops.outputs import SNAPSHOT, OutputRefused, check_output

    try:  # not a queue manager's store or its -wal, a backup, the journal... (exit 2)
        check_output(out, "--out", allow=(SNAPSHOT,) if replace else ())
    except OutputRefused as e:
        raise AuditInputError(str(e)) from None
    if out.exists() or out.is_symlink():
        if not replace:
            raise AuditInputError(f"{out} exists: choose another --out, or --replace to "
                                  "replace the snapshot there")
        if not out.is_dir() or not (out / MANIFEST).is_file():
            raise AuditInputError(f"{out} is not a snapshot (no {MANIFEST}): --replace only "
                                  "replaces a snapshot")
    parent = out.parent
    if not parent.is_dir():
        raise AuditInputError(f"the folder of --out ({parent}) does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise AuditInputError(f"cannot write in {parent} (the folder of --out)")


def _depth(qm, queue: str) -> int | None:
    with contextlib.suppress(MQError):
        return qm.inquire_queue(queue).depth
    return None


def plan_export(request: ExportRequest) -> ExportPlan:
    """Check the request and list the sources; AuditInputError (exit 2) or MQError."""
    if request.format not in FORMATS:
        raise AuditInputError(f"--format {request.format!r}: use parquet or csv")
    if not request.patterns and not request.files:
        raise AuditInputError("nothing to export: give --queues PATTERNS or saved files")
    _check_out(request.out, request.replace)
    snapshot_columns(with_payload=request.with_payload,  # plugin columns' names and types
                     plugin_columns=[(c.full_name, c.spark_type) for c in request.plugin_columns])
    queues: list[QueuePlan] = []
    if request.patterns:
        for key, connection in request.connections.items():
            refusal = connection_refusal(connection)
            if refusal:
                raise AuditInputError(f"profile {key} cannot be audited: {refusal}")
            with connected(connection) as qm:
                qmgr = qm.name.strip()
                try:
                    names = expand_queues(qm, request.patterns)
                except SourceError as e:
                    raise AuditInputError(str(e)) from None
                queues += [QueuePlan(key, qmgr, q, _depth(qm, q)) for q in names]
        if not queues:
            raise AuditInputError(f"no local queue matches {','.join(request.patterns)}")
    files: list[FilePlan] = []
    for path in request.files:
        try:
            full = check_file(path)
            with DmpReader(full) as reader:  # the preamble only: a file that is not one is
                info = reader.info           # said now, not from inside a Spark task
        except SourceError as e:
            raise AuditInputError(str(e)) from None
        from .datasource import file_queue

        files.append(FilePlan(full, (info.qmgr or "").strip(), file_queue(info.queue, full),
                              info.tool))
    return ExportPlan(request, queues, files)


# -- running (Spark) ----------------------------------------------------------------------

def private_tree(root: Path) -> None:
    """Folders 0700 and files 0600 under ``root`` (a snapshot may hold payloads); the
    checksum files Hadoop's local file system writes beside each file (``.NAME.crc``, one
    per file: litter to a reader, and nothing reads them back) removed."""
    for folder, _dirs, names in os.walk(root):
        os.chmod(folder, 0o700)
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                if name.startswith(".") and name.endswith(".crc"):
                    os.unlink(os.path.join(folder, name))
                else:
                    os.chmod(os.path.join(folder, name), 0o600)


def _partitions(plan: ExportPlan, parts: int) -> list[QueueSource]:
    """The queue sources of the job, in partition order: a queue of a backend that reads
    from any position (the embedded one) in up to ``parts`` stretches, any other as one."""
    out: list[QueueSource] = []
    if parts <= 1:
        return [QueueSource(q.key, q.queue) for q in plan.queues]
    keys = list(dict.fromkeys(q.key for q in plan.queues))
    for key in keys:
        with connected(plan.request.connections[key]) as qm:
            for q in plan.queues:
                if q.key == key:
                    out += split_queue(qm, key, q.queue, parts, MIN_SPLIT_ROWS)
    order = {(q.key, q.queue): i for i, q in enumerate(plan.queues)}
    return sorted(out, key=lambda s: order[(s.key, s.queue)])  # stable: stretches in order


def _reader(spark: SparkSession, plan: ExportPlan, sources: list[QueueSource],
            progress_dir: Path, summary_dir: Path | None):
    from .datasource import register

    request = plan.request
    register(spark, request.connections, request.plugin_columns)
    reader = spark.read.format("mqconsole")
    if sources:
        reader = reader.option("queue_list", json.dumps([s.to_json() for s in sources]))
    if plan.files:
        reader = reader.option("paths", json.dumps([f.path for f in plan.files]))
    if summary_dir is not None:
        reader = reader.option("summary_dir", str(summary_dir))
    return (reader.option("with_payload", str(request.with_payload).lower())
            .option("progress_dir", str(progress_dir)).load())


_CSV_TEXT = {"properties": "to_json(properties)", "payload": "hex(payload)"}


def _write(frame, target: Path, fmt: str) -> None:
    """Write ``frame`` partitioned by queue, each file's rows sorted by put time. No
    shuffle first: each task writes the file of its own source (a queue or a stretch of
    one, a saved file), sorted in the task, and the rows are not sent through a shuffle
    (which cost a fifth of the job). Rows per file: Spark's
    ``spark.sql.files.maxRecordsPerFile`` (``--conf``; 0, no cap, by default)."""
    frame = frame.sortWithinPartitions("queue", "put_time", "position")
    writer_frame = frame
    if fmt == "csv":  # CSV holds neither maps nor bytes: JSON text and hex
        # SQL text, not pyspark.sql.functions: the same code on Spark Connect
        writer_frame = frame.selectExpr(*[
            f"{_CSV_TEXT[c]} AS {c}" if c in _CSV_TEXT else "`" + c.replace("`", "``") + "`"
            for c in frame.columns])
    # "error" (not its synonym "errorifexists", which Spark Connect refuses)
    writer = writer_frame.write.partitionBy(*PARTITION_COLUMNS).mode("error")
    if fmt == "csv":
        # Spark's CSV writer has no zstd (Parquet has): gzip
        writer.option("header", "true").option("compression", "gzip").csv(str(target))
    else:
        writer.option("compression", "zstd").parquet(str(target))


def _states(progress: dict[int, Progress], owners: list[int], plan: ExportPlan
            ) -> list[Progress]:
    """One state per source of the plan (queues, then files) from the partitions' last
    words: a queue read in stretches sums them, and is done when every stretch is."""
    out = [Progress(q.qmgr, q.queue, "queue") for q in plan.queues]
    out += [Progress(f.qmgr, f.queue, f.path) for f in plan.files]
    heard = [0] * len(out)
    for index, owner in enumerate(owners):
        p = progress.get(index)
        if p is None:
            continue
        state = out[owner]
        state.qmgr, state.queue = p.qmgr or state.qmgr, p.queue or state.queue
        state.read += p.read
        heard[owner] += p.done
    for i, state in enumerate(out):
        state.done = heard[i] == owners.count(i)
    seen = {owners[i] for i in progress if 0 <= i < len(owners)}
    return [state for i, state in enumerate(out) if i in seen]


def _watch(progress_dir: Path, plan: ExportPlan, owners: list[int],
           report: Callable[[list[Progress]], None] | None,
           cancel: threading.Event | None, spark: SparkSession, stop: threading.Event) -> None:
    """Say progress every half second; cancel Spark's jobs when asked."""
    last: list[tuple] = []
    while not stop.wait(0.5):
        if cancel is not None and cancel.is_set():
            cancel_all(spark)
            return
        if report is None:
            continue
        states = _states(read_progress(progress_dir), owners, plan)
        key = [(p.queue, p.read, p.done) for p in states]
        if key != last:
            last = key
            report(states)


def explain_failure(error: BaseException, master: str) -> AuditError:
    """One sentence for a failed Spark job: the first error of ours inside Spark's text."""
    from .session import first_line

    text = str(error)
    if "no space left on device" in text.lower():
        return NoSpace("the export failed: no space left on device (nothing was written: "
                       "free some space and export again)")
    ours = None
    for marker in ("SourceError: ", "DmpFileError: ", "MQError: ", "HeaderError: ",
                   "FileNotFoundError: ", "PermissionError: ", "OSError: "):
        at = text.find(marker)
        if at != -1:
            line = text[at + len(marker):].splitlines()[0].strip()
            ours = (marker[:-2], line)
            break
    if ours is not None:
        kind, line = ours
        sentence = f"the export failed: {line}"
        error_type: type[AuditError] = AuditInputError if kind in (
            "SourceError", "DmpFileError", "HeaderError") else SparkFailed
    else:
        sentence = f"the export failed in Spark: {first_line(error)}"
        error_type = SparkFailed
    if not master.startswith("local"):
        sentence += (" (on a cluster, every executor must reach the output folder, the "
                     "saved files and the queue managers, and have the same Python, mqconsole "
                     "and MQ client)")
    return error_type(sentence)


def run_export(spark: SparkSession, plan: ExportPlan, *,
               report: Callable[[list[Progress]], None] | None = None,
               cancel: threading.Event | None = None,
               note: Callable[[str], None] | None = None) -> ExportSummary:
    """Run the job, write the manifest, rename the folder into place. ``note`` hears what
    the operator must know (a queue that changed while it was read); the manifest keeps
    it too."""
    tell = note or (lambda _text: None)
    request = plan.request
    out = request.out.absolute()
    remove_leftovers(out)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    tmp.mkdir(mode=0o700)
    lock = _hold(tmp)
    started = time.monotonic()
    master = master_of(spark)
    try:
        parts = _parallelism(spark)
        try:
            final, owners = _run_job(spark, plan, tmp, parts, report, cancel)
        except QueueChangedError as changed:  # a stretch changed under its reader
            said = (f"{changed.sentence or 'a queue changed while it was read in parts'}: "
                    "reading every queue again, each as one browse (the first read is "
                    "dropped; its progress starts again)")
            plan.notes.append(said)
            tell(said)
            final, owners = _run_job(spark, plan, tmp, 1, report, cancel)
        if report is not None:
            report(_states(final, owners, plan))
        _count(plan, final, owners, spark, tmp / DATA_DIR)
        files = data_files(spark, tmp / DATA_DIR, request.format)
        if request.format == "parquet":  # the report's aggregates, stored beside (exact)
            _summarize(tmp, len(owners))
            from .summary import tie

            tie(tmp, files)  # to the commit: the report checks them against the manifest
        _depths_at_end(plan)
        for said in _changes(plan):
            plan.notes.append(said)
            tell(said)
        seconds = time.monotonic() - started
        shutil.rmtree(tmp / PROGRESS_DIR, ignore_errors=True)
        shutil.rmtree(tmp / PARTIALS_DIR, ignore_errors=True)
        _write_manifest(tmp, plan, seconds, master, files)
        _write_marker(tmp)  # last: the snapshot is complete
        private_tree(tmp)
        os.unlink(tmp / _LOCK)  # held on (by its descriptor) until the folder is in place
        _publish(tmp, out, request.replace)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            raise NoSpace("the export failed: no space left on device (nothing was "
                          "written: free some space and export again)") from None
        raise
    finally:
        os.close(lock)
    return ExportSummary(
        str(out), sum(q.rows for q in plan.queues) + sum(f.rows for f in plan.files),
        [{"profile": q.key, "qmgr": q.qmgr, "queue": q.queue, "rows": q.rows,
          "depth_start": q.depth_start, "depth_end": q.depth_end} for q in plan.queues],
        [{"path": f.path, "qmgr": f.qmgr, "queue": f.queue, "rows": f.rows} for f in plan.files],
        seconds, request.format)


_LOCK = ".lock"


def _hold(tmp: Path) -> int:
    """Lock ``tmp/.lock`` for as long as this export runs: a folder whose lock can be
    taken was left by an export that was killed (:func:`remove_leftovers`)."""
    import fcntl

    fd = os.open(tmp / _LOCK, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _abandoned(folder: Path) -> bool:
    """Whether an export's temporary folder was left by an export no longer running: its
    lock can be taken; without a lock, the process its name carries is gone."""
    import fcntl

    try:
        fd = os.open(folder / _LOCK, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        pid = folder.name.rsplit(".tmp-", 1)[-1].split("-", 1)[0]
        if not pid.isdigit() or len(pid) == 12:
            return True  # an older version's folder (no lock, no pid in the name)
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # a running export holds it
    finally:
        os.close(fd)  # closing releases the lock
    return True


def remove_leftovers(out: Path) -> list[Path]:
    """Remove the temporary folders (``.NAME.tmp-*`` beside ``out``) that exports to the
    same ``out`` left when they were killed; the folders removed."""
    removed = []
    with contextlib.suppress(OSError):
        prefix = f".{out.name}.tmp-"
        for folder in out.parent.iterdir():
            if (folder.name.startswith(prefix) and folder.is_dir()
                    and not folder.is_symlink() and _abandoned(folder)):
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
    return removed


def _parallelism(spark: SparkSession) -> int:
    """How many stretches a queue is read in: the session's cores (a Connect session does
    not say: one)."""
    from .remote import is_connect

    return 1 if is_connect(spark) else spark.sparkContext.defaultParallelism


class QueueChangedError(Exception):
    """The job failed because a stretch of a queue changed while read (run it again)."""

    def __init__(self, sentence: str = "") -> None:
        super().__init__(sentence)
        self.sentence = sentence


def _run_job(spark: SparkSession, plan: ExportPlan, tmp: Path, parts: int,
             report: Callable[[list[Progress]], None] | None,
             cancel: threading.Event | None) -> tuple[dict[int, Progress], list[int]]:
    """Read and write once into ``tmp``; the partitions' last words and which source of
    the plan each partition reads."""
    for name in (DATA_DIR, PROGRESS_DIR, PARTIALS_DIR):  # a first try's leftovers
        shutil.rmtree(tmp / name, ignore_errors=True)
    progress_dir = tmp / PROGRESS_DIR
    progress_dir.mkdir(mode=0o700)
    partials = None
    if plan.request.format == "parquet":
        partials = tmp / PARTIALS_DIR
        partials.mkdir(mode=0o700)
    sources = _partitions(plan, parts) if plan.queues else []
    index = {(q.key, q.queue): i for i, q in enumerate(plan.queues)}
    owners = [index[(s.key, s.queue)] for s in sources]
    owners += [len(plan.queues) + i for i in range(len(plan.files))]
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, daemon=True, name="mqconsole-export-progress",
                               args=(progress_dir, plan, owners, report, cancel, spark, stop))
    watcher.start()
    cancelled = ExportCancelled("export cancelled: nothing was written")
    try:
        if cancel is not None and cancel.is_set():
            raise cancelled
        _write(_reader(spark, plan, sources, progress_dir, partials), tmp / DATA_DIR,
               plan.request.format)
    except ExportCancelled:
        raise
    except Exception as e:
        if cancel is not None and cancel.is_set():
            raise cancelled from None
        if parts > 1 and "QueueChanged: " in str(e):
            text = str(e)
            line = text[text.index("QueueChanged: ") + len("QueueChanged: "):]
            raise QueueChangedError(line.splitlines()[0].strip()) from None
        raise explain_failure(e, master_of(spark)) from None
    finally:
        stop.set()
        watcher.join()
    if cancel is not None and cancel.is_set():  # asked as the job ended: still nothing
        raise cancelled
    return read_progress(progress_dir), owners


def _summarize(tmp: Path, partitions: int) -> None:
    """The stored aggregates: merged from what each reader folded as it read (no second
    pass), or, when a reader's part is missing (a cluster that cannot reach the folder),
    computed from the written files."""
    from .summary import merge_partials, summarize

    if not merge_partials(tmp / PARTIALS_DIR, partitions, tmp):
        summarize(tmp / DATA_DIR, tmp)


def _count(plan: ExportPlan, final: dict[int, Progress], owners: list[int], spark,
           data: Path) -> None:
    """Rows per source from the readers' last words (task retries are off, so they are
    exact); if a word is missing (a cluster that cannot reach the folder), from the data."""
    if all(final.get(i) is not None and final[i].done for i in range(len(owners))):
        rows = [0] * (len(plan.queues) + len(plan.files))
        for i, owner in enumerate(owners):
            rows[owner] += final[i].read
        for q, n in zip(plan.queues, rows, strict=False):
            q.rows = n
        for f, n in zip(plan.files, rows[len(plan.queues):], strict=True):
            f.rows = n
        return
    frame = (spark.read.parquet(str(data)) if plan.request.format == "parquet"
             else spark.read.option("header", "true").csv(str(data)))
    counts = {(r["qmgr"], r["queue"], r["source"]): r["count"]
              for r in frame.groupBy("qmgr", "queue", "source").count().collect()}
    for q in plan.queues:
        q.rows = int(counts.get((q.qmgr, q.queue, "queue"), 0))
    for f in plan.files:
        f.rows = sum(int(n) for (_, _, source), n in counts.items() if source == f.path)


def change_of(q: QueuePlan) -> str | None:
    """A sentence when the rows read of queue ``q`` are not its depth at the start and at
    the end (it changed while it was exported: the snapshot is not one moment), else None."""
    depths = [d for d in (q.depth_start, q.depth_end) if d is not None]
    if not depths or all(d == q.rows for d in depths):
        return None
    if len(set(depths)) == 1:
        diff = q.rows - depths[0]
        than = f"{abs(diff):,} {'more' if diff > 0 else 'fewer'} rows than its depth"
    else:
        than = (f"{q.rows:,} rows read, its depth {q.depth_start:,} at the start and "
                f"{q.depth_end:,} at the end")
    return f"{q.queue} ({q.qmgr}) changed during the export: {than}"


def _changes(plan: ExportPlan) -> list[str]:
    return [said for q in plan.queues if (said := change_of(q)) is not None]


def _depths_at_end(plan: ExportPlan) -> None:
    keys = {q.key for q in plan.queues}
    for key in keys:
        with contextlib.suppress(MQError), connected(plan.request.connections[key]) as qm:
            for q in plan.queues:
                if q.key == key:
                    q.depth_end = _depth(qm, q.queue)


def data_files(spark: SparkSession, data: Path, fmt: str) -> list[dict[str, Any]]:
    """Every file of the dataset at ``data`` (paths relative to it) with its rows, counted
    by Spark from the files themselves, sorted by path."""
    from urllib.parse import unquote, urlparse

    from .errors import first_line

    reader = spark.read.option("header", "true") if fmt == "csv" else spark.read
    try:
        frame = reader.format(fmt).load(str(data))
        counted = (frame.selectExpr("input_file_name() AS file").groupBy("file").count()
                   .collect())
    except Exception as e:
        if "UNABLE_TO_INFER_SCHEMA" in first_line(e):  # no rows, so no file
            return []
        raise
    root = data.resolve()
    out = []
    for row in counted:
        path = Path(unquote(urlparse(row["file"]).path)).resolve()
        out.append({"path": path.relative_to(root).as_posix(), "rows": int(row["count"])})
    return sorted(out, key=lambda f: f["path"])


def _write_manifest(folder: Path, plan: ExportPlan, seconds: float, master: str,
                    files: list[dict[str, Any]]) -> None:
    import pyspark

    from mqconsole import __version__ as version

    request = plan.request
    columns = snapshot_columns(with_payload=request.with_payload, plugin_columns=[
        (c.full_name, c.spark_type) for c in request.plugin_columns])
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "format": request.format,
        "data": DATA_DIR,
        "partitioned_by": list(PARTITION_COLUMNS),
        "compression": "zstd" if request.format == "parquet" else "gzip",
        "columns": [{"name": c.name, "type": c.spark_type} for c in columns],
        "plugin_columns": [{"plugin": c.plugin, "name": c.full_name, "type": c.spark_type}
                           for c in request.plugin_columns],
        "with_payload": request.with_payload,
        "sources": (
            [{"kind": "queue", "profile": q.key, "qmgr": q.qmgr, "queue": q.queue,
              "depth_start": q.depth_start, "depth_end": q.depth_end, "rows": q.rows,
              "changed": change_of(q)}
             for q in plan.queues]
            + [{"kind": "file", "path": f.path, "tool": f.tool, "qmgr": f.qmgr,
                "queue": f.queue, "rows": f.rows} for f in plan.files]),
        "rows": sum(q.rows for q in plan.queues) + sum(f.rows for f in plan.files),
        "files": files,
        "notes": list(plan.notes),
        "started": plan.started.isoformat().replace("+00:00", "Z"),
        "finished": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "seconds": round(seconds, 3),
        "master": master,
        "mqconsole_version": version,
        "spark_version": pyspark.__version__,
    }
    target = folder / MANIFEST
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fp:
        json.dump(manifest, fp, indent=2)
        fp.write("\n")


def _write_marker(folder: Path) -> None:
    os.close(os.open(folder / COMMIT_MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


class OutTaken(AuditInputError):
    """``--out`` was made (by another export) while this export ran (exit 2)."""


def _publish(tmp: Path, out: Path, replace: bool) -> None:
    """Put the committed folder ``tmp`` at ``out``: without ``replace``, only if no one has
    taken the name meanwhile (claimed by an atomic ``mkdir``, then ``tmp`` renamed onto
    the claimed empty folder); with it, through :func:`_move_into_place`."""
    if replace:
        _move_into_place(tmp, out)
        return
    try:
        os.mkdir(out, 0o700)
    except FileExistsError:
        raise OutTaken(f"{out} was written by another export while this one ran: this "
                       "export's snapshot is dropped (the other one stands; choose another "
                       "--out, or --replace)") from None
    try:
        os.rename(tmp, out)  # onto the empty folder claimed above
    except OSError:
        with contextlib.suppress(OSError):
            os.rmdir(out)
        raise


def _move_into_place(tmp: Path, out: Path) -> None:
    if not out.exists():
        os.rename(tmp, out)
        return
    old = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:12]}"
    os.rename(out, old)  # --replace: the old snapshot goes only once the new one is in place
    try:
        os.rename(tmp, out)
    except OSError:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


__all__ = ["COMMIT_MARKER", "DATA_DIR", "MANIFEST", "ExportCancelled", "ExportPlan",
           "ExportRequest", "ExportSummary", "OutTaken", "data_files", "explain_failure",
           "plan_export", "remove_leftovers", "run_export"]

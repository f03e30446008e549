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

While the export runs it writes a heartbeat in its staging folder (``heartbeat.py``),
removed before the folder is published: the next export to the same ``--out`` and ``audit
clean`` remove a staging folder whose heartbeat has stopped (:meth:`.store.Store.abandoned`).
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
from .heartbeat import Heartbeat
from .progress import Progress, read_progress
from .remote import cancel_all, check_runs_tasks_once, is_connect, master_of
from .sources import (
    FileSource,
    QueueSource,
    SourceError,
    check_file,
    connected,
    connection_refusal,
    expand_queues,
    split_file,
    split_queue,
)
from .store import (
    HEARTBEAT,
    LocalStore,
    Op,
    Store,
    display,
    gone,
    join,
    local_path,
    name_of,
    op,
    parent,
    spark_relative,
    to_uri,
)
from .store import (
    OutTaken as _NameTaken,
)
from .stores import store_for

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from .compact import Compacted
    from .datasource import PluginColumn

MANIFEST = "manifest.json"
COMMIT_MARKER = "_SUCCESS"
DATA_DIR = "messages"
MIN_SPLIT_ROWS = 100_000  # a queue is read in stretches of at least these
FORMATS = ("parquet", "csv")


class ExportCancelled(AuditError):
    """The operator cancelled the export; nothing was written (exit 1)."""

    code = 1


@dataclass(frozen=True)
class ExportRequest:
    """What to export. ``connections``: name → profile object or backend spec; the first is
    the profile in use, the others ``--also-profile``."""

    out: Path | str  # a path (this machine's) or a URI Spark's Hadoop writes
    connections: Mapping[str, object] = field(default_factory=dict)
    patterns: Sequence[str] = ()
    files: Sequence[str] = ()
    format: str = "parquet"
    with_payload: bool = False
    replace: bool = False
    plugin_columns: Sequence[PluginColumn] = ()
    remote: bool = False  # Spark Connect: the client looks at no folder of the snapshot


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

    @property
    def rows_expected(self) -> int:
        """The rows known before Spark starts: the queues' depths at the start (a saved
        file's messages are counted by Spark: its ``rows`` are 0 until then)."""
        return sum(q.depth_start or 0 for q in self.queues)


@dataclass
class ExportSummary:
    out: str
    rows: int
    queues: list[dict[str, Any]]
    files: list[dict[str, Any]]
    seconds: float
    format: str
    notes: list[str] = field(default_factory=list)  # the manifest's: what the export said

    def to_json(self) -> dict[str, Any]:
        return {"out": self.out, "rows": self.rows, "queues": self.queues,
                "files": self.files, "seconds": round(self.seconds, 3), "format": self.format,
                "notes": list(self.notes)}


# -- planning (no Spark) ------------------------------------------------------------------

def _check_out(out: Path | str, replace: bool, remote: bool) -> None:
    """``--out`` before Spark starts, where this process can look (a ``file:`` folder of a
    classic session: the driver's own disk); anywhere else the store checks it when Spark
    has started (:func:`_check_target`)."""
    from mqconsole.ops.outputs import SNAPSHOT, OutputRefused, check_output

    path = local_path(to_uri(out))
    if path is None or remote:
        return
    target = Path(path)
    try:  # not a queue manager's store or its -wal, a backup, the journal... (exit 2)
        check_output(target, "--out", allow=(SNAPSHOT,) if replace else ())
    except OutputRefused as e:
        raise AuditInputError(str(e)) from None
    if target.exists() or target.is_symlink():
        if not replace:
            raise AuditInputError(f"{target} exists: choose another --out, or --replace to "
                                  "replace the snapshot there")
        if not target.is_dir() or not (target / MANIFEST).is_file():
            raise AuditInputError(f"{target} is not a snapshot (no {MANIFEST}): --replace only "
                                  "replaces a snapshot")
    folder = target.parent
    if not folder.is_dir():
        raise AuditInputError(f"the folder of --out ({folder}) does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise AuditInputError(f"cannot write in {folder} (the folder of --out)")


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
    _check_out(request.out, request.replace, request.remote)
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


def _file_sources(spark: SparkSession, plan: ExportPlan, parts: int) -> list[FileSource]:
    """The saved files of the job, in partition order: a dmpmqmsg file of at least two
    pieces' bytes (``spark.mqconsole.filePieceBytes``, 32 MiB; 0: never) in up to
    ``parts`` pieces cut where a message starts (``sources.split_file``), any other whole."""
    from .datasource import FILE_PIECE_BYTES

    piece_bytes = _conf_bytes(spark, "spark.mqconsole.filePieceBytes", FILE_PIECE_BYTES)
    out: list[FileSource] = []
    for f in plan.files:
        out += split_file(f.path, parts, piece_bytes)
    return out


def _conf_bytes(spark: SparkSession, key: str, default: int) -> int:
    """A size a site may set with ``--conf KEY=SIZE`` (bytes, or 64m, 1g ...)."""
    text = str(spark.conf.get(key, str(default)) or default).strip().lower()
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(text[-1:].replace("b", ""), 1)
    number = text.rstrip("kmgb") if scale != 1 else text
    try:
        return int(float(number) * scale)
    except ValueError:
        raise AuditInputError(f"--conf {key}={text}: give a size in bytes (or 64m, 1g)") \
            from None


def _reader(spark: SparkSession, plan: ExportPlan, sources: list[QueueSource],
            files: list[FileSource], progress_dir: str | None, raw: bool):
    """The rows of every source: raw (``raw.py``, decoded after by ``_decoded``) or
    decoded by the readers themselves. Read by the data source's reader, one task per
    source (``datasource.partition_read``), as ``mapInArrow`` over the partitions' numbers:
    ``spark.read.format("mqconsole")`` read the same way, but Spark planned it in three
    Python processes of its own, each importing pyspark, pyarrow and mqconsole (about a
    fifth of a short export's time before its first job, docs/benchmarks.md)."""
    from .datasource import partition_read

    request = plan.request
    options = {"raw": str(raw).lower(), "with_payload": str(request.with_payload).lower()}
    if sources:
        options["queue_list"] = json.dumps([s.to_json() for s in sources])
    if files:
        options["file_list"] = json.dumps([f.to_json() for f in files])
    if progress_dir is not None:
        options["progress_dir"] = progress_dir
    read, schema = partition_read(request.connections, request.plugin_columns, options)
    count = len(read.partitions)
    return spark.range(0, count, 1, count).mapInArrow(read, schema)


SPREAD_MIN_ROWS = 20_000  # fewer rows than these are decoded where they are read


def _estimates(plan: ExportPlan, sources: list[QueueSource], files: list[FileSource]
               ) -> list[int | None]:
    """Rows each read partition is expected to give (None: not known). A queue's last
    stretch is open (``BrowseRange.rows`` None: it ends where the queue ends): its share
    of the queue's depth at the start, what the other stretches leave."""
    depth = {(q.key, q.queue): q.depth_start for q in plan.queues}
    planned: dict[tuple[str, str], int] = {}
    for s in sources:
        if s.part is not None and s.part.rows is not None:
            planned[(s.key, s.queue)] = planned.get((s.key, s.queue), 0) + s.part.rows
    out: list[int | None] = []
    for s in sources:
        whole = depth.get((s.key, s.queue))
        if s.part is None:
            out.append(whole)
        elif s.part.rows is not None:
            out.append(s.part.rows)
        else:
            out.append(None if whole is None else max(0, whole - planned.get(
                (s.key, s.queue), 0)))
    for f in files:
        if f.piece is not None:
            out.append(f.piece.count)
        else:
            out.append(_file_rows(f.path))
    return out


def _file_rows(path: str) -> int | None:
    """The rows a saved file is expected to give: its bytes over 600, about a dead letter's
    lines (None: it cannot be read here)."""
    try:
        return os.path.getsize(path) // 600
    except OSError:
        return None


def _spread(estimates: list[int | None], parts: int) -> bool:
    """Are the raw rows sent across ``parts`` tasks before they are decoded? When a read
    partition (a queue of real MQ, read by one task) holds much more than its share, so
    that decoding where it was read would leave cores idle; not for a handful of rows."""
    if parts <= 1 or not estimates:
        return False
    if any(e is None for e in estimates):
        return True
    known = [e for e in estimates if e is not None]
    total = sum(known)
    return total >= SPREAD_MIN_ROWS and max(known) * parts > 1.5 * total


def _decoded(frame, plan: ExportPlan, parts: int):
    """The raw rows decoded into the snapshot's columns by every task (``mapInArrow``),
    after a repartition by (queue, position) hash (``_spread``: a read partition too big
    for one task, as a queue of real MQ is: browsed by one task, decoded by all). When the
    read is balanced already (stretches, pieces, many queues) the readers decode what they
    read: the raw rows' extra trip through the JVM cost more than it gave (bench)."""
    from .columns import spark_ddl
    from .datasource import export_decoder

    request = plan.request
    columns = snapshot_columns(with_payload=request.with_payload, plugin_columns=[
        (c.full_name, c.spark_type) for c in request.plugin_columns])
    frame = frame.repartition(parts, "queue", "position")
    return frame.mapInArrow(export_decoder(columns, request.plugin_columns), spark_ddl(columns))


_CSV_TEXT = {"properties": "to_json(properties)", "payload": "hex(payload)"}


def _write(frame, target: str, fmt: str) -> None:
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
        writer.option("header", "true").option("compression", "gzip").csv(target)
    else:
        writer.option("compression", "zstd").parquet(target)


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


def _watch(progress_dir: str | None, plan: ExportPlan, owners: list[int],
           report: Callable[[list[Progress]], None] | None,
           cancel: threading.Event | None, spark: SparkSession, stop: threading.Event) -> None:
    """Say progress every half second; cancel Spark's jobs when asked."""
    last: list[tuple] = []
    while not stop.wait(0.5):
        if cancel is not None and cancel.is_set():
            cancel_all(spark)
            return
        if report is None or progress_dir is None:
            continue
        states = _states(read_progress(progress_dir), owners, plan)
        key = [(p.queue, p.read, p.done) for p in states]
        if key != last:
            last = key
            report(states)


def explain_failure(error: BaseException, master: str) -> AuditError:
    """One sentence for a failed Spark job: the first error of ours inside Spark's text (or
    a ``SourceError`` of the read's planning, which runs in this process)."""
    from .session import first_line

    text = f"SourceError: {error}" if isinstance(error, SourceError) else str(error)
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


def _check_target(store: Store, out: str, replace: bool, there: bool,
                  manifest: str | None) -> None:
    """``--out`` checked again through the store, when Spark has started (where the client
    cannot look, this is the first check): exists without ``replace``, or is not a
    snapshot with it: exit 2. ``there`` and ``manifest``: whether it exists, and its
    manifest's text, as the store said."""
    if not there:
        return
    if not replace:
        raise AuditInputError(f"{display(out)} exists: choose another --out, or --replace to "
                              "replace the snapshot there")
    if manifest is None:
        raise AuditInputError(f"{display(out)} is not a snapshot (no {MANIFEST}): --replace "
                              "only replaces a snapshot")
    if not store.renames(out):
        raise AuditInputError(f"{display(out)} is on a file system without an atomic rename: "
                              "--replace cannot put the new snapshot in place of the old one "
                              "at once there (export to a new --out)")


def _progress_folder(spark: SparkSession) -> str | None:
    """Where the readers tell their progress: a private folder of this machine (a classic
    session's driver; readers on other machines cannot reach it, and only the progress
    lines are missing then). None over Spark Connect: the client looks at no folder."""
    import tempfile

    if is_connect(spark):
        return None
    return tempfile.mkdtemp(prefix="mqconsole-export-progress-")


def run_export(spark: SparkSession, plan: ExportPlan, *,
               report: Callable[[list[Progress]], None] | None = None,
               cancel: threading.Event | None = None,
               note: Callable[[str], None] | None = None) -> ExportSummary:
    """Run the job, commit the snapshot (manifest, then the marker), publish it at
    ``--out``; every file operation through the snapshot's store (Hadoop's file systems,
    or the Connect server's). ``note`` hears what the operator must know (a queue that
    changed while it was read); the manifest keeps it too."""
    tell = note or (lambda _text: None)
    request = plan.request
    out = to_uri(request.out)
    store = store_for(spark, out)
    # what is there, in one go (over Connect, each Store.many is one job on the server)
    there, old_manifest, beside, *in_place = store.many([
        op("exists", uri=out), op("read_text", uri=join(out, MANIFEST)),
        op("children", uri=parent(out)), *_in_place_look(out)])
    if is_connect(spark):  # before anything is written (a classic session's are PINNED)
        check_runs_tasks_once(spark)
    if there and _abandoned_in_place(*in_place):  # a killed
        if store.many([op("remove", uri=out), op("exists", uri=out)])[-1]:  # in-place export's
            raise AuditInputError(f"{display(out)} holds what a killed export left, and it "
                                  "could not all be removed: remove it, or choose another "
                                  "--out")
        there, old_manifest = False, None
    if request.remote or local_path(out) is None:  # not checked by the plan
        _check_target(store, out, request.replace, there, old_manifest)
    remove_leftovers(out, store, names=beside)
    renames = store.renames(out)
    # staged beside --out, published by a rename; or written in place, committed by the
    # marker written last. Either beats while the export runs (heartbeat.py), its first
    # beat written with the folder, or once the claim is known to be on no snapshot
    staged = (join(parent(out), f".{name_of(out)}.tmp-{os.getpid()}-{uuid.uuid4().hex[:12]}")
              if renames else out)
    heartbeat = Heartbeat(store, staged)
    token = f"{os.getpid()}-{uuid.uuid4().hex}\n"  # (in place) this export's claim
    if renames:
        store.many([op("mkdirs", uri=staged), *heartbeat.ops()])
    else:
        try:
            committed_since = store.many([
                op("mkdirs", uri=out), op("write_new", uri=join(out, CLAIM), text=token),
                op("exists", uri=join(out, COMMIT_MARKER)), *heartbeat.ops()])[2]
        except FileExistsError:
            raise _taken(out) from None
        if committed_since:  # another export committed here since the look above: it wrote its
            store.many([op("remove", uri=join(out, CLAIM)),  # marker before it let go of
                        op("remove", uri=heartbeat.uri)])  # its claim
            raise _taken(out)
    held = store.hold(staged)
    started = time.monotonic()
    master = master_of(spark)
    progress_dir = _progress_folder(spark)
    try:
        heartbeat.start()
        sources, owners, keep = _run_job(spark, plan, staged, _parallelism(spark),
                                         progress_dir, report, cancel)
        if report is not None and progress_dir is not None:
            report(_states(read_progress(progress_dir), owners, plan))
        data = join(staged, DATA_DIR)
        listing = None  # (Parquet) the data files and their bytes, from the store's listing
        listed_only = False  # (Parquet) the data folder holds files that are not data
        if request.format == "parquet":
            from .compact import parquet_files

            listing = parquet_files(store.sizes(data))
            compacted = _compact(spark, store, data, plan, keep, listing) if listing else None
            if compacted is not None:
                listing, listed_only = compacted.files, bool(compacted.left)
        heard = len(plan.notes)
        # the rows of every file, and (Parquet) the report's aggregates from the same
        # files: one Spark job over them (summary.one_pass)
        files, summary = _count(spark, plan, data, sources, staged, listing, listed_only)
        for said in plan.notes[heard:]:  # a queue whose stretches changed while read
            tell(said)
        writes: list[Op] = []  # the commit's files, written in this order
        if summary and files:  # the aggregates' files, then summary.json tied to the commit
            writes += summary
        _depths_at_end(plan)
        for said in _changes(plan):
            plan.notes.append(said)
            tell(said)
        seconds = time.monotonic() - started
        writes.append(_manifest(staged, plan, seconds, master, files))
        writes += [op("write_new", uri=join(staged, COMMIT_MARKER), text=""),  # last: the
                   op("make_private", uri=staged)]  # snapshot is complete
        # the heartbeat is no file of the snapshot: gone before it is published (the
        # staging folder's own age, just changed, stands for it until then), or, in place,
        # once the marker is written and the claim removed
        heartbeat.stop()
        beat_gone = op("remove", uri=heartbeat.uri)
        last = ([beat_gone, op("publish", staged=staged, out=out, replace=request.replace)]
                if renames else [op("remove", uri=join(out, CLAIM)), beat_gone])
        if not renames and not _still_ours(store, out, token):
            raise _taken(out)  # (its folder is another export's now: nothing of it removed)
        try:
            if held is None:  # nothing held here to let go of first: the commit in one go
                store.many([*writes, *last])
            else:
                store.many(writes)
                store.release(held, staged)
                held = None
                store.many(last)
        except _NameTaken:
            raise _taken(out) from None
        held = None
    except BaseException as exc:
        heartbeat.stop()  # no beat after this: none may make the folder again
        store.release(held, staged)
        # in place, --out itself: removed only while it holds this export's claim and no
        # commit marker (not once committed, and never another export's)
        if renames or _still_ours(store, out, token):
            store.remove(staged)
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            raise NoSpace("the export failed: no space left on device (nothing was "
                          "written: free some space and export again)") from None
        raise
    finally:
        if progress_dir is not None:
            shutil.rmtree(progress_dir, ignore_errors=True)
    return ExportSummary(
        display(out), sum(q.rows for q in plan.queues) + sum(f.rows for f in plan.files),
        [{"profile": q.key, "qmgr": q.qmgr, "queue": q.queue, "rows": q.rows,
          "depth_start": q.depth_start, "depth_end": q.depth_end, "changed": change_of(q)}
         for q in plan.queues],
        [{"path": f.path, "qmgr": f.qmgr, "queue": f.queue, "rows": f.rows} for f in plan.files],
        seconds, request.format, list(plan.notes))


CLAIM = "_EXPORTING"  # an in-place export's claim on --out, removed when it commits


def _still_ours(store: Store, out: str, token: str) -> bool:
    """Does ``out`` (written in place) hold this export's claim (``token``) and no commit
    marker? False too when that cannot be told (the folder is then left, for its heartbeat
    to say, once stopped, that it was abandoned)."""
    try:
        claim, marked = store.many([op("read_text", uri=join(out, CLAIM)),
                                    op("exists", uri=join(out, COMMIT_MARKER))])
    except Exception:
        return False
    return claim == token and not marked


def _in_place_look(folder: str) -> list[Op]:
    """What tells whether ``folder`` is a killed in-place export's, as store operations
    whose results are :func:`_abandoned_in_place`'s arguments in order: its claim's age,
    whether it is committed, its heartbeat's age and text."""
    return [op("age", uri=join(folder, CLAIM)), op("exists", uri=join(folder, COMMIT_MARKER)),
            op("age", uri=join(folder, HEARTBEAT)), op("read_text", uri=join(folder, HEARTBEAT))]


def _abandoned_in_place(claim_age: float | None, committed: bool, beat_age: float | None,
                        beat_text: str | None) -> bool:
    """Is a folder what an in-place export (a file system without an atomic rename) left
    when it was killed: its claim there, no commit marker, and its heartbeat older than
    the bound it declares (:func:`.store.gone`; without one, an older version's, the
    claim older than ``LEFTOVER_SECONDS``)? Such a folder is removed by the next export to
    it and by ``audit clean``."""
    return claim_age is not None and not committed and gone(beat_age, beat_text, claim_age)


class OutTaken(AuditInputError):
    """``--out`` was made (by another export) while this export ran (exit 2)."""


def _taken(out: str) -> OutTaken:
    return OutTaken(f"{display(out)} was written by another export while this one ran: this "
                    "export's snapshot is dropped (the other one stands; choose another "
                    "--out, or --replace)")


def clean_staging(folder: str | Path, store: Store | None = None
                  ) -> tuple[list[str], list[str]]:
    """``audit clean``: the staging folders killed exports left (``.NAME.tmp-…``) in
    ``folder`` (where exports wrote their ``--out``), or beside it when it is an ``--out``;
    (removed, kept: an export may still hold them, :meth:`Store.abandoned`). And the
    snapshots a killed ``--replace`` moved aside (``.NAME.old-…``) once ``NAME`` holds its
    committed successor; while it does not, the one aside may be the only snapshot there
    is, and stays (not listed). Without
    ``store``, this machine's folders only (no Spark); with one (Spark's Hadoop, or the
    Connect server's side: its executors, or its plugin for a Hadoop URI), any folder it
    reaches."""
    target = to_uri(folder)
    if store is None:
        if local_path(target) is None:
            raise AuditInputError(f"{display(target)}: another file system than this "
                                  "machine's: give --master (Spark's Hadoop reaches it) or "
                                  "--remote (the Spark Connect server's side)")
        store = LocalStore()
    places: list[tuple[str, str | None]] = []
    removed, kept = [], []
    if store.is_dir(target):
        places.append((target, None))
        look = store.many(_in_place_look(target))
        claim_age, committed = look[:2]
        if claim_age is not None and not committed:  # an in-place export's --out
            if _abandoned_in_place(*look):
                store.remove(target)
                return [display(target)], []
            return [], [display(target)]
    if name_of(target) and store.is_dir(parent(target)):
        places.append((parent(target), f".{name_of(target)}."))
    if not places:
        raise AuditInputError(f"{display(target)}: no such folder")
    for where, prefix in places:
        for name in store.children(where):
            staged = join(where, name)
            kind = _leftover_kind(name, prefix or ".")
            if kind is None or not store.is_dir(staged):
                continue
            if kind == "old":  # a replaced snapshot: gone once its successor is committed
                out = join(where, name[1:].rsplit(".old-", 1)[0])
                if store.exists(join(out, COMMIT_MARKER)):
                    store.remove(staged)
                    removed.append(display(staged))
            elif store.abandoned(staged):
                store.remove(staged)
                removed.append(display(staged))
            else:
                kept.append(display(staged))
    return removed, kept


def _leftover_kind(name: str, prefix: str) -> str | None:
    """``tmp`` for a staging folder (``.NAME.tmp-…``), ``old`` for a snapshot a
    ``--replace`` moved aside (``.NAME.old-…``), of an ``--out`` whose folder name starts
    with ``prefix`` (``.`` for any); None for anything else."""
    if not name.startswith(prefix):
        return None
    for kind in ("tmp", "old"):
        stem, sep, _tag = name[1:].rpartition(f".{kind}-")
        if sep and stem and (prefix == "." or f".{stem}." == prefix):
            return kind
    return None


def remove_leftovers(out: str | Path, store: Store | None = None,
                     names: list[str] | None = None) -> list[str]:
    """Remove the staging folders (``.NAME.tmp-*`` beside ``out``) that exports to the same
    ``out`` left when they were killed (:meth:`Store.abandoned`); the folders removed.
    ``names``: what the folder beside ``out`` holds, when the store said already."""
    target = to_uri(out)
    store = store or LocalStore()
    removed = []
    prefix = f".{name_of(target)}.tmp-"
    folder = parent(target)
    for name in store.children(folder) if names is None else names:
        staged = join(folder, name)
        if name.startswith(prefix) and store.is_dir(staged) and store.abandoned(staged):
            store.remove(staged)
            removed.append(staged)
    return removed


PARALLELISM_SQL = ("SELECT max(p) + 1 AS n FROM (SELECT spark_partition_id() AS p FROM "
                   "range(1048576))")
"""How many tasks a range gets when it names none: Spark's default parallelism for a leaf
(``spark.sql.leafNodeDefaultParallelism``, else the cluster's cores: ``Range``'s slices),
what a Spark Connect session does not otherwise say. One small job on the server."""


def _parallelism(spark: SparkSession) -> int:
    """How many stretches a queue is read in and tasks its raw rows are spread over: the
    session's cores; over Spark Connect (no SparkContext to ask) the server's, from
    :data:`PARALLELISM_SQL`."""
    if not is_connect(spark):
        return spark.sparkContext.defaultParallelism
    return max(1, int(spark.sql(PARALLELISM_SQL).collect()[0]["n"] or 1))


def _run_job(spark: SparkSession, plan: ExportPlan, staged: str, parts: int,
             progress_dir: str | None, report: Callable[[list[Progress]], None] | None,
             cancel: threading.Event | None
             ) -> tuple[list[QueueSource], list[int], dict[str, int]]:
    """Read and write once into ``staged``; the queue sources read (stretches included),
    which source of the plan each partition reads, and the files each queue may keep as
    written (``compact.plan_compaction``): one per read partition of it when its readers
    wrote them (none when the rows were spread: every task writes every queue)."""
    sources = _partitions(plan, parts) if plan.queues else []
    files = _file_sources(spark, plan, parts) if plan.files else []
    index = {(q.key, q.queue): i for i, q in enumerate(plan.queues)}
    owners = [index[(s.key, s.queue)] for s in sources]
    by_path = {f.path: len(plan.queues) + i for i, f in enumerate(plan.files)}
    owners += [by_path[f.path] for f in files]
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, daemon=True, name="mqconsole-export-progress",
                               args=(progress_dir, plan, owners, report, cancel, spark, stop))
    watcher.start()
    cancelled = ExportCancelled("export cancelled: nothing was written")
    try:
        if cancel is not None and cancel.is_set():
            raise cancelled
        spread = _spread(_estimates(plan, sources, files), parts)
        keep: dict[str, int] = {}
        if not spread:
            queue_of = {f.path: f.queue for f in plan.files}
            for name in [s.queue for s in sources] + [queue_of[f.path] for f in files]:
                keep[name] = keep.get(name, 0) + 1
        rows = _reader(spark, plan, sources, files, progress_dir, raw=spread)
        _write(_decoded(rows, plan, parts) if spread else rows, join(staged, DATA_DIR),
               plan.request.format)
    except ExportCancelled:
        raise
    except Exception as e:
        if cancel is not None and cancel.is_set():
            raise cancelled from None
        raise explain_failure(e, master_of(spark)) from None
    finally:
        stop.set()
        watcher.join()
    if cancel is not None and cancel.is_set():  # asked as the job ended: still nothing
        raise cancelled
    return sources, owners, keep


def _compact(spark: SparkSession, store: Store, data: str, plan: ExportPlan,
             keep: dict[str, int], listing: dict[str, int]) -> Compacted | None:
    """A queue written in more files than its bytes need written again (``compact.py``):
    files of at least ``spark.mqconsole.targetFileBytes`` (64 MiB; 0: never), but for a
    queue in no more files than ``keep`` says (one per read partition). ``listing``: the
    data files and their bytes, as the store listed them (no Spark job to decide). The
    data files then, or None when none was written again."""
    from .columns import spark_ddl
    from .compact import TARGET_FILE_BYTES, compact

    target = _conf_bytes(spark, "spark.mqconsole.targetFileBytes", TARGET_FILE_BYTES)
    columns = _columns(plan)
    return compact(spark, store, data, spark_ddl(columns), target, [c.name for c in columns],
                   keep, listing)


def _columns(plan: ExportPlan) -> list:
    request = plan.request
    return snapshot_columns(with_payload=request.with_payload, plugin_columns=[
        (c.full_name, c.spark_type) for c in request.plugin_columns])


def _count(spark: SparkSession, plan: ExportPlan, data: str, sources: list[QueueSource],
           staged: str | None = None, listing: dict[str, int] | None = None,
           listed_only: bool = False) -> tuple[list[dict[str, Any]], list[Op]]:
    """Rows per source and per data file, counted by Spark from the written files (one
    pass, which also gives each queue's lowest and highest position); a queue read in
    stretches whose positions are not one browse's (a stretch that changed while it was
    read) is noted. The data files, sorted by path, and for a Parquet snapshot (with
    ``staged``) the writing of the stored aggregates and their ``summary.json``: the
    aggregates are computed by Spark from the same files (not from what the readers
    yielded: a retried or speculative task cannot count twice), in the count's own job
    (``summary.store_aggregates_by_file``), and tied to them (``files_digest``).

    ``listing`` (Parquet: the data files and their bytes, from the store): the files are
    read with the snapshot's schema (no job to infer it), none are not read at all, and the
    count and every aggregate are one Spark job over them, at any size (then a read of its
    small results and one of the few pages holding the oldest and youngest message). The
    data folder is read, or with ``listed_only`` (it holds files a compaction could not
    remove: ``compact.Compacted.left``) the files of ``listing`` by name."""
    from .columns import spark_ddl
    from .compact import queue_of
    from .errors import first_line
    from .summary import (
        SUMMARY_DIR,
        SUMMARY_FILE,
        files_digest,
        store_aggregates_by_file,
    )

    fmt = plan.request.format
    reader = spark.read.option("header", "true") if fmt == "csv" else spark.read
    info: dict[str, Any] | None = None
    writes: list[Op] = []
    frame = None
    counted: list[dict[str, Any]] = []  # no rows, so no file: nothing counted
    try:
        if fmt == "parquet" and listing is not None:
            if listing:
                parquet = spark.read.schema(spark_ddl(_columns(plan)))
                frame = (parquet.option("basePath", data).parquet(
                    *[join(data, f) for f in sorted(listing)]) if listed_only
                    else parquet.parquet(data))
        else:
            frame = reader.format(fmt).load(data)
        if frame is not None and fmt == "parquet" and staged is not None:
            queues = sorted({queue_of(path.split("/", 1)[0]) for path in listing or {}})
            info, counted, writes = store_aggregates_by_file(
                frame, join(staged, SUMMARY_DIR), queues)
        elif frame is not None:
            counted = [row.asDict() for row in frame.selectExpr(
                "input_file_name() AS file", "qmgr", "queue", "source", "position")
                .groupBy("file", "qmgr", "queue", "source")
                .agg(*_count_aggregates(frame)).collect()]
    except Exception as e:
        if not listing and ("UNABLE_TO_INFER_SCHEMA" in first_line(e)
                            or "PATH_NOT_FOUND" in first_line(e)):
            counted = []  # no rows, so no file (never a listed file gone: the job fails)
        else:
            raise
    per_file: dict[str, int] = {}
    per_source: dict[tuple[str, str, str], int] = {}
    bounds: dict[tuple[str, str], tuple[int, int, int]] = {}  # queue rows: n, lo, hi
    for row in counted:
        path = spark_relative(row["file"], data)
        n = int(row["n"])
        if path is not None:
            per_file[path] = per_file.get(path, 0) + n
        key = (row["qmgr"], row["queue"], row["source"])
        per_source[key] = per_source.get(key, 0) + n
        if row["source"] == "queue" and row["lo"] is not None and row["hi"] is not None:
            lo, hi = int(row["lo"]), int(row["hi"])
            had = bounds.get(key[:2], (0, lo, hi))
            bounds[key[:2]] = (had[0] + n, min(had[1], lo), max(had[2], hi))
    for q in plan.queues:
        q.rows = int(per_source.get((q.qmgr, q.queue, "queue"), 0))
    for f in plan.files:
        f.rows = sum(n for (_, _, source), n in per_source.items() if source == f.path)
    stretches: dict[tuple[str, str], int] = {}
    for src in sources:
        if src.part is not None:
            stretches[(src.key, src.queue)] = stretches.get((src.key, src.queue), 0) + 1
    if stretches and fmt == "parquet" and frame is not None:
        plan.notes += _stretch_notes(frame, plan, stretches, bounds)
    files: list[dict[str, Any]] = [{"path": p, "rows": per_file[p]} for p in sorted(per_file)]
    summary: list[Op] = []
    if info is not None and staged is not None:
        info["files_digest"] = files_digest(files)
        summary = [*writes, op("write_new", uri=join(staged, SUMMARY_DIR, SUMMARY_FILE),
                               text=json.dumps(info))]
    return files, summary


def _count_aggregates(frame) -> list:
    """Rows, lowest and highest position, as columns of ``frame``'s kind: a Spark Connect
    frame needs Connect's functions (the classic ones ask for a SparkContext, which a
    Connect client does not have, unless SPARK_CONNECT_MODE_ENABLED is set)."""
    import importlib

    F = importlib.import_module("pyspark.sql.connect.functions"
                                if type(frame).__module__.startswith("pyspark.sql.connect")
                                else "pyspark.sql.functions")

    return [F.expr(sql) for sql in ("count(*) AS n", "min(position) AS lo",
                                    "max(position) AS hi")]


def _stretch_notes(frame, plan: ExportPlan, stretches: dict[tuple[str, str], int],
                   bounds: dict[tuple[str, str], tuple[int, int, int]]) -> list[str]:
    """A sentence per queue read in stretches whose rows do not carry the positions of one
    browse (1 to its rows, each once): a stretch changed while it was read. Its rows are
    kept (each message was read once, by its key: nothing is read again); only the
    positions are not one moment's.

    Each stretch numbers its rows on from its planned first position, so a queue read in
    two has the positions of one browse exactly when its rows run from 1 to their count
    (``bounds``, from the count's pass); only a queue read in more, or one that does not
    run so, has its distinct positions counted (another pass, which tells how it differs)."""
    queues = {(q.qmgr, q.queue): stretches[(q.key, q.queue)] for q in plan.queues
              if (q.key, q.queue) in stretches}
    doubt = {key for key, parts in queues.items() if key in bounds and (
        parts > 2 or bounds[key] != (bounds[key][0], 1, bounds[key][0]))}
    if not doubt:
        return []
    view = f"mqconsole_export_{uuid.uuid4().hex[:12]}"
    frame.createOrReplaceTempView(view)
    try:  # one pass (it took three)
        stats = frame.sparkSession.sql(
            "SELECT qmgr, queue, count(*) AS n, min(position) AS lo, max(position) AS hi, "
            f"count(DISTINCT position) AS d FROM {view} WHERE source = 'queue' "
            "GROUP BY qmgr, queue").collect()
    finally:
        frame.sparkSession.catalog.dropTempView(view)
    out = []
    for row in stats:
        key = (row["qmgr"], row["queue"])
        if key not in doubt:
            continue
        n, lo, hi, d = int(row["n"]), row["lo"], row["hi"], int(row["d"])
        if n and (d != n or lo != 1 or hi != n):
            out.append(f"{key[1]} ({key[0]}) changed while it was read in stretches: its "
                       f"{n:,} rows hold each message read once, but their positions are "
                       f"not one browse's ({d:,} distinct, {lo:,} to {hi:,})")
    return out


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


def _manifest(folder: str, plan: ExportPlan, seconds: float, master: str,
              files: list[dict[str, Any]]) -> Op:
    """Writing the manifest (the commit writes it, then its marker)."""
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
    return op("write_new", uri=join(folder, MANIFEST), text=json.dumps(manifest, indent=2) + "\n")


__all__ = ["COMMIT_MARKER", "DATA_DIR", "MANIFEST", "ExportCancelled", "ExportPlan",
           "ExportRequest", "ExportSummary", "OutTaken", "clean_staging", "explain_failure",
           "plan_export",
           "remove_leftovers", "run_export"]

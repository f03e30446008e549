"""The PySpark Python data source ``mqconsole``: queues or saved files → snapshot rows.

::

    from mqconsole.audit.datasource import register
    register(spark, connections={"prod": profile})      # profile: no password inside
    df = (spark.read.format("mqconsole").option("profile", "prod")
          .option("queues", "SYSTEM.DEAD.LETTER.QUEUE,APP.*.BOQ").load())
    df = spark.read.format("mqconsole").option("embedded", "/path/qm.sqlite")...
    df = spark.read.format("mqconsole").load("/saved/a.dmp")   # or .load([paths])

Options: ``profile`` (a comma list of registered connection names) or ``embedded`` (an
embedded queue manager file) with ``queues`` (MQ patterns); or file paths given to
``load()`` (or the ``files`` option, comma-separated); ``queue_list`` (JSON ``[[profile,
queue], ...]``: exact queues, as the export gives them); ``with_payload`` (``true``: the
``payload`` column); ``batch_rows``; ``progress_dir`` (``progress.py``); ``parts`` and
``min_split_rows`` (below). Nothing but rows leaves ``read()``: the export's aggregates are
computed by Spark from the committed files (``summary.py``), so a retried task cannot count
twice.

One partition per file, and one per queue of real MQ (a queue can only be browsed
forward, from its start). A queue of a backend that reads from any position
(``backends.base.BrowsesInRanges``: the embedded queue manager) may be split in up to
``parts`` stretches (default 1) of at least ``min_split_rows`` messages, read in parallel;
positions are exactly those of one browse while the queue does not change (a stretch that
changed is still read whole, each message once; the export notes it from the positions).

``read()`` browses (never gets: an audit removes nothing) and yields Arrow record batches
of ``batch_rows`` rows, so memory stays flat whatever the depth. Spark calls ``read()``
again for every action and on a task retry, so browse once into a snapshot
(``export.py``) and audit the snapshot.

Plugin audit columns and the connections travel inside the registered class: ``register``
makes a subclass holding them, which Spark pickles (by value) to its Python workers.

The export reads with the same reader and partitions, but as ``mapInArrow`` over the
partitions' numbers (``partition_read``): no Python processes of Spark's to plan the read.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from mqconsole.backends.base import BrowsesInRanges, packed_browse
from mqconsole.backends.embedded.stored import BACKOUT_COUNT_AT, StoredMessage, long_at
from mqconsole.mq.message import Message
from mqconsole.ops.dmpfile import DmpReader
from mqconsole.plugins.discovery import FOLDER_MODULE_PREFIX

from .columns import Column, snapshot_columns, spark_ddl
from .progress import Progress, ProgressWriter
from .raw import RAW_BATCH_BYTES, RAW_DDL, RawBatchBuilder, decoder
from .rows import BATCH_ROWS, BatchBuilder, ComputedColumn, packed_batch
from .sources import (
    FilePiece,
    FileSource,
    QueueSource,
    SourceError,
    check_file,
    connected,
    connection_refusal,
    expand_queues,
    split_file,
    split_patterns,
    split_queue,
)

if TYPE_CHECKING:
    from mqconsole.plugins import PluginHost

NAME = "mqconsole"
EMBEDDED_KEY = "embedded:"
BROWSE_BATCH = 500
MIN_SPLIT_ROWS = 50_000  # a queue is split (option parts) in stretches of at least these
FILE_PIECE_BYTES = 32 << 20  # a saved file is split (option file_parts) in pieces of these


@dataclass(frozen=True, slots=True)
class PluginColumn:
    """A plugin's audit column as the data source carries it."""

    plugin: str
    name: str  # the column's own name; the snapshot's is <plugin>_<name>
    spark_type: str
    compute: Any
    settings: Mapping[str, Any]

    @property
    def full_name(self) -> str:
        return f"{self.plugin}_{self.name}"


class SourcePartition(InputPartition):
    def __init__(self, index: int, source: QueueSource | FileSource) -> None:
        super().__init__(index)
        self.index = index
        self.source = source


def _flag(options: Mapping[str, str], key: str) -> bool:
    return str(options.get(key, "false")).strip().lower() in ("1", "true", "yes")


def _file_options(options: Mapping[str, str]) -> list[str]:
    files: list[str] = []
    if options.get("paths"):
        files += [str(p) for p in json.loads(options["paths"])]
    if options.get("path"):
        files.append(options["path"])
    if options.get("files"):
        files += [p.strip() for p in options["files"].split(",") if p.strip()]
    return files


class MqconsoleDataSource(DataSource):
    """``spark.read.format("mqconsole")``: see the module's text."""

    connections: Mapping[str, object] = {}
    plugin_columns: Sequence[PluginColumn] = ()

    @classmethod
    def name(cls) -> str:
        return NAME

    def columns(self) -> list[Column]:
        return snapshot_columns(
            with_payload=_flag(self.options, "with_payload"),
            plugin_columns=[(c.full_name, c.spark_type) for c in self.plugin_columns])

    def schema(self) -> str:
        if _flag(self.options, "raw"):  # the export decodes after a repartition (raw.py)
            return RAW_DDL
        return spark_ddl(self.columns())

    @classmethod
    def resolve_profile(cls, name: str) -> object | None:
        """A connection for a profile that was not registered, or None. The installed
        ``pyspark_mqconsole`` source (a face: it may read the configuration, this room may
        not) answers with the configuration's profile."""
        return None

    def reader(self, schema: Any) -> DataSourceReader:
        # here, on the driver: what is resolved is pickled to the executors with the reader
        connections, unresolved = dict(self.connections), {}
        for key in _named_profiles(self.options):
            if key in connections:
                continue
            try:
                found = self.resolve_profile(key)
            except Exception as e:  # one sentence when the read is planned
                unresolved[key] = str(e).strip().splitlines()[0] if str(e).strip() else \
                    type(e).__name__
                continue
            if found is not None:
                connections[key] = found
        return MqconsoleReader(dict(self.options), self.columns(), connections,
                               list(self.plugin_columns), unresolved)


def _named_profiles(options: Mapping[str, str]) -> list[str]:
    keys = split_patterns(options.get("profile", ""))
    if options.get("queue_list"):
        keys += [str(item[0]) for item in json.loads(options["queue_list"])]
    return keys


class MqconsoleReader(DataSourceReader):
    def __init__(self, options: dict[str, str], columns: list[Column],
                 connections: dict[str, object], plugin_columns: list[PluginColumn],
                 unresolved: Mapping[str, str] | None = None) -> None:
        self.options = options
        self.columns = columns
        self.connections = connections
        self.plugin_columns = plugin_columns
        self.batch_rows = int(options.get("batch_rows") or BATCH_ROWS)
        self.progress_dir = options.get("progress_dir") or None
        self.raw = _flag(options, "raw")
        embedded = options.get("embedded")
        if embedded:
            self.connections[EMBEDDED_KEY + embedded] = {"backend": "embedded",
                                                         "path": embedded}
        self.unresolved = dict(unresolved or {})

    # -- planning (on the driver's side) ------------------------------------------------
    def _keys(self) -> list[str]:
        keys = split_patterns(self.options.get("profile", ""))
        if self.options.get("embedded"):
            keys.append(EMBEDDED_KEY + self.options["embedded"])
        for key in keys:
            self._check_key(key)
        return keys

    def _check_key(self, key: str) -> None:
        if key not in self.connections:
            raise SourceError(f"profile {key!r} is not known to the mqconsole data source: "
                              f"{self.unresolved.get(key, 'not in the configuration')}; "
                              "name a profile of mqconsole's configuration or register it "
                              "with mqconsole.audit.datasource.register(spark, "
                              "connections={...})")
        refusal = connection_refusal(self.connections[key])
        if refusal:
            raise SourceError(f"profile {key!r} cannot be audited: {refusal}")

    def sources(self) -> list[QueueSource | FileSource]:
        out: list[QueueSource | FileSource] = []
        if self.options.get("queue_list"):
            for item in json.loads(self.options["queue_list"]):
                source = QueueSource.from_json(item)
                self._check_key(source.key)
                out.append(source)
        patterns = split_patterns(self.options.get("queues", ""))
        keys = self._keys()
        if patterns and not keys:
            raise SourceError("option queues needs option profile or embedded (which queue "
                              "manager to browse)")
        if keys and not patterns:
            raise SourceError("option profile needs option queues (which queues to browse)")
        parts = int(self.options.get("parts") or 1)
        min_rows = int(self.options.get("min_split_rows") or MIN_SPLIT_ROWS)
        for key in keys:
            with connected(self.connections[key]) as qm:
                for q in expand_queues(qm, patterns):
                    out += split_queue(qm, key, q, parts, min_rows)
        if self.options.get("file_list"):
            out += [FileSource.from_json(item) for item in json.loads(self.options["file_list"])]
        file_parts = int(self.options.get("file_parts") or 1)
        piece_bytes = int(self.options.get("file_piece_bytes") or FILE_PIECE_BYTES)
        for f in _file_options(self.options):
            out += split_file(check_file(f), file_parts, piece_bytes)
        if not out:
            raise SourceError("nothing to read: give queues (options profile or embedded, and "
                              "queues) or saved files (load(path))")
        return out

    def partitions(self) -> Sequence[InputPartition]:
        return [SourcePartition(i, s) for i, s in enumerate(self.sources())]

    # -- reading (in an executor) --------------------------------------------------------
    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, SourcePartition)
        source = partition.source
        progress = ProgressWriter(self.progress_dir, partition.index)
        if isinstance(source, QueueSource):
            batches = self._read_queue(source, progress)
        else:
            batches = self._read_file(source, progress)
        yield from batches

    def _builder(self, qmgr: str, queue: str, source: str) -> BatchBuilder | RawBatchBuilder:
        if self.raw:
            return RawBatchBuilder(qmgr=qmgr, queue=queue, source=source)
        return BatchBuilder(self.columns, qmgr=qmgr, queue=queue, source=source,
                            computed=[ComputedColumn(c.full_name, c.compute)
                                      for c in self.plugin_columns],
                            call=_plugin_caller(self.plugin_columns))

    def _drain(self, builder: BatchBuilder | RawBatchBuilder, messages: Iterator,
               state: Progress, progress: ProgressWriter, first: int = 1
               ) -> Iterator[pa.RecordBatch]:
        """Batches of the messages numbered from ``first``; ``state.read`` counts them.
        A message is a ``Message``, or ``(md, body)`` packed (a saved file read raw)."""
        position = first - 1
        for message in messages:
            position += 1
            if isinstance(message, tuple):
                assert isinstance(builder, RawBatchBuilder)
                builder.add_packed(message[0], message[1], position)
            else:
                builder.add(message, position)
            if builder.rows >= self.batch_rows or (
                    isinstance(builder, RawBatchBuilder) and builder.bytes >= RAW_BATCH_BYTES):
                state.read = position - first + 1
                yield builder.flush()
                progress.write(state)
        state.read = position - first + 1
        if builder.rows:
            yield builder.flush()
        state.done = True
        progress.write(state)

    def _read_queue(self, source: QueueSource, progress: ProgressWriter
                    ) -> Iterator[pa.RecordBatch]:
        part = source.part
        with connected(self.connections[source.key]) as qm:
            qmgr = qm.name.strip()
            state = Progress(qmgr, source.queue, "queue")
            progress.write(state)
            builder = self._builder(qmgr, source.queue, "queue")
            if part is None:
                with qm.browse(source.queue) as cursor:
                    yield from self._drain_cursor(builder, cursor, state, progress)
                return
            if not isinstance(qm, BrowsesInRanges):
                raise SourceError(f"{source.queue} cannot be read in stretches here")
            # a stretch that changed since it was planned still yields each of its messages
            # once (it is bounded by keys, not by counts); the export sees from the
            # positions that they are not one browse's and says so (never reads again)
            with qm.browse_range(source.queue, part) as cursor:
                yield from self._drain_cursor(builder, cursor, state, progress,
                                              first=part.first_position)

    def _drain_cursor(self, builder: BatchBuilder | RawBatchBuilder, cursor,
                      state: Progress, progress: ProgressWriter, first: int = 1
                      ) -> Iterator[pa.RecordBatch]:
        """``_drain`` of a browse cursor's messages. A cursor that reads them packed
        (``BrowsesPacked``: the embedded queue manager) gives its rows' MDs and bodies
        straight to the decoding, without a message object each (``rows.packed_batch``),
        when no plugin column asks for the messages."""
        packed = packed_browse(cursor)
        if packed is None or not isinstance(builder, BatchBuilder) or builder.computed \
                or not builder.columnar:  # (False: row by row, as fixed_columns does)
            yield from self._drain(builder, _browse(cursor), state, progress, first)
            return
        position = first
        while True:
            rows = packed.next_packed(self.batch_rows)
            if rows:
                blobs, bodies = zip(*rows, strict=True)
                batch = packed_batch(builder.schema, builder.qmgr, builder.queue,
                                     builder.source, blobs, bodies, position)
                position += len(rows)
                state.read = position - first
                yield batch
                progress.write(state)
            if len(rows) < self.batch_rows:
                break
        state.done = True
        progress.write(state)

    def _read_file(self, source: FileSource, progress: ProgressWriter
                   ) -> Iterator[pa.RecordBatch]:
        if source.piece is not None:
            yield from self._read_piece(source.path, source.piece, progress)
            return
        with DmpReader(source.path) as reader:
            qmgr = (reader.info.qmgr or "").strip()
            queue = file_queue(reader.info.queue, source.path)
            state = Progress(qmgr, queue, source.path)
            progress.write(state)
            builder = self._builder(qmgr, queue, source.path)
            messages = reader.packed() if self.raw else iter(reader)
            yield from self._drain(builder, messages, state, progress)

    def _read_piece(self, path: str, piece: FilePiece, progress: ProgressWriter
                    ) -> Iterator[pa.RecordBatch]:
        """One piece of a dmpmqmsg file (``sources.split_file``): its messages from
        ``piece.first_position``; a piece holding another count than planned is said."""
        from mqconsole.ops.files.fastread import iter_fast
        from mqconsole.ops.files.lines import Lines
        from mqconsole.ops.files.reader import iter_dmp

        with DmpReader(path) as reader:  # the header: where the rows come from
            qmgr = (reader.info.qmgr or "").strip()
            queue = file_queue(reader.info.queue, path)
        state = Progress(qmgr, queue, path)
        progress.write(state)
        builder = self._builder(qmgr, queue, path)
        with open(path, "rb") as fp:
            stream = io.BufferedReader(_Range(fp, piece.start, piece.end))
            if piece.start == 0:
                head = DmpReader(stream, name=path)
                lines = head.lines
            else:
                lines = Lines(stream, path)
                lines.number = piece.first_line
            items = iter_fast(lines, iter_dmp, packed=True)
            messages = (m for m in items if m is not None)
            if not self.raw:
                messages = (m if isinstance(m, Message) else StoredMessage(m[0], m[1], long_at(
                    m[0], BACKOUT_COUNT_AT)) for m in messages)
            yield from self._drain(builder, messages, state, progress,
                                   first=piece.first_position)
        if state.read != piece.count:
            raise SourceError(f"{path} cannot be read in pieces: bytes {piece.start:,} to "
                              f"{piece.end:,} hold {state.read:,} messages where "
                              f"{piece.count:,} were counted (its messages are not laid out "
                              "as dmpmqmsg writes them); export it with --conf "
                              "spark.mqconsole.filePieceBytes=0")


class _Range(io.RawIOBase):
    """Bytes ``start`` to ``end`` of an open binary file, as a file of their own."""

    def __init__(self, fp, start: int, end: int) -> None:
        super().__init__()
        fp.seek(start)
        self._fp, self._left = fp, end - start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self._left)
        if n <= 0:
            return 0
        data = self._fp.read(n)
        buffer[:len(data)] = data
        self._left -= len(data)
        return len(data)


def file_queue(header_queue: str | None, path: str) -> str:
    """The ``queue`` of a file's rows: the queue its header names, else the file's name."""
    return (header_queue or "").strip() or Path(path).name


def _browse(cursor) -> Iterator:
    while True:
        batch = cursor.next_batch(BROWSE_BATCH)
        yield from batch
        if len(batch) < BROWSE_BATCH:
            return


def _plugin_caller(columns: Sequence[PluginColumn]):
    """Run a plugin column as its plugin (``plugin_settings()`` works); a failure is said once
    (in Spark's log) and gives null."""
    if not columns:
        return None
    from mqconsole.plugins.host import PluginHost

    host = PluginHost(settings={c.plugin: dict(c.settings) for c in columns})
    by_name = {c.full_name: c for c in columns}
    failed: set[str] = set()

    def call(column: ComputedColumn, message) -> Any:
        plugin = by_name[column.name].plugin
        try:
            with host.running(plugin, "audit column"):
                return column.compute(message)
        except (Exception, SystemExit) as e:  # its sys.exit too: null, said once
            if column.name not in failed:
                failed.add(column.name)
                print(f"mqconsole: audit column {column.name} of plugin {plugin} raised "
                      f"{type(e).__name__}: {e}; its value is null", file=sys.stderr)
            return None

    return call


def export_decoder(columns: Sequence[Column], plugins: Sequence[PluginColumn]):
    """What the export's ``mapInArrow`` runs: raw rows (option ``raw``) → the snapshot's
    ``columns``, plugin columns run as their plugins (``_plugin_caller``)."""
    plugins = list(plugins)
    return decoder(columns, [ComputedColumn(c.full_name, c.compute) for c in plugins],
                   lambda: _plugin_caller(plugins))


def plugin_columns(host: PluginHost) -> list[PluginColumn]:
    """The site plugins' audit columns (``mqconsole_audit_columns``), each with its plugin's
    settings: what both faces' exports add to the snapshot."""
    return [PluginColumn(r.plugin, r.column.name, r.column.spark_type, r.column.compute,
                         host.settings_of(r.plugin)) for r in host.audit_columns()]


def source_class(connections: Mapping[str, object] | None = None,
                 plugin_columns: Sequence[PluginColumn] = ()) -> type[MqconsoleDataSource]:
    """A data source class carrying these connections and plugin columns."""
    from pyspark import cloudpickle

    if plugin_columns:  # a folder plugin's module cannot be imported by workers: by value
        for name, module in list(sys.modules.items()):
            if name.startswith(FOLDER_MODULE_PREFIX):
                cloudpickle.register_pickle_by_value(module)
    return type("MqconsoleSource", (MqconsoleDataSource,),
                {"connections": dict(connections or {}), "plugin_columns": tuple(plugin_columns),
                 "__module__": __name__})


class PartitionRead:
    """The export's read without Spark's Python data source planning: ``mapInArrow`` over
    one row per partition (its number), each task reading its partition with the data
    source's own reader (:func:`partition_read`). What Spark's data source does, in the
    same tasks (its read function is a ``mapInArrow`` over the pickled partitions too), but
    without the three Python processes Spark starts to plan it (the lookup of installed
    sources, ``create_data_source``, ``plan_data_source_read``)."""

    def __init__(self, reader: MqconsoleReader, partitions: Sequence[InputPartition]) -> None:
        self.reader = reader
        self.partitions = list(partitions)

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                yield from self.reader.read(self.partitions[index])


def partition_read(connections: Mapping[str, object],
                   plugin_columns: Sequence[PluginColumn],
                   options: Mapping[str, str]) -> tuple[PartitionRead, str]:
    """The read of ``options`` (the data source's: ``queue_list``, ``file_list``, ``raw``
    ...) through these connections, and its schema (DDL), as ``spark.read.format(
    "mqconsole")`` of a source :func:`register` made would plan it: the same reader,
    the same partitions in the same order, the same checks (``SourceError``)."""
    source = source_class(connections, plugin_columns)(dict(options))
    schema = source.schema()
    reader = MqconsoleReader(dict(source.options), source.columns(), dict(connections),
                             list(plugin_columns))
    return PartitionRead(reader, reader.partitions()), schema


def register(spark, connections: Mapping[str, object] | None = None,
             plugin_columns: Sequence[PluginColumn] = ()) -> None:
    """Make ``spark.read.format("mqconsole")`` read through these connections (name →
    profile object or backend spec) with these plugin columns."""
    spark.dataSource.register(source_class(connections, plugin_columns))


__all__ = ["FILE_PIECE_BYTES", "NAME", "MqconsoleDataSource", "PartitionRead", "PluginColumn",
           "export_decoder", "file_queue", "partition_read", "plugin_columns",
           "register", "source_class"]

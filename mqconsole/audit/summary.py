"""Aggregates the export stores beside the snapshot, so the report takes a second, not passes.

Written by :func:`summarize` as the export's last step (after the messages are written,
before the folder is renamed into place), read by the report through :func:`load_summary`.
In ``_summary/`` (Spark skips folders starting with ``_`` when it reads the messages):

- ``lists.parquet``: every list of the report that does not depend on ``--as-of`` — one row
  per (list, key) with its count, bytes and unparsed rows, exactly what the report's
  ``GROUPING SETS`` query gives from the messages;
- ``arrivals.parquet``: one row per distinct arrival time (µs since the epoch) with its
  count, so the age buckets are computed at report time, exact for any ``--as-of``;
- ``duplicates.parquet``: every MsgId found more than once, its count and queues;
- ``summary.json``: the version, the rows counted, the plugin columns, and the oldest and
  youngest message.

Nothing here loses exactness: ``audit sql`` reads the messages, and the tests check the
report from the stored aggregates and from the messages against the same plain-Python
oracle. Memory: the lists and arrivals are folded batch by batch; the MsgIds are held once
(about 60 bytes a message) to find the duplicates.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqconsole.audit.snapshot import FIXED_COLUMNS, SnapshotFolder

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

SUMMARY_DIR = "_summary"
SUMMARY_FILE = "summary.json"
VERSION = 2
# (list name, its key columns): the report's lists that do not depend on --as-of. The
# destination lists carry has_dlh so the messages without a dead-letter header drop out.
DIMENSIONS: dict[str, tuple[str, ...]] = {
    "queue": ("qmgr", "queue"),
    "reason": ("dlh_reason", "dlh_reason_name"),
    "destination": ("has_dlh", "dlh_dest_qmgr", "dlh_dest_q"),
    "reason_destination": ("has_dlh", "dlh_reason", "dlh_dest_q"),
    "application": ("put_appl_name",),
    "backout": ("backout_count",),
}
NEEDED = ("qmgr", "queue", "position", "msg_id", "put_time", "dlh_put_time", "dlh_reason",
          "dlh_reason_name", "dlh_dest_qmgr", "dlh_dest_q", "put_appl_name", "backout_count",
          "length", "properties")
EXTREME_FIELDS = ("arrival", "qmgr", "queue", "position", "msg_id")
BATCH_ROWS = 262_144


def _groupable(type_: pa.DataType) -> bool:
    import pyarrow as pa

    return (pa.types.is_string(type_) or pa.types.is_large_string(type_)
            or pa.types.is_integer(type_) or pa.types.is_boolean(type_)
            or pa.types.is_date(type_) or pa.types.is_timestamp(type_)
            or pa.types.is_floating(type_))


def _dataset(data: Path) -> Any:
    """The snapshot's Parquet files with ``queue`` and ``put_date`` read from the folder
    names (as strings) when the files do not hold them."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    options = {"format": "parquet", "ignore_prefixes": [".", "_"]}
    in_files = ds.dataset(str(data), **options).schema.names
    fields = [(name, pa.string()) for name in ("queue", "put_date") if name not in in_files]
    partitioning = ds.partitioning(pa.schema(fields), flavor="hive") if fields else None
    return ds.dataset(str(data), partitioning=partitioning, **options)


class Aggregates:
    """The report's aggregates folded table by table (``add``), or merged from the parts
    other processes folded (``add_part``); ``store`` writes them to ``_summary``."""

    def __init__(self, plugins: list[str]) -> None:
        self.plugins = plugins
        self.dims = {**DIMENSIONS, **{f"plugin:{p}": (p,) for p in plugins}}
        self.parts: dict[str, list[pa.Table]] = {name: [] for name in ("total", *self.dims)}
        self.arrival_parts: list[pa.Table] = []
        self.oldest: tuple[Any, ...] | None = None
        self.youngest: tuple[Any, ...] | None = None
        self.rows = 0

    def _keep(self, name: str, table: pa.Table) -> None:
        import pyarrow as pa

        parts = self.parts[name]
        parts.append(table)
        if len(parts) > 16:
            self.parts[name] = [_fold(pa.concat_tables(parts), list(self.keys(name)))]

    def keys(self, name: str) -> tuple[str, ...]:
        return () if name == "total" else self.dims[name]

    def add(self, table: pa.Table) -> pa.Table:
        """Fold a table of the ``NEEDED`` and plugin columns; returns its (msg_id, queue)
        rows with a MsgId, which the caller keeps for the duplicates."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        self.rows += table.num_rows
        arrival = pc.coalesce(table["dlh_put_time"], table["put_time"])
        table = table.append_column("arrival", pc.cast(arrival, pa.int64()))
        table = table.append_column("has_dlh", pc.is_valid(table["dlh_reason"]))
        # unparsed: columns.UNPARSED_SQL ("properties IS NULL")
        table = table.append_column("unparsed", pc.cast(pc.is_null(table["properties"]),
                                                        pa.int64()))
        table = table.append_column("n", pa.array(np.ones(table.num_rows, dtype=np.int64)))
        table = table.append_column("bytes", pc.fill_null(table["length"], 0))
        for name in self.parts:
            self._keep(name, _fold(table, list(self.keys(name))))
        timed = table.filter(pc.is_valid(table["arrival"]))
        self.arrival_parts.append(_fold(timed.select(["arrival", "n"]), ["arrival"],
                                        sums=("n",)))
        if len(self.arrival_parts) > 16:
            self.arrival_parts = [self.arrivals()]
        self.oldest = _extreme(self.oldest, timed, last=False)
        self.youngest = _extreme(self.youngest, timed, last=True)
        return table.select(["msg_id", "queue"]).filter(pc.is_valid(table["msg_id"]))

    def add_part(self, lists: pa.Table | None, arrivals: pa.Table, info: dict[str, Any]
                 ) -> None:
        """Merge what another ``Aggregates`` folded (``lists()``, ``arrivals()``, ``info()``)."""
        import pyarrow.compute as pc

        self.rows += int(info["rows"])
        if lists is not None:
            for name in self.parts:
                mine = lists.filter(pc.equal(lists["list"], name))
                if mine.num_rows:
                    self._keep(name, mine.select([*self.keys(name), "n", "bytes",
                                                  "unparsed"]))
        self.arrival_parts.append(arrivals)
        for end, last in (("oldest", False), ("youngest", True)):
            theirs = info.get(end)
            if theirs is None:
                continue
            values = tuple(theirs[f] for f in EXTREME_FIELDS)
            mine = getattr(self, end)
            if mine is not None:
                values = (max if last else min)((mine, values), key=_key)
            setattr(self, end, values)

    def lists(self) -> pa.Table | None:
        import pyarrow as pa

        out = []
        for name, parts in self.parts.items():
            if parts:
                folded = _fold(pa.concat_tables(parts), list(self.keys(name)))
                out.append(folded.append_column("list", pa.array([name] * folded.num_rows,
                                                                   pa.string())))
        return pa.concat_tables(out, promote_options="default") if out else None

    def arrivals(self) -> pa.Table:
        import pyarrow as pa

        if not self.arrival_parts:
            return pa.table({"arrival": pa.array([], pa.int64()),
                             "n": pa.array([], pa.int64())})
        return _fold(pa.concat_tables(self.arrival_parts), ["arrival"], sums=("n",))

    def info(self) -> dict[str, Any]:
        return {"version": VERSION, "rows": self.rows, "plugins": self.plugins,
                "oldest": _as_dict(self.oldest), "youngest": _as_dict(self.youngest)}

    def store(self, out: Path, ids: list[pa.Table]) -> dict[str, Any]:
        """Write ``_summary`` (``out``) with the duplicates among ``ids``."""
        import pyarrow.parquet as pq

        out.mkdir(mode=0o700, parents=True, exist_ok=True)
        tables = {"arrivals": self.arrivals(), "duplicates": _duplicates(ids)}
        lists = self.lists()
        if lists is not None:
            tables["lists"] = lists
        for name, table in tables.items():
            pq.write_table(table, str(out / f"{name}.parquet"), compression="zstd")
            os.chmod(out / f"{name}.parquet", 0o600)
        info = self.info()
        (out / SUMMARY_FILE).write_text(json.dumps(info), encoding="utf-8")
        os.chmod(out / SUMMARY_FILE, 0o600)
        return info


def plugin_names(schema: pa.Schema) -> list[str]:
    """The plugin columns of ``schema`` the aggregates count by."""
    return [f.name for f in schema if f.name not in FIXED_COLUMNS and _groupable(f.type)]


def summarize(data: str | Path, root: str | Path | None = None) -> dict[str, Any]:
    """Compute the aggregates of the snapshot whose Parquet files are in ``data`` and store
    them in ``root/_summary`` (``root`` defaults to ``data``); returns ``summary.json``."""
    data = Path(data)
    dataset = _dataset(data)
    plugins = plugin_names(dataset.schema)
    aggregates = Aggregates(plugins)
    ids: list[pa.Table] = []
    scanner = dataset.scanner(columns=[*NEEDED, *plugins], batch_size=BATCH_ROWS)
    for table in _chunks(scanner.to_batches(), BATCH_ROWS):
        ids.append(aggregates.add(table))
    return aggregates.store(Path(root or data) / SUMMARY_DIR, ids)


class PartWriter:
    """What one reader of the export folds as it yields its batches (no second pass over
    the data): ``add(batch)`` each batch, ``close()`` at its end writes ``<index>.*`` in
    ``folder``, ``<index>.json`` last (a part without it is not used). The MsgIds go to a
    file as they come, so the reader's memory stays flat."""

    def __init__(self, folder: str | Path, index: int, schema: pa.Schema,
                 chunk_rows: int = 65_536) -> None:
        self.base = Path(folder) / str(index)
        self.aggregates = Aggregates(plugin_names(schema))
        self.columns = [*NEEDED, *self.aggregates.plugins]
        self.chunk_rows = chunk_rows
        self.held: list[pa.RecordBatch] = []
        self.count = 0
        self.ids_writer: Any = None

    def add(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        self.held.append(batch.select(self.columns))
        self.count += batch.num_rows
        if self.count >= self.chunk_rows:
            self._fold()

    def _fold(self) -> None:
        import pyarrow as pa

        if not self.held:
            return
        ids = self.aggregates.add(pa.Table.from_batches(self.held).combine_chunks())
        self.held, self.count = [], 0
        if self.ids_writer is None:
            self.ids_writer = pa.ipc.new_stream(f"{self.base}.ids.arrow", ids.schema)
        self.ids_writer.write_table(ids)

    def close(self) -> None:
        import pyarrow.feather as feather

        self._fold()
        if self.ids_writer is not None:
            self.ids_writer.close()
        lists = self.aggregates.lists()
        if lists is not None:
            feather.write_feather(lists, f"{self.base}.lists.arrow",
                                  compression="uncompressed")
        feather.write_feather(self.aggregates.arrivals(), f"{self.base}.arrivals.arrow",
                              compression="uncompressed")
        info = {**self.aggregates.info(), "lists": lists is not None,
                "ids": self.ids_writer is not None}
        Path(f"{self.base}.json.tmp").write_text(json.dumps(info), encoding="utf-8")
        os.replace(f"{self.base}.json.tmp", f"{self.base}.json")


def merge_partials(folder: str | Path, parts: int, root: str | Path) -> bool:
    """Store ``root/_summary`` from the ``parts`` readers' parts in ``folder``; False (and
    nothing written) when a part is missing."""
    import pyarrow as pa
    import pyarrow.feather as feather

    folder = Path(folder)
    infos = []
    for i in range(parts):
        try:
            infos.append(json.loads((folder / f"{i}.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return False
    plugins = infos[0]["plugins"] if infos else []
    if any(info.get("plugins") != plugins for info in infos):
        return False
    aggregates = Aggregates(plugins)
    ids: list[pa.Table] = []
    for i, info in enumerate(infos):
        base = folder / str(i)
        lists = feather.read_table(f"{base}.lists.arrow") if info["lists"] else None
        aggregates.add_part(lists, feather.read_table(f"{base}.arrivals.arrow"), info)
        if info["ids"]:
            with pa.ipc.open_stream(f"{base}.ids.arrow") as stream:
                ids.append(stream.read_all())
    aggregates.store(Path(root) / SUMMARY_DIR, ids)
    return True


def _chunks(batches: Iterator[pa.RecordBatch], size: int) -> Iterator[pa.Table]:
    """Tables of about ``size`` rows from ``batches`` (a snapshot's files are small, one per
    queue and put date: a pass per file would cost more than the counting)."""
    import pyarrow as pa

    buffer: list[pa.RecordBatch] = []
    held = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        buffer.append(batch)
        held += batch.num_rows
        if held >= size:
            yield pa.Table.from_batches(buffer).combine_chunks()
            buffer, held = [], 0
    if buffer:
        yield pa.Table.from_batches(buffer).combine_chunks()


def _fold(table: pa.Table, keys: list[str],
          sums: tuple[str, ...] = ("n", "bytes", "unparsed")) -> pa.Table:
    """Sum ``sums`` by ``keys`` (no keys: one row of totals)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not keys:
        return pa.table({s: pa.array([pc.sum(table[s]).as_py() or 0], pa.int64())
                         for s in sums})
    folded = table.group_by(keys, use_threads=False).aggregate([(s, "sum") for s in sums])
    return folded.rename_columns([*keys, *sums])


def _key(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """Order of (arrival, qmgr, queue, position, msg_id) with nulls first, as Spark's."""
    return tuple((v is not None, v if v is not None else 0) for v in values)


def _extreme(best: tuple[Any, ...] | None, timed: pa.Table, *,
             last: bool) -> tuple[Any, ...] | None:
    """The first (or last) row of ``timed`` by (arrival, qmgr, queue, position, msg_id),
    or ``best`` when that comes first (last)."""
    import pyarrow.compute as pc

    if timed.num_rows == 0:
        return best
    edge = (pc.max if last else pc.min)(timed["arrival"])
    ties = timed.filter(pc.equal(timed["arrival"], edge)).select(list(EXTREME_FIELDS))
    candidates = [tuple(r[f] for f in EXTREME_FIELDS) for r in ties.to_pylist()]
    if best is not None:
        candidates.append(best)
    return (max if last else min)(candidates, key=_key)


def _as_dict(values: tuple[Any, ...] | None) -> dict[str, Any] | None:
    return None if values is None else dict(zip(EXTREME_FIELDS, values, strict=True))


def _duplicates(ids: list[pa.Table]) -> pa.Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    empty = pa.table({"msg_id": pa.array([], pa.string()), "n": pa.array([], pa.int64()),
                      "queues": pa.array([], pa.list_(pa.string()))})
    if not ids:
        return empty
    table = pa.concat_tables(ids)
    counts = pc.value_counts(table["msg_id"])
    many = counts.filter(pc.greater(counts.field("counts"), 1))
    if len(many) == 0:
        return empty
    rows = table.filter(pc.is_in(table["msg_id"], value_set=many.field("values")))
    grouped = rows.group_by(["msg_id"]).aggregate([([], "count_all"),
                                                   ("queue", "distinct")])
    queues = [sorted(q) for q in grouped["queue_distinct"].to_pylist()]
    return pa.table({"msg_id": grouped["msg_id"], "n": grouped["count_all"],
                     "queues": pa.array(queues, pa.list_(pa.string()))})


@dataclass
class StoredSummary:
    """A snapshot's stored aggregates: the lists' rows (as the report's rollup gives them),
    the duplicates, the oldest and youngest; the arrivals registered for Spark SQL."""

    info: dict[str, Any]
    rows: list[dict[str, Any]]
    duplicate_rows: list[dict[str, Any]]

    def duplicates(self) -> list[dict[str, Any]]:
        return self.duplicate_rows


def files_digest(files: list[dict[str, Any]]) -> str:
    """What ties stored aggregates to a commit: a hash of its files and their rows."""
    import hashlib

    text = "\n".join(f"{f['path']}\t{int(f['rows'])}" for f in sorted(
        files, key=lambda f: str(f["path"])))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tie(root: str | Path, files: list[dict[str, Any]]) -> None:
    """Record in ``root/_summary/summary.json`` the commit (files and rows) the stored
    aggregates were computed from."""
    path = Path(root) / SUMMARY_DIR / SUMMARY_FILE
    info = json.loads(path.read_text(encoding="utf-8"))
    info["files_digest"] = files_digest(files)
    path.write_text(json.dumps(info), encoding="utf-8")
    os.chmod(path, 0o600)


def data_disagreement(spark: SparkSession, folder: SnapshotFolder
                      ) -> tuple[str | None, list[str]]:
    """Check the snapshot's data files against its manifest (Spark counts each file's
    rows): ``(None, listed)`` when every listed file is there with its rows, else (what
    differs, the listed files still there to read)."""
    from urllib.parse import unquote, urlparse

    listed = {str(f["path"]): int(f["rows"]) for f in folder.manifest.get("files") or []}
    frame = spark.read.parquet(str(folder.data))
    found: dict[str, int] = {}
    root = folder.data.resolve()
    for row in (frame.selectExpr("input_file_name() AS file").groupBy("file").count()
                .collect()):
        path = Path(unquote(urlparse(row["file"]).path)).resolve()
        with contextlib.suppress(ValueError):
            found[path.relative_to(root).as_posix()] = int(row["count"])
    missing = [p for p in listed if p not in found]
    changed = [p for p in listed if p in found and found[p] != listed[p]]
    present = [p for p in listed if p in found]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        return f"{missing[0]}{more} listed in the manifest is missing", present
    if changed:
        return (f"{changed[0]} holds {found[changed[0]]:,} rows, the manifest says "
                f"{listed[changed[0]]:,}"), present
    return None, present


def load_summary(spark: SparkSession, folder: SnapshotFolder) -> StoredSummary | None:
    """The stored aggregates (the view ``summary_arrivals`` registered), or None when the
    snapshot has none or an older version of them."""
    import pyarrow.parquet as pq

    base = folder.summary_dir
    try:
        info = json.loads((base / SUMMARY_FILE).read_text(encoding="utf-8"))
        if not isinstance(info, dict) or info.get("version") != VERSION:
            return None
        lists = pq.read_table(str(base / "lists.parquet")).to_pylist() if info["rows"] else []
        duplicates = pq.read_table(str(base / "duplicates.parquet")).to_pylist()
    except (OSError, ValueError, KeyError):
        return None
    for row in lists:
        row["_set"] = row.pop("list")
        if row["_set"] == "total":
            row["oldest"], row["youngest"] = info.get("oldest"), info.get("youngest")
    spark.read.parquet(str(base / "arrivals.parquet")).createOrReplaceTempView(
        "summary_arrivals")
    return StoredSummary(info=info, rows=lists, duplicate_rows=sorted(
        ({"msg_id": r["msg_id"], "count": int(r["n"]), "queues": list(r["queues"])}
         for r in duplicates), key=lambda d: (-d["count"], d["msg_id"])))

"""Aggregates the export stores beside the snapshot, so the report takes seconds, not passes.

Written by :func:`summarize` at the end of an export (after the messages are written, before
the folder is renamed into place), read by the report through :func:`load_summary`. Four
small Parquet files in ``_summary/`` (Spark skips folders starting with ``_`` when it reads
the messages), and ``summary.json`` saying what they were made from:

- ``groups``: one row per distinct (qmgr, queue, reason, reason name, has a dead-letter
  header, destination qmgr and queue, put application, backout count, plugin columns) with
  its count, bytes, unparsed rows and its oldest and youngest message;
- ``arrivals``: one row per distinct arrival time (µs) with its count — so the age buckets
  stay exact for any ``--as-of``;
- ``duplicates``: every MsgId found more than once, its count and queues.

Nothing here loses exactness: ``audit sql`` reads the messages, and the tests check the
report from the summary and from the messages against the same plain-Python oracle.
Memory: the groups and arrivals are folded batch by batch; MsgIds are held once (about
60 bytes a message) to find the duplicates.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqconsole.audit.snapshot import FIXED_COLUMNS, SnapshotFolder

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

SUMMARY_DIR = "_summary"
SUMMARY_FILE = "summary.json"
VERSION = 1
KEYS = ("qmgr", "queue", "dlh_reason", "dlh_reason_name", "has_dlh", "dlh_dest_qmgr",
        "dlh_dest_q", "put_appl_name", "backout_count")
NEEDED = ("qmgr", "queue", "position", "msg_id", "put_time", "dlh_put_time", "dlh_reason",
          "dlh_reason_name", "dlh_dest_qmgr", "dlh_dest_q", "put_appl_name", "backout_count",
          "length", "properties")
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


def summarize(data: str | Path, root: str | Path | None = None) -> dict[str, Any]:
    """Compute the aggregates of the snapshot whose Parquet files are in ``data`` and store
    them in ``root/_summary`` (``root`` defaults to ``data``); returns ``summary.json``."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    data = Path(data)
    out = Path(root or data) / SUMMARY_DIR
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    dataset = _dataset(data)
    plugins = [f.name for f in dataset.schema
               if f.name not in FIXED_COLUMNS and _groupable(f.type)]
    keys = [*KEYS, *plugins]
    group_parts: list[pa.Table] = []
    arrival_parts: list[pa.Table] = []
    ids: list[pa.Table] = []
    oldest: list[pa.Table] = []
    youngest: list[pa.Table] = []
    rows = 0
    scanner = dataset.scanner(columns=[*NEEDED, *plugins], batch_size=BATCH_ROWS)
    for batch in scanner.to_batches():
        if batch.num_rows == 0:
            continue
        rows += batch.num_rows
        table = pa.Table.from_batches([batch])
        arrival = pc.coalesce(table["dlh_put_time"], table["put_time"])
        table = table.append_column("arrival", arrival)
        table = table.append_column("has_dlh", pc.is_valid(table["dlh_reason"]))
        # unparsed: columns.UNPARSED_SQL ("properties IS NULL")
        table = table.append_column("unparsed", pc.cast(pc.is_null(table["properties"]),
                                                        pa.int64()))
        table = table.append_column("n", pa.array(np_ones(table.num_rows)))
        group_parts.append(_fold_groups([table.rename_columns(
            [c if c != "length" else "bytes" for c in table.column_names])], keys))
        timed = table.filter(pc.is_valid(arrival))
        arrival_parts.append(_fold(timed.select(["arrival", "n"]), ["arrival"]))
        ids.append(table.select(["msg_id", "queue"]).filter(pc.is_valid(table["msg_id"])))
        oldest.append(_pick(timed, keys, last=False))
        youngest.append(_pick(timed, keys, last=True))
        if len(group_parts) > 16:
            group_parts = [_fold_groups(group_parts, keys)]
            oldest = [_pick(pa.concat_tables(oldest), keys, last=False, prefix="x_")]
            youngest = [_pick(pa.concat_tables(youngest), keys, last=True, prefix="x_")]
    groups = _fold_groups(group_parts, keys) if group_parts else None
    arrivals = (_fold(pa.concat_tables(arrival_parts), ["arrival"]) if arrival_parts else
                pa.table({"arrival": pa.array([], pa.timestamp("us", tz="UTC")),
                          "n": pa.array([], pa.int64())}))
    duplicates = _duplicates(ids)
    if groups is not None:
        for name, parts, last in (("oldest", oldest, False), ("youngest", youngest, True)):
            picked = _pick(pa.concat_tables(parts), keys, last=last, prefix="x_")
            groups = _attach(groups, keys, name, picked)
    for name, table in (("groups", groups), ("arrivals", arrivals),
                        ("duplicates", duplicates)):
        if table is not None:
            pq.write_table(table, str(out / f"{name}.parquet"), compression="zstd")
            os.chmod(out / f"{name}.parquet", 0o600)
    info = {"version": VERSION, "rows": rows, "plugins": plugins,
            "groups": groups is not None}
    (out / SUMMARY_FILE).write_text(json.dumps(info), encoding="utf-8")
    os.chmod(out / SUMMARY_FILE, 0o600)
    return info


def np_ones(count: int) -> Any:
    import numpy as np

    return np.ones(count, dtype=np.int64)


def _fold(table: pa.Table, keys: list[str]) -> pa.Table:
    """Sum ``n`` by ``keys``."""
    folded = table.group_by(keys, use_threads=False).aggregate([("n", "sum")])
    return folded.rename_columns([*keys, "n"]).select([*keys, "n"])


def _fold_groups(parts: list[pa.Table], keys: list[str]) -> pa.Table:
    """Sum count, bytes and unparsed rows by the group keys."""
    import pyarrow as pa

    table = pa.concat_tables([p.select([*keys, "n", "bytes", "unparsed"]) for p in parts])
    folded = table.group_by(keys, use_threads=False).aggregate(
        [("n", "sum"), ("bytes", "sum"), ("unparsed", "sum")])
    return folded.rename_columns([*keys, "n", "bytes", "unparsed"])


EXTREME_FIELDS = ("arrival", "qmgr", "queue", "position", "msg_id")


def _pick(table: pa.Table, keys: list[str], *, last: bool, prefix: str = "") -> pa.Table:
    """Each group's first (or last) row by (arrival, qmgr, queue, position, msg_id), as the
    columns ``x_<field>`` (``prefix="x_"`` folds tables this made)."""
    import pyarrow.compute as pc

    fields = [prefix + f for f in EXTREME_FIELDS]
    ordered = table.take(pc.sort_indices(
        table, sort_keys=[(f, "ascending", "at_start") for f in fields]))
    options = pc.ScalarAggregateOptions(skip_nulls=False)
    picked = ordered.group_by(keys, use_threads=False).aggregate(
        [(f, "last" if last else "first", options) for f in fields])
    return picked.rename_columns([*keys, *(f"x_{f}" for f in EXTREME_FIELDS)])


def _attach(groups: pa.Table, keys: list[str], name: str, picked: pa.Table) -> pa.Table:
    """Add each group's picked row to ``groups`` as the struct column ``name``."""
    import pyarrow as pa

    fields = [(f, picked.schema.field(f"x_{f}").type) for f in EXTREME_FIELDS]
    by_key = {tuple(r[k] for k in keys): {f: r[f"x_{f}"] for f in EXTREME_FIELDS}
              for r in picked.to_pylist()}
    values = [by_key.get(tuple(r[k] for k in keys)) for r in groups.select(keys).to_pylist()]
    return groups.append_column(name, pa.array(values, pa.struct(fields)))


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
    """A snapshot's stored aggregates, registered as Spark views for the report."""

    info: dict[str, Any]
    duplicate_rows: list[dict[str, Any]]

    def duplicates(self) -> list[dict[str, Any]]:
        return self.duplicate_rows


def load_summary(spark: SparkSession, folder: SnapshotFolder) -> StoredSummary | None:
    """The stored aggregates as the views ``summary_groups`` and ``summary_arrivals``, or
    None when the snapshot has none (or an older version of them)."""
    base = folder.summary_dir
    try:
        info = json.loads((base / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or info.get("version") != VERSION or not info.get("groups"):
        return None
    spark.read.parquet(str(base / "groups.parquet")).createOrReplaceTempView("summary_groups")
    spark.read.parquet(str(base / "arrivals.parquet")).createOrReplaceTempView(
        "summary_arrivals")
    rows = spark.read.parquet(str(base / "duplicates.parquet")).collect()
    duplicates = sorted(({"msg_id": r["msg_id"], "count": int(r["n"]),
                          "queues": list(r["queues"])} for r in rows),
                        key=lambda d: (-d["count"], d["msg_id"]))
    return StoredSummary(info=info, duplicate_rows=duplicates)

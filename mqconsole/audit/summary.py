"""Aggregates the export stores beside the snapshot, so the report takes a second, not passes.

Computed by Spark from the committed data (:func:`store_aggregates`: the files the manifest
lists, read back after they are written, never folded inside the data source's ``read()``),
so a retried or speculative task cannot count twice: Spark keeps one successful attempt of
each task. Written by Spark's own Parquet writer under ``_summary/`` (Spark skips folders
starting with ``_`` when it reads the messages):

- ``lists/``: every list of the report that does not depend on ``--as-of`` — one row per
  (list, key) with its count, bytes and unparsed rows, the oldest and youngest message of
  the key, exactly what the report's ``GROUPING SETS`` query gives from the messages;
- ``arrivals/``: one row per distinct arrival time (µs since the epoch) with its count, so
  the age buckets are computed at report time, exact for any ``--as-of``;
- ``duplicates/``: every MsgId found more than once, its count and queues;
- ``summary.json`` (written by the export through the snapshot's store): the version, the
  rows counted, the plugin columns, and ``files_digest``, the commit they were computed
  from (:func:`files_digest`).

``audit sql`` reads the messages; the tests check the report from the stored aggregates and
from the messages against the same plain-Python oracle.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqconsole.audit.ages import ARRIVAL_SQL
from mqconsole.audit.columns import UNPARSED_SQL
from mqconsole.audit.snapshot import (  # (where the snapshot's parts are named)
    FIXED_COLUMNS,
    SUMMARY_DIR,
    SUMMARY_FILE,
    SnapshotFolder,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

VERSION = 3  # 3: written by Spark from the committed files (2: folded by the readers)
TABLES = ("lists", "arrivals", "duplicates")
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
# what a plugin column may be to be counted by (maps, lists and bytes cannot be)
GROUPABLE = ("string", "int", "bigint", "smallint", "tinyint", "boolean", "date",
             "timestamp", "double", "float")
SOURCE_VIEW = "mqconsole_summary_source"


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def plugin_names(frame: DataFrame) -> list[str]:
    """The plugin columns of ``frame`` the aggregates count by."""
    return [name for name, kind in frame.dtypes
            if name not in FIXED_COLUMNS and kind in GROUPABLE]


def extreme_sql() -> str:
    """The (arrival µs, qmgr, queue, position, msg_id) of a row with an arrival time: min
    and max of it are the oldest and youngest message (Spark orders structs field by
    field, nulls first)."""
    return (f"CASE WHEN {ARRIVAL_SQL} IS NOT NULL THEN named_struct('arrival', "
            f"unix_micros({ARRIVAL_SQL}), 'qmgr', qmgr, 'queue', queue, 'position', position, "
            f"'msg_id', msg_id) END")


def lists_sql(source: str, plugins: list[str], extra: dict[str, str] | None = None
              ) -> tuple[str, dict[str, tuple[str, ...]]]:
    """One GROUP BY of ``source`` on every key a list needs (``extra``: more keys, name →
    SQL, e.g. the report's age bucket), then one GROUPING SETS query over that small result
    giving every list; the SQL and the lists' keys (``dims``), in the order of
    ``grouping_id()``'s bits."""
    dims = dict(DIMENSIONS)
    for name in extra or {}:
        dims[name] = (name,)
    for column in plugins:
        dims[f"plugin:{column}"] = (quote(column),)
    keys = ["dlh_reason IS NOT NULL AS has_dlh" if c == "has_dlh" else c
            for c in dict.fromkeys(c for keys in DIMENSIONS.values() for c in keys)]
    keys += [quote(c) for c in plugins]
    keys += [f"{sql} AS {name}" for name, sql in (extra or {}).items()]
    compact = (f"SELECT {', '.join(keys)}, count(*) AS n, coalesce(sum(length), 0) AS bytes, "
               f"count_if({UNPARSED_SQL}) AS unparsed, min({extreme_sql()}) AS oldest, "
               f"max({extreme_sql()}) AS youngest FROM {source} GROUP BY ALL")
    columns = list(dict.fromkeys(c for keys in dims.values() for c in keys))
    sets = ", ".join(f"({', '.join(keys)})" for keys in dims.values())
    width = len(columns)
    cases = " ".join(
        f"WHEN {sum(1 << (width - 1 - i) for i, c in enumerate(columns) if c not in keys)} "
        f"THEN '{name}'" for name, keys in dims.items())
    sql = (f"SELECT {', '.join(columns)}, CASE grouping_id() WHEN {(1 << width) - 1} THEN "
           f"'total' {cases} END AS list, sum(n) AS n, sum(bytes) AS bytes, "
           f"sum(unparsed) AS unparsed, min(oldest) AS oldest, max(youngest) AS youngest "
           f"FROM ({compact}) GROUP BY GROUPING SETS ((), {sets})")
    return sql, dims


def duplicates_sql(source: str) -> str:
    """MsgIds occurring more than once, with their count and queues: a cheap 64-bit hash
    finds the candidates, and only their rows are grouped by MsgId."""
    return (f"WITH candidates AS (SELECT xxhash64(msg_id) AS h FROM {source} "
            f"WHERE msg_id IS NOT NULL GROUP BY 1 HAVING count(*) > 1) "
            f"SELECT msg_id, count(*) AS n, sort_array(collect_set(queue)) AS queues "
            f"FROM {source} WHERE msg_id IS NOT NULL "
            f"AND xxhash64(msg_id) IN (SELECT h FROM candidates) "
            f"GROUP BY msg_id HAVING count(*) > 1")


def store_aggregates(frame: DataFrame, summary: str) -> dict[str, Any]:
    """Compute the aggregates of ``frame`` (the committed messages) with Spark and write
    them under ``summary`` (a folder URI, new) with Spark's Parquet writer; returns what
    ``summary.json`` holds but the commit's digest (the caller adds it and writes it)."""
    spark = frame.sparkSession
    plugins = plugin_names(frame)
    frame.createOrReplaceTempView(SOURCE_VIEW)
    sql, _dims = lists_sql(SOURCE_VIEW, plugins)
    lists = spark.sql(sql)
    arrivals = spark.sql(f"SELECT unix_micros({ARRIVAL_SQL}) AS arrival, count(*) AS n "
                         f"FROM {SOURCE_VIEW} WHERE {ARRIVAL_SQL} IS NOT NULL GROUP BY 1")
    duplicates = spark.sql(duplicates_sql(SOURCE_VIEW))
    for name, table in (("lists", lists), ("arrivals", arrivals), ("duplicates", duplicates)):
        # one file each ("error": Spark Connect refuses its synonym "errorifexists")
        (table.coalesce(1).write.mode("error").option("compression", "zstd")
         .parquet(f"{summary}/{name}"))
    total = (spark.read.parquet(f"{summary}/lists").where("list = 'total'")
             .select("n").collect())
    return {"version": VERSION, "rows": int(total[0]["n"] or 0) if total else 0,
            "plugins": plugins}


def summarize(spark: SparkSession, data: str, root: str) -> dict[str, Any]:
    """Compute and store the aggregates of the Parquet snapshot data at ``data`` in
    ``root/_summary`` (a snapshot written by hand, or again); returns ``summary.json``
    (local ``root`` only: what tests and benchmarks use)."""
    from pathlib import Path

    from .store import to_uri

    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    frame = spark.read.parquet(to_uri(data))
    if "put_date" in frame.columns:
        frame = frame.withColumn("put_date", frame["put_date"].cast("date"))
    info = store_aggregates(frame, f"{to_uri(root)}/{SUMMARY_DIR}")
    (Path(root) / SUMMARY_DIR / SUMMARY_FILE).write_text(json.dumps(info), encoding="utf-8")
    return info


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


def data_disagreement(spark: SparkSession, folder: SnapshotFolder
                      ) -> tuple[str | None, list[str]]:
    """Check the snapshot's data files against its manifest (Spark counts each file's
    rows): ``(None, listed)`` when every listed file is there with its rows, else (what
    differs, the listed files still there to read)."""
    from .store import relative

    listed = {str(f["path"]): int(f["rows"]) for f in folder.manifest.get("files") or []}
    frame = spark.read.parquet(folder.data)
    found: dict[str, int] = {}
    for row in (frame.selectExpr("input_file_name() AS file").groupBy("file").count()
                .collect()):
        path = relative(row["file"], folder.data)
        if path is not None:
            found[path] = int(row["count"])
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
    """The stored aggregates (the view ``summary_arrivals`` registered), read by Spark, or
    None when the snapshot has none or an older version of them."""
    from .store import join

    base = folder.summary_dir
    try:  # (read when the snapshot was opened, with its manifest)
        info = json.loads(folder.read_text(join(base, SUMMARY_FILE)) or "null")
    except ValueError:
        return None
    if not isinstance(info, dict) or info.get("version") != VERSION:
        return None
    try:
        lists = [r.asDict(recursive=True)
                 for r in spark.read.parquet(join(base, "lists")).collect()]
        duplicates = spark.read.parquet(join(base, "duplicates")).collect()
        spark.read.parquet(join(base, "arrivals")).createOrReplaceTempView("summary_arrivals")
    except Exception as e:
        from .errors import is_spark_error

        if not is_spark_error(e):
            raise
        return None
    for row in lists:
        row["_set"] = row.pop("list")
    return StoredSummary(info=info, rows=lists, duplicate_rows=sorted(
        ({"msg_id": r["msg_id"], "count": int(r["n"]), "queues": list(r["queues"])}
         for r in duplicates), key=lambda d: (-d["count"], d["msg_id"])))

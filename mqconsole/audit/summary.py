"""Aggregates the export stores beside the snapshot, so the report takes a second, not passes.

Computed by Spark from the committed data (:func:`store_aggregates`: the files the manifest
lists, read back after they are written, never folded inside the data source's ``read()``),
so a retried or speculative task cannot count twice: Spark keeps one successful attempt of
each task. Written by Spark's own Parquet writer under ``_summary/`` (Spark skips folders
starting with ``_`` when it reads the messages):

- ``lists/``: every list of the report that does not depend on ``--as-of`` — one row per
  (list, key) with its count, bytes and unparsed rows, exactly what the report's
  ``GROUPING SETS`` query gives from the messages; the total row also holds the oldest and
  youngest message (``oldest``, ``youngest``: arrival µs, qmgr, queue, position, msg_id;
  null on the other rows);
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
from collections.abc import Iterator
from contextlib import contextmanager
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
"""The prefix of the messages' view while their aggregates are computed: each computation
gives it a suffix of its own (:func:`unique_view`), since a session's temporary views are
shared by every job on it and two exports on one session (two threads) must not replace or
drop each other's."""


def unique_view(prefix: str) -> str:
    """A temporary view name no other job on the session uses."""
    import uuid

    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def plugin_names(frame: DataFrame) -> list[str]:
    """The plugin columns of ``frame`` the aggregates count by."""
    return [name for name, kind in frame.dtypes
            if name not in FIXED_COLUMNS and kind in GROUPABLE]


POINT_SQL = (f"named_struct('arrival', unix_micros({ARRIVAL_SQL}), 'qmgr', qmgr, 'queue', "
             f"queue, 'position', position, 'msg_id', msg_id)")
POINT_DDL = "struct<arrival:bigint,qmgr:string,queue:string,position:bigint,msg_id:string>"
POINT_FIELDS = ("arrival", "qmgr", "queue", "position", "msg_id")
DUPLICATES_DDL = "msg_id string, n bigint, queues array<string>"
"""The stored duplicates' columns (``summary/duplicates``)."""


FILE_LIST = "file"
"""The rollup's set of per-file counts (``lists_sql(by_file=True)``: the export's count of
its committed files, never stored): ``_file``, qmgr, queue, ``_source``, with the lowest and
highest ``position`` (``_lo``, ``_hi``)."""
FILE_COLUMNS = ("_file", "_source", "_lo", "_hi")


def lists_sql(source: str, plugins: list[str], extra: dict[str, str] | None = None,
              by_file: bool = False) -> tuple[str, dict[str, tuple[str, ...]]]:
    """One GROUP BY of ``source`` on every key a list needs (``extra``: more keys, name →
    SQL, e.g. the report's age bucket), then one GROUPING SETS query over that small result
    giving every list; the SQL and the lists' keys (``dims``), in the order of
    ``grouping_id()``'s bits. Each row has the first and last arrival time (µs) of its
    messages: fixed-width values, so Spark aggregates in a hash map (the oldest message
    itself, a struct, made it sort every row by the keys); the messages that arrived then
    are found by :func:`duplicates_and_extremes`. ``by_file``: the same pass also counts
    the rows of each data file (:data:`FILE_LIST`), so the export counts what it committed
    and its lists in one read of the messages (it took two)."""
    dims = dict(DIMENSIONS)
    for name in extra or {}:
        dims[name] = (name,)
    for column in plugins:
        dims[f"plugin:{column}"] = (quote(column),)
    if by_file:
        dims[FILE_LIST] = ("_file", "qmgr", "queue", "_source")
    keys = ["dlh_reason IS NOT NULL AS has_dlh" if c == "has_dlh" else c
            for c in dict.fromkeys(c for keys in DIMENSIONS.values() for c in keys)]
    keys += [quote(c) for c in plugins]
    keys += [f"{sql} AS {name}" for name, sql in (extra or {}).items()]
    more, outer = "", ""
    if by_file:
        keys += ["input_file_name() AS _file", "source AS _source"]
        more = ", min(position) AS _lo, max(position) AS _hi"
        outer = ", min(_lo) AS _lo, max(_hi) AS _hi"
    arrival = f"unix_micros({ARRIVAL_SQL})"
    compact = (f"SELECT {', '.join(keys)}, count(*) AS n, coalesce(sum(length), 0) AS bytes, "
               f"count_if({UNPARSED_SQL}) AS unparsed, min({arrival}) AS oldest, "
               f"max({arrival}) AS youngest{more} FROM {source} GROUP BY ALL")
    columns = list(dict.fromkeys(c for keys in dims.values() for c in keys))
    sets = ", ".join(f"({', '.join(keys)})" for keys in dims.values())
    width = len(columns)
    cases = " ".join(
        f"WHEN {sum(1 << (width - 1 - i) for i, c in enumerate(columns) if c not in keys)} "
        f"THEN '{name}'" for name, keys in dims.items())
    sql = (f"SELECT {', '.join(columns)}, CASE grouping_id() WHEN {(1 << width) - 1} THEN "
           f"'total' {cases} END AS list, sum(n) AS n, sum(bytes) AS bytes, "
           f"sum(unparsed) AS unparsed, min(oldest) AS oldest, max(youngest) AS youngest"
           f"{outer} FROM ({compact}) GROUP BY GROUPING SETS ((), {sets})")
    if by_file:
        del dims[FILE_LIST]
    return sql, dims


def duplicates_and_extremes(spark: SparkSession, source: str, first: int | None,
                            last: int | None, rows: int | None = None
                            ) -> tuple[list[dict[str, Any]],
                                                       dict[str, Any] | None,
                                                       dict[str, Any] | None]:
    """The MsgIds of ``source`` occurring more than once (``msg_id``, ``count``, ``queues``;
    by count, then MsgId: :func:`duplicate_ids`), and the oldest and youngest message,
    given their arrival times (µs: :func:`extremes`); ``rows``: how many ``source`` holds."""
    oldest, youngest = extremes(spark, source, first, last)
    return duplicate_ids(spark, source, rows), oldest, youngest


CANDIDATES_VIEW = "mqconsole_duplicate_candidates"
BYPASS_PARTIAL = "spark.sql.execution.bypassPartialAggregation"
"""One aggregation after the shuffle, no partial one before it (a setting of pyspark 4.3)."""
COMBINE_AGGREGATION = "spark.sql.execution.combineAdjacentAggregation"
"""A partial and a final aggregation with no shuffle between: one (pyspark 4.3)."""
ONE_TASK_ROWS = 4_000_000
"""Up to this many rows, one task counts the MsgIds' hashes (a few seconds of one core)."""


@contextmanager
def _settings(spark: SparkSession, settings: dict[str, str]) -> Iterator[None]:
    """Spark SQL settings for the queries run (and so planned) inside, then as they were."""
    before = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, old in before.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)


def duplicate_ids(spark: SparkSession, source: str, rows: int | None = None
                  ) -> list[dict[str, Any]]:
    """The MsgIds of ``source`` occurring more than once, with their count and queues, by
    count, then MsgId. A 64-bit hash of each MsgId finds the candidates (one read of the
    MsgIds, a hash aggregation on a ``long``); none, and that is all (every MsgId its own,
    the usual dead-letter queue). Else only the candidates' rows are counted by (MsgId,
    queue), fixed-width again (a set of queues per MsgId made Spark fall back to sorting
    every candidate row), and summed per MsgId here: a MsgId that shares a hash but occurs
    once drops out, so the counts stay exact.

    Nearly every hash occurs once, so counting them before the shuffle saves nothing: one
    count after it (:data:`BYPASS_PARTIAL`). ``rows`` (how many ``source`` holds, when
    known) at most :data:`ONE_TASK_ROWS`: one task counts them all, no shuffle (the
    shuffle of a million hashes cost Spark more than the counting)."""
    if rows is not None and rows <= ONE_TASK_ROWS:
        settings = {COMBINE_AGGREGATION: "true"}
        sql = (f"SELECT h FROM (SELECT /*+ COALESCE(1) */ xxhash64(msg_id) AS h FROM {source} "
               f"WHERE msg_id IS NOT NULL) GROUP BY h HAVING count(*) > 1")
    else:
        settings = {BYPASS_PARTIAL: "true"}
        sql = (f"SELECT xxhash64(msg_id) AS h FROM {source} WHERE msg_id IS NOT NULL "
               f"GROUP BY 1 HAVING count(*) > 1")
    with _settings(spark, settings):
        hashes = spark.sql(sql).toArrow()
    if hashes.num_rows == 0:
        return []
    candidates = unique_view(CANDIDATES_VIEW)
    spark.createDataFrame(hashes, schema="h bigint").createOrReplaceTempView(candidates)
    try:
        found = spark.sql(
            f"SELECT msg_id, queue, count(*) AS n FROM {source} WHERE msg_id IS NOT NULL "
            f"AND xxhash64(msg_id) IN (SELECT h FROM {candidates}) "
            f"GROUP BY msg_id, queue").toArrow()
    finally:
        spark.catalog.dropTempView(candidates)
    counts: dict[str, int] = {}
    queues: dict[str, set[str]] = {}
    for msg_id, queue, n in zip(found["msg_id"].to_pylist(), found["queue"].to_pylist(),
                                found["n"].to_pylist(), strict=True):
        counts[msg_id] = counts.get(msg_id, 0) + n
        if queue is not None:
            queues.setdefault(msg_id, set()).add(queue)
    return sorted(({"msg_id": m, "count": c, "queues": sorted(queues.get(m, ()))}
                   for m, c in counts.items() if c > 1),
                  key=lambda r: (-r["count"], r["msg_id"]))


def extremes(spark: SparkSession, source: str, first: int | None, last: int | None
             ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The oldest and youngest message of ``source``, given the first and last arrival
    time (µs): the first and last of the rows that arrived then by (arrival, qmgr, queue,
    position, msg_id), as Spark orders the struct. The rows are found with a filter Parquet
    can use (either time column equal to either time: a superset of the arrival's), and as
    those times are the ends of the arrivals, the pages' min and max skip nearly every page:
    a few thousand rows read, not a pass over the messages."""
    if first is None or last is None:
        return None, None
    arrival = f"unix_micros({ARRIVAL_SQL})"
    times = f"timestamp_micros({int(first)}), timestamp_micros({int(last)})"
    sql = (f"SELECT min(CASE WHEN a = {int(first)} THEN point END) AS oldest, "
           f"max(CASE WHEN a = {int(last)} THEN point END) AS youngest "
           f"FROM (SELECT {arrival} AS a, {POINT_SQL} AS point FROM {source} "
           f"WHERE dlh_put_time IN ({times}) OR put_time IN ({times})) "
           f"WHERE a IN ({int(first)}, {int(last)})")
    row = spark.sql(sql).collect()[0]
    return (None if row["oldest"] is None else row["oldest"].asDict(),
            None if row["youngest"] is None else row["youngest"].asDict())


def _point_sql(name: str, point: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The struct of one extreme message for the stored total row (SQL parameters, so no
    value is quoted into the text); NULL when there is none."""
    if point is None:
        return f"CAST(NULL AS {POINT_DDL})", {}
    kinds = {"arrival": "bigint", "position": "bigint"}
    fields = ", ".join(f"'{f}', CAST(:{name}_{f} AS {kinds.get(f, 'string')})"
                       for f in POINT_FIELDS)
    return f"named_struct({fields})", {f"{name}_{f}": point[f] for f in POINT_FIELDS}


def store_aggregates(frame: DataFrame, summary: str) -> dict[str, Any]:
    """Compute the aggregates of ``frame`` (the committed messages) with Spark and write
    them under ``summary`` (a folder URI, new) with Spark's Parquet writer; returns what
    ``summary.json`` holds but the commit's digest (the caller adds it and writes it)."""
    return _store(frame, summary, by_file=False)[0]


def store_aggregates_by_file(frame: DataFrame, summary: str
                             ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """:func:`store_aggregates` of ``frame`` (a read of the data files themselves, so
    ``input_file_name()`` names them), and from the same pass each file's rows per (qmgr,
    queue, source): ``file``, ``qmgr``, ``queue``, ``source``, ``n``, ``lo`` and ``hi``
    (the lowest and highest position): the export's count of what it commits."""
    return _store(frame, summary, by_file=True)


def _store(frame: DataFrame, summary: str, by_file: bool
           ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Three reads of the messages: the lists (one hash aggregation on the keys, collected:
    the report collects them all too; their total row gives the first and last arrival
    and, ``by_file``, the rows of each file), the arrival times, the MsgIds' hashes (and
    the candidates' rows when some hash occurs twice); the oldest and youngest message
    from a few pages (:func:`extremes`).
    The lists and the duplicates are written from Arrow (no pass over the messages)."""
    spark = frame.sparkSession
    plugins = plugin_names(frame)
    source = unique_view(SOURCE_VIEW)
    frame.createOrReplaceTempView(source)
    try:
        return _store_in(spark, source, plugins, summary, by_file)
    finally:
        spark.catalog.dropTempView(source)


def _store_in(spark: SparkSession, source: str, plugins: list[str], summary: str,
              by_file: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import pyarrow as pa
    import pyarrow.compute as pc

    sql, dims = lists_sql(source, plugins, by_file=by_file)
    rollup = spark.sql(sql)
    schema = rollup.schema
    table = rollup.toArrow()
    kept = [f for f in schema.fields if f.name not in FILE_COLUMNS]
    per_file: list[dict[str, Any]] = []
    if by_file:
        files = table.filter(pc.equal(table["list"], FILE_LIST))
        per_file = [{"file": r["_file"], "qmgr": r["qmgr"], "queue": r["queue"],
                     "source": r["_source"], "n": r["n"], "lo": r["_lo"], "hi": r["_hi"]}
                    for r in files.to_pylist()]
        table = table.filter(pc.not_equal(table["list"], FILE_LIST))
    table = table.select([f.name for f in kept])
    totals = table.filter(pc.equal(table["list"], "total")).to_pylist()
    total = totals[0] if totals else {}
    first, last = total.get("oldest"), total.get("youngest")
    # one file each ("error": Spark Connect refuses its synonym "errorifexists")
    (spark.sql(f"SELECT unix_micros({ARRIVAL_SQL}) AS arrival, count(*) AS n "
               f"FROM {source} WHERE {ARRIVAL_SQL} IS NOT NULL GROUP BY 1")
     .coalesce(1).write.mode("error").option("compression", "zstd")
     .parquet(f"{summary}/arrivals"))
    duplicates, oldest, youngest = duplicates_and_extremes(
        spark, source, first, last, int(total.get("n") or 0))
    # from Arrow, not a list of rows: the JVM reads it (a list of rows is unpickled by a
    # Python worker, which took 18 s to start on a loaded machine)
    found = pa.table({"msg_id": [d["msg_id"] for d in duplicates],
                      "n": [d["count"] for d in duplicates],
                      "queues": [d["queues"] for d in duplicates]},
                     schema=pa.schema([("msg_id", pa.string()), ("n", pa.int64()),
                                       ("queues", pa.list_(pa.string()))]))
    # the schema said too: Spark Connect's client infers none from an empty table (no
    # duplicates: [CANNOT_INFER_EMPTY_SCHEMA]), classic Spark takes the table's
    (spark.createDataFrame(found, schema=DUPLICATES_DDL).coalesce(1).write.mode("error")
     .option("compression", "zstd").parquet(f"{summary}/duplicates"))
    from pyspark.sql.types import StructType

    view = unique_view(f"{SOURCE_VIEW}_lists")
    spark.createDataFrame(table, schema=StructType(kept)).createOrReplaceTempView(view)
    columns = list(dict.fromkeys(c for keys in dims.values() for c in keys))
    old_sql, old_args = _point_sql("oldest", oldest)
    young_sql, young_args = _point_sql("youngest", youngest)
    try:
        lists = spark.sql(
            f"SELECT {', '.join(columns)}, list, n, bytes, unparsed, CASE WHEN list = 'total' "
            f"THEN {old_sql} END AS oldest, CASE WHEN list = 'total' THEN {young_sql} END AS "
            f"youngest FROM {view}", args={**old_args, **young_args})
        lists.coalesce(1).write.mode("error").option("compression", "zstd").parquet(
            f"{summary}/lists")
    finally:
        spark.catalog.dropTempView(view)
    return ({"version": VERSION, "rows": int(total.get("n") or 0), "plugins": plugins},
            per_file)


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
    arrivals_view: str = "summary_arrivals"
    """The temporary view of the stored arrival times (a name of this load's own)."""

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

    frame = spark.read.parquet(folder.data)
    found: dict[str, int] = {}
    for row in (frame.selectExpr("input_file_name() AS file").groupBy("file").count()
                .collect()):
        path = relative(row["file"], folder.data)
        if path is not None:
            found[path] = int(row["count"])
    return disagreement(folder, found)


def listed_present(spark: SparkSession, folder: SnapshotFolder) -> list[str]:
    """The data files the manifest lists that are there (Spark's listing of the data
    folder, no job): what a report counting each file's rows as it reads them reads."""
    from .store import relative

    there = {relative(f, folder.data) for f in spark.read.parquet(folder.data).inputFiles()}
    return [p for p in folder.files or [] if p in there]


def disagreement(folder: SnapshotFolder, found: dict[str, int]
                 ) -> tuple[str | None, list[str]]:
    """:func:`data_disagreement` from each file's rows as Spark counted them (``found``:
    path relative to the data folder → rows; a file without rows is not found)."""
    listed = {str(f["path"]): int(f["rows"]) for f in folder.manifest.get("files") or []}
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
    """The stored aggregates (their arrival times registered as ``arrivals_view``), read by
    Spark, or
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
        arrivals = unique_view("summary_arrivals")
        spark.read.parquet(join(base, "arrivals")).createOrReplaceTempView(arrivals)
    except Exception as e:
        from .errors import is_spark_error

        if not is_spark_error(e):
            raise
        return None
    for row in lists:
        row["_set"] = row.pop("list")
    return StoredSummary(info=info, rows=lists, duplicate_rows=sorted(
        ({"msg_id": r["msg_id"], "count": int(r["n"]), "queues": list(r["queues"])}
         for r in duplicates), key=lambda d: (-d["count"], d["msg_id"])), arrivals_view=arrivals)

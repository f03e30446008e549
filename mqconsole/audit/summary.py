"""Aggregates the export stores beside the snapshot, so the report takes a second, not passes.

Computed by Spark from the committed data (:func:`store_aggregates`: the files the manifest
lists, read back after they are written, never folded inside the data source's ``read()``),
so a retried or speculative task cannot count twice: Spark keeps one successful attempt of
each task. **One pass over the messages**, at any size (:func:`one_pass`): one Spark job,
each of its branches aggregating where the files are read and finishing after one shuffle,
writes every aggregate (the lists' compact groups, the arrival times, the repeated MsgIds
with their queues) under ``_summary/pass``, a folder per table. What follows is not a pass
over the messages: one job reads back the pass's small tables (the compact groups and the
repeated MsgIds), the driver sums the groups into every list (:func:`rollup`, pyarrow), and
one job reads the few pages holding the first and last arrival (:func:`extremes`, the
oldest and youngest message). Only when a repeated MsgId is on a queue the pass was not
told of (or more than :data:`MAX_QUEUE_BITS` queues) are the duplicates found again by
:func:`duplicate_ids`' passes. The report from the messages runs the same pass for its
lists only, and counts the MsgIds' hashes in a job of its own (:func:`from_the_messages`
says why).

Stored as Parquet (zstd) under ``_summary/`` (Spark skips folders starting with ``_`` when
it reads the messages), written with the commit:

- ``lists/``: every list of the report that does not depend on ``--as-of`` — one row per
  (list, key) with its count, bytes and unparsed rows, exactly what the report's lists
  give from the messages; the total row also holds the oldest and youngest message
  (``oldest``, ``youngest``: arrival µs, qmgr, queue, position, msg_id; null on the other
  rows); written by the driver (``part-00000-….c000.zstd.parquet`` beside a ``_SUCCESS``);
- ``arrivals/``: one row per distinct arrival time (µs since the epoch, ``arrival``) with
  its count (``n``), so the age buckets are computed at report time, exact for any
  ``--as-of``; the pass's files as Spark wrote them, moved into place (version 4: with two
  null columns, ``lists`` and ``duplicates``, the pass's other tables);
- ``duplicates/``: every MsgId found more than once, its count and queues (the driver);
- ``summary.json`` (written by the export through the snapshot's store): the version, the
  rows counted, the plugin columns, and ``files_digest``, the commit they were computed
  from (:func:`files_digest`).

Version 3 (the same tables, computed by several jobs) is read as version 4 is; older ones
are not used (the report counts the messages). ``audit sql`` reads the messages; the tests
check the report from the stored aggregates and from the messages against the same
plain-Python oracle.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
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
    data_reader,
    missing_files,
)
from mqconsole.audit.sqltext import sql_text
from mqconsole.audit.store import Op, join, op

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

VERSION = 4  # 4: one Spark job over the committed files (3: several; 2: folded by the readers)
READABLE = (3, 4)
"""The versions :func:`load_summary` reads: 3 and 4 store the same tables (4's arrival
times as the pass wrote them: its other columns there too, null)."""
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


FILE_LIST = "file"
"""The rollup's set of per-file counts (``lists_sql(by_file=True)``: the export's count of
its committed files, never stored): ``_file``, qmgr, queue, ``_source``, with the lowest and
highest ``position`` (``_lo``, ``_hi``)."""
FILE_COLUMNS = ("_file", "_source", "_lo", "_hi")


def compact_sql(source: str, plugins: list[str], extra: dict[str, str] | None = None,
                by_file: bool = False, file_sql: str = "input_file_name()"
                ) -> tuple[str, dict[str, tuple[str, ...]]]:
    """:func:`lists_sql`'s first step, the one GROUP BY of ``source`` on every key, and
    the lists' keys (with :data:`FILE_LIST`'s when ``by_file``); ``file_sql``: what names
    the file (a column of ``source`` computed below a coalesce: :func:`_one_job`)."""
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
    more = ""
    if by_file:
        keys += [f"{file_sql} AS _file", "source AS _source"]
        more = ", min(position) AS _lo, max(position) AS _hi"
    arrival = f"unix_micros({ARRIVAL_SQL})"
    return (f"SELECT {', '.join(keys)}, count(*) AS n, coalesce(sum(length), 0) AS bytes, "
            f"count_if({UNPARSED_SQL}) AS unparsed, min({arrival}) AS oldest, "
            f"max({arrival}) AS youngest{more} FROM {source} GROUP BY ALL"), dims


def _unquote(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


def rollup(compact: Any, dims: dict[str, tuple[str, ...]]) -> Any:
    """What :func:`lists_sql`'s GROUPING SETS gives, from its compact groups (an Arrow
    table of :func:`compact_sql`), summed here by pyarrow: a row per list and key (the
    other keys null; ``list`` names it, ``total`` the row of every group), with the sums of
    ``n``, ``bytes`` and ``unparsed``, the least ``oldest`` and greatest ``youngest`` (and of
    ``_lo`` and ``_hi`` when the files are counted). No rows when there are no groups (as
    Spark gives none)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = [_unquote(c) for c in dict.fromkeys(c for keys in dims.values() for c in keys)]
    measures = [("n", "sum"), ("bytes", "sum"), ("unparsed", "sum"), ("oldest", "min"),
                ("youngest", "max")]
    if "_lo" in compact.column_names:
        measures += [("_lo", "min"), ("_hi", "max")]
    fields = [compact.schema.field(c) for c in columns]
    fields += [pa.field("list", pa.string())]
    fields += [pa.field(c, compact.schema.field(c).type) for c, _ in measures]
    schema = pa.schema(fields)
    if compact.num_rows == 0:
        return schema.empty_table()
    pieces = []
    for name, keys in [("total", ()), *dims.items()]:
        names = [_unquote(k) for k in dict.fromkeys(keys)]
        if names:
            got = compact.group_by(names, use_threads=False).aggregate(measures)
        else:
            got = pa.table({f"{c}_{f}": pa.array([getattr(pc, f)(compact[c]).as_py()],
                                                 type=compact.schema.field(c).type)
                            for c, f in measures})
        rows = got.num_rows
        arrays = [got[c] if c in names else pa.nulls(rows, type=field.type)
                  for c, field in zip(columns, fields, strict=False)]
        arrays.append(pa.array([name] * rows, type=pa.string()))
        arrays += [got[f"{c}_{f}"].cast(compact.schema.field(c).type) for c, f in measures]
        pieces.append(pa.Table.from_arrays(arrays, schema=schema))
    return pa.concat_tables(pieces)


CANDIDATES_VIEW = "mqconsole_duplicate_candidates"
BYPASS_PARTIAL = "spark.sql.execution.bypassPartialAggregation"
"""One aggregation after the shuffle, no partial one before it (a setting of pyspark 4.3)."""
COMBINE_AGGREGATION = "spark.sql.execution.combineAdjacentAggregation"
"""A partial and a final aggregation with no shuffle between: one (pyspark 4.3)."""
UNION_PARTITIONING = "spark.sql.unionOutputPartitioning"
"""Off: a UNION ALL of single-partition branches runs a task per branch, side by side (on,
pyspark 4.3 zips them into one task)."""
CLIENT_HASH_ROWS = 4_000_000
"""Up to this many rows, the MsgIds' hashes are counted by the client (32 MB at most)."""


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
    count, then MsgId. A 64-bit hash of each MsgId finds the candidates; none, and that is
    all (every MsgId its own, the usual dead-letter queue). Else only the candidates' rows
    are counted by (MsgId, queue), fixed-width again (a set of queues per MsgId made Spark
    fall back to sorting every candidate row), and summed per MsgId here: a MsgId that
    shares a hash but occurs once drops out, so the counts stay exact.

    ``rows`` (how many ``source`` holds, when known) at most :data:`CLIENT_HASH_ROWS`: the
    hashes are computed by the tasks side by side and counted here (8 bytes a row: 32 MB
    at the bound); a hash aggregation of them in Spark cost more than the rest of the
    report (one task: 1.0-1.2 s for 1M rows, against 0.35-0.45 s for the read, the
    transfer and the count here; docs/benchmarks.md, session 16). More, or not known:
    Spark counts them after one shuffle, no partial count before it (nearly every hash
    occurs once, so counting before the shuffle saves nothing: :data:`BYPASS_PARTIAL`)."""
    hashed = f"SELECT xxhash64(msg_id) AS h FROM {source} WHERE msg_id IS NOT NULL"
    if rows is not None and rows <= CLIENT_HASH_ROWS:
        hashes = _repeated(spark.sql(hashed).toArrow())
    else:
        with _settings(spark, {BYPASS_PARTIAL: "true"}):
            hashes = spark.sql(f"{hashed} GROUP BY 1 HAVING count(*) > 1").toArrow()
    return _candidates(spark, source, hashes)


def _repeated(hashes: Any) -> Any:
    """The values of the Arrow table ``hashes`` (one column, ``h``) found more than once, as
    a table of column ``h``: sorted, each compared with the next (numpy's sort of 1M longs:
    0.05 s, a third of Arrow's hash count)."""
    import numpy as np
    import pyarrow as pa

    values = np.sort(hashes.column(0).to_numpy())
    repeated = np.unique(values[1:][values[1:] == values[:-1]])
    return pa.table({"h": pa.array(repeated, type=pa.int64())})


def _candidates(spark: SparkSession, source: str, hashes: Any) -> list[dict[str, Any]]:
    """:func:`duplicate_ids` given the hashes found more than once (an Arrow table, ``h``)."""
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


def store_aggregates(frame: DataFrame, summary: str) -> dict[str, Any]:
    """Compute the aggregates of ``frame`` (the committed messages) with Spark and write
    them under ``summary`` (a folder URI, new); returns what ``summary.json`` holds but the
    commit's digest (the caller adds it and writes it). Any frame (a read of files or not):
    the queues are those its files' partition folders name (none: the duplicates' queues
    are found by :func:`duplicate_ids`)."""
    from .stores import store_for

    info, _files, writes = _store(frame, summary, queues=queues_of(frame.inputFiles()))
    store_for(frame.sparkSession, summary).many(writes)
    return info


def store_aggregates_by_file(frame: DataFrame, summary: str, queues: list[str]
                             ) -> tuple[dict[str, Any], list[dict[str, Any]], list[Op]]:
    """The aggregates of ``frame`` (a read of the data files themselves, so
    ``input_file_name()`` names them), and from the same pass each file's rows per (qmgr,
    queue, source): ``file``, ``qmgr``, ``queue``, ``source``, ``n``, ``lo`` and ``hi``
    (the lowest and highest position): the export's count of what it commits. ``queues``:
    every queue the files hold (their partition folders). The arrival times are written by
    Spark's writer here (:func:`one_pass`); the other stored files are not: their writing
    (:class:`~.store.Op`, for the snapshot's store) is returned, for the commit to write
    with the manifest (over Spark Connect, one job on the server for all of them)."""
    return _store(frame, summary, queues=queues)


MAX_QUEUE_BITS = 256
"""Up to this many queues, the pass finds each duplicate MsgId's queues as bits (a
``long`` per 64 queues, fixed-width: a hash aggregation); more, or a queue it was not told
of, and the duplicates are found again by :func:`duplicate_ids` (more passes)."""
TABLE = "mq_table"
"""The column naming the table of each row of the pass (its folders: ``mq_table=lists``)."""
PASS_DIR = "pass"
"""Where the pass writes (under ``_summary``): its arrival times are moved to
``arrivals/``, the rest is read back and removed before the commit."""
PASS_SETTINGS = {"spark.sql.adaptive.enabled": "false", UNION_PARTITIONING: "false",
                 COMBINE_AGGREGATION: "true"}
"""The pass is one job: adaptive execution would run each shuffle's map stage as a job of
its own. The MsgIds are shuffled by MsgId first, then counted once (no partial count before
the shuffle: nearly every MsgId occurs once, so it saved nothing and cost a second hash map
of every MsgId: 0.95 s against 1.7-2.3 s at 1M)."""


def queues_of(paths: Iterable[str]) -> list[str]:
    """The queues named by the ``queue=…`` partition folders of data files' URIs as Spark
    lists them (``DataFrame.inputFiles()``: decoded once to the literal path, then the
    folder's name unescaped as Spark escaped it)."""
    from .compact import queue_of
    from .store import spark_path

    found = set()
    for path in paths:
        folders = [p for p in spark_path(str(path)).split("/")[:-1]
                   if p.startswith("queue=")]
        if folders:
            found.add(queue_of(folders[-1]))
    return sorted(found)


def one_pass(spark: SparkSession, source: str, plugins: list[str], queues: list[str], *,
             extra: dict[str, str] | None = None, by_file: bool = False,
             arrivals: bool = True, duplicates: bool = True
             ) -> tuple[DataFrame, dict[str, tuple[str, ...]]]:
    """Every aggregate of ``source`` as one Spark job over the messages: a ``UNION ALL``
    of an aggregation per table, each partial where the files are read and final after
    one shuffle, run as one job (:data:`PASS_SETTINGS`), each row tagged by
    :data:`TABLE`:

    - ``lists``: the compact groups (:func:`compact_sql`: every list's keys, ``extra``'s,
      and each file's with ``by_file``), each with its rows, bytes, unparsed rows and first
      and last arrival (µs);
    - ``arrivals`` (with ``arrivals``): a row per distinct arrival time (µs) with its count
      (``arrival``, ``n``: the stored table's columns);
    - ``duplicates``: each MsgId found more than once (``msg_id``, ``n``), its queues as
      bits (queue i of ``queues``: bit i of ``_q<i // 64>``), fixed-width, a hash
      aggregation; ``_unknown``, its rows on a queue not in ``queues``: when not 0, its
      queues are found by :func:`duplicate_ids`.

    A row's columns but ``n`` are in a struct named by its table (``lists``,
    ``duplicates``: null on the other tables' rows), so the arrival times' files hold
    ``arrival`` and ``n`` and two null columns whatever the keys and queues.

    Each branch reads only the columns it needs, so each column of the committed files is
    read once in the job (the times twice: by the lists and the arrivals). Measured against
    one scan whose every row is expanded into a record per table (``GROUPING SETS``: one
    aggregation over a row three times as wide, all its keys shuffled): 2.8 s against
    4.7 s at 1M realistic rows (docs/benchmarks.md, session 15). Exact under retries: Spark
    keeps one attempt of each task."""
    names = queues if len(queues) <= MAX_QUEUE_BITS else []
    index = ("CASE queue " + " ".join(f"WHEN {sql_text(q)} THEN {i + 1}"
                                      for i, q in enumerate(names)) + " ELSE 0 END"
             if names else "0")
    lists, dims = compact_sql(source, plugins, extra, by_file)
    parts = {"lists": lists}
    if arrivals:
        parts["arrivals"] = (f"SELECT unix_micros({ARRIVAL_SQL}) AS arrival, count(*) AS n "
                             f"FROM {source} WHERE {ARRIVAL_SQL} IS NOT NULL GROUP BY 1")
    if duplicates:
        parts["duplicates"] = (
            "SELECT msg_id, count(*) AS n"
            + "".join(f", bit_or(CASE WHEN _q > {64 * c} AND _q <= {64 * (c + 1)} THEN "
                      f"shiftleft(1L, _q - {64 * c + 1}) END) AS _q{c}"
                      for c in range((len(names) + 63) // 64))
            + f", count_if(_q = 0) AS _unknown FROM (SELECT /*+ REPARTITION(msg_id) */ msg_id, "
            f"CASE WHEN queue IS NULL THEN -1 ELSE {index} END AS _q FROM {source} "
            "WHERE msg_id IS NOT NULL) GROUP BY msg_id HAVING count(*) > 1")
    union = None
    for name, sql in parts.items():
        frame = spark.sql(sql)
        if name == "arrivals":  # its rows' columns as the stored table's
            frame = frame.selectExpr(f"'{name}' AS {TABLE}", "arrival", "n")
        else:  # the other tables' columns in a struct of their own
            rest = ", ".join(quote(c) for c in frame.columns if c != "n")
            frame = frame.selectExpr(f"'{name}' AS {TABLE}", "n", f"struct({rest}) AS {name}")
        union = frame if union is None else union.unionByName(frame, allowMissingColumns=True)
    assert union is not None
    return union, dims


def _unpacked(frame: DataFrame) -> DataFrame:
    """:func:`one_pass`'s rows but its arrival times, each table's columns side by side."""
    return frame.selectExpr(TABLE, "n", *(f"{name}.*" for name in ("lists", "duplicates")
                                          if name in frame.columns))


def _store(frame: DataFrame, summary: str, queues: list[str]
           ) -> tuple[dict[str, Any], list[dict[str, Any]], list[Op]]:
    """:func:`one_pass` written by Spark under ``summary/pass`` (a folder per table), then
    what is not a pass over the messages: its lists and duplicates read back (one job over
    those small files), the lists' rollup (pyarrow, the driver), the oldest and youngest
    message (:func:`extremes`: a few pages), and the writing of the stored tables: the
    arrival times moved into place as Spark wrote them, the lists and duplicates written by
    the driver (:func:`_writes`), the pass's folder removed. Each file's rows are counted
    whoever asks (the export does), so the arrival times' files hold the same columns
    whoever computed them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    spark = frame.sparkSession
    plugins = plugin_names(frame)
    source = unique_view(SOURCE_VIEW)
    frame.createOrReplaceTempView(source)
    try:
        union, dims = one_pass(spark, source, plugins, queues, by_file=True)
        written = join(summary, PASS_DIR)
        with _settings(spark, PASS_SETTINGS):
            # one folder per table ("error": Spark Connect refuses "errorifexists")
            union.write.partitionBy(TABLE).mode("error").option(
                "compression", "zstd").parquet(written)
            table = _unpacked(spark.read.schema(union.schema).parquet(written)
                              .where(f"{TABLE} <> 'arrivals'")).toArrow()
        compact = table.filter(pc.equal(table[TABLE], "lists")).select(
            [_unquote(c) for c in dict.fromkeys(c for keys in dims.values() for c in keys)]
            + ["n", "bytes", "unparsed", "oldest", "youngest"]
            + ["_lo", "_hi"])
        rolled = rollup(compact, dims)
        dims = {k: v for k, v in dims.items() if k != FILE_LIST}
        lists, per_file, total = _split_lists(rolled, dims)
        first, last = total.get("oldest"), total.get("youngest")
        with _settings(spark, PASS_SETTINGS):  # (one job, as the pass)
            oldest, youngest = extremes(spark, source, first, last)
        duplicates = _duplicates(spark, source, table.filter(
            pc.equal(table[TABLE], "duplicates")), queues)
    finally:
        spark.catalog.dropTempView(source)
    arrivals = None  # moved into place as Spark wrote them, or none at all
    moves: list[Op] = []
    if first is None:
        arrivals = pa.schema([("arrival", pa.int64()),
                              pa.field("n", pa.int64(), nullable=False)]).empty_table()
    else:
        moves = [op("publish", staged=join(written, f"{TABLE}=arrivals"),
                    out=join(summary, "arrivals"), replace=False),
                 op("write_new", uri=join(summary, "arrivals", "_SUCCESS"), text="")]
    writes = _writes(summary, lists, dims, oldest, youngest, duplicates, arrivals)
    writes += [*moves, op("remove", uri=written)]
    rows = int(total.get("n") or 0)
    return {"version": VERSION, "rows": rows, "plugins": plugins}, per_file, writes


def from_the_messages(spark: SparkSession, source: str, plugins: list[str],
                      extra: dict[str, str], by_file: bool
                      ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The report's aggregates of ``source`` (the messages): the lists from
    :func:`one_pass` without the arrival times and the MsgIds (``extra``: its keys, e.g.
    the age bucket), collected (the compact groups: small), every list's rows summed here
    (:func:`rollup`, named by ``list``, the file's with ``by_file``: :data:`FILE_LIST`);
    the total row's ``oldest`` and ``youngest`` the messages themselves (:func:`extremes`,
    a few pages), and the duplicates by :func:`duplicate_ids` (the MsgIds' 64-bit hashes,
    counted by the client up to :data:`CLIENT_HASH_ROWS`). Not the export's one pass with
    its duplicates: shuffling every MsgId to count it exactly doubled the report's CPU at
    1M rows (6.0-6.5 CPU-s against 2.5-3.3, docs/benchmarks.md session 15), where the
    hashes' count, and the candidates' rows only when a hash repeats, cost less."""

    union, dims = one_pass(spark, source, plugins, [], extra=extra, by_file=by_file,
                           arrivals=False, duplicates=False)
    with _settings(spark, PASS_SETTINGS):
        table = _unpacked(union).toArrow()
    compact = table.select(
        [_unquote(c) for c in dict.fromkeys(c for keys in dims.values() for c in keys)]
        + ["n", "bytes", "unparsed", "oldest", "youngest"] + (["_lo", "_hi"] if by_file else []))
    rows = rollup(compact, dims).to_pylist()
    total = next((r for r in rows if r["list"] == "total"), None)
    if total is not None:
        with _settings(spark, PASS_SETTINGS):  # (one job, as the pass)
            total["oldest"], total["youngest"] = extremes(spark, source, total["oldest"],
                                                          total["youngest"])
    return rows, duplicate_ids(spark, source, int(total["n"]) if total else 0)


def _duplicates(spark: SparkSession, source: str, found: Any, queues: list[str]
                ) -> list[dict[str, Any]]:
    """The duplicates from :func:`one_pass`'s rows (an Arrow table); when one of them is
    on a queue not in ``queues`` (or there are more than :data:`MAX_QUEUE_BITS`), from
    :func:`duplicate_ids` instead."""
    import pyarrow.compute as pc

    if found.num_rows == 0:
        return []
    if len(queues) > MAX_QUEUE_BITS or pc.sum(found["_unknown"]).as_py():
        return duplicate_ids(spark, source)
    return _duplicates_from_bits(found, queues)


def _split_lists(table: Any, dims: dict[str, tuple[str, ...]]
                 ) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    """The rollup's rows (:func:`lists_sql`, an Arrow table) as the stored lists' columns
    (the keys, ``list``, ``n``, ``bytes``, ``unparsed``, ``oldest`` and ``youngest``, here
    still the arrival times), each file's rows (``by_file``) and the total row."""
    import pyarrow.compute as pc

    per_file: list[dict[str, Any]] = []
    if "_file" in table.column_names:
        files = table.filter(pc.equal(table["list"], FILE_LIST))
        per_file = [{"file": r["_file"], "qmgr": r["qmgr"], "queue": r["queue"],
                     "source": r["_source"], "n": r["n"], "lo": r["_lo"], "hi": r["_hi"]}
                    for r in files.select(["_file", "qmgr", "queue", "_source", "n", "_lo",
                                           "_hi"]).to_pylist()]
        table = table.filter(pc.not_equal(table["list"], FILE_LIST))
    columns = [_unquote(c) for c in dict.fromkeys(c for keys in dims.values() for c in keys)]
    table = table.select([*columns, "list", "n", "bytes", "unparsed", "oldest", "youngest"])
    totals = table.filter(pc.equal(table["list"], "total")).to_pylist()
    return table, per_file, totals[0] if totals else {}


def _point_type() -> Any:
    """The Arrow type of :data:`POINT_SQL`'s struct, its fields not null (as Spark wrote
    it: a struct of the values found)."""
    import pyarrow as pa

    return pa.struct([pa.field("arrival", pa.int64(), nullable=False),
                      pa.field("qmgr", pa.string(), nullable=False),
                      pa.field("queue", pa.string(), nullable=False),
                      pa.field("position", pa.int64(), nullable=False),
                      pa.field("msg_id", pa.string(), nullable=False)])


def _writes(summary: str, lists: Any, dims: dict[str, tuple[str, ...]],
            oldest: dict[str, Any] | None, youngest: dict[str, Any] | None,
            duplicates: list[dict[str, Any]], arrivals: Any | None) -> list[Op]:
    """The stored tables as Parquet files (zstd, one per table, named and laid out as
    Spark's writer lays them out: ``part-00000-….c000.zstd.parquet`` and ``_SUCCESS``),
    written by the driver through the snapshot's store: the lists with the oldest and
    youngest message on the total row (null on the others), the duplicates, and the
    arrival times when they were collected (``arrivals``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    is_total = pc.fill_null(pc.equal(lists["list"], "total"), False).to_pylist()
    point = _point_type()
    lists = lists.drop_columns(["oldest", "youngest"])
    lists = lists.append_column(pa.field("oldest", point), pa.array(
        [oldest if t else None for t in is_total], type=point))
    lists = lists.append_column(pa.field("youngest", point), pa.array(
        [youngest if t else None for t in is_total], type=point))
    found = pa.table({"msg_id": [d["msg_id"] for d in duplicates],
                      "n": [d["count"] for d in duplicates],
                      "queues": [d["queues"] for d in duplicates]},
                     schema=pa.schema([("msg_id", pa.string()), ("n", pa.int64()),
                                       ("queues", pa.list_(pa.string()))]))
    tables = {"lists": lists, "duplicates": found}
    if arrivals is not None:
        tables["arrivals"] = arrivals
    out: list[Op] = []
    for name, table in tables.items():
        out += _parquet_writes(join(summary, name), table)
    return out


def _parquet_writes(folder: str, table: Any) -> list[Op]:
    import io
    import uuid

    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return [op("write_bytes", uri=join(folder, f"part-00000-{uuid.uuid4()}-c000.zstd.parquet"),
               data=sink.getvalue()),
            op("write_new", uri=join(folder, "_SUCCESS"), text="")]


def _duplicates_from_bits(table: Any, names: list[str]) -> list[dict[str, Any]]:
    """The duplicates (as :func:`duplicate_ids` gives them) from :func:`_one_job`'s rows:
    MsgId, count, and the queues' bits."""
    chunks = [c for c in table.column_names if c.startswith("_q") and c[2:].isdigit()]
    out = []
    for row in table.select(["msg_id", "n", *chunks]).to_pylist():
        held = []
        for c in chunks:
            bits, base = row[c] or 0, 64 * int(c[2:])
            held += [names[base + i] for i in range(64) if bits >> i & 1]
        out.append({"msg_id": row["msg_id"], "count": int(row["n"]), "queues": sorted(held)})
    return sorted(out, key=lambda r: (-r["count"], r["msg_id"]))


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
    """Check the snapshot's data files against its manifest (Spark counts the rows of each
    listed file that is there; the folder's listing says which are): ``(None, listed)``
    when every listed file is there with its rows, else (what differs, the listed files
    still there to read). A file the manifest does not list is not the snapshot's, and not
    read."""
    from .store import spark_relative

    found: dict[str, int] = {}
    present = folder.present or []
    if present:
        frame = data_reader(spark, folder).parquet(*[join(folder.data, p) for p in present])
        for row in (frame.selectExpr("input_file_name() AS file").groupBy("file").count()
                    .collect()):
            path = spark_relative(row["file"], folder.data)
            if path is not None:
                found[path] = int(row["count"])
    return disagreement(folder, found)


def disagreement(folder: SnapshotFolder, found: dict[str, int]
                 ) -> tuple[str | None, list[str]]:
    """:func:`data_disagreement` from each file's rows as Spark counted them (``found``:
    path relative to the data folder → rows; a file without rows is not found)."""
    listed = {str(f["path"]): int(f["rows"]) for f in folder.manifest.get("files") or []}
    missing = [p for p in listed if p not in found]
    changed = [p for p in listed if p in found and found[p] != listed[p]]
    present = [p for p in listed if p in found]
    if missing:
        return missing_files(missing), present
    if changed:
        return (f"{changed[0]} holds {found[changed[0]]:,} rows, the manifest says "
                f"{listed[changed[0]]:,}"), present
    return None, present


def load_summary(spark: SparkSession, folder: SnapshotFolder) -> StoredSummary | None:
    """The stored aggregates (their arrival times registered as ``arrivals_view``), read by
    Spark, or
    None when the snapshot has none or an older version of them."""
    base = folder.summary_dir
    try:  # (read when the snapshot was opened, with its manifest)
        info = json.loads(folder.read_text(join(base, SUMMARY_FILE)) or "null")
    except ValueError:
        return None
    if not isinstance(info, dict) or info.get("version") not in READABLE:
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

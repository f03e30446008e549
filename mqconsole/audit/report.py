"""The audit report: Spark SQL over a snapshot, with audit.md's keys.

From the messages, one pass for the lists, one for the MsgIds and a small read, never a
pass per list:

1. **lists** — one ``GROUP BY`` of the messages on every key a list needs (queue, reason,
   destination, put application, backout count, age bucket, plugin columns, and each data
   file: the check against the manifest) with counts, bytes, unparsed rows and the first
   and last arrival time, all fixed-width values so Spark aggregates in a hash map (one
   job: :func:`.summary.from_the_messages`, the export's pass without the arrival times
   and the MsgIds); the driver sums that small result into every list (what a ``GROUPING
   SETS`` query over it gives: :func:`.summary.rollup`);
2. **duplicates** — MsgIds that occur more than once: a 64-bit hash of each finds the
   candidates (no candidates, no more reads), then only their rows are counted by MsgId and
   queue (:func:`.summary.duplicate_ids`). Not in the lists' job: counting every MsgId
   exactly there means shuffling them all, which doubled the report's CPU;
3. **extremes** — the rows that arrived at the first and last arrival time, read with a
   filter Parquet's page statistics answer (a few pages, not the messages); the oldest and
   youngest are the first and last of them by (arrival, qmgr, queue, position).

When the export stored its aggregates (:mod:`.summary`), the lists that do not depend on
``--as-of`` and the duplicates are read as stored, and only the age buckets are computed,
by Spark SQL over the stored arrival times: the same answers (exact for any ``--as-of``)
without a pass over the messages. ``audit sql`` always
reads the messages themselves.

Conventions the oracle tests pin: lists are sorted by count descending, then by their key
with nulls last; ``by_age`` lists the five buckets in age order, after a sixth, ``after
as-of``, when some messages arrived after ``as_of`` (an ``--as-of`` in the past); an age is
``as_of`` minus the arrival time (the dead-letter header's put time, else the MQMD's), and a
message with no put time at all is in no bucket; ``oldest``
and ``youngest`` are the first and last by (arrival, qmgr, queue, position).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from mqconsole.audit.ages import (  # the console's drill-downs import them without Spark
    AFTER_AS_OF,
    ARRIVAL_SQL,
    BUCKET_EDGES,
    BUCKETS,
    bucket_sql,
    iso,
    parse_as_of,
)
from mqconsole.audit.errors import (
    AuditInputError,
    first_line,
    is_input_error,
    is_spark_error,
    job_failed,
    unwrap,
)
from mqconsole.audit.snapshot import (
    SnapshotFolder,
    open_snapshot,
    plugin_columns,
    read_messages,
    unreadable,
)
from mqconsole.audit.store import spark_relative
from mqconsole.audit.summary import (
    GROUPABLE,
    data_disagreement,
    disagreement,
    files_digest,
    from_the_messages,
    load_summary,
)
from mqconsole.ops.words import counted

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LIST_KEYS = ("by_queue", "by_reason", "by_destination", "by_reason_destination", "by_age",
             "by_put_application", "backout_counts", "duplicate_msg_ids")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Progress = Callable[[str], None]


@dataclass(frozen=True)
class ReportInput:
    """What a report is computed from: the snapshot, the time, and the plugin columns."""

    folder: SnapshotFolder
    as_of: datetime
    plugins: tuple[str, ...] = ()


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def build_report(spark: SparkSession, path: Any, *, as_of: datetime | None = None,
                 progress: Progress | None = None, use_summary: bool = True,
                 warn: Progress | None = None) -> dict[str, Any]:
    """The report of the snapshot at ``path`` (audit.md's keys), computed by Spark SQL.
    ``progress`` hears what it does; ``warn`` what the operator must keep knowing once it
    is done (its data disagrees with its manifest, the stored aggregates with the
    manifest: counted from the messages instead) — said as progress when not given (the
    CLI's lines stay on its terminal; the console's status line does not keep them)."""
    say = progress or (lambda _text: None)
    folder = open_snapshot(spark, path)
    when = as_of or parse_as_of(None)
    try:
        return _build(spark, folder, when, say, use_summary, warn or say)
    except Exception as e:
        if not is_spark_error(e):
            raise
        spark_said = unwrap(e)
        if not is_input_error(spark_said):  # the job, not the snapshot: exit 1, Spark's reason
            raise job_failed(spark_said, "the report") from None
        raise AuditInputError(f"{unreadable(folder.root)}: {first_line(spark_said)}") from None


def _build(spark: SparkSession, folder: SnapshotFolder, when: datetime, say: Progress,
           use_summary: bool, warn: Progress) -> dict[str, Any]:
    stored = None
    present = None
    count_files = False  # each file's rows counted by the report's own pass
    if folder.files:  # a committed snapshot's files as its manifest says? (none: no rows)
        if use_summary:
            differs, present = data_disagreement(spark, folder)
            if differs is not None:
                warn(_disagrees(differs))
                use_summary = False
        else:  # the messages are read anyway: their pass counts each file's rows too
            present = list(folder.present or [])  # the listed files that are there
            count_files = True
    if use_summary:
        stored = load_summary(spark, folder)
        if stored is not None and folder.files is not None and (
                stored.info.get("files_digest") != files_digest(folder.manifest["files"])
                or stored.info.get("rows") != folder.manifest.get("rows")):
            warn("the stored aggregates disagree with the manifest (not computed from the "
                 "files it commits): counting the messages instead")
            spark.catalog.dropTempView(stored.arrivals_view)
            stored = None
    if stored is not None:
        say(f"counting {counted(stored.info['rows'], grouped=True)} from the stored aggregates")
        spec = ReportInput(folder=folder, as_of=when, plugins=tuple(stored.info["plugins"]))
        rollup = stored.rows
        ages = _ages_from_arrivals(spark, when, stored.arrivals_view)
        duplicates = stored.duplicates()
    else:
        say(f"reading the messages of {folder.where}")
        frame = read_messages(spark, folder, files=present)
        types = dict(frame.dtypes)
        plugins = tuple(c for c in plugin_columns(frame.columns) if types[c] in GROUPABLE)
        spec = ReportInput(folder=folder, as_of=when, plugins=plugins)
        say("counting the messages")
        rollup, duplicates = _rollup(spark, spec, by_file=count_files)
        if count_files:
            found: dict[str, int] = {}
            for row in rollup:
                path = (spark_relative(row["_file"], folder.data) if row["_set"] == "file"
                        else None)
                if path is not None:
                    found[path] = found.get(path, 0) + int(row["n"])
            differs = disagreement(folder, found)[0]
            if differs is not None:
                warn(_disagrees(differs))
        ages = None
    return _assemble(rollup, ages, duplicates, spec)


def _disagrees(differs: str) -> str:
    return (f"the snapshot's data disagrees with its manifest ({differs}): the stored "
            "aggregates are not used; counting the messages that are there")


def _rollup(spark: SparkSession, spec: ReportInput, by_file: bool = False
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every list's rows (the lists the export stores, plus the age bucket: set ``age``) and
    the duplicates (:func:`.summary.from_the_messages`); the total row's ``oldest`` and
    ``youngest`` are the messages themselves. ``by_file``: each data file's rows too (set
    ``file``, its URI in ``_file``), from the lists' pass."""
    rows, duplicates = from_the_messages(
        spark, "messages", list(spec.plugins),
        {"bucket": bucket_sql(ARRIVAL_SQL, spec.as_of)}, by_file)
    for row in rows:
        name = row.pop("list")
        row["_set"] = "age" if name == "bucket" else name
    return rows, duplicates


def _ages_from_arrivals(spark: SparkSession, as_of: datetime, view: str) -> dict[str, int]:
    sql = (f"SELECT {bucket_sql('timestamp_micros(arrival)', as_of)} AS bucket, sum(n) AS n "
           f"FROM {view} GROUP BY 1")
    try:
        return {row["bucket"]: int(row["n"]) for row in spark.sql(sql).collect()
                if row["bucket"] is not None}
    finally:
        spark.catalog.dropTempView(view)


def _sorted(rows: list[dict[str, Any]], *keys: str) -> list[dict[str, Any]]:
    def key(row: dict[str, Any]) -> tuple[Any, ...]:
        parts: list[Any] = [-row["count"]]
        for k in keys:
            parts += [row[k] is None, row[k] if row[k] is not None else 0]
        return tuple(parts)

    return sorted(rows, key=key)


def _extreme(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if not value:
        return None
    return {"qmgr": value["qmgr"], "queue": value["queue"], "msg_id": value["msg_id"],
            "put_time": iso(EPOCH + timedelta(microseconds=value["arrival"]))}


def _assemble(rollup: list[dict[str, Any]], ages: dict[str, int] | None,
              duplicates: list[dict[str, Any]], spec: ReportInput) -> dict[str, Any]:
    by_set: dict[str, list[dict[str, Any]]] = {}
    for row in rollup:
        by_set.setdefault(row["_set"], []).append(row)
    total = (by_set.get("total") or [{}])[0]
    if ages is None:
        ages = {r["bucket"]: int(r["n"]) for r in by_set.get("age", [])
                if r["bucket"] is not None}
    report: dict[str, Any] = {
        "messages": int(total.get("n") or 0),
        "bytes": int(total.get("bytes") or 0),
        "unparsed": int(total.get("unparsed") or 0),
        "as_of": iso(spec.as_of),
        "by_queue": _sorted([{"qmgr": r["qmgr"], "queue": r["queue"], "count": int(r["n"]),
                              "bytes": int(r["bytes"] or 0)}
                             for r in by_set.get("queue", [])], "qmgr", "queue"),
        "by_reason": _sorted([{"reason": r["dlh_reason"], "name": r["dlh_reason_name"],
                               "count": int(r["n"])} for r in by_set.get("reason", [])],
                             "reason", "name"),
        "by_destination": _sorted([{"qmgr": r["dlh_dest_qmgr"], "queue": r["dlh_dest_q"],
                                    "count": int(r["n"])}
                                   for r in by_set.get("destination", []) if r["has_dlh"]],
                                  "qmgr", "queue"),
        "by_reason_destination": _sorted(
            [{"reason": r["dlh_reason"], "queue": r["dlh_dest_q"], "count": int(r["n"])}
             for r in by_set.get("reason_destination", []) if r["has_dlh"]],
            "reason", "queue"),
        "by_age": [{"bucket": b, "count": int(ages.get(b, 0))}
                   for b in (AFTER_AS_OF, *BUCKETS) if b != AFTER_AS_OF or ages.get(b)],
        "by_put_application": _sorted([{"name": r["put_appl_name"], "count": int(r["n"])}
                                       for r in by_set.get("application", [])], "name"),
        "backout_counts": _sorted([{"backout_count": r["backout_count"], "count": int(r["n"])}
                                   for r in by_set.get("backout", [])], "backout_count"),
        "duplicate_msg_ids": duplicates,
        "oldest": _extreme(total.get("oldest")),
        "youngest": _extreme(total.get("youngest")),
    }
    for column in spec.plugins:
        report[f"by_{column}"] = _sorted(
            [{"value": r[column], "count": int(r["n"])}
             for r in by_set.get(f"plugin:{column}", [])], "value")
    if report["messages"] == 0:
        for key in LIST_KEYS:
            if key != "by_age":
                report[key] = []
    return report


__all__ = ["AFTER_AS_OF", "BUCKETS", "BUCKET_EDGES", "bucket_sql", "build_report", "iso",
           "parse_as_of"]

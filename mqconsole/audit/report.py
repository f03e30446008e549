"""The audit report: Spark SQL over a snapshot, with audit.md's keys.

Two passes over the data, never a pass per list:

1. **compact** — one ``GROUP BY`` of the messages on every key a list needs (queue, reason,
   destination, put application, backout count, age bucket, plugin columns) with counts,
   bytes, unparsed rows and the oldest and youngest message of each group; then, over that
   small result, one ``GROUPING SETS`` query gives every list at once.
2. **duplicates** — MsgIds that occur more than once: a cheap 64-bit hash finds the
   candidates, and only their rows are grouped by MsgId with their queues.

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

from mqconsole.audit.errors import (
    AuditInputError,
    first_line,
    is_input_error,
    is_spark_error,
    job_failed,
    unwrap,
)
from mqconsole.audit.snapshot import (
    ARRIVAL_SQL,
    SnapshotFolder,
    open_snapshot,
    plugin_columns,
    read_messages,
)
from mqconsole.audit.summary import (
    GROUPABLE,
    data_disagreement,
    duplicates_sql,
    files_digest,
    lists_sql,
    load_summary,
)
from mqconsole.ops.timefmt import AGE_BUCKET_NAMES, AGE_EDGES, iso_utc
from mqconsole.ops.words import counted

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The age buckets of every face (summary, the report, the console): ops.timefmt owns them.
BUCKETS = AGE_BUCKET_NAMES
# Messages that arrived after as_of (an --as-of before them): listed first, only when any.
AFTER_AS_OF = "after as-of"
# Lower bound of each bucket after the first, as an age.
BUCKET_EDGES = AGE_EDGES
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


def parse_as_of(text: str | None, now: Callable[[], datetime] | None = None) -> datetime:
    """``--as-of`` (ISO 8601; no zone means UTC) as an aware UTC time; now when None."""
    if text is None or not text.strip():
        return _to_ms((now or (lambda: datetime.now(UTC)))().astimezone(UTC))
    raw = text.strip()
    try:
        value = datetime.fromisoformat(raw[:-1] + "+00:00" if raw[-1:] in "zZ" else raw)
    except ValueError:
        raise AuditInputError(f"--as-of {raw!r} is not an ISO 8601 time "
                              "(e.g. 2026-11-25T10:00:00Z)") from None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def iso(value: datetime | None) -> str | None:
    """A UTC time in the one style of every face (``ops.timefmt.iso_utc``:
    ``2026-11-25T10:00:00.000Z``), exact: microseconds too when it has them (a bound of a
    drill's filter, a value of ``audit sql``, must not move)."""
    return iso_utc(value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None
                   else value, exact=True)


def _to_ms(value: datetime) -> datetime:
    """Now to the millisecond: the report's time shown in the one style reads back exact
    (an ``--as-of`` given with microseconds is kept, and shown with them)."""
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def bucket_sql(column: str, as_of: datetime) -> str:
    """SQL giving the age bucket of ``column`` (a timestamp) at ``as_of``; null for null."""
    whens = " ".join(f"WHEN {column} > {_literal(as_of - edge)} THEN '{name}'"
                     for name, edge in zip(BUCKETS, BUCKET_EDGES, strict=False))
    return (f"CASE WHEN {column} IS NULL THEN NULL "
            f"WHEN {column} > {_literal(as_of)} THEN '{AFTER_AS_OF}' "
            f"{whens} ELSE '{BUCKETS[-1]}' END")


def _literal(value: datetime) -> str:
    return f"TIMESTAMP '{value.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S.%f')}+00:00'"


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def build_report(spark: SparkSession, path: Any, *, as_of: datetime | None = None,
                 progress: Progress | None = None, use_summary: bool = True) -> dict[str, Any]:
    """The report of the snapshot at ``path`` (audit.md's keys), computed by Spark SQL."""
    say = progress or (lambda _text: None)
    folder = open_snapshot(spark, path)
    when = as_of or parse_as_of(None)
    try:
        return _build(spark, folder, when, say, use_summary)
    except Exception as e:
        if not is_spark_error(e):
            raise
        spark_said = unwrap(e)
        if not is_input_error(spark_said):  # the job, not the snapshot: exit 1, Spark's reason
            raise job_failed(spark_said, "the report") from None
        raise AuditInputError(f"{folder.where} cannot be read as a snapshot: "
                              f"{first_line(spark_said)}") from None


def _build(spark: SparkSession, folder: SnapshotFolder, when: datetime, say: Progress,
           use_summary: bool) -> dict[str, Any]:
    stored = None
    present = None
    if folder.files is not None:  # a committed snapshot: its data as its manifest says?
        disagreement, present = data_disagreement(spark, folder)
        if disagreement is not None:
            say(f"the snapshot's data disagrees with its manifest ({disagreement}): the "
                "stored aggregates are not used; counting the messages that are there")
            use_summary = False
    if use_summary:
        stored = load_summary(spark, folder)
        if stored is not None and folder.files is not None and (
                stored.info.get("files_digest") != files_digest(folder.manifest["files"])
                or stored.info.get("rows") != folder.manifest.get("rows")):
            say("the stored aggregates disagree with the manifest (not computed from the "
                "files it commits): counting the messages instead")
            stored = None
    if stored is not None:
        say(f"counting {counted(stored.info['rows'], grouped=True)} from the stored aggregates")
        spec = ReportInput(folder=folder, as_of=when, plugins=tuple(stored.info["plugins"]))
        rollup = stored.rows
        ages = _ages_from_arrivals(spark, when)
        duplicates = stored.duplicates()
    else:
        say(f"reading the messages of {folder.where}")
        frame = read_messages(spark, folder, files=present)
        types = dict(frame.dtypes)
        plugins = tuple(c for c in plugin_columns(frame.columns) if types[c] in GROUPABLE)
        spec = ReportInput(folder=folder, as_of=when, plugins=plugins)
        say("counting the messages")
        rollup = _rollup(spark, spec)
        ages = None
        say("finding duplicate MsgIds")
        duplicates = duplicate_msg_ids(spark)
    return _assemble(rollup, ages, duplicates, spec)


def _rollup(spark: SparkSession, spec: ReportInput) -> list[dict[str, Any]]:
    """Every list's rows in one GROUPING SETS query over the compact groups (the same SQL
    the export stores its aggregates with, plus the age bucket)."""
    sql, _dims = lists_sql("messages", list(spec.plugins),
                           extra={"bucket": bucket_sql(ARRIVAL_SQL, spec.as_of)})
    rows = [row.asDict(recursive=True) for row in spark.sql(sql).collect()]
    for row in rows:
        name = row.pop("list")
        row["_set"] = "age" if name == "bucket" else name
    return rows


def _ages_from_arrivals(spark: SparkSession, as_of: datetime) -> dict[str, int]:
    sql = (f"SELECT {bucket_sql('timestamp_micros(arrival)', as_of)} AS bucket, sum(n) AS n "
           f"FROM summary_arrivals GROUP BY 1")
    return {row["bucket"]: int(row["n"]) for row in spark.sql(sql).collect()
            if row["bucket"] is not None}


def duplicate_msg_ids(spark: SparkSession, source: str = "messages") -> list[dict[str, Any]]:
    """MsgIds occurring more than once, with their count and queues (never truncated)."""
    sql = duplicates_sql(source)
    rows = [{"msg_id": r["msg_id"], "count": int(r["n"]), "queues": list(r["queues"])}
            for r in spark.sql(sql).collect()]
    return sorted(rows, key=lambda r: (-r["count"], r["msg_id"]))


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


__all__ = ["AFTER_AS_OF", "BUCKETS", "build_report", "duplicate_msg_ids", "iso", "parse_as_of"]

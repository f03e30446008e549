"""From a row of the report to the messages behind it: a ``--where`` filter and a queue.

The console opens the matching messages in its browser, which reads one queue with a
``--where`` expression (docs/where.md); the same row as Spark SQL tells which queues of the
snapshot hold them (:func:`queues_holding`). Every row has one: an age bucket at the report's
``as_of`` is a range of ``arrival`` (the dead-letter header's put time, else the MQMD's: the
time the report's ages count from), a plugin column's row compares the field of the same name
(``ops/where_columns.py``). Text with ``*`` or ``?`` (wildcards of ``=``) is matched as an
anchored regular expression instead, so the filter matches that value only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mqconsole.audit.sqltext import sql_text
from mqconsole.ops.textsearch import escape

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class Drill:
    """The messages behind one row: ``where`` for the browser, ``sql`` for the snapshot,
    and the queue when the row names one."""

    where: str
    sql: str
    queue: str | None = None
    qmgr: str | None = None


END = r"\z"  # the end of the text, in RE2's words (docs/where.md: ``~`` is RE2's)


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _text(value: str | None) -> str:
    return "null" if value is None else _quoted(value)


def _where_eq(where_field: str, value: Any) -> str:
    """``field = value`` in the --where language, exact whatever the value holds."""
    if value is None:
        return f"{where_field} = null"
    if isinstance(value, bool):
        return f"{where_field} = {'true' if value else 'false'}"
    if isinstance(value, int | float):
        return f"{where_field} = {value!r}"
    text = str(value)
    if "*" in text or "?" in text:  # wildcards of '=': an anchored regex is exact
        pattern = "^" + escape(text) + END
        return f"{where_field} ~ {_quoted(pattern)}"
    return f"{where_field} = {_quoted(text)}"


def _eq(field: str, value: Any, where_field: str) -> tuple[str, str]:
    if isinstance(value, int) or (value is None and where_field in ("reason", "backout_count")):
        where = f"{where_field} = {'null' if value is None else int(value)}"
        sql = f"{field} IS NULL" if value is None else f"{field} = {int(value)}"
        return where, sql
    where = _where_eq(where_field, value)
    sql = f"{field} IS NULL" if value is None else f"{field} = {sql_text(value)}"
    return where, sql


def _sql_value(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return sql_text(str(value))


def _age(bucket: str, as_of: datetime) -> tuple[str, str] | None:
    """The bucket at ``as_of`` as an ``arrival`` range (report.bucket_sql's edges)."""
    # (ages, not report: the console calls this on its event loop, without Spark's libraries)
    from mqconsole.audit.ages import (
        AFTER_AS_OF,
        ARRIVAL_SQL,
        BUCKET_EDGES,
        BUCKETS,
        bucket_sql,
        iso,
    )

    same = f"{bucket_sql(ARRIVAL_SQL, as_of)} = {sql_text(bucket)}"
    if bucket == AFTER_AS_OF:
        return f"arrival > {iso(as_of)}", same
    if bucket not in BUCKETS:
        return None
    at = BUCKETS.index(bucket)
    edges = [iso(as_of - edge) for edge in BUCKET_EDGES]  # younger edge first
    parts = []
    if at < len(edges):
        parts.append(f"arrival > {edges[at]}")
    parts.append(f"arrival <= {edges[at - 1] if at > 0 else iso(as_of)}")
    return " and ".join(parts), same


def drill(list_key: str, row: dict[str, Any], *, as_of: datetime | None = None
          ) -> Drill | None:
    """The filter for ``row`` of the list ``list_key`` of a report (``as_of``: the report's
    time, for an age bucket), or None when there is none."""
    parts: list[tuple[str, str]]
    if list_key == "by_queue":
        return Drill(where="", sql=f"qmgr <=> {sql_text(row['qmgr'])} AND queue = "
                                   f"{sql_text(row['queue'])}",
                     queue=row["queue"], qmgr=row["qmgr"])
    if list_key == "by_reason":
        parts = [_eq("dlh_reason", row["reason"], "reason")]
    elif list_key == "by_destination":
        parts = [("reason != null", "dlh_reason IS NOT NULL"),
                 _eq("dlh_dest_qmgr", row["qmgr"], "dest_qmgr"),
                 _eq("dlh_dest_q", row["queue"], "dest_q")]
    elif list_key == "by_reason_destination":
        parts = [_eq("dlh_reason", row["reason"], "reason"),
                 _eq("dlh_dest_q", row["queue"], "dest_q")]
    elif list_key == "by_put_application":
        parts = [_eq("put_appl_name", row["name"], "put_appl_name")]
    elif list_key == "backout_counts":
        parts = [_eq("backout_count", row["backout_count"], "backout_count")]
    elif list_key == "duplicate_msg_ids":
        parts = [(f"msgid = {row['msg_id']}", f"msg_id = {sql_text(row['msg_id'])}")]
    elif list_key == "by_age":
        age = None if as_of is None else _age(row["bucket"], as_of)
        if age is None:
            return None
        parts = [age]
    elif list_key.startswith("by_") and "value" in row:  # a plugin's audit column
        column = list_key.removeprefix("by_")
        quoted = "`" + column.replace("`", "``") + "`"
        value = row["value"]
        parts = [(_where_eq(column, value), f"{quoted} IS NULL" if value is None
                  else f"{quoted} = {_sql_value(value)}")]
    else:
        return None
    return Drill(where=" and ".join(w for w, _ in parts),
                 sql=" AND ".join(s for _, s in parts))


def queues_holding(spark: SparkSession, path: Any, found: Drill) -> list[tuple[str, str, int]]:
    """(qmgr, queue, count) of the snapshot's queues holding the row's messages, most first."""
    from mqconsole.audit.snapshot import open_snapshot, read_messages

    read_messages(spark, open_snapshot(spark, path))
    rows = spark.sql(f"SELECT qmgr, queue, count(*) AS n FROM messages WHERE {found.sql} "
                     f"GROUP BY qmgr, queue ORDER BY n DESC, qmgr, queue").collect()
    return [(r["qmgr"], r["queue"], int(r["n"])) for r in rows]

"""From a row of the report to the messages behind it: a ``--where`` filter and a queue.

The console opens the matching messages in its browser, which reads one queue with a
``--where`` expression (docs/where.md); the same row as Spark SQL tells which queues of the
snapshot hold them (:func:`queues_holding`). Age buckets have no browse filter (the browser's
``age`` counts from the MQMD put time, the report from the dead-letter header's), nor do
plugin columns: :func:`drill` gives None for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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


def _text(value: str | None) -> str:
    return "null" if value is None else "'" + value.replace("'", "''") + "'"


def _sql_text(value: str | None) -> str:
    return "NULL" if value is None else "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _eq(field: str, value: Any, where_field: str) -> tuple[str, str]:
    if isinstance(value, int) or (value is None and where_field in ("reason", "backout_count")):
        where = f"{where_field} = {'null' if value is None else int(value)}"
        sql = f"{field} IS NULL" if value is None else f"{field} = {int(value)}"
        return where, sql
    where = f"{where_field} = {_text(value)}"
    sql = f"{field} IS NULL" if value is None else f"{field} = {_sql_text(value)}"
    return where, sql


def drill(list_key: str, row: dict[str, Any]) -> Drill | None:
    """The filter for ``row`` of the list ``list_key`` of a report, or None."""
    parts: list[tuple[str, str]]
    if list_key == "by_queue":
        return Drill(where="", sql=f"qmgr <=> {_sql_text(row['qmgr'])} AND queue = "
                                   f"{_sql_text(row['queue'])}",
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
        parts = [(f"msgid = {row['msg_id']}", f"msg_id = {_sql_text(row['msg_id'])}")]
    else:
        return None
    return Drill(where=" and ".join(w for w, _ in parts),
                 sql=" AND ".join(s for _, s in parts))


def queues_holding(spark: SparkSession, path: Any, found: Drill) -> list[tuple[str, str, int]]:
    """(qmgr, queue, count) of the snapshot's queues holding the row's messages, most first."""
    from mqconsole.audit.snapshot import locate, read_messages

    read_messages(spark, locate(path))
    rows = spark.sql(f"SELECT qmgr, queue, count(*) AS n FROM messages WHERE {found.sql} "
                     f"GROUP BY qmgr, queue ORDER BY n DESC, qmgr, queue").collect()
    return [(r["qmgr"], r["queue"], int(r["n"])) for r in rows]

"""Values written into Spark SQL text read back as themselves: the drill-downs, the
compaction and the aggregates name queues and MsgIds this way, and a queue name may hold
a quote or a backslash (MQ allows neither in a name, but a saved file's or a plugin's
value reaches the same text)."""

from __future__ import annotations

from mqconsole.audit.sqltext import sql_text

NASTY = ["APP.DLQ", "", "it's", "back\\slash", "\\'", "'; DROP TABLE messages; --",
         "line\nbreak", "tab\there", "ünïcødé ☃", "%2F/a", "trailing\\", "''", "\"double\""]


def test_every_value_reads_back_as_itself(spark) -> None:
    sql = "SELECT " + ", ".join(f"{sql_text(v)} AS c{i}" for i, v in enumerate(NASTY))
    row = spark.sql(sql).collect()[0]
    assert [row[f"c{i}"] for i in range(len(NASTY))] == NASTY


def test_none_is_sql_null(spark) -> None:
    assert sql_text(None) == "NULL"
    assert spark.sql(f"SELECT {sql_text(None)} IS NULL AS n").collect()[0]["n"] is True

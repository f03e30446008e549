"""``audit sql``: an ad-hoc query over a snapshot's ``messages``, with one-sentence errors.

Only queries run (SELECT, WITH, VALUES, TABLE, FROM, DESCRIBE, SHOW, EXPLAIN): a snapshot is
evidence, and ``CREATE TABLE ... AS`` would write a warehouse folder where the command runs.
A query Spark refuses (syntax, unknown column, a failing cast) is exit 2 with Spark's first
line, never its JVM stack trace. Rows come back as JSON-ready values: times in ISO 8601 UTC,
bytes in hex, maps as objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from mqconsole.audit.errors import AuditInputError, first_line, is_spark_error
from mqconsole.audit.report import iso
from mqconsole.audit.snapshot import locate, read_messages

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

QUERY_WORDS = ("SELECT", "WITH", "VALUES", "TABLE", "FROM", "DESCRIBE", "DESC", "SHOW",
               "EXPLAIN")
_FIRST_WORD = re.compile(r"\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*\(*\s*([A-Za-z]+)", re.S)


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]


def check_query(text: str) -> str:
    """``text`` if it is one query; :class:`AuditInputError` otherwise."""
    query = text.strip().rstrip(";").strip()
    if not query:
        raise AuditInputError("the query is empty: give one, e.g. "
                              "\"SELECT queue, count(*) FROM messages GROUP BY queue\"")
    match = _FIRST_WORD.match(query)
    word = match.group(1).upper() if match else ""
    if word not in QUERY_WORDS:
        raise AuditInputError(f"audit sql runs queries (SELECT ... FROM messages); "
                              f"{(word or query[:20])!r} is not one")
    return query


def run_query(spark: SparkSession, path: Any, text: str) -> QueryResult:
    """Run ``text`` over the snapshot at ``path`` (the view ``messages``)."""
    query = check_query(text)
    folder = locate(path)
    read_messages(spark, folder)
    try:
        frame = spark.sql(query)
        columns = list(frame.columns)
        rows = [[plain(v) for v in row] for row in frame.collect()]
    except Exception as e:
        if not is_spark_error(e):
            raise
        raise AuditInputError(f"the query failed: {first_line(e)}") from None
    return QueryResult(columns=columns, rows=rows)


def plain(value: Any) -> Any:
    """A value Spark returned, as JSON can hold it."""
    if isinstance(value, datetime):  # Spark gives naive local times for TIMESTAMP
        return iso(value.astimezone(UTC) if value.tzinfo is None else value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex().upper()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if hasattr(value, "asDict"):
            return {k: plain(v) for k, v in value.asDict().items()}
        return [plain(v) for v in value]
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value



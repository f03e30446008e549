"""``audit sql``: an ad-hoc query over a snapshot's ``messages``, read-only and bounded.

A snapshot is evidence, and the machine it runs on holds other people's files, so a query
may only read the snapshot. What runs is decided by Spark's own parser and analyser, not by
looking at words:

- the text is parsed by Spark as the inside of ``SELECT * FROM (<text>)``, where its grammar
  admits one query and nothing else: INSERT (``FROM … INSERT`` too), CREATE, DROP, ALTER,
  SET, ADD, CACHE, EXECUTE IMMEDIATE, scripting blocks are syntax errors there, never run;
- file-path table references (``text.`/etc/passwd```, ``binaryFile.`…```) do not resolve:
  the session runs with ``spark.sql.runSQLOnFiles=false`` (the snapshot is the ``messages``
  view, read by mqconsole itself);
- the analysed plan (Spark's EXPLAIN text, every field written out) is refused when it
  calls Java by reflection (``reflect``, ``java_method``, ``try_reflect``: environment
  variables, ``chmod`` through Hadoop's static helpers) or runs a program
  (``TRANSFORM … USING``). Text Spark cut short ("… more fields") is refused too: what
  cannot be read is not run.

``DESCRIBE messages`` lists the view's columns (answered here, not by a Spark command).
Rows stream from Spark (``toLocalIterator``): the CLI shows the first ``limit`` (1,000 by
default) and says when there are more; ``write_result`` writes every row as Parquet or CSV
through Spark. A query Spark refuses is exit 2 with Spark's first line, never its JVM stack
trace. Rows come back as JSON-ready values: times in ISO 8601 UTC, bytes in hex, maps as
objects.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqconsole.audit.errors import (
    AuditError,
    AuditInputError,
    first_line,
    is_input_error,
    is_spark_error,
    job_failed,
    unwrap,
)
from mqconsole.audit.report import iso
from mqconsole.audit.snapshot import VIEW, missing_note, open_snapshot, read_messages

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

DEFAULT_LIMIT = 1000
OUT_FORMATS = ("parquet", "csv")
QUERY_WORDS = ("SELECT", "WITH", "VALUES", "TABLE", "FROM", "DESCRIBE", "DESC")
_FIRST_WORD = re.compile(r"\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*\(*\s*([A-Za-z]+)", re.S)
_DESCRIBE = re.compile(rf"\s*DESC(?:RIBE)?\s+(?:TABLE\s+)?`?{VIEW}`?\s*", re.I)
# the inside of a FROM (...): Spark's grammar takes one query there and no statement
_WRAP = "SELECT * FROM (\n{}\n) AS audit_query"
# what a plan must not do, as Spark's EXPLAIN prints it (an expression's pretty name, a node)
_FORBIDDEN = (
    (re.compile(r"\b(?:try_reflect|reflect|java_method)\(", re.I),
     "calls Java by reflection (reflect, java_method, try_reflect)"),
    (re.compile(r"\bScriptTransformation\b"), "runs a program (TRANSFORM ... USING)"),
    (re.compile(r"\.\.\. \d+ more fields"), "is too wide for Spark to show in full"),
)
# set on the session before a query is analysed (plain SQL settings: Spark Connect too)
QUERY_CONF = {
    "spark.sql.runSQLOnFiles": "false",
    "spark.sql.debug.maxToStringFields": "1000000",
}
_CSV_TEXT = {"map": "to_json({})", "binary": "hex({})", "struct": "to_json({})",
             "array": "to_json({})"}


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]
    more: bool = False  # rows beyond the limit were left out


@dataclass
class PreparedQuery:
    """A checked query over the ``messages`` view, not run yet."""

    columns: list[str]
    frame: DataFrame | None  # None: the answer is ``described`` (DESCRIBE messages)
    described: list[list[Any]] | None = None
    notes: list[str] = field(default_factory=list)
    """What the reader says about the snapshot (files its manifest lists are missing)."""


def check_query(text: str) -> str:
    """``text`` without trailing ``;`` if it may be a query; :class:`AuditInputError`
    otherwise (a first look before Spark starts: Spark's parser has the last word)."""
    query = text.strip()
    while query.endswith(";"):
        query = query[:-1].rstrip()
    if not query:
        raise AuditInputError("the query is empty: give one, e.g. "
                              "\"SELECT queue, count(*) FROM messages GROUP BY queue\"")
    match = _FIRST_WORD.match(query)
    word = match.group(1).upper() if match else ""
    if word not in QUERY_WORDS:
        raise AuditInputError(f"audit sql runs queries (SELECT ... FROM messages) and never "
                              f"writes; {(word or query[:20])!r} is not one")
    return query


def prepare_query(spark: SparkSession, path: Any, text: str) -> PreparedQuery:
    """Parse and analyse ``text`` over the snapshot at ``path``; refuse (exit 2) anything
    but a query that reads the snapshot only."""
    query = check_query(text)
    folder = open_snapshot(spark, path)
    frame = read_messages(spark, folder)
    notes = [note for note in [missing_note(folder)] if note]
    if _DESCRIBE.fullmatch(query):
        return PreparedQuery(["col_name", "data_type"], None,
                             [[name, kind] for name, kind in frame.dtypes], notes)
    try:
        for key, value in QUERY_CONF.items():
            spark.conf.set(key, value)
        result = spark.sql(_WRAP.format(query))
        columns = list(result.columns)  # analysed here (Spark Connect: now)
        plan = spark.sql("EXPLAIN EXTENDED " + _WRAP.format(query)).collect()[0][0]
    except Exception as e:
        if not is_spark_error(e):
            raise
        raise _failed(e) from None
    check_plan(str(plan))
    return PreparedQuery(columns, result, notes=notes)


def check_plan(plan: str) -> None:
    """:class:`AuditInputError` when Spark's text of the plan shows a forbidden part."""
    for pattern, what in _FORBIDDEN:
        if pattern.search(plan):
            raise AuditInputError(f"audit sql only reads the snapshot; this query {what}")


def _failed(error: BaseException) -> AuditError:
    """A query Spark refused (exit 2), or a job that failed (exit 1), in one sentence."""
    error = unwrap(error)
    if not is_input_error(error):
        return job_failed(error, "the query")
    line = first_line(error)
    if "PARSE_" in line:
        return AuditInputError(f"the query failed: {line} (audit sql runs one query, SELECT "
                               "... FROM messages; statements that write or change settings "
                               "are not queries)")
    return AuditInputError(f"the query failed: {line}")


def stream_rows(prepared: PreparedQuery, limit: int | None = DEFAULT_LIMIT
                ) -> Iterator[list[Any]]:
    """The rows as JSON-ready values, as Spark sends them; at most ``limit + 1`` (the one
    more tells the caller there are more); ``None`` or 0: all."""
    if prepared.described is not None:
        yield from prepared.described
        return
    frame = prepared.frame
    assert frame is not None
    if limit:
        frame = frame.limit(limit + 1)
    try:
        for row in frame.toLocalIterator():
            yield [plain(v) for v in row]
    except Exception as e:
        if not is_spark_error(e):
            raise
        raise _failed(e) from None


def run_query(spark: SparkSession, path: Any, text: str,
              limit: int | None = DEFAULT_LIMIT) -> QueryResult:
    """Run ``text`` over the snapshot at ``path`` (the view ``messages``): its first
    ``limit`` rows (0 or None: all), and whether there were more."""
    prepared = prepare_query(spark, path, text)
    rows = list(stream_rows(prepared, limit))
    more = bool(limit) and len(rows) > (limit or 0)
    return QueryResult(prepared.columns, rows[:limit] if more else rows, more)


def check_out(out: str, snapshot: Any, remote: bool = False) -> str:
    """``--out`` of ``audit sql`` as a URI: outside the snapshot; new, in a folder that
    exists, where this process can look (a ``file:`` folder of a classic session; Spark's
    writer refuses one that exists anywhere)."""
    from .store import display, local_path, relative, to_uri

    target, root = to_uri(out), to_uri(snapshot)
    if target == root or relative(target, root) is not None:
        raise AuditInputError(f"--out {display(target)} is inside the snapshot {display(root)}:"
                              " a snapshot is evidence, audit sql never writes there")
    path = local_path(target)
    if path is None or remote:
        return target
    folder = Path(path)
    if folder.exists() or folder.is_symlink():
        raise AuditInputError(f"{folder} exists: audit sql --out writes a new folder")
    if not folder.parent.is_dir():
        raise AuditInputError(f"the folder of --out ({folder.parent}) does not exist")
    real = local_path(root)
    if real is not None:
        resolved = Path(real).resolve()
        if folder.parent.resolve() == resolved or resolved in folder.parent.resolve().parents:
            raise AuditInputError(f"--out {folder} is inside the snapshot {resolved}: a "
                                  "snapshot is evidence, audit sql never writes there")
    return target


def write_result(prepared: PreparedQuery, out: str, fmt: str) -> int:
    """Write every row of ``prepared`` to the new folder ``out`` (a URI) through Spark
    (Parquet, or CSV with a header: maps, arrays and structs as JSON, bytes as hex); the
    rows."""
    from .stores import store_for

    if fmt not in OUT_FORMATS:
        raise AuditInputError(f"--format {fmt!r}: use parquet or csv")
    frame = prepared.frame
    if frame is None:
        raise AuditInputError("DESCRIBE is answered on the terminal: --out takes a query")
    try:
        if fmt == "csv":
            frame = frame.selectExpr(*[_csv_column(name, kind) for name, kind in frame.dtypes])
        writer = frame.write.mode("error")  # "error": Spark Connect refuses "errorifexists"
        if fmt == "csv":
            writer.option("header", "true").csv(out)
        else:
            writer.option("compression", "zstd").parquet(out)
        spark = frame.sparkSession
        store_for(spark, out).make_private(out)  # private, like the snapshot
        reader = spark.read
        if fmt == "csv":
            reader = reader.option("header", "true")
        return reader.format(fmt).load(out).count()
    except Exception as e:
        if not is_spark_error(e):
            raise
        raise _failed(e) from None


def _csv_column(name: str, kind: str) -> str:
    quoted = "`" + name.replace("`", "``") + "`"
    for prefix, template in _CSV_TEXT.items():
        if kind.startswith(prefix):
            return f"{template.format(quoted)} AS {quoted}"
    return quoted


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

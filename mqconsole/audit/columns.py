"""The snapshot's columns (``docs/audit.md``): names and types, fixed.

One table gives each column's Spark SQL type and its Arrow type; the data source declares
the Spark schema, ``rows`` builds Arrow record batches of exactly the Arrow schema (Spark
refuses a batch whose types differ: timestamps are ``timestamp[us, tz=UTC]``). Plugin audit
columns (``mqconsole_audit_columns``) follow the fixed ones, named ``<plugin>_<column>``.

A message whose headers do not parse is one row whose header columns (``dlh_*``, ``xqh_*``,
``properties``) are null, and so are ``payload_length`` and ``payload_sha256`` (where the
payload starts cannot be known); every other row has them (``properties`` is an empty map
without an RFH2 ``usr`` folder). So ``properties IS NULL`` (``UNPARSED_SQL``) counts the
unparsed rows, as ``payload_length IS NULL`` would.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

# 2: the manifest lists every data file with its rows, and _SUCCESS is written after it
SCHEMA_VERSION = 2

# (name, Spark SQL type, Arrow type)
_FIXED: tuple[tuple[str, str, pa.DataType], ...] = (
    ("qmgr", "string", pa.string()),
    ("queue", "string", pa.string()),
    ("position", "bigint", pa.int64()),
    ("source", "string", pa.string()),
    ("msg_id", "string", pa.string()),
    ("correl_id", "string", pa.string()),
    ("group_id", "string", pa.string()),
    ("put_time", "timestamp", pa.timestamp("us", tz="UTC")),
    ("put_date", "date", pa.date32()),
    ("put_appl_name", "string", pa.string()),
    ("user_id", "string", pa.string()),
    ("appl_identity_data", "string", pa.string()),
    ("put_appl_type", "int", pa.int32()),
    ("msg_type", "int", pa.int32()),
    ("feedback", "int", pa.int32()),
    ("persistence", "int", pa.int32()),
    ("priority", "int", pa.int32()),
    ("backout_count", "int", pa.int32()),
    ("ccsid", "int", pa.int32()),
    ("encoding", "int", pa.int32()),
    ("expiry", "int", pa.int32()),
    ("format", "string", pa.string()),
    ("reply_to_q", "string", pa.string()),
    ("reply_to_qmgr", "string", pa.string()),
    ("dlh_reason", "int", pa.int32()),
    ("dlh_reason_name", "string", pa.string()),
    ("dlh_dest_q", "string", pa.string()),
    ("dlh_dest_qmgr", "string", pa.string()),
    ("dlh_format", "string", pa.string()),
    ("dlh_put_appl_name", "string", pa.string()),
    ("dlh_put_time", "timestamp", pa.timestamp("us", tz="UTC")),
    ("xqh_remote_q", "string", pa.string()),
    ("xqh_remote_qmgr", "string", pa.string()),
    ("properties", "map<string,string>", pa.map_(pa.string(), pa.string())),
    ("length", "bigint", pa.int64()),
    ("payload_length", "bigint", pa.int64()),
    ("payload_sha256", "string", pa.string()),
)
PAYLOAD = ("payload", "binary", pa.binary())

COLUMNS: tuple[str, ...] = tuple(name for name, _, _ in _FIXED)
HEADER_COLUMNS: tuple[str, ...] = tuple(
    n for n in COLUMNS if n.startswith(("dlh_", "xqh_")) or n == "properties")
# by queue only (by queue and put date made hundreds of tiny files: docs/audit.md)
PARTITION_COLUMNS = ("queue",)
UNPARSED_SQL = "properties IS NULL"

# Spark SQL type strings a plugin may declare, and their Arrow types
_SIMPLE_TYPES: dict[str, pa.DataType] = {
    "string": pa.string(), "bigint": pa.int64(), "long": pa.int64(), "int": pa.int32(),
    "integer": pa.int32(), "smallint": pa.int16(), "short": pa.int16(),
    "tinyint": pa.int8(), "byte": pa.int8(), "double": pa.float64(), "float": pa.float32(),
    "boolean": pa.bool_(), "binary": pa.binary(), "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
}
_PLUGIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class BadColumn(ValueError):
    """A plugin column whose name or type cannot go in the snapshot."""


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    spark_type: str
    arrow_type: pa.DataType


def arrow_type_of(spark_type: str) -> pa.DataType:
    """The Arrow type of a plugin's Spark SQL type string (simple types only)."""
    key = spark_type.strip().lower()
    if key not in _SIMPLE_TYPES:
        raise BadColumn(f"type {spark_type!r} is not one of {', '.join(sorted(_SIMPLE_TYPES))}")
    return _SIMPLE_TYPES[key]


def snapshot_columns(*, with_payload: bool = False,
                     plugin_columns: Sequence[tuple[str, str]] = ()) -> list[Column]:
    """Every column in order: the fixed ones, ``payload`` when asked, then plugin columns
    given as ``(full name, Spark type)``."""
    out = [Column(*c) for c in _FIXED]
    if with_payload:
        out.append(Column(*PAYLOAD))
    taken = {c.name for c in out}
    for name, spark_type in plugin_columns:
        if not _PLUGIN_NAME.match(name) or name in taken:
            raise BadColumn(f"audit column {name!r} is not a free column name")
        out.append(Column(name, spark_type.strip().lower(), arrow_type_of(spark_type)))
        taken.add(name)
    return out


def arrow_schema(columns: Sequence[Column]) -> pa.Schema:
    return pa.schema([pa.field(c.name, c.arrow_type) for c in columns])


def spark_ddl(columns: Sequence[Column]) -> str:
    """``qmgr string, queue string, ...``: what ``DataSource.schema()`` and a reader of the
    snapshot (``spark.read.schema(...)``) take. Names are back-quoted."""
    return ", ".join(f"`{c.name}` {c.spark_type}" for c in columns)


__all__ = ["COLUMNS", "HEADER_COLUMNS", "PARTITION_COLUMNS", "SCHEMA_VERSION", "UNPARSED_SQL",
           "BadColumn", "Column", "arrow_schema", "arrow_type_of", "snapshot_columns",
           "spark_ddl"]

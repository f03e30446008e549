"""Values written into Spark SQL text, without Spark (the console's drill-downs use it on
their event loop, where no Spark library is imported)."""

from __future__ import annotations


def sql_text(value: str | None) -> str:
    """``value`` as a Spark SQL string literal (``NULL`` for None). Spark's parser reads
    backslash escapes in string literals (``spark.sql.parser.escapedStringLiterals`` is
    false by default), so a backslash and a quote are each escaped with one."""
    if value is None:
        return "NULL"
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


__all__ = ["sql_text"]

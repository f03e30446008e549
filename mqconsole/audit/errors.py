"""What can go wrong reading a snapshot, as one sentence, with the exit code the CLI uses.

:class:`AuditInputError` (exit 2): the snapshot folder is missing or not a snapshot, the
``--as-of`` time or the SQL is bad; :class:`SparkFailed` (exit 3): Spark did not start or its
job failed. (Java or pyspark missing is
:class:`mqconsole.audit.java.SparkUnavailable`, exit 3.) :func:`first_line` keeps Spark's
own sentence and drops its JVM stack trace.
"""

from __future__ import annotations


class AuditError(Exception):
    """Base of the report's errors: ``str(e)`` is the sentence, ``code`` the exit code."""

    code = 2


class AuditInputError(AuditError):
    """A bad snapshot, time or query (exit 2)."""

    code = 2


class SparkFailed(AuditError):
    """A Spark job failed or Spark could not start (exit 3); the sentence names why."""

    code = 3


def first_line(error: BaseException) -> str:
    """The first line of an error Spark raised, without its JVM stack trace."""
    getter = getattr(error, "getMessage", None)
    try:
        text = str(getter() if callable(getter) else error)
    except Exception:  # a py4j error whose JVM side is gone
        text = str(error)
    for line in text.strip().splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return type(error).__name__


def is_spark_error(error: Exception) -> bool:
    """Whether Spark or py4j raised it (a sentence for the operator), not a bug of ours."""
    try:
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException
    except ImportError:  # pragma: no cover - pyspark is there when a query ran
        return False
    return isinstance(error, PySparkException | Py4JError) or type(error).__module__.startswith(
        ("pyspark", "py4j"))

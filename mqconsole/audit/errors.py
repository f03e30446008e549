"""What can go wrong in an audit, as one sentence each, with the exit code the CLI uses.

:class:`AuditInputError` (exit 2): the snapshot folder is missing or not a snapshot, the
``--as-of`` time or the SQL is bad. :class:`SparkUnavailable` (exit 3): pyspark, pyarrow or
Java is missing — the sentence says how to get them. :class:`SparkFailed` (exit 3): Spark
did not start or cannot reach its master.
"""

from __future__ import annotations


class AuditError(Exception):
    """Base of the audit's errors: ``str(e)`` is the sentence, ``code`` the exit code."""

    code = 2


class AuditInputError(AuditError):
    """A bad snapshot, time or query (exit 2)."""

    code = 2


class SparkUnavailable(AuditError):
    """pyspark, pyarrow or Java is missing (exit 3); the message says how to get them."""

    code = 3


class SparkFailed(AuditError):
    """Spark could not start or reach its master (exit 3); the message names it."""

    code = 3

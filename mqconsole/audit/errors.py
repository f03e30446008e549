"""What can go wrong reading a snapshot, as one sentence, with the exit code the CLI uses.

:class:`AuditInputError` (exit 2): the snapshot folder is missing or not a snapshot, the
``--as-of`` time or the SQL is bad; :class:`SparkFailed` (exit 1): a Spark job failed (the
sentence gives Spark's reason); :class:`SparkDidNotStart` (exit 3): the JVM or the cluster
did not start, like Java or pyspark missing (:class:`mqconsole.audit.java.SparkUnavailable`,
exit 3). :func:`first_line` keeps Spark's own sentence and drops its JVM stack trace;
:func:`is_input_error` tells a query or snapshot Spark refuses from a job that failed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


class AuditError(Exception):
    """Base of the report's errors: ``str(e)`` is the sentence, ``code`` the exit code."""

    code = 2


class AuditInputError(AuditError):
    """A bad snapshot, time or query (exit 2)."""

    code = 2


class NoSpace(AuditError):
    """The disk filled up while a snapshot was written (exit 1: nothing was written; free
    some space and export again)."""

    code = 1


class SparkFailed(AuditError):
    """A Spark job failed (exit 1); the sentence names why."""

    code = 1


class SparkDidNotStart(AuditError):
    """Spark could not start (exit 3, as for a missing Java or pyspark)."""

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
    """Whether Spark or py4j raised it (a sentence for the operator), not a bug of ours.
    Never imports them (neither loaded: not theirs; the console and the CLI's other
    commands do not load pyspark)."""
    if "pyspark" not in sys.modules and "py4j" not in sys.modules:
        return False
    try:
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException
    except ImportError:  # pragma: no cover - pyspark is there when a query ran
        return False
    return isinstance(error, PySparkException | Py4JError) or type(error).__module__.startswith(
        ("pyspark", "py4j"))


# in a failed job's text: a file of the snapshot Spark could not read (not the job's fault)
_UNREADABLE = ("FAILED_READ_FILE", "CANNOT_READ_FILE_FOOTER", "PATH_NOT_FOUND",
               "is not a Parquet file", "FileNotFoundException")


def is_input_error(error: BaseException) -> bool:
    """Whether Spark refused what it was given (the SQL, a value, an unreadable file of the
    snapshot: exit 2) rather than failing to run the job (exit 1)."""
    try:
        from pyspark.errors import (
            AnalysisException,
            ArithmeticException,
            ArrayIndexOutOfBoundsException,
            DateTimeException,
            IllegalArgumentException,
            NumberFormatException,
        )
    except ImportError:  # pragma: no cover - pyspark is there when a job ran
        return False
    if isinstance(error, AnalysisException | ArithmeticException | DateTimeException
                  | ArrayIndexOutOfBoundsException | IllegalArgumentException
                  | NumberFormatException):
        return True
    text = str(error)
    return any(marker in text for marker in _UNREADABLE)


def job_failed(error: BaseException, what: str, log_file: object = None) -> SparkFailed:
    """A failed Spark job as one sentence with Spark's reason (exit 1)."""
    where = f"; Spark's words are in {log_file}" if log_file else ""
    return SparkFailed(f"{what} failed in Spark: {first_line(error)}{where}")


def spark_failure(error: BaseException, what: str, *, unreadable: str | None = None
                  ) -> BaseException:
    """``error`` as the operator's one sentence when Spark or py4j raised it and nothing
    of ours said it yet: a job that failed is :class:`SparkFailed` (exit 1, "WHAT failed
    in Spark: <Spark's reason>"); with ``unreadable`` (the start of a sentence naming the
    input, e.g. "snap cannot be read as a snapshot"), what Spark refused of the input
    (:func:`is_input_error`) is :class:`AuditInputError` (exit 2). Any other error is given
    back as it is (ours already said, or a bug)."""
    if isinstance(error, AuditError) or not isinstance(error, Exception) \
            or not is_spark_error(error):
        return error
    said = unwrap(error)
    if unreadable is not None and is_input_error(said):
        return AuditInputError(f"{unreadable}: {first_line(said)}")
    if "no space left on device" in str(said).lower():
        return NoSpace(f"{what} failed: no space left on device (free some space and run it "
                       "again)")
    return job_failed(said, what)


@contextmanager
def spark_failures(what: str, *, unreadable: str | None = None) -> Iterator[None]:
    """Around a command's work once Spark has started: whatever Spark or py4j raises in it
    leaves as :func:`spark_failure`'s sentence (exit 1, or 2 for an unreadable input),
    never as an internal error. One boundary per command, so that a job of any step (a
    store operation over Spark Connect, a count, a compaction) is said the same way."""
    try:
        yield
    except Exception as e:
        said = spark_failure(e, what, unreadable=unreadable)
        if said is e:
            raise
        raise said from None


def unwrap(error: BaseException) -> BaseException:
    """Spark's own exception inside a py4j error (``toLocalIterator`` raises a bare
    ``Py4JJavaError`` "An error occurred while calling …"): the first exception in the Java
    cause chain pyspark knows (a failing cast's ``[CAST_INVALID_INPUT]``), else the top one
    as pyspark words it (``Job aborted due to stage failure: …``)."""
    try:
        from py4j.protocol import Py4JJavaError
        from pyspark.errors.exceptions.captured import UnknownException, convert_exception
    except ImportError:  # pragma: no cover - pyspark is there when a job ran
        return error
    if not isinstance(error, Py4JJavaError):
        return error
    try:
        java = error.java_exception
        top = None
        for _ in range(12):
            if java is None:
                break
            converted = convert_exception(java)
            if not isinstance(converted, UnknownException):
                return converted
            top = top or converted
            java = java.getCause()
        return top or error
    except Exception:  # the JVM is gone: what py4j said
        return error

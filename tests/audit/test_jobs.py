"""The console's audit jobs (audit/jobs.py) without Spark: how a failure is said."""

from __future__ import annotations

from mqconsole.audit.errors import AuditInputError
from mqconsole.audit.jobs import Cancelled, sentence


class Py4JJavaError(Exception):
    """As py4j's says itself: its message, then the Java exception and its stack trace."""


def test_an_unexpected_failure_is_one_line_without_the_stack_trace():
    java = Py4JJavaError(
        "An error occurred while calling o42.parquet.\n"
        ": java.io.IOException: Mkdirs failed to create /srv/snap/messages\n"
        "\tat org.apache.hadoop.fs.ChecksumFileSystem.create(ChecksumFileSystem.java:515)\n"
        "\tat org.apache.spark.sql.execution.datasources.FileFormatWriter$.write(...)\n")
    said = sentence(java)
    assert said == ("the audit failed: Py4JJavaError: An error occurred while calling "
                    "o42.parquet. java.io.IOException: Mkdirs failed to create "
                    "/srv/snap/messages")
    assert "\n" not in said and " at org.apache" not in said
    assert sentence(RuntimeError("the JVM went away\n\tat somewhere")) == \
        "the audit failed: RuntimeError: the JVM went away"
    assert sentence(KeyError()) == "the audit failed: KeyError: KeyError"
    assert len(sentence(RuntimeError("x" * 5000))) < 400


def test_the_audits_own_sentences_are_said_as_they_are():
    assert sentence(Cancelled("report cancelled")) == "report cancelled"
    assert sentence(AuditInputError("no local queue matches APP.*")) == \
        "no local queue matches APP.*"

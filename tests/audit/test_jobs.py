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


def test_a_failed_spark_job_is_the_cli_s_sentence_on_the_console(tmp_path, monkeypatch):
    """The console's report whose snapshot cannot be opened (over Spark Connect, a job on
    the server that fails): the CLI's one sentence, exit 1's, also through the screen's
    own last word (``as_cancelled`` again, then ``sentence``); an export's failed job, and
    one no job said (the drill-down's), the same way."""
    import threading
    from datetime import UTC, datetime

    import pytest
    from pyspark.errors.exceptions.connect import SparkConnectGrpcException

    from mqconsole.audit import jobs, stores
    from mqconsole.audit.errors import SparkFailed
    from mqconsole.audit.serverstore import ServerStore
    from mqconsole.tui.screens.audit import sentence as shown
    from tests.audit.reportdata import make_rows, write_snapshot

    reason = "[TASK_FAILED] Lost executor 1 on worker-3"

    class EveryJobFails(ServerStore):
        def many(self, ops):
            raise SparkConnectGrpcException(message=f"{reason}\n\tat org.apache.spark.X")

    folder = write_snapshot(tmp_path / "snap", make_rows(5, seed=3))
    monkeypatch.setattr(stores, "store_for", lambda spark, _uri: EveryJobFails(spark))
    with pytest.raises(SparkFailed) as failed:
        jobs.report(lambda _master: object(), None, folder, datetime.now(UTC), jobs.Watch())
    assert str(failed.value) == f"the report failed in Spark: {reason}"
    again = jobs.as_cancelled("report", failed.value, threading.Event())
    assert shown(again) == f"the report failed in Spark: {reason}"
    grpc = SparkConnectGrpcException(message=reason)
    assert str(jobs.as_cancelled("export", grpc, threading.Event())) == \
        f"the export failed in Spark: {reason}"
    assert sentence(grpc) == f"the audit job failed in Spark: {reason}"
    cancel = threading.Event()
    cancel.set()
    assert isinstance(jobs.as_cancelled("export", grpc, cancel), Cancelled)

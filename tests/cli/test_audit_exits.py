"""A Spark job that fails at any step of an audit command is exit 1 with Spark's reason in
one sentence (issue 25 item 9), never the internal error (exit 70): the export's read, its
parallelism question (a job over Spark Connect), compaction, count and aggregates, its
commit's store jobs (Connect: ServerStore); the report's and the query's opening of the
snapshot over Connect; ``audit clean`` over another file system. Each failure is a real
pyspark exception raised by the one call it replaces; in process on the test's Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mqconsole.audit.export import MANIFEST
from mqconsole.audit.serverstore import ServerStore
from mqconsole.audit.store import LocalStore, Op
from tests.audit.reportdata import make_rows, write_snapshot
from tests.audit.scene import build_scene
from tests.cli.conftest import run_cli

REASON = "[TASK_FAILED] Lost executor 1 on worker-3: the worker went away"


def _failure() -> Exception:
    """What a Spark Connect client raises for a job that failed on the server."""
    from pyspark.errors.exceptions.connect import SparkConnectGrpcException

    return SparkConnectGrpcException(message=f"{REASON}\n\tat org.apache.spark.Executor")


def _fails(*_args: Any, **_kwargs: Any) -> Any:
    raise _failure()


class CommitFails(LocalStore):
    """The commit's store job fails (the one that writes the manifest); the rest work."""

    def many(self, ops: list[Op]) -> list[Any]:
        if any(name == "write_new" and args["uri"].endswith(f"/{MANIFEST}")
               for name, args in ops):
            raise _failure()
        return super().many(ops)


class EveryJobFails(ServerStore):
    """A Connect server's store whose every job fails."""

    def many(self, ops: list[Op]) -> list[Any]:
        raise _failure()


def _one_sentence(err: str, start: str) -> str:
    said = [line for line in err.splitlines() if line.startswith("mqconsole:")]
    assert len(said) == 1, err
    assert said[0].startswith(f"mqconsole: {start}"), err
    assert "Traceback" not in err and "at org.apache" not in err and "internal error" not in err
    return said[0]


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return build_scene(tmp_path_factory.mktemp("scene"))


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> Path:
    return write_snapshot(tmp_path_factory.mktemp("exits") / "snap", make_rows(40, seed=5))


@pytest.mark.parametrize("step", ["parallelism", "compaction", "count", "commit"])
def test_an_export_whose_spark_job_fails_is_exit_1_and_leaves_no_snapshot(
        scene, tmp_path, spark, monkeypatch, step) -> None:
    from mqconsole.audit import compact, export, summary

    if step == "parallelism":  # over Connect: a job on the server, before the read's
        monkeypatch.setattr(export, "_parallelism", _fails)
    elif step == "compaction":
        monkeypatch.setattr(compact, "compact", _fails)
    elif step == "count":  # the count and the aggregates' job
        monkeypatch.setattr(summary, "store_aggregates_by_file", _fails)
    else:
        monkeypatch.setattr(export, "store_for", lambda _spark, _uri: CommitFails())
    out = tmp_path / "exports" / "snap"
    out.parent.mkdir()
    r = run_cli("--embedded", str(scene.qm_path), "audit", "export", "--out", str(out),
                "--queues", "APP.ORDERS.BOQ", "--master", "local[2]", "--json",
                home=tmp_path / "home")
    assert r.code == 1, r.err
    line = _one_sentence(r.err, "the export failed in Spark: ")
    assert REASON in line
    assert r.json["error"] == line.removeprefix("mqconsole: ")
    assert list(out.parent.iterdir()) == []  # neither a snapshot nor its staging folder


@pytest.mark.parametrize(("command", "what"), [
    (["report"], "the report"), (["sql", "SELECT count(*) FROM messages"], "the query")])
def test_report_and_sql_whose_snapshot_cannot_be_opened_over_connect_are_exit_1(
        snapshot, tmp_path, spark, monkeypatch, command, what) -> None:
    """Over Spark Connect the snapshot is opened by a job on the server (ServerStore)."""
    from mqconsole.audit import stores

    monkeypatch.setattr(stores, "store_for", lambda spark, _uri: EveryJobFails(spark))
    r = run_cli("audit", command[0], "--in", str(snapshot), *command[1:], "--master",
                "local[2]", home=tmp_path / "home")
    assert r.code == 1, r.err
    assert REASON in _one_sentence(r.err, f"{what} failed in Spark: ")
    assert r.out == ""


def test_a_snapshot_spark_refuses_as_it_opens_is_exit_2(snapshot, tmp_path, spark,
                                                        monkeypatch) -> None:
    """Spark refusing the input (a path it cannot read) stays exit 2, as for the report's
    own jobs."""
    from pyspark.errors import AnalysisException

    from mqconsole.audit import snapshot as snapshot_module

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        raise AnalysisException(message="[PATH_NOT_FOUND] Path does not exist: file:/x")

    real = snapshot_module.locate
    monkeypatch.setattr(snapshot_module, "locate",
                        lambda path, store=None: real(path) if store is None else refused())
    r = run_cli("audit", "report", "--in", str(snapshot), "--master", "local[2]",
                home=tmp_path / "home")
    assert r.code == 2, r.err
    assert "[PATH_NOT_FOUND]" in _one_sentence(r.err, f"{snapshot} cannot be read as a "
                                                      "snapshot: ")


def test_clean_on_another_file_system_whose_job_fails_is_exit_1(tmp_path, spark,
                                                                monkeypatch) -> None:
    from mqconsole.audit import stores

    monkeypatch.setattr(stores, "store_for", lambda spark, _uri: EveryJobFails(spark))
    r = run_cli("audit", "clean", "--master", "local[2]", "hdfs://namenode:8020/exports/snap",
                home=tmp_path / "home")
    assert r.code == 1, r.err
    assert REASON in _one_sentence(r.err, "audit clean failed in Spark: ")


def test_a_spark_error_no_command_said_is_still_exit_1_in_one_sentence() -> None:
    from mqconsole.cli.errors import describe

    assert describe(_failure()) == (f"the command failed in Spark: {REASON}", 1)
    assert describe(RuntimeError("a bug")) is None


def test_telling_a_spark_error_loads_no_pyspark() -> None:
    """The CLI's other commands and the console say their errors without pyspark."""
    import subprocess
    import sys

    code = ("import sys; from mqconsole.cli.errors import describe; "
            "from mqconsole.audit.jobs import sentence; "
            "assert describe(RuntimeError('x')) is None; sentence(RuntimeError('x')); "
            "assert 'pyspark' not in sys.modules and 'py4j' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr

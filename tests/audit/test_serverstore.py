"""The Spark Connect store's operations, batched: a list of them is one Spark job (a Python
function over one row), done in order, the first failure stopping the rest and raised on
the client as the store would raise it here. The same job runs on a classic session, so
the test process's session (``spark``) stands in for the server (tests/audit/test_connect.py
runs it on a real Connect server); and with it the export, the report and ``audit sql``
make one job to open a snapshot and one to commit it."""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqconsole.audit.errors import AuditInputError
from mqconsole.audit.serverstore import ServerStore, ops_json
from mqconsole.audit.store import OutTaken, op, to_uri


def _jobs(spark, group: str) -> int:
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


@pytest.fixture
def counted(spark) -> Iterator[str]:
    """A job group of this test's own: the Spark jobs it runs are counted in it."""
    group = f"serverstore-{os.urandom(4).hex()}"
    spark.sparkContext.setJobGroup(group, "test_serverstore")
    yield group
    spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)


def test_many_operations_are_one_job_in_order(spark, counted, tmp_path) -> None:
    store = ServerStore(spark)
    folder = to_uri(tmp_path / "snap")
    got = store.many([
        op("exists", uri=folder), op("mkdirs", uri=folder),
        op("write_new", uri=f"{folder}/manifest.json", text="{}\n"),
        op("read_text", uri=f"{folder}/manifest.json"), op("read_text", uri=f"{folder}/none"),
        op("is_dir", uri=folder), op("children", uri=folder), op("age", uri=f"{folder}/x")])
    assert got == [False, None, None, "{}\n", None, True, ["manifest.json"], None]
    assert _jobs(spark, counted) == 1
    assert stat.S_IMODE((tmp_path / "snap" / "manifest.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "snap").stat().st_mode) == 0o700
    # each operation on its own is the same, a job each
    assert store.read_text(f"{folder}/manifest.json") == "{}\n"
    assert store.children(folder) == ["manifest.json"] and store.is_dir(folder)
    assert _jobs(spark, counted) == 4
    assert store.many([]) == [] and _jobs(spark, counted) == 4
    # bytes travel too (a stored aggregate's Parquet file), and a listing gives sizes
    data = bytes(range(256)) * 3
    assert store.many([op("write_bytes", uri=f"{folder}/a/b/part.parquet", data=data),
                       op("sizes", uri=folder), op("sizes", uri=f"{folder}/none")]) == [
        None, {"manifest.json": 3, "a/b/part.parquet": len(data)}, {}]
    assert (tmp_path / "snap" / "a" / "b" / "part.parquet").read_bytes() == data
    assert stat.S_IMODE((tmp_path / "snap" / "a" / "b" / "part.parquet").stat().st_mode) == 0o600
    with pytest.raises(FileExistsError):
        store.write_bytes(f"{folder}/a/b/part.parquet", b"again")
    assert _jobs(spark, counted) == 6


def test_the_first_failure_stops_the_rest_and_is_raised_as_here(spark, counted,
                                                                 tmp_path) -> None:
    store = ServerStore(spark)
    folder = to_uri(tmp_path)
    with pytest.raises(FileExistsError):  # create-exclusive: the second write is refused
        store.many([op("write_new", uri=f"{folder}/a", text="1"),
                    op("write_new", uri=f"{folder}/a", text="2"),
                    op("write_new", uri=f"{folder}/b", text="3")])
    assert (tmp_path / "a").read_text() == "1" and not (tmp_path / "b").exists()
    with pytest.raises(FileNotFoundError) as missing:  # an OSError keeps its errno
        store.many([op("write_new", uri=f"{folder}/no/such/c", text="")])
    assert missing.value.errno == errno.ENOENT and missing.value.filename.endswith("/c")
    (tmp_path / "staged").mkdir()
    (tmp_path / "out").mkdir()
    with pytest.raises(OutTaken):  # the name a snapshot is published under is taken
        store.many([op("publish", staged=f"{folder}/staged", out=f"{folder}/out",
                       replace=False), op("remove", uri=f"{folder}/a")])
    assert (tmp_path / "staged").is_dir() and (tmp_path / "a").exists()
    assert _jobs(spark, counted) == 3


def test_another_file_system_goes_to_the_plugin_whole(spark, counted, tmp_path,
                                                     monkeypatch) -> None:
    """Where any URI of a list is not ``file:``, the whole list goes to mqconsole's plugin
    (the server's Hadoop; tests/audit/test_connect.py runs it), as one JSON, and its rows
    are read as the executor's are; nothing runs on an executor."""
    from mqconsole.audit import storeplugin

    sent: list[str] = []

    def plugin(session, text):
        assert session is spark
        sent.append(text)
        return [("ok", "null"), ("ok", "true"), ("exists", '"hdfs://nn/audit/snap/x"')]

    monkeypatch.setattr(storeplugin, "plugin_rows", plugin)
    store = ServerStore(spark)
    ops = [op("mkdirs", uri=to_uri(tmp_path / "made")), op("exists", uri="hdfs://nn/audit/snap"),
           op("write_new", uri="hdfs://nn/audit/snap/x", text="")]
    with pytest.raises(FileExistsError, match="hdfs://nn/audit/snap/x"):
        store.many(ops)
    assert [json.loads(text) for text in sent] == [json.loads(ops_json(ops))]
    assert not (tmp_path / "made").exists() and _jobs(spark, counted) == 0


def test_a_server_without_the_plugin_is_one_sentence(spark, monkeypatch) -> None:
    """What pyspark raises for a relation no plugin of the server handles (its words, as
    a server without mqconsole's plugin says them: test_connect.py) is the sentence."""
    from pyspark.errors.exceptions.connect import InvalidPlanInput

    from mqconsole.audit import storeplugin

    def refused(session, text):
        raise InvalidPlanInput(
            message="[CONNECT_INVALID_PLAN.NO_HANDLER_FOR_EXTENSION] The Spark Connect plan "
            f"is invalid. No handler found for extension type: {storeplugin.TYPE_URL} "
            "SQLSTATE: 56K00")

    monkeypatch.setattr(storeplugin, "plugin_rows", refused)
    with pytest.raises(AuditInputError) as said:
        ServerStore(spark).exists("s3a://bucket/snap")
    assert str(said.value) == storeplugin.missing_plugin("s3a://bucket/snap").args[0]
    assert str(said.value).startswith("s3a://bucket: over Spark Connect")
    assert "mqconsole audit connect-plugin" in str(said.value) and "--master" in str(said.value)


def test_an_unknown_operation_is_refused() -> None:
    from mqconsole.audit.serverstore import run_op

    with pytest.raises(ValueError, match="not a store operation"):
        op("chmod", uri="file:///x")
    assert run_op("chmod", {"uri": "file:///x"})[0] == "unknown"


@pytest.fixture
def on_the_server(monkeypatch) -> list[list[str]]:
    """Every audit command's store is the Connect store (on the test's classic session);
    the operations of each ``many`` (each a job) are listed. The export's heartbeat beats
    only with its folder (its thread's beats, every 30 s, would come in among the jobs
    counted when the export is slow: test_heartbeat.py watches those)."""
    import mqconsole.audit.export as export
    import mqconsole.audit.heartbeat as heartbeat
    import mqconsole.audit.stores as stores

    monkeypatch.setattr(heartbeat, "BEAT_SECONDS", 10 ** 9)
    batches: list[list[str]] = []
    many = ServerStore.many

    def counting(self, ops):
        batches.append([name for name, _ in ops])
        return many(self, ops)

    monkeypatch.setattr(ServerStore, "many", counting)
    monkeypatch.setattr(stores, "store_for", lambda spark, uri: ServerStore(spark))
    monkeypatch.setattr(export, "store_for", lambda spark, uri: ServerStore(spark))
    return batches


def test_export_report_and_sql_through_the_server_store(spark, on_the_server,
                                                        tmp_path) -> None:
    """An export checks its --out in one job, makes its staging folder with its first
    heartbeat, lists the data files written (their bytes decide the compaction) and
    commits in one job (the stored aggregates' files and their description, the manifest,
    the marker, the permissions, the heartbeat's removal, the publishing); opening a
    snapshot is one job."""
    from mqconsole.audit.export import ExportRequest, plan_export, run_export
    from mqconsole.audit.query import prepare_query
    from mqconsole.audit.report import build_report

    from .scene import plain_queue_manager

    qm_path = plain_queue_manager(tmp_path)

    def request(out: Path) -> ExportRequest:  # (remote: --out checked through the store)
        return ExportRequest(out=out, patterns=["APP.IN"], remote=True, connections={
            "dev": {"backend": "embedded", "path": str(qm_path)}})

    base = tmp_path / "out"
    base.mkdir()
    out = base / "snap"
    summary = run_export(spark, plan_export(request(out)))
    assert summary.rows == 5
    assert on_the_server == [
        ["exists", "read_text", "children", "age", "exists", "age", "read_text"],
        ["mkdirs", "remove", "write_new"], ["sizes"],
        ["write_bytes", "write_new"] * 2  # the lists, the duplicates; the arrival times
        + ["publish", "write_new", "remove"]  # moved from the pass's folder, which goes
        + ["write_new", "write_new", "write_new", "make_private", "remove", "publish"]]
    assert sorted(p.name for p in (out / "_summary").iterdir()) == [
        "arrivals", "duplicates", "lists", "summary.json"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rows"] == 5 and (out / "_SUCCESS").is_file()
    assert sorted(p.name for p in base.iterdir()) == ["snap"]  # published, nothing beside
    assert all(stat.S_IMODE(p.stat().st_mode) == (0o700 if p.is_dir() else 0o600)
               for p in [out, *out.rglob("*")])
    del on_the_server[:]
    said: list[str] = []
    report = build_report(spark, out, progress=said.append)
    assert report["messages"] == 5 and "from the stored aggregates" in said[0]
    assert on_the_server == [["read_text", "read_text", "read_text", "is_dir", "exists",
                              "is_dir", "sizes"]]  # opened in one job, data folder listed
    del on_the_server[:]
    prepared = prepare_query(spark, out, "SELECT count(*) AS n FROM messages")
    assert prepared.frame is not None and prepared.frame.collect()[0]["n"] == 5
    assert len(on_the_server) == 1
    (base / "other").mkdir()
    plan = plan_export(request(base / "other"))
    del on_the_server[:]
    with pytest.raises(AuditInputError, match="exists: choose another --out"):
        run_export(spark, plan)
    # nothing written: the first look only
    assert on_the_server == [["exists", "read_text", "children", "age", "exists", "age",
                              "read_text"]]
    assert sorted(p.name for p in base.iterdir()) == ["other", "snap"]


def test_a_missing_or_uncommitted_snapshot_is_said_from_one_job(spark, on_the_server,
                                                                tmp_path) -> None:
    from mqconsole.audit.snapshot import open_snapshot

    with pytest.raises(AuditInputError, match="does not exist"):
        open_snapshot(spark, tmp_path / "none")
    Path(tmp_path / "file").write_text("x")
    with pytest.raises(AuditInputError, match="is a file, not a snapshot folder"):
        open_snapshot(spark, tmp_path / "file")
    (tmp_path / "snap").mkdir()
    (tmp_path / "snap" / "manifest.json").write_text(json.dumps(
        {"files": [{"path": "queue=A/part-0.parquet", "rows": 1}]}))
    with pytest.raises(AuditInputError, match="has no _SUCCESS"):
        open_snapshot(spark, tmp_path / "snap")
    assert len(on_the_server) == 3

"""A real cluster: a Spark standalone master and worker on 127.0.0.1 (pyspark's own
``spark-class``; the run's ``spark_cluster``, shared with the Connect server's tests), export
+ report with ``--master spark://…``: the same report as plain Python's (the oracle, which
test_report and test_audit_cli hold local Spark's report to: a local run here would only
start one JVM more). The fixture stops both JVMs by PID when the run ends.

Both commands run in one client process (tests/audit/connect_client.py, ``main(args)`` one
after the other, as operators' commands run), so the report runs on the export's session:
one driver and one application on the cluster, where a process per command started two of
each (a driver JVM and an executor JVM more, for the same jobs on the same cluster)."""

from __future__ import annotations

import json
import os

import pytest

from .connect_client import REPO, Client
from .reportdata import oracle
from .scene import DEMO_QUEUES, NOW, QUEUES, build_scene, expected_rows

pytestmark = pytest.mark.cluster


def test_export_and_report_on_a_standalone_cluster(tmp_path, spark_cluster) -> None:
    scene = build_scene(tmp_path)
    snap, home = tmp_path / "snap", tmp_path / "home"
    as_of = ["--as-of", "2026-11-25T10:00:00Z", "--json"]
    work = spark_cluster.logs / "work"
    before = set(work.glob("app-*"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                        if p)
    client = Client([], env, home, tmp_path / "client.log")
    try:
        export = client("--embedded", str(scene.qm_path), "audit", "export", "--out",
                        str(snap), "--queues", QUEUES, *map(str, scene.files), "--master",
                        spark_cluster.url, "--json")
        assert export.code == 0, export.err
        assert client.master == spark_cluster.url  # the export's driver is the cluster's
        on_cluster = client("audit", "report", "--in", str(snap), *as_of, "--master",
                            spark_cluster.url)
        assert on_cluster.code == 0, on_cluster.err
        # still that session (a report on another master would have stopped it, and one
        # started anew on this cluster would be a second application)
        assert client.master == spark_cluster.url
    finally:
        code = client.close()
    assert code == 0
    ran = set(work.glob("app-*")) - before
    assert len(ran) == 1  # both ran as the cluster's application, not locally
    assert json.loads(export.out)["rows"] == len(expected_rows(scene, DEMO_QUEUES))
    report = json.loads(on_cluster.out)
    assert report.pop("notes") == []  # what the export said: the queues did not change
    assert report == oracle(expected_rows(scene, DEMO_QUEUES), NOW)


def test_an_export_on_a_cluster_at_this_machines_network_address(tmp_path) -> None:
    """A standalone cluster that is not on the loopback address is mqconsole's "elsewhere"
    (``session.on_this_machine`` is false): the settings a real cluster gets. Spark refused
    to start there ("URI has a fragment component": the executors' logging file was given as
    ``spark.files`` with a ``#name``, which only YARN's distributed files take); the export
    runs, on that cluster's executor, which logs by the cluster's own settings."""
    from mqconsole.audit.session import on_this_machine

    from .cluster import own_address, standalone_cluster

    address = own_address()
    if address is None:
        pytest.skip("this machine has no network address but the loopback")
    scene = build_scene(tmp_path / "scene")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                        if p)
    (tmp_path / "cluster").mkdir()
    with standalone_cluster(tmp_path / "cluster", cores=1, memory="1g",
                            host=address) as cluster:
        assert not on_this_machine(cluster.url)
        client = Client([], env, tmp_path / "home", tmp_path / "client.log")
        try:
            export = client("--embedded", str(scene.qm_path), "audit", "export", "--out",
                            str(tmp_path / "snap"), "--queues", QUEUES,
                            *map(str, scene.files), "--master", cluster.url, "--json")
        finally:
            assert client.close() == 0
    assert export.code == 0, export.err
    assert json.loads(export.out)["rows"] == len(expected_rows(scene, DEMO_QUEUES))
    [executor] = (tmp_path / "cluster" / "work").glob("app-*/*/stderr")  # ran there
    assert "Executor" in executor.read_text()

"""A real cluster: a Spark standalone master and worker on 127.0.0.1 (pyspark's own
``spark-class``; the run's ``spark_cluster``, shared with the Connect server's tests), export
+ report with ``--master spark://…``: the same report as plain Python's (the oracle, which
test_report and test_audit_cli hold local Spark's report to: a local run here would only
start one JVM more). The fixture stops both JVMs by PID when the run ends."""

from __future__ import annotations

import json

import pytest

from .reportdata import oracle
from .scene import DEMO_QUEUES, NOW, QUEUES, build_scene, expected_rows, run_mqconsole

pytestmark = pytest.mark.cluster


def test_export_and_report_on_a_standalone_cluster(tmp_path, spark_cluster) -> None:
    scene = build_scene(tmp_path)
    snap, home = tmp_path / "snap", tmp_path / "home"
    as_of = ["--as-of", "2026-11-25T10:00:00Z", "--json"]
    work = spark_cluster.logs / "work"
    before = set(work.glob("app-*"))
    export = run_mqconsole("--embedded", str(scene.qm_path), "audit", "export", "--out",
                           str(snap), "--queues", QUEUES, *map(str, scene.files),
                           "--master", spark_cluster.url, "--json", home=home)
    assert export.returncode == 0, export.stderr
    on_cluster = run_mqconsole("audit", "report", "--in", str(snap), *as_of, "--master",
                               spark_cluster.url, home=home)
    assert on_cluster.returncode == 0, on_cluster.stderr
    ran = set(work.glob("app-*")) - before
    assert len(ran) == 2  # both ran as applications of the cluster, not locally
    assert json.loads(export.stdout)["rows"] == len(expected_rows(scene, DEMO_QUEUES))
    assert json.loads(on_cluster.stdout) == oracle(expected_rows(scene, DEMO_QUEUES), NOW)

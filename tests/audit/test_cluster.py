"""A real cluster: a Spark standalone master and worker (pyspark's own ``spark-class``; the
run's ``spark_cluster``, shared with the Connect server's tests), at 127.0.0.2 (a cluster
mqconsole takes for one elsewhere), export + report with ``--master spark://…``: the same report as
plain Python's (the oracle, which test_report and test_audit_cli hold local Spark's report
to: a local run here would only start one JVM more). The fixture stops both JVMs by PID
when the run ends.

Both commands run once, in one client process (tests/audit/connect_client.py, ``main(args)``
one after the other, as operators' commands run), so the report runs on the export's session:
one driver and one application on the cluster, where a process per command started two of
each (a driver JVM and an executor JVM more, for the same jobs on the same cluster). Both
tests below hold what that client did: the report's, and what a cluster elsewhere gets."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli.conftest import Result

from .connect_client import REPO, Client
from .reportdata import oracle
from .scene import DEMO_QUEUES, NOW, QUEUES, Scene, build_scene, expected_rows

pytestmark = pytest.mark.cluster


@dataclass
class OnCluster:
    """What the client did on the run's cluster, and what the cluster kept of it."""

    scene: Scene
    export: Result
    report: Result
    masters: tuple[str | None, str | None]  # the client's master after each command
    client_exit: int
    ran: set[Path]  # the applications the cluster's worker ran meanwhile (their folders)


@pytest.fixture(scope="module")
def on_cluster(spark_cluster, tmp_path_factory) -> OnCluster:
    """The export and then the report, ``--master`` the run's cluster, in one client."""
    base = tmp_path_factory.mktemp("on-cluster")
    scene = build_scene(base)
    snap, home = base / "snap", base / "home"
    work = spark_cluster.logs / "work"
    before = set(work.glob("app-*"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                        if p)
    client = Client([], env, home, base / "client.log")
    try:
        export = client("--embedded", str(scene.qm_path), "audit", "export", "--out",
                        str(snap), "--queues", QUEUES, *map(str, scene.files), "--master",
                        spark_cluster.url, "--json")
        after_export = client.master
        report = client("audit", "report", "--in", str(snap), "--as-of",
                        "2026-11-25T10:00:00Z", "--json", "--master", spark_cluster.url)
        after_report = client.master
    finally:
        code = client.close()
    return OnCluster(scene, export, report, (after_export, after_report), code,
                     set(work.glob("app-*")) - before)


def test_export_and_report_on_a_standalone_cluster(on_cluster, spark_cluster) -> None:
    o = on_cluster
    assert o.export.code == 0, o.export.err
    assert o.masters[0] == spark_cluster.url  # the export's driver is the cluster's
    assert o.report.code == 0, o.report.err
    # still that session (a report on another master would have stopped it, and one
    # started anew on this cluster would be a second application)
    assert o.masters[1] == spark_cluster.url
    assert o.client_exit == 0
    assert len(o.ran) == 1  # both ran as the cluster's application, not locally
    assert json.loads(o.export.out)["rows"] == len(expected_rows(o.scene, DEMO_QUEUES))
    report = json.loads(o.report.out)
    assert report.pop("notes") == []  # what the export said: the queues did not change
    assert report == oracle(expected_rows(o.scene, DEMO_QUEUES), NOW)


def test_an_export_on_a_cluster_mqconsole_takes_for_one_elsewhere(on_cluster,
                                                                   spark_cluster) -> None:
    """A standalone cluster that is not at 127.0.0.1 or localhost is mqconsole's
    "elsewhere" (``session.on_this_machine`` is false): the settings a real cluster gets.
    Spark refused to start there ("URI has a fragment component": the executors' logging
    file was given as ``spark.files`` with a ``#name``, which only YARN's distributed files
    take); the export runs, on that cluster's executor, which logs by the cluster's own
    settings. The run's cluster is such a one (tests/conftest.py: 127.0.0.2)."""
    from mqconsole.audit.session import on_this_machine

    assert not on_this_machine(spark_cluster.url)
    o = on_cluster
    assert o.client_exit == 0
    assert o.export.code == 0, o.export.err
    assert json.loads(o.export.out)["rows"] == len(expected_rows(o.scene, DEMO_QUEUES))
    [app] = o.ran
    [executor] = app.glob("*/stderr")  # ran there
    assert "Executor" in executor.read_text()

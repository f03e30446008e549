"""Snapshot URIs, and a snapshot on a Hadoop file system that is not the client's disk: the
export, its commit and the report go through Hadoop's ``FileSystem`` in the driver's JVM
(``viewfs://``, mounted here on a temporary folder, stands for ``hdfs://``)."""

from __future__ import annotations

import json
import os

import pytest

from mqconsole.audit.store import HadoopStore, display, relative, to_uri
from mqconsole.audit.stores import store_for

from .scene import DEMO_QUEUES, NOW, build_scene, expected_rows


def test_paths_become_absolute_uris_here() -> None:
    here = os.getcwd()
    assert to_uri("snap") == f"file://{here}/snap"
    assert to_uri("./a/../snap/") == f"file://{here}/snap"
    assert to_uri("file:/data/snap") == to_uri("file:///data/snap") == "file:///data/snap"
    assert to_uri("hdfs://nn:8020/audit/snap/") == "hdfs://nn:8020/audit/snap"
    assert to_uri("s3a://bucket/snap") == "s3a://bucket/snap"
    assert display("file:///data/snap") == "/data/snap"
    assert display("hdfs://nn/audit") == "hdfs://nn/audit"
    assert relative("file:/data/snap/messages/queue=A/part-0.parquet",
                    "file:///data/snap/messages") == "queue=A/part-0.parquet"
    assert relative("hdfs://nn/data/other/part-0.parquet", "hdfs://nn/data/snap") is None


@pytest.fixture
def viewfs(spark, tmp_path):
    """``viewfs://mqtest/audit`` mounted on ``tmp_path/fs`` in the session's Hadoop."""
    root = tmp_path / "fs"
    root.mkdir()
    spark.sparkContext._jsc.hadoopConfiguration().set(
        "fs.viewfs.mounttable.mqtest.link./audit", f"file://{root}")
    return "viewfs://mqtest/audit", root


def test_an_export_and_its_report_on_a_hadoop_uri(spark, tmp_path, viewfs) -> None:
    from mqconsole.audit.errors import AuditInputError
    from mqconsole.audit.export import ExportRequest, plan_export, run_export
    from mqconsole.audit.report import build_report

    from .reportdata import oracle

    base, root = viewfs
    scene = build_scene(tmp_path / "scene")
    out = f"{base}/snap"
    request = ExportRequest(out=out, patterns=list(DEMO_QUEUES), connections={
        "dev": {"backend": "embedded", "path": str(scene.qm_path)}},
        files=[str(f) for f in scene.files])
    assert isinstance(store_for(spark, out), HadoopStore)
    summary = run_export(spark, plan_export(request))
    want = expected_rows(scene, DEMO_QUEUES)
    assert summary.rows == len(want) and summary.out == out
    manifest = json.loads((root / "snap" / "manifest.json").read_text())  # through Hadoop
    assert manifest["rows"] == len(want) and (root / "snap" / "_SUCCESS").is_file()
    assert sorted(p.name for p in root.iterdir()) == ["snap"]  # staged beside, renamed
    said: list[str] = []
    assert build_report(spark, out, as_of=NOW, progress=said.append) == oracle(want, NOW)
    assert "from the stored aggregates" in said[0]
    # the name is taken: refused (checked through Hadoop, the client's disk is not asked)
    with pytest.raises(AuditInputError, match="exists: choose another --out"):
        run_export(spark, plan_export(request))

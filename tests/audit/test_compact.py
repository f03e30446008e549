"""Files a reader likes (issue 25 item 6): no queue in more files than its bytes need."""

from __future__ import annotations

import json

import pytest

from mqconsole.audit.compact import parquet_files, plan_compaction, wanted_files

from .scene import mixed_queue_manager

MB = 1 << 20


def test_the_rule_each_file_at_least_the_target() -> None:
    assert wanted_files(10 * MB, 64 * MB) == 1
    assert wanted_files(200 * MB, 64 * MB) == 3  # 66.7 MB each: none below the target
    assert wanted_files(10 * MB, 0) == 0  # 0: never compacted
    sizes = {"queue=A/part-0.parquet": 2 * MB, "queue=A/part-1.parquet": 3 * MB,
             "queue=B/part-0.parquet": 90 * MB,  # one file: as it is
             **{f"queue=C/part-{i}.parquet": 20 * MB for i in range(10)}}  # 200 MB in 10
    assert plan_compaction(sizes, 64 * MB) == {
        "queue=A": (["queue=A/part-0.parquet", "queue=A/part-1.parquet"], 1),
        "queue=C": ([f"queue=C/part-{i}.parquet" for i in sorted(range(10), key=str)], 3)}
    # a queue in no more files than its read partitions keeps them (written in parallel)
    assert plan_compaction(sizes, 64 * MB, {"A": 2}) == {
        "queue=C": ([f"queue=C/part-{i}.parquet" for i in sorted(range(10), key=str)], 3)}
    assert plan_compaction(sizes, 64 * MB, {"A": 1, "C": 4})["queue=C"][1] == 3  # more: 3
    assert plan_compaction({"queue=A%2FB/part-0.parquet": 1, "queue=A%2FB/part-1.parquet": 1},
                           64 * MB, {"A/B": 2}) == {}  # by the queue's name, not its folder's
    assert plan_compaction(sizes, 0) == {}
    assert plan_compaction(sizes, 1) == {}  # every file already at least 1 byte


def test_the_data_files_of_a_store_listing() -> None:
    """The compaction decides from the store's listing (no Spark job): the Parquet files in
    partition folders, not Spark's markers, checksums or a folder it hides."""
    listing = {"_SUCCESS": 0, "queue=A/part-0.parquet": 10, "queue=A/.part-0.parquet.crc": 1,
               "queue=B%2FC/part-1.zstd.parquet": 20, "_compact/queue=A/part-2.parquet": 5,
               "queue=A/_temporary/part-3.parquet": 5, "stray.parquet": 1}
    assert parquet_files(listing) == {"queue=A/part-0.parquet": 10,
                                      "queue=B%2FC/part-1.zstd.parquet": 20}


def _two_queues(tmp_path) -> str:
    """An embedded queue manager holding A.DLQ (1,500 messages) and B.DLQ (300)."""
    return mixed_queue_manager(tmp_path, {"A.DLQ": 1500, "B.DLQ": 300})


def _spread_reads(monkeypatch) -> None:
    """Each queue read by one task, as a queue of real MQ, and decoded by every task (A
    more than its share): each task writes a file of each queue."""
    from mqconsole.audit import export
    from mqconsole.audit.sources import QueueSource

    monkeypatch.setattr(export, "_partitions", lambda plan, parts: [
        QueueSource(q.key, q.queue) for q in plan.queues])
    monkeypatch.setattr(export, "SPREAD_MIN_ROWS", 1000)


@pytest.mark.parametrize("target", [None, "1"])
def test_a_queue_written_by_several_tasks_is_one_file_of_sorted_rows(
        spark, tmp_path, monkeypatch, target) -> None:
    import pyarrow.parquet as pq

    from mqconsole.audit.export import ExportRequest, plan_export, run_export

    qm_path = _two_queues(tmp_path)
    _spread_reads(monkeypatch)
    if target is not None:
        spark.conf.set("spark.mqconsole.targetFileBytes", target)
    try:
        run_export(spark, plan_export(ExportRequest(
            out=tmp_path / "snap", patterns=["A.DLQ", "B.DLQ"],
            connections={"dev": {"backend": "embedded", "path": qm_path}})))
    finally:
        spark.conf.unset("spark.mqconsole.targetFileBytes")
    snap = tmp_path / "snap"
    files = sorted(p.relative_to(snap / "messages").as_posix()
                   for p in (snap / "messages").rglob("*.parquet"))
    tasks = spark.sparkContext.defaultParallelism
    per_queue = 1 if target is None else tasks  # a target of 1 byte: every file is big
    assert [f.split("/")[0] for f in files] == (["queue=A.DLQ"] * per_queue
                                                 + ["queue=B.DLQ"] * per_queue)
    manifest = json.loads((snap / "manifest.json").read_text())
    assert sorted(f["path"] for f in manifest["files"]) == files
    assert sum(f["rows"] for f in manifest["files"]) == manifest["rows"] == 1800
    assert not list(snap.rglob("_compact"))
    for name in files:
        rows = pq.read_table(snap / "messages" / name,
                             columns=["put_time", "position"]).to_pylist()
        assert rows == sorted(rows, key=lambda r: (r["put_time"], r["position"]))
    if target is None:
        positions = sorted(pq.read_table(snap / "messages" / files[0],
                                         columns=["position"]).column(0).to_pylist())
        assert positions == list(range(1, 1501))


@pytest.mark.parametrize("removal", ["works", "fails"])
def test_a_store_without_a_rename_compacts_too(spark, tmp_path, monkeypatch,
                                               removal) -> None:
    """On a file system without a folder rename (an object store: a ``viewfs://`` made to
    rename nothing, as tests/audit/test_store.py's) a queue's small files are compacted all
    the same: the new files are written beside the old ones under names of their own, the
    manifest lists only them, and the old ones are removed. A removal that fails (it is
    best effort) leaves an old file there, unlisted: the export counts, and the report and
    ``audit sql`` read, only the files the manifest lists."""
    import pyarrow.parquet as pq

    from mqconsole.audit import compact as compact_module
    from mqconsole.audit import store as store_module
    from mqconsole.audit.export import ExportRequest, plan_export, run_export
    from mqconsole.audit.query import run_query
    from mqconsole.audit.report import build_report
    from mqconsole.audit.store import HadoopStore

    from .scene import NOW
    from .viewfs import mount

    monkeypatch.setattr(store_module, "ATOMIC_RENAME", ("file",))
    root = tmp_path / "fs"
    root.mkdir()
    out = f"{mount(spark, root)}/snap"
    qm_path = _two_queues(tmp_path)
    _spread_reads(monkeypatch)
    planned: dict[str, tuple[list[str], int]] = {}  # what the compaction wrote again
    plan = compact_module.plan_compaction

    def planning(*args, **kwargs):
        planned.update(plan(*args, **kwargs))
        return dict(planned)

    monkeypatch.setattr(compact_module, "plan_compaction", planning)
    if removal == "fails":  # a data file's removal does nothing (HadoopStore's says nothing)
        remove = HadoopStore.remove
        monkeypatch.setattr(HadoopStore, "remove", lambda self, uri: None if uri.endswith(
            ".parquet") else remove(self, uri))
    summary = run_export(spark, plan_export(ExportRequest(
        out=out, patterns=["A.DLQ", "B.DLQ"],
        connections={"dev": {"backend": "embedded", "path": qm_path}})))
    assert summary.rows == 1800
    snap = root / "snap"
    assert sorted(p.name for p in root.iterdir()) == ["snap"]  # in place: nothing beside
    tasks = spark.sparkContext.defaultParallelism
    assert tasks > 1 and {folder: (len(files), want) for folder, (files, want)
                          in planned.items()} == {"queue=A.DLQ": (tasks, 1),
                                                  "queue=B.DLQ": (tasks, 1)}
    old = {f for files, _ in planned.values() for f in files}
    manifest = json.loads((snap / "manifest.json").read_text())
    listed = sorted(f["path"] for f in manifest["files"])
    assert [f.split("/")[0] for f in listed] == ["queue=A.DLQ", "queue=B.DLQ"]  # one each
    assert not old & set(listed)
    assert sum(f["rows"] for f in manifest["files"]) == manifest["rows"] == 1800
    there = {p.relative_to(snap / "messages").as_posix()
             for p in (snap / "messages").rglob("*.parquet")}
    assert there == set(listed) | (old if removal == "fails" else set())
    assert not list(snap.rglob("_compact")) and not (snap / "_EXPORTING").exists()
    for name in listed:
        rows = pq.read_table(snap / "messages" / name,
                             columns=["put_time", "position"]).to_pylist()
        assert rows == sorted(rows, key=lambda r: (r["put_time"], r["position"]))
    said: list[str] = []
    assert build_report(spark, out, as_of=NOW, warn=said.append)["messages"] == 1800
    assert build_report(spark, out, as_of=NOW, use_summary=False,
                        warn=said.append)["messages"] == 1800
    assert said == []  # no disagreement: the files listed are there, with their rows
    assert run_query(spark, out, "SELECT count(*) AS n FROM messages").rows == [[1800]]

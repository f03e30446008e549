"""Snapshot URIs, and a snapshot on a Hadoop file system that is not the client's disk: the
export, its commit and the report go through Hadoop's ``FileSystem`` in the driver's JVM
(``viewfs://``, mounted here on a temporary folder, stands for ``hdfs://``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mqconsole.audit.store import HadoopStore, display, relative, to_uri
from mqconsole.audit.stores import store_for

from .scene import DEMO_QUEUES, NOW, build_scene, expected_rows, mixed_queue_manager


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
    """``viewfs://NAME/audit`` mounted on ``tmp_path/fs`` in the session's Hadoop, NAME a
    mount table of this test's own (tests/audit/viewfs.py)."""
    from .viewfs import mount

    root = tmp_path / "fs"
    root.mkdir()
    return mount(spark, root), root


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


def test_audit_clean_on_another_file_system_goes_through_sparks_hadoop(spark, tmp_path,
                                                                        viewfs) -> None:
    """``audit clean`` of a Hadoop URI (viewfs:// here, as hdfs:// would be): the staging a
    killed export left 24 hours ago is removed, a younger one kept and named (no lock can
    be seen on another file system, and without a heartbeat, an older version's, age
    decides: test_heartbeat.py has those with one), anything else left alone; without
    Spark (the CLI starts it for such a folder) the function refuses in one sentence."""
    import time

    from mqconsole.audit.errors import AuditInputError
    from mqconsole.audit.export import clean_staging
    from tests.cli.conftest import run_cli

    base, root = viewfs
    exports = root / "exports"
    old, young, other = (exports / ".snap.tmp-1-aaa", exports / ".snap.tmp-2-bbb",
                         exports / "snap")
    for folder in (old, young, other):
        folder.mkdir(parents=True)
        (folder / "part-0.parquet").write_bytes(b"x")
    day_ago = time.time() - 25 * 3600
    os.utime(old, (day_ago, day_ago))
    r = run_cli("audit", "clean", f"{base}/exports", "--json", "--master", "local[2]",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    assert r.json == {"removed": [f"{base}/exports/.snap.tmp-1-aaa"],
                      "kept": [f"{base}/exports/.snap.tmp-2-bbb"]}
    assert not old.exists() and young.is_dir() and other.is_dir()
    r = run_cli("audit", "clean", f"{base}/exports/snap", "--master", "local[2]",
                home=tmp_path / "home")
    assert r.code == 0 and "kept" in r.out and "its heartbeat is recent, or it has none and " \
        "is younger than 24 hours" in r.out, r.err
    r = run_cli("audit", "clean", f"{base}/no/such", "--master", "local[2]",
                home=tmp_path / "home")
    assert r.code == 2 and "no such folder" in r.err and "Traceback" not in r.err
    with pytest.raises(AuditInputError, match="another file system than this machine's"):
        clean_staging(f"{base}/exports")


def test_an_export_in_place_and_what_a_killed_one_left(spark, tmp_path, viewfs,
                                                       monkeypatch) -> None:
    """Where no folder renames atomically (an object store; viewfs:// made one here) the
    export writes in place under --out, claimed by ``_EXPORTING``, committed by the marker
    written last, the claim then removed. What a killed one left there (its claim, some
    data, no marker) is refused while it may still be an export's, removed by the next
    export once its claim is 24 h old, and by ``audit clean``."""
    import time

    from mqconsole.audit import store as stores_module
    from mqconsole.audit.errors import AuditInputError
    from mqconsole.audit.export import ExportRequest, clean_staging, plan_export, run_export
    from mqconsole.audit.report import build_report

    from .reportdata import oracle

    monkeypatch.setattr(stores_module, "ATOMIC_RENAME", ("file",))
    base, root = viewfs
    scene = build_scene(tmp_path / "scene")
    want = expected_rows(scene, DEMO_QUEUES)
    day_ago = time.time() - 25 * 3600

    def killed_export_at(name: str, age: float | None = None) -> Path:
        left = root / name
        (left / "messages").mkdir(parents=True)
        (left / "messages" / "part-0.parquet").write_bytes(b"half a file")
        (left / "_EXPORTING").write_text("12345\n")
        if age is not None:
            os.utime(left / "_EXPORTING", (age, age))
        return left

    out = f"{base}/snap"
    request = ExportRequest(out=out, patterns=list(DEMO_QUEUES), connections={
        "dev": {"backend": "embedded", "path": str(scene.qm_path)}},
        files=[str(f) for f in scene.files])
    left = killed_export_at("snap")
    with pytest.raises(AuditInputError, match="exists"):  # may be a live export's still
        run_export(spark, plan_export(request))
    assert (left / "_EXPORTING").is_file()
    os.utime(left / "_EXPORTING", (day_ago, day_ago))
    summary = run_export(spark, plan_export(request))
    assert summary.rows == len(want)
    assert (left / "_SUCCESS").is_file() and not (left / "_EXPORTING").exists()
    assert not (left / "messages" / "part-0.parquet").exists()  # the killed one's data
    assert sorted(p.name for p in root.iterdir()) == ["snap"]  # in place: nothing beside
    assert build_report(spark, out, as_of=NOW) == oracle(want, NOW)
    # audit clean: a killed in-place export's --out, removed once its claim is 24 h old
    store = store_for(spark, base)
    old, young = killed_export_at("old", day_ago), killed_export_at("young")
    assert clean_staging(f"{base}/old", store) == ([f"{base}/old"], [])
    assert clean_staging(f"{base}/young", store) == ([], [f"{base}/young"])
    assert not old.exists() and (young / "_EXPORTING").is_file()
    assert clean_staging(out, store) == ([], [])  # a committed snapshot: not touched
    assert (left / "_SUCCESS").is_file()


def test_a_file_that_is_not_utf8_text_is_the_same_oserror_from_every_store(spark, tmp_path,
                                                                            viewfs) -> None:
    """A manifest (or heartbeat) of hostile bytes: each store raises what the Connect
    plugin's does (EILSEQ, "not UTF-8 text", the file), which the CLI says in one sentence;
    it was a UnicodeDecodeError (exit 70)."""
    import errno

    from mqconsole.audit.store import LocalStore

    base, root = viewfs
    (root / "manifest.json").write_bytes(b"\xff\xfe{}")
    (tmp_path / "manifest.json").write_bytes(b"{\"a\": \"\xc3\"}")
    for store, uri, where in (
            (store_for(spark, base), f"{base}/manifest.json", f"{base}/manifest.json"),
            (LocalStore(), to_uri(tmp_path / "manifest.json"), str(tmp_path / "manifest.json"))):
        with pytest.raises(OSError) as e:
            store.read_text(uri)
        assert (e.value.errno, e.value.strerror, e.value.filename) == (
            errno.EILSEQ, "not UTF-8 text", where)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("renames", [True, False], ids=["published-by-rename", "in-place"])
def test_an_out_another_export_committed_while_this_one_ran_is_refused_at_commit(
        spark, tmp_path, viewfs, monkeypatch, renames) -> None:
    """On a Hadoop URI the start of the run checks --out (the plan cannot: not this
    machine's path); an export that commits to the same --out after that check, while this
    one runs, is only seen at the commit: this one is refused there (OutTaken, exit 2), the
    other's snapshot keeps every byte and is complete, and nothing of this one is left
    (no ``.snap.tmp-*`` beside it). The other export runs to its end inside the first step
    after the start's check (``remove_leftovers``), so the order is the test's, not the
    machine's. Both where the folder is published by a no-replace rename and where it is
    written in place (an object store; viewfs:// made one here)."""
    from mqconsole.audit import export
    from mqconsole.audit import store as stores_module
    from mqconsole.audit.export import ExportRequest, OutTaken, plan_export, run_export

    if not renames:
        monkeypatch.setattr(stores_module, "ATOMIC_RENAME", ("file",))
    base, root = viewfs
    scene = build_scene(tmp_path / "scene")
    out = f"{base}/snap"

    def request(queues: list[str]) -> ExportRequest:
        return ExportRequest(out=out, patterns=queues, connections={
            "dev": {"backend": "embedded", "path": str(scene.qm_path)}})

    other = plan_export(request(["APP.*.BOQ"]))
    this = plan_export(request(list(DEMO_QUEUES)))
    original = export.remove_leftovers
    meanwhile: dict = {}

    def other_export_commits_first(*args, **kwargs):
        if not meanwhile:  # (the other export's own call finds it set: the original)
            meanwhile["started"] = True
            meanwhile["summary"] = run_export(spark, other)
            meanwhile["tree"] = _tree(root / "snap")
        return original(*args, **kwargs)

    monkeypatch.setattr(export, "remove_leftovers", other_export_commits_first)
    with pytest.raises(OutTaken, match="written by another export while this one ran") as e:
        run_export(spark, this)
    assert e.value.code == 2
    assert "summary" in meanwhile  # the other export ran, after this one's start check
    assert _tree(root / "snap") == meanwhile["tree"]  # every byte of the other's snapshot
    manifest = json.loads((root / "snap" / "manifest.json").read_text())
    rows = meanwhile["summary"].rows
    assert manifest["rows"] == rows > 0
    on_disk = sorted(p.relative_to(root / "snap" / "messages").as_posix()
                     for p in (root / "snap" / "messages").rglob("*.parquet"))
    assert [f["path"] for f in manifest["files"]] == on_disk
    assert sum(f["rows"] for f in manifest["files"]) == rows
    assert (root / "snap" / "_SUCCESS").is_file()
    assert not (root / "snap" / "_EXPORTING").exists()
    assert sorted(p.name for p in root.iterdir()) == ["snap"]  # no .snap.tmp-* left


@pytest.mark.parametrize("fails", [True, False], ids=["then-fails", "then-commits"])
def test_an_in_place_export_whose_claim_was_taken_removes_nothing(
        spark, tmp_path, viewfs, monkeypatch, fails) -> None:
    """Written in place (an object store), the export's folder is --out itself: when its
    claim is another export's by the time it fails or commits (two exports that both took a
    killed one's folder for abandoned), it is refused (exit 2) and removes nothing of the
    other's (its failure path removed --out whole, claim, data and all)."""
    from mqconsole.audit import export
    from mqconsole.audit import store as stores_module
    from mqconsole.audit.export import ExportRequest, OutTaken, plan_export, run_export

    monkeypatch.setattr(stores_module, "ATOMIC_RENAME", ("file",))
    base, root = viewfs
    scene = build_scene(tmp_path / "scene")
    original = export._count

    def taken_meanwhile(*args, **kwargs):
        (root / "snap" / "_EXPORTING").unlink()
        (root / "snap" / "_EXPORTING").write_text("999-another\n")
        (root / "snap" / "theirs.txt").write_text("the other export's\n")
        if fails:
            raise RuntimeError("the job failed")
        return original(*args, **kwargs)

    monkeypatch.setattr(export, "_count", taken_meanwhile)
    plan = plan_export(ExportRequest(out=f"{base}/snap", patterns=["APP.*.BOQ"], connections={
        "dev": {"backend": "embedded", "path": str(scene.qm_path)}}))
    with pytest.raises(RuntimeError if fails else OutTaken):
        run_export(spark, plan)
    assert (root / "snap" / "_EXPORTING").read_text() == "999-another\n"
    assert (root / "snap" / "theirs.txt").is_file()
    assert not (root / "snap" / "_SUCCESS").exists()


def test_a_lockless_staging_folder_with_a_heartbeat_is_judged_by_it_on_this_disk(
        tmp_path) -> None:
    """A staging folder on a disk this machine shares, made by an export whose process is
    elsewhere (a Connect server's executors): no lock here, and the pid in its name is not
    this machine's to ask. Its heartbeat says: kept while recent, removed once stopped
    (the pid alone said "gone" at once: a live export's staging removed)."""
    from mqconsole.audit.export import clean_staging
    from mqconsole.audit.store import HEARTBEAT, STALE_SECONDS

    from .test_export_leftovers import _dead_pid

    staged = tmp_path / f".snap.tmp-{_dead_pid()}-abcdef123456"
    (staged / "messages").mkdir(parents=True)
    (staged / HEARTBEAT).write_text('{"stale_after": 600}\n')
    assert clean_staging(tmp_path) == ([], [str(staged)])
    assert staged.is_dir()
    old = os.stat(staged / HEARTBEAT).st_mtime - STALE_SECONDS - 60
    os.utime(staged / HEARTBEAT, (old, old))
    assert clean_staging(tmp_path) == ([str(staged)], [])
    assert not staged.exists()


# -- names with % (and queues with /): one literal path everywhere -------------------------

def _both_reports_count(spark, out: str | Path, by_queue: dict[str, int]) -> None:
    """The report from the stored aggregates and the one from the messages both count
    ``by_queue``'s rows on its queues, and neither doubts the snapshot (its listed files
    are there, with their rows)."""
    from mqconsole.audit.report import build_report

    said: list[str] = []
    for use_summary in (True, False):
        report = build_report(spark, out, as_of=NOW, use_summary=use_summary,
                              warn=said.append)
        assert report["messages"] == sum(by_queue.values())
        assert {r["queue"]: r["count"] for r in report["by_queue"]} == by_queue
    assert said == []


def test_uris_are_hadoop_paths_taken_literally() -> None:
    """A URI names its folder as Spark's Hadoop takes the string (``Path``): a ``%`` is a
    ``%``, never an escape to decode; only a data file's URI as Spark lists it
    (``input_file_name()``, ``inputFiles()``: ``%`` written ``%25``) is decoded, once."""
    from mqconsole.audit.store import local_path, name_of, parent

    here = os.getcwd()
    assert to_uri("a%20b") == f"file://{here}/a%20b"
    assert to_uri(to_uri("/data/a%2520b")) == "file:///data/a%2520b"  # (was a b, twice)
    assert to_uri("/data/a%20b/") == to_uri("file:///data/a%20b") == "file:///data/a%20b"
    assert to_uri("file:/data/a%2Fb") == "file:///data/a%2Fb"
    assert to_uri("/data/a b") == "file:///data/a b"
    assert local_path("file:///data/a%20b") == "/data/a%20b"
    assert display("file:///data/a%20b") == "/data/a%20b"
    assert display("file:///data/50%#1?x") == "/data/50%#1?x"  # no query, no fragment
    assert parent("file:///data/50%#1/.a%20b.tmp-1") == "file:///data/50%#1"
    assert parent("viewfs://nn/a%2Fb/c?d") == "viewfs://nn/a%2Fb"
    assert name_of("hdfs://nn:8020/audit/a%20b#2") == "a%20b#2"
    # our own strings, compared as they are
    assert relative("viewfs://nn/s/messages/queue=A%2FB/part-0.parquet",
                    "viewfs://nn/s/messages") == "queue=A%2FB/part-0.parquet"
    assert relative("file:///a%20b/messages/q/p", "file:///a%20b/messages") == "q/p"
    assert relative("file:///a b/messages/q/p", "file:///a%20b/messages") is None
    # Spark's listing of the file queue=A%2FB/part-0.parquet in the folder a%20b
    from mqconsole.audit.store import spark_relative

    listed = "file:///data/a%2520b/messages/queue=A%252FB/part-0.parquet"
    assert spark_relative(listed, "file:///data/a%20b/messages") == "queue=A%2FB/part-0.parquet"
    assert spark_relative("file:///data/a%20b/messages/q/p", "file:///data/a%20b/messages") \
        is None  # (Spark would have written a%2520b: another folder)
    assert spark_relative("viewfs://nn/s%20t/m/queue=A%2520B/p%23.parquet",
                          "viewfs://nn/s t/m") == "queue=A%20B/p#.parquet"
    # the queues of Spark's listing: its URIs decoded once, then the folders unescaped
    from mqconsole.audit.summary import queues_of

    assert queues_of([listed, "viewfs://nn/m/queue=A%2525B/p.parquet",
                      "file:///m/queue=A%20B/part-1.parquet"]) == ["A B", "A%B", "A/B"]


def test_an_out_named_with_a_percent_is_one_folder(spark, tmp_path) -> None:
    """A classic session's export to ``--out …/a%20b``: Spark writes the data in the folder
    of that literal name, and so does the driver its manifest and marker (they went to
    ``a b``: the snapshot split in two); the report and ``audit sql`` read it."""
    from mqconsole.audit.export import ExportRequest, plan_export, run_export
    from mqconsole.audit.query import run_query

    qm_path = mixed_queue_manager(tmp_path, {"A.DLQ": 40, "B.DLQ": 20})
    out = tmp_path / "a%20b"
    summary = run_export(spark, plan_export(ExportRequest(
        out=to_uri(out), patterns=["A.DLQ", "B.DLQ"],
        connections={"dev": {"backend": "embedded", "path": qm_path}})))
    assert summary.rows == 60
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("qm.")) == [
        "a%20b"]  # (no "a b", nothing staged left beside)
    manifest = json.loads((out / "manifest.json").read_text())
    on_disk = sorted(p.relative_to(out / "messages").as_posix()
                     for p in (out / "messages").rglob("*.parquet"))
    assert sorted(f["path"] for f in manifest["files"]) == on_disk and on_disk
    assert manifest["rows"] == 60 and (out / "_SUCCESS").is_file()
    _both_reports_count(spark, out, {"A.DLQ": 40, "B.DLQ": 20})
    assert run_query(spark, out, "SELECT count(*) FROM messages").rows == [[60]]


@pytest.mark.parametrize("where", ["viewfs", "file"])
def test_queues_named_with_a_slash_and_a_percent(spark, tmp_path, monkeypatch, viewfs,
                                                 where) -> None:
    """Queues ``APP/IN`` and ``A%B`` (Spark's partition folders ``queue=APP%2FIN`` and
    ``queue=A%25B``), each written by every task and so compacted, exported to a Hadoop
    URI (viewfs://, as hdfs://) and to a ``file:`` folder: the listing the compaction plans
    by, the manifest and the report name the folders as they are, so every row is counted
    (stored aggregates and from the messages), by the queues' own names, no listed file
    said missing, and ``audit sql`` reads them all."""
    from mqconsole.audit import compact as compact_module
    from mqconsole.audit.export import ExportRequest, plan_export, run_export
    from mqconsole.audit.query import run_query

    from .test_compact import _spread_reads

    base, root = viewfs
    if where == "file":
        root = tmp_path / "disk"
        root.mkdir()
        base = to_uri(root)
    out = f"{base}/snap"
    qm_path = mixed_queue_manager(tmp_path, {"APP/IN": 1500, "A%B": 300})
    _spread_reads(monkeypatch)
    planned: dict[str, tuple[list[str], int]] = {}
    plan = compact_module.plan_compaction

    def planning(*args, **kwargs):
        planned.update(plan(*args, **kwargs))
        return dict(planned)

    monkeypatch.setattr(compact_module, "plan_compaction", planning)
    summary = run_export(spark, plan_export(ExportRequest(
        out=out, patterns=["APP/IN", "A%B"],
        connections={"dev": {"backend": "embedded", "path": qm_path}})))
    assert summary.rows == 1800
    tasks = spark.sparkContext.defaultParallelism
    assert tasks > 1 and {folder: (len(files), want) for folder, (files, want)
                          in planned.items()} == {"queue=APP%2FIN": (tasks, 1),
                                                  "queue=A%25B": (tasks, 1)}
    snap = root / "snap"
    manifest = json.loads((snap / "manifest.json").read_text())
    on_disk = sorted(p.relative_to(snap / "messages").as_posix()
                     for p in (snap / "messages").rglob("*.parquet"))
    assert sorted(f["path"] for f in manifest["files"]) == on_disk
    assert [f.split("/")[0] for f in on_disk] == ["queue=A%25B", "queue=APP%2FIN"]
    assert manifest["rows"] == 1800 == sum(f["rows"] for f in manifest["files"])
    _both_reports_count(spark, out, {"APP/IN": 1500, "A%B": 300})
    assert run_query(spark, out, "SELECT queue, count(*) FROM messages GROUP BY queue "
                     "ORDER BY queue").rows == [["A%B", 300], ["APP/IN", 1500]]

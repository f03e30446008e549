"""The export's plan (every check before Spark), its folder moves and its failure sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.audit.errors import AuditInputError, SparkFailed
from mqconsole.audit.export import (
    ExportRequest,
    explain_failure,
    plan_export,
)
from mqconsole.audit.store import _move_into_place
from mqconsole.backends.spec import BackendSpec
from mqconsole.mq.errors import MQError

from .scene import build_scene, expected_rows


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return build_scene(tmp_path_factory.mktemp("scene"))


def _request(tmp_path: Path, scene, **kw) -> ExportRequest:
    base = {"out": tmp_path / "snap", "patterns": ["APP.*.BOQ", "AUDIT.DLQ"],
            "connections": {"dev": {"backend": "embedded", "path": str(scene.qm_path)}}}
    base.update(kw)
    return ExportRequest(**base)


def test_plan_lists_queues_with_depths_and_files(tmp_path, scene) -> None:
    plan = plan_export(_request(tmp_path, scene, files=[str(scene.files[0])]))
    assert [(q.key, q.qmgr, q.queue, q.depth_start) for q in plan.queues] == [
        ("dev", "QM1", "APP.ORDERS.BOQ", 5), ("dev", "QM1", "APP.SHARED.BOQ", 6),
        ("dev", "QM1", "AUDIT.DLQ", 6)]
    [f] = plan.files
    assert (f.qmgr, f.queue, f.tool) == ("QM9", "SAVED.DLQ", "dmpmqmsg")


@pytest.mark.parametrize(("change", "words"), [
    ({"patterns": [], "files": []}, "nothing to export"),
    ({"format": "orc"}, "use parquet or csv"),
    ({"patterns": ["NOT.THERE*"]}, "no local queue matches NOT.THERE*"),
    ({"connections": {"mem": {"backend": "embedded", "path": ":memory:"}}},
     "in memory lives in one process"),
    ({"connections": {"prod": BackendSpec(kind="mq", profile="prod", password_prompt=True)}},
     "asked at a prompt"),
    ({"patterns": [], "files": ["/no/such.dmp"]}, "no such file"),
])
def test_plan_refusals(tmp_path, scene, change, words) -> None:
    with pytest.raises(AuditInputError, match=words):
        plan_export(_request(tmp_path, scene, **change))


def test_unknown_queue_is_mq_2085(tmp_path, scene) -> None:
    with pytest.raises(MQError) as e:
        plan_export(_request(tmp_path, scene, patterns=["NO.SUCH.Q"]))
    assert e.value.reason == 2085


def test_out_exists_and_replace(tmp_path, scene) -> None:
    (tmp_path / "snap").mkdir()
    with pytest.raises(AuditInputError, match="exists"):
        plan_export(_request(tmp_path, scene))
    with pytest.raises(AuditInputError, match="not a snapshot"):
        plan_export(_request(tmp_path, scene, replace=True))
    (tmp_path / "snap" / "manifest.json").write_text("{}")
    assert plan_export(_request(tmp_path, scene, replace=True)).queues


def test_move_into_place_replaces_only_when_the_new_one_is_there(tmp_path) -> None:
    out, new = tmp_path / "snap", tmp_path / ".snap.tmp"
    out.mkdir()
    (out / "manifest.json").write_text("old")
    new.mkdir()
    (new / "manifest.json").write_text("new")
    _move_into_place(str(new), str(out))
    assert (out / "manifest.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap"]


def test_failure_sentences() -> None:
    err = RuntimeError("Traceback ...\nmqconsole.ops.files.common.DmpFileError: /x.dmp line 7: "
                       "unknown descriptor field 'ZZZ'\n\tat org.apache.spark...")
    e = explain_failure(err, "local[2]")
    assert isinstance(e, AuditInputError)
    assert str(e) == "the export failed: /x.dmp line 7: unknown descriptor field 'ZZZ'"
    e = explain_failure(RuntimeError("[BOOM] something\n\tat org.apache"), "spark://h:7077")
    assert isinstance(e, SparkFailed) and e.code == 1  # 3 is for no Java or pyspark
    assert str(e).startswith("the export failed in Spark: [BOOM] something (on a cluster")


def test_run_export_in_process_and_a_cancel_leaves_nothing(spark, tmp_path, scene) -> None:
    import threading

    from mqconsole.audit.export import ExportCancelled, run_export

    plan = plan_export(_request(tmp_path, scene, patterns=["APP.*.BOQ"]))
    said: list = []
    summary = run_export(spark, plan, report=said.append)
    assert summary.rows == 11 and [q["rows"] for q in summary.queues] == [5, 6]
    assert (tmp_path / "snap" / "_summary" / "summary.json").is_file()  # for the report
    assert said and all(p.done for p in said[-1])
    cancel = threading.Event()
    cancel.set()
    plan = plan_export(_request(tmp_path, scene, out=tmp_path / "again"))
    with pytest.raises(ExportCancelled, match="nothing was written") as e:
        run_export(spark, plan, cancel=cancel)
    assert e.value.code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap"]


def _stored(folder: Path) -> dict:
    """A snapshot's stored aggregates, each table's rows sorted (order is no promise)."""
    import json

    import pyarrow.parquet as pq

    out: dict = {"info": json.loads((folder / "_summary" / "summary.json").read_text())}
    for name in ("lists", "arrivals", "duplicates"):
        path = folder / "_summary" / name
        if path.exists():
            out[name] = sorted(map(repr, pq.read_table(path).to_pylist()))
    return out


def _rows(folder: Path) -> list[tuple]:
    import pyarrow.dataset as ds

    table = ds.dataset(str(folder / "messages"), format="parquet", partitioning="hive",
                       ignore_prefixes=[".", "_"]).to_table(
        columns=["qmgr", "queue", "position", "source", "msg_id", "dlh_reason"])
    return sorted(tuple(str(v) for v in r.values()) for r in table.to_pylist())


def _want(scene, queues: list[str]) -> list[tuple]:
    return sorted(tuple(str(e[k]) for k in ("qmgr", "queue", "position", "source", "msg_id",
                                            "dlh_reason"))
                  for e in expected_rows(scene, queues) if e["source"] == "queue")


def test_queues_read_in_stretches_give_one_browse_and_the_same_aggregates(
        spark, tmp_path, scene, monkeypatch) -> None:
    from mqconsole.audit import export
    from mqconsole.audit.summary import summarize

    monkeypatch.setattr(export, "MIN_SPLIT_ROWS", 2)
    queues = ["SYSTEM.DEAD.LETTER.QUEUE", "AUDIT.DLQ"]
    plan = plan_export(_request(tmp_path, scene, patterns=queues))
    sources = export._partitions(plan, spark.sparkContext.defaultParallelism)
    assert len(sources) > len(queues) and sources[0].part is not None  # split indeed
    summary = export.run_export(spark, plan)
    assert [q["rows"] for q in summary.queues] == [q.depth_start for q in plan.queues]
    snap = tmp_path / "snap"
    assert _rows(snap) == _want(scene, queues)  # positions as one browse gives them
    stretches = {q: sum(s.queue == q for s in sources) for q in queues}
    files = {q: len(list((snap / "messages" / f"queue={q}").glob("*.parquet"))) for q in queues}
    assert files == stretches  # one file per stretch, as its reader wrote it: no compaction
    # the stored aggregates (the export's one job) = those computed again from the
    # written files by a pass per aggregate (summarize: Spark's GROUPING SETS, its writer
    # for the arrival times)
    summarize(spark, snap / "messages", tmp_path / "again")
    stored = _stored(snap)
    assert stored["info"].pop("files_digest")  # tied to the commit (not summarize's job)
    assert stored == _stored(tmp_path / "again")
    assert stored["duplicates"] and any("AUDIT.DLQ" in d and "SYSTEM.DEAD" in d
                                        for d in stored["duplicates"])  # across queues
    _one_job_and_its_fallbacks(spark, snap, tmp_path, queues, stored, monkeypatch)


def _one_job_and_its_fallbacks(spark, snap: Path, tmp_path: Path, queues: list[str],
                               stored: dict, monkeypatch) -> None:
    """The export's aggregates: one Spark job over the messages (summary.one_pass), one
    over its small results read back, one over the few pages holding the oldest and
    youngest message, at any size (the thresholds above which it took more passes are
    gone: the messages' rows are not asked); a queue it was not told of, or more queues
    than it has bits for, and the duplicates are found by duplicate_ids' passes: the same
    stored files each time."""
    import json

    from mqconsole.audit import summary
    from mqconsole.audit.columns import snapshot_columns, spark_ddl
    from mqconsole.audit.store import LocalStore, to_uri

    frame = spark.read.schema(spark_ddl(snapshot_columns())).parquet(
        to_uri(snap / "messages"))
    context = spark.sparkContext
    for name, told in (("one", queues), ("unknown", queues[:1]), ("bits", queues)):
        if name == "bits":
            monkeypatch.setattr(summary, "MAX_QUEUE_BITS", 1)
        folder = tmp_path / name
        group = f"aggregates-{name}-{id(folder)}"
        context.setJobGroup(group, group)
        try:
            info, files, writes = summary.store_aggregates_by_file(
                frame, to_uri(folder / "_summary"), sorted(told))
        finally:
            context.setLocalProperty("spark.jobGroup.id", None)
        jobs = len(context.statusTracker().getJobIdsForGroup(group))
        assert jobs == 3 if name == "one" else jobs > 3, (name, jobs)
        assert sum(f["n"] for f in files) == info["rows"] == sum(
            int(f["rows"]) for f in json.loads((snap / "manifest.json").read_text())["files"])
        LocalStore().many(writes)
        (folder / "_summary" / "summary.json").write_text(json.dumps(info))
        assert sorted(p.name for p in (folder / "_summary").iterdir()) == [
            "arrivals", "duplicates", "lists", "summary.json"]  # the pass's folder gone
        assert _stored(folder) == stored, name


def test_a_stretch_that_changed_under_its_reader_is_said_and_not_read_again(
        spark, tmp_path, scene, monkeypatch) -> None:
    """A message got from the first stretch after the plan: the job runs once (no second
    read from 0), every message there is read once, and the manifest and the operator
    hear that the positions are not one browse's."""
    import json
    import shutil

    from mqconsole.audit import export
    from mqconsole.backends.open import open_embedded

    qm_path = tmp_path / "qm.sqlite"
    shutil.copy(scene.qm_path, qm_path)
    monkeypatch.setattr(export, "MIN_SPLIT_ROWS", 2)
    planned = export._partitions
    tried: list[int] = []

    def changed(plan, parts):  # planned, then a message goes from the first stretch
        tried.append(parts)
        sources = planned(plan, parts)
        qm = open_embedded(str(qm_path))
        try:
            qm.get("AUDIT.DLQ", syncpoint=False)
        finally:
            qm.close()
        return sources

    monkeypatch.setattr(export, "_partitions", changed)
    plan = plan_export(_request(tmp_path, scene, patterns=["AUDIT.DLQ"], connections={
        "dev": {"backend": "embedded", "path": str(qm_path)}}))
    depth = plan.queues[0].depth_start
    said: list[str] = []
    summary = export.run_export(spark, plan, note=said.append)
    assert tried == [spark.sparkContext.defaultParallelism]  # one job, never again
    assert summary.rows == depth - 1 == summary.queues[0]["depth_end"]
    ids = [r[4] for r in _rows(tmp_path / "snap")]
    assert len(ids) == len(set(ids)) == depth - 1  # each message there, once
    notes = json.loads((tmp_path / "snap" / "manifest.json").read_text())["notes"]
    assert notes and notes[0].startswith("AUDIT.DLQ (QM1) changed while it was read in "
                                         "stretches: its 5 rows hold each message read once")
    assert notes[0] in said


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_the_commit_lists_every_file_and_readers_trust_only_those(spark, tmp_path,
                                                                   scene) -> None:
    """The manifest names every data file with its rows, _SUCCESS is written after it, and
    the report and audit sql read only the files it names: a file dropped in later is not
    read, a snapshot without the marker is not one."""
    import json
    import shutil

    from mqconsole.audit.export import run_export
    from mqconsole.audit.query import run_query
    from mqconsole.audit.snapshot import locate

    plan = plan_export(_request(tmp_path, scene))
    summary = run_export(spark, plan)
    out = tmp_path / "snap"
    manifest = json.loads((out / "manifest.json").read_text())
    on_disk = sorted(p.relative_to(out / "messages").as_posix()
                     for p in (out / "messages").rglob("*.parquet"))
    assert [f["path"] for f in manifest["files"]] == on_disk and on_disk
    assert sum(f["rows"] for f in manifest["files"]) == manifest["rows"] == summary.rows
    assert manifest["schema_version"] == 2
    assert (out / "_SUCCESS").is_file()
    # files a reader likes: by queue only, each file's rows by put time, no .crc litter
    import pyarrow.parquet as pq

    assert {p.parent.relative_to(out / "messages").as_posix().split("/")[0]
            for p in (out / "messages").rglob("*.parquet")} == {
        f"queue={q.queue}" for q in plan.queues} | {f"queue={f.queue}" for f in plan.files}
    assert all(len(Path(f).parts) == 2 for f in on_disk)  # queue=…/part-…
    for f in on_disk:
        times = pq.read_table(out / "messages" / f, columns=["put_time"]).column(0).to_pylist()
        present = [t for t in times if t is not None]
        assert present == sorted(present), f
    assert not list(out.rglob("*.crc"))
    assert (out / "_SUCCESS").stat().st_mtime_ns >= (out / "manifest.json").stat().st_mtime_ns
    # a file that is not in the commit (a copy of a listed one) is not read
    listed = out / "messages" / on_disk[0]
    shutil.copy(listed, listed.with_name("part-stray.parquet"))
    count = "SELECT count(*) FROM messages"
    assert run_query(spark, out, count).rows == [[summary.rows]]
    (out / "_SUCCESS").unlink()
    with pytest.raises(AuditInputError, match="did not commit it"):
        locate(out)


def test_an_out_made_while_the_export_ran_is_refused_at_commit(spark, tmp_path,
                                                                scene) -> None:
    """Both exports pass the plan's check; the one that commits second is refused (exit 2)
    and the first one's snapshot keeps every byte; nothing is left beside it."""
    from mqconsole.audit.export import OutTaken, run_export

    first = plan_export(_request(tmp_path, scene, patterns=["APP.*.BOQ"]))
    second = plan_export(_request(tmp_path, scene))
    run_export(spark, first)
    before = _tree(tmp_path / "snap")
    with pytest.raises(OutTaken, match="written by another export while this one ran") as e:
        run_export(spark, second)
    assert e.value.code == 2
    assert _tree(tmp_path / "snap") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap"]


def test_two_concurrent_exports_to_one_out_leave_exactly_one_complete_snapshot(
        spark, tmp_path, scene) -> None:
    import json
    import threading

    from mqconsole.audit.errors import AuditError
    from mqconsole.audit.export import run_export

    plans = [plan_export(_request(tmp_path, scene, patterns=["APP.*.BOQ"])),
             plan_export(_request(tmp_path, scene))]
    start = threading.Barrier(2)
    outcomes: list = [None, None]

    def export(i: int) -> None:
        start.wait()
        try:
            outcomes[i] = run_export(spark, plans[i])
        except AuditError as e:
            outcomes[i] = e

    threads = [threading.Thread(target=export, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [o for o in outcomes if not isinstance(o, AuditError)]
    lost = [o for o in outcomes if isinstance(o, AuditError)]
    assert len(won) == 1 and len(lost) == 1, outcomes
    assert lost[0].code == 2 and "another export" in str(lost[0])
    out = tmp_path / "snap"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rows"] == won[0].rows
    on_disk = sorted(p.relative_to(out / "messages").as_posix()
                     for p in (out / "messages").rglob("*.parquet"))
    assert [f["path"] for f in manifest["files"]] == on_disk
    assert sum(f["rows"] for f in manifest["files"]) == won[0].rows
    assert (out / "_SUCCESS").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap"]


def test_a_deleted_partition_file_makes_the_report_say_so_and_recount(spark, tmp_path,
                                                                       scene) -> None:
    """The stored aggregates are tied to the commit: with one listed file gone, the report
    says the data disagrees with the manifest and counts the messages that are there (the
    same as the report of the remaining files from the messages), not the stored counts."""
    import json

    import pyarrow.parquet as pq

    from mqconsole.audit.export import run_export
    from mqconsole.audit.report import build_report
    from mqconsole.audit.summary import SUMMARY_DIR, SUMMARY_FILE, files_digest

    from .scene import NOW

    run_export(spark, plan_export(_request(tmp_path, scene)))
    out = tmp_path / "snap"
    manifest = json.loads((out / "manifest.json").read_text())
    info = json.loads((out / SUMMARY_DIR / SUMMARY_FILE).read_text())
    assert info["files_digest"] == files_digest(manifest["files"])
    said: list[str] = []
    whole = build_report(spark, out, as_of=NOW, progress=said.append)
    assert whole["messages"] == manifest["rows"]
    assert not [s for s in said if "disagree" in s]
    assert any("stored aggregates" in s for s in said)
    gone = max(manifest["files"], key=lambda f: f["rows"])
    (out / "messages" / gone["path"]).unlink()
    said.clear()
    damaged = build_report(spark, out, as_of=NOW, progress=said.append)
    assert [s for s in said if "disagrees with its manifest" in s and gone["path"] in s]
    assert damaged["messages"] == manifest["rows"] - gone["rows"]
    assert sum(q["count"] for q in damaged["by_queue"]) == damaged["messages"]
    rows = pq.read_table(str(out / "messages"), partitioning="hive").num_rows
    assert damaged["messages"] == rows  # what is there, counted, not the stored counts
    from tests.cli.conftest import run_cli  # --json keeps the doubt in its notes (added key)

    r = run_cli("audit", "report", "--in", str(out), "--json", "--master", "local[2]",
                "--as-of", NOW.isoformat(), home=tmp_path / "home")
    assert r.code == 0, r.err
    assert [n for n in r.json["notes"] if "disagrees with its manifest" in n
            and gone["path"] in n] == r.json["notes"]
    assert r.json["notes"] and {k: v for k, v in r.json.items() if k != "notes"} == damaged
    # a summary tied to another commit is not trusted either
    info["files_digest"] = "0" * 64
    (out / SUMMARY_DIR / SUMMARY_FILE).write_text(json.dumps(info))
    manifest["files"] = [f for f in manifest["files"] if f["path"] != gone["path"]]
    manifest["rows"] -= gone["rows"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    said.clear()
    again = build_report(spark, out, as_of=NOW, progress=said.append)
    assert [s for s in said if "stored aggregates disagree with the manifest" in s]
    assert again == damaged


def test_a_listed_data_file_gone_before_the_count_fails_the_export(spark, tmp_path, scene,
                                                                    monkeypatch) -> None:
    """The count reads the files the compaction says are the data, by name: one of them gone
    is a failed export (nothing committed, nothing left), never a snapshot of no rows (a
    missing path was taken for an export of empty queues, and committed)."""
    from mqconsole.audit import export
    from mqconsole.audit.compact import Compacted
    from mqconsole.audit.export import run_export

    def a_file_gone(_spark, _store, _data, _plan, _keep, listing):
        return Compacted({**listing, "queue=APP.ORDERS.BOQ/part-gone.parquet": 10},
                         ["queue=APP.ORDERS.BOQ/part-old.parquet"])

    monkeypatch.setattr(export, "_compact", a_file_gone)
    with pytest.raises(Exception, match="PATH_NOT_FOUND"):  # (the CLI's boundary: exit 1)
        run_export(spark, plan_export(_request(tmp_path, scene)))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith((".snap", "snap"))]


def test_the_readers_read_only_the_files_the_manifest_lists(spark, tmp_path, scene) -> None:
    """A file dropped into the data folder later is not the snapshot's: not Parquet (a
    note, a partial upload) or a copy of a listed file, the report and ``audit sql`` read
    neither (the report read the whole folder: a stray text file failed it, exit 2). With
    every listed file gone, the report says the data disagrees and counts nothing (Spark
    could not infer a schema from empty folders: exit 2), and ``audit sql`` reads the
    files that are there, saying which are missing (it failed on the first missing one)."""
    import json
    import shutil

    from mqconsole.audit.export import run_export
    from mqconsole.audit.query import prepare_query, run_query
    from mqconsole.audit.report import build_report

    from .scene import NOW

    run_export(spark, plan_export(_request(tmp_path, scene)))
    out = tmp_path / "snap"
    manifest = json.loads((out / "manifest.json").read_text())
    whole = build_report(spark, out, as_of=NOW)
    first = out / "messages" / manifest["files"][0]["path"]
    (first.parent / "notes.txt").write_text("not a Parquet file\n")
    shutil.copy(first, first.parent / "part-99999-stray.c000.zstd.parquet")
    count = "SELECT count(*) AS n FROM messages"
    for use_summary in (True, False):
        said: list[str] = []
        assert build_report(spark, out, as_of=NOW, use_summary=use_summary,
                            progress=said.append) == whole
        assert not [s for s in said if "disagree" in s]
    assert run_query(spark, out, count).rows == [[manifest["rows"]]]
    for listed in manifest["files"]:
        (out / "messages" / listed["path"]).unlink()
    said = []
    empty = build_report(spark, out, as_of=NOW, progress=said.append)
    assert [s for s in said if "disagrees with its manifest" in s
            and f"and {len(manifest['files']) - 1} more" in s]
    assert empty["messages"] == 0 and empty["by_queue"] == []
    prepared = prepare_query(spark, out, count)
    assert [n for n in prepared.notes if "listed in the manifest is missing" in n
            and n.endswith("reading the files that are there")]
    assert run_query(spark, out, count).rows == [[0]]
    from tests.cli.conftest import run_cli

    r = run_cli("audit", "sql", "--in", str(out), "--master", "local[2]", count,
                home=tmp_path / "home")
    assert r.code == 0, r.err
    assert "disagrees with its manifest" in r.err and "1 rows" in r.err


def test_an_export_of_empty_queues_is_a_snapshot_of_no_rows(spark, tmp_path) -> None:
    """An empty dead-letter queue is the common case: its export commits a manifest that
    lists no file, and the report (zeros, five empty age buckets) and ``audit sql`` read
    it with the manifest's columns (they said "holds no Parquet files", exit 2)."""
    import json

    from mqconsole.audit.export import run_export
    from mqconsole.audit.query import run_query
    from mqconsole.audit.report import build_report
    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.queue import QueueAttrs

    from .reportdata import oracle
    from .scene import NOW

    qm = open_embedded(str(tmp_path / "qm.sqlite"), create=True, name="QM1")
    try:
        qm.define_queue(QueueAttrs(name="APP.EMPTY.BOQ"))
    finally:
        qm.close()
    request = ExportRequest(out=tmp_path / "snap", patterns=["APP.EMPTY.BOQ"], connections={
        "dev": {"backend": "embedded", "path": str(tmp_path / "qm.sqlite")}})
    summary = run_export(spark, plan_export(request))
    assert summary.rows == 0
    out = tmp_path / "snap"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"] == [] and manifest["rows"] == 0
    assert (out / "_SUCCESS").is_file()
    assert build_report(spark, out, as_of=NOW) == oracle([], NOW)
    columns = [c["name"] for c in manifest["columns"]]
    result = run_query(spark, out, "SELECT count(*) AS n, max(queue) AS q FROM messages")
    assert (result.columns, result.rows, result.more) == (["n", "q"], [[0, None]], False)
    view = spark.table("messages")
    assert view.columns == columns and view.count() == 0


def test_a_queue_that_changes_during_the_export_is_said_in_the_manifest_and_report(
        spark, tmp_path) -> None:
    """Messages put on a queue while it is exported (after its depth at the start was
    taken, as the job starts): the rows read are not that depth; the export says so, the
    manifest keeps it for the queue, and the report says it again."""
    import json

    from mqconsole.audit import export
    from mqconsole.audit.report import build_report
    from mqconsole.audit.snapshot import locate, snapshot_notes
    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message

    from .scene import NOW

    scene = build_scene(tmp_path / "scene")
    plan = plan_export(_request(tmp_path, scene, patterns=["AUDIT.DLQ"]))
    start = plan.queues[0].depth_start
    planned = export._partitions

    def busy(plan, parts):  # the queue gets 3 more messages once the export is under way
        qm = open_embedded(str(scene.qm_path))
        try:
            for i in range(3):
                qm.put("AUDIT.DLQ", Message(MQMD(format="MQSTR"), b"late %d" % i),
                       syncpoint=True)
            qm.commit()
        finally:
            qm.close()
        return planned(plan, parts)

    said: list[str] = []
    try:
        export._partitions = busy
        summary = export.run_export(spark, plan, note=said.append)
    finally:
        export._partitions = planned
    sentence = (f"AUDIT.DLQ (QM1) changed during the export: {start + 3:,} rows read, its "
                f"depth {start:,} at the start and {start + 3:,} at the end")
    assert said == [sentence]
    assert summary.rows == start + 3
    manifest = json.loads((tmp_path / "snap" / "manifest.json").read_text())
    [source] = manifest["sources"]
    assert (source["depth_start"], source["depth_end"], source["rows"]) == (
        start, start + 3, start + 3)
    assert source["changed"] == sentence
    assert snapshot_notes(locate(tmp_path / "snap")) == [sentence]
    report = build_report(spark, tmp_path / "snap", as_of=NOW)
    assert report["messages"] == start + 3
    # and to JSON users: the export's summary per queue, the report's notes (keys added)
    [queue] = summary.to_json()["queues"]
    assert queue["changed"] == sentence and summary.to_json()["notes"] == [sentence]
    from tests.cli.conftest import run_cli

    r = run_cli("audit", "report", "--in", str(tmp_path / "snap"), "--json", "--master",
                "local[2]", "--as-of", NOW.isoformat(), home=tmp_path / "home")
    assert r.code == 0, r.err
    assert r.json["notes"] == [sentence]
    assert {k: v for k, v in r.json.items() if k != "notes"} == report


def test_change_sentences() -> None:
    from mqconsole.audit.export import QueuePlan, change_of

    assert change_of(QueuePlan("p", "QM1", "Q", 5, 5, 5)) is None
    assert change_of(QueuePlan("p", "QM1", "Q", None, None, 5)) is None
    assert change_of(QueuePlan("p", "QM1", "APP.DLQ", 258, 258, 482)) == \
        "APP.DLQ (QM1) changed during the export: 224 more rows than its depth"
    assert change_of(QueuePlan("p", "QM1", "Q", 9, 9, 7)) == \
        "Q (QM1) changed during the export: 2 fewer rows than its depth"


def test_a_queue_in_stretches_is_decoded_by_its_readers(tmp_path) -> None:
    """The embedded queue's stretches (the last one open: no planned rows) are a balanced
    read: its rows are estimated as its share of the depth, and not spread."""
    from mqconsole.audit.export import (
        ExportPlan,
        QueuePlan,
        _estimates,
        _spread,
    )
    from mqconsole.audit.sources import QueueSource
    from mqconsole.backends.base import BrowseRange

    plan = ExportPlan(ExportRequest(out=tmp_path / "snap"),
                      [QueuePlan("dev", "QM1", "BIG.DLQ", 1_000_000),
                       QueuePlan("dev", "QM1", "SMALL.DLQ", None)], [])
    stretches = [QueueSource("dev", "BIG.DLQ", BrowseRange(1, None, [0, 500_000], 500_000)),
                 QueueSource("dev", "BIG.DLQ", BrowseRange(500_001, [0, 500_000], None, None))]
    assert _estimates(plan, stretches, []) == [500_000, 500_000]
    assert not _spread(_estimates(plan, stretches, []), 2)
    one = [QueueSource("dev", "BIG.DLQ")]  # a queue of real MQ: one browse, spread
    assert _estimates(plan, one, []) == [1_000_000] and _spread([1_000_000], 2)
    unknown = [QueueSource("dev", "SMALL.DLQ", BrowseRange(1, None, None, None))]
    assert _estimates(plan, unknown, []) == [None]  # no depth: not known (spread)


def test_positions_of_one_browse_need_no_distinct_count_when_read_in_two(tmp_path) -> None:
    """Each stretch numbers its rows on from its planned first position: read in two, rows
    running from 1 to their count are one browse's (no pass counts distinct positions);
    read in three, or running otherwise, the distinct positions are counted and said."""
    from mqconsole.audit.export import ExportPlan, QueuePlan, _stretch_notes

    class Frame:  # what the distinct count sees: 10 rows, 9 distinct positions, 1 to 10
        queries: list[str] = []

        def createOrReplaceTempView(self, name: str) -> None:
            pass

        class sparkSession:  # as pyspark names it
            class catalog:
                @staticmethod
                def dropTempView(name: str) -> None:
                    pass

            @staticmethod
            def sql(text: str):
                Frame.queries.append(text)

                class Result:
                    @staticmethod
                    def collect():
                        return [{"qmgr": "QM1", "queue": "Q", "n": 10, "lo": 1, "hi": 10,
                                 "d": 9}]
                return Result

    plan = ExportPlan(ExportRequest(out=tmp_path / "snap"),
                      [QueuePlan("dev", "QM1", "Q", 10)], [])
    tiled = {("QM1", "Q"): (10, 1, 10)}
    assert _stretch_notes(Frame(), plan, {("dev", "Q"): 2}, tiled) == []
    assert Frame.queries == []  # no second pass
    said = _stretch_notes(Frame(), plan, {("dev", "Q"): 3}, tiled)
    assert len(Frame.queries) == 1 and said == [
        "Q (QM1) changed while it was read in stretches: its 10 rows hold each message read "
        "once, but their positions are not one browse's (9 distinct, 1 to 10)"]
    assert _stretch_notes(Frame(), plan, {("dev", "Q"): 2}, {("QM1", "Q"): (10, 1, 11)})

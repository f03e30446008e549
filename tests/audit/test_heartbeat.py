"""A running export's heartbeat (issue 25 item 2): what a killed export left on another file
system than the driver's disk (``viewfs://`` here, mounted on a temporary folder, as
``hdfs://`` would be; Hadoop's ``FileSystem`` in the driver's JVM) is removed by the next
export and by ``audit clean`` once its heartbeat has stopped, not a day later; a folder whose
heartbeat is recent is kept however old the folder is. Heartbeats are made old by setting
their files' modification time back (the judge reads the file system's time, not the
writer's). A running export beats, observed through the file, and a failing beat neither
fails the export nor stops the beating."""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from mqconsole.audit.store import (
    HEARTBEAT,
    QUEUED_STALE_SECONDS,
    STALE_SECONDS,
    HadoopStore,
    Store,
    heartbeat_text,
    to_uri,
)

from .scene import plain_queue_manager

DAY_AND_AN_HOUR = 25 * 3600
STOPPED = STALE_SECONDS + 60  # a heartbeat this old has stopped (it declares 10 minutes)


@pytest.fixture
def viewfs(spark, tmp_path):
    """``viewfs://NAME/audit`` mounted on ``tmp_path/fs`` (tests/audit/viewfs.py)."""
    from .viewfs import mount

    root = tmp_path / "fs"
    root.mkdir()
    return mount(spark, root), root


def _set_back(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def _left(folder: Path, *, beat_age: float | None = None,
          stale_after: float = STALE_SECONDS, age: float = 0) -> Path:
    """What an export left: a staging folder with some data, its heartbeat written
    ``beat_age`` seconds ago (None: no heartbeat, an older version's), the folder itself
    last changed ``age`` seconds ago."""
    (folder / "messages").mkdir(parents=True)
    (folder / "messages" / "part-0.parquet").write_bytes(b"half a file")
    if beat_age is not None:
        (folder / HEARTBEAT).write_text(heartbeat_text(stale_after))
        _set_back(folder / HEARTBEAT, beat_age)
    _set_back(folder, age)
    return folder


def _leftovers(where: Path) -> dict[str, Path]:
    """One of each: by their heartbeat, live or gone, and without one, young or old."""
    return {
        "beating": _left(where / ".snap.tmp-1-aaaaaaaaaaaa", beat_age=0,  # a folder a day
                         age=DAY_AND_AN_HOUR),                          # old, still beating
        "stopped": _left(where / ".snap.tmp-2-bbbbbbbbbbbb", beat_age=STOPPED),
        "queued": _left(where / ".snap.tmp-3-cccccccccccc", beat_age=STOPPED,  # a Connect
                        stale_after=QUEUED_STALE_SECONDS),  # file: export's late beat
        "queued, stopped": _left(where / ".snap.tmp-4-dddddddddddd",
                                 beat_age=QUEUED_STALE_SECONDS + 60,
                                 stale_after=QUEUED_STALE_SECONDS),
        "older, young": _left(where / ".snap.tmp-5-eeeeeeeeeeee"),
        "older, old": _left(where / ".snap.tmp-6-ffffffffffff", age=DAY_AND_AN_HOUR),
    }


GONE = ("stopped", "queued, stopped", "older, old")


def _request(out: str, qm: str):
    from mqconsole.audit.export import ExportRequest

    return ExportRequest(out=out, patterns=["APP.IN"],
                         connections={"dev": {"backend": "embedded", "path": qm}})


def test_audit_clean_removes_staging_whose_heartbeat_stopped(spark, viewfs) -> None:
    from mqconsole.audit.export import clean_staging

    base, root = viewfs
    left = _leftovers(root / "exports")
    removed, kept = clean_staging(f"{base}/exports", HadoopStore(spark))
    assert sorted(removed) == sorted(f"{base}/exports/{left[k].name}" for k in GONE)
    assert sorted(kept) == sorted(f"{base}/exports/{p.name}" for k, p in left.items()
                                  if k not in GONE)
    assert sorted(p.name for p in (root / "exports").iterdir()) == sorted(
        p.name for k, p in left.items() if k not in GONE)


def test_the_next_export_removes_staging_whose_heartbeat_stopped(spark, viewfs,
                                                                  tmp_path) -> None:
    from mqconsole.audit.export import plan_export, run_export

    base, root = viewfs
    left = _leftovers(root)
    qm = plain_queue_manager(tmp_path)
    summary = run_export(spark, plan_export(_request(f"{base}/snap", qm)))
    assert summary.rows == 5
    assert sorted(p.name for p in root.iterdir()) == sorted(
        ["snap", *(p.name for k, p in left.items() if k not in GONE)])
    assert not (root / "snap" / HEARTBEAT).exists()  # no file of the snapshot


def test_an_in_place_export_is_judged_by_its_heartbeat(spark, viewfs, tmp_path,
                                                       monkeypatch) -> None:
    """Where no folder renames atomically (viewfs:// made an object store here) the export
    writes in place, its claim and heartbeat in --out: a claim a day old whose heartbeat is
    recent is a live export's (refused, kept); one whose heartbeat stopped is removed by
    the next export to it and by ``audit clean``."""
    from mqconsole.audit import store as store_module
    from mqconsole.audit.errors import AuditInputError
    from mqconsole.audit.export import clean_staging, plan_export, run_export

    monkeypatch.setattr(store_module, "ATOMIC_RENAME", ("file",))
    base, root = viewfs
    qm = plain_queue_manager(tmp_path)

    def claimed(name: str, beat_age: float) -> Path:
        out = _left(root / name, beat_age=beat_age)
        (out / "_EXPORTING").write_text("12345\n")
        _set_back(out / "_EXPORTING", DAY_AND_AN_HOUR)
        return out

    live, dead, again = claimed("live", 0), claimed("dead", STOPPED), claimed("again", STOPPED)
    store = HadoopStore(spark)
    assert clean_staging(f"{base}/live", store) == ([], [f"{base}/live"])
    assert clean_staging(f"{base}/dead", store) == ([f"{base}/dead"], [])
    assert (live / "_EXPORTING").is_file() and not dead.exists()
    with pytest.raises(AuditInputError, match="exists"):
        run_export(spark, plan_export(_request(f"{base}/live", qm)))
    assert (live / "messages" / "part-0.parquet").is_file()
    assert run_export(spark, plan_export(_request(f"{base}/again", qm))).rows == 5
    assert (again / "_SUCCESS").is_file() and not (again / "messages" / "part-0.parquet").exists()
    assert not (again / "_EXPORTING").exists() and not (again / HEARTBEAT).exists()


def test_a_running_export_beats_through_its_store(spark, viewfs, tmp_path, monkeypatch,
                                                  caplog) -> None:
    """The export's heartbeat thread (its interval made short here) writes beat after beat
    while the export runs, each seen in the file; its first beat through the store fails,
    which is logged, and neither fails the export nor stops the beating."""
    from mqconsole.audit import export, heartbeat

    base, root = viewfs
    monkeypatch.setattr(heartbeat, "BEAT_SECONDS", 0.05)
    seen: list[dict] = []
    beaten = threading.Event()

    class Watched(HadoopStore):
        failed = False

        def many(self, ops):
            beat = [args["uri"] for name, args in ops
                    if name == "write_new" and args["uri"].endswith("/" + HEARTBEAT)]
            if beat and len(ops) == 2 and not Watched.failed:  # the thread's first beat
                Watched.failed = True
                raise OSError("the name node is busy")
            done = super().many(ops)
            if beat:
                seen.append(json.loads((root / beat[0][len(base) + 1:]).read_text()))
                if Watched.failed and len(seen) >= 3:  # the first, then two of the thread's
                    beaten.set()
            return done

    run_job = export._run_job

    def when_beaten(*args, **kwargs):
        assert beaten.wait(120), "the heartbeat did not beat while the export ran"
        return run_job(*args, **kwargs)

    monkeypatch.setattr(export, "store_for", lambda spark, uri: Watched(spark))
    monkeypatch.setattr(export, "_run_job", when_beaten)
    with caplog.at_level(logging.WARNING, logger="mqconsole.audit.heartbeat"):
        qm = plain_queue_manager(tmp_path)
        summary = export.run_export(spark, export.plan_export(_request(f"{base}/snap", qm)))
    assert summary.rows == 5
    assert len({beat["time"] for beat in seen}) == len(seen) >= 3
    assert {(b["host"], b["pid"], b["every"], b["stale_after"]) for b in seen} == {
        (socket.gethostname(), os.getpid(), 0.05, STALE_SECONDS)}
    said = [r.getMessage() for r in caplog.records]
    assert any("could not be written (OSError: the name node is busy)" in s for s in said)
    assert any("written again, after 1 failures" in s for s in said)
    assert sorted(p.name for p in root.iterdir()) == ["snap"]
    assert not (root / "snap" / HEARTBEAT).exists()


def test_beats_go_on_after_failures_and_stop_when_told() -> None:
    from mqconsole.audit.heartbeat import Heartbeat

    class Flaky(Store):
        calls = 0
        written: list[str] = []
        again = threading.Event()

        def many(self, ops):
            Flaky.calls += 1
            if Flaky.calls <= 3:
                raise RuntimeError("unreachable")
            Flaky.written.append(ops[1][1]["text"])
            if len(Flaky.written) >= 2:
                Flaky.again.set()
            return [None, None]

    beating = Heartbeat(Flaky(), "hdfs://nn/audit/.snap.tmp-1-a", every=0.001).start()
    try:
        assert Flaky.again.wait(60)
    finally:
        beating.stop()
    assert beating.beats == len(Flaky.written) >= 2 and beating.failures == 0
    assert beating._thread is None  # stopped: the thread is joined, no beat comes from it


def test_a_connect_file_heartbeat_declares_the_generous_bound(spark, tmp_path) -> None:
    """Over Spark Connect a ``file:`` snapshot's beats are jobs on the server's executors,
    which may wait behind the export's own: they declare QUEUED_STALE_SECONDS, and such a
    heartbeat is not taken for gone after minutes. (The test process's session stands in
    for the server, as in test_serverstore.py.)"""
    from mqconsole.audit.heartbeat import Heartbeat
    from mqconsole.audit.serverstore import ServerStore

    store = ServerStore(spark)
    assert store.beat_bound("hdfs://nn/audit/snap") == STALE_SECONDS  # the plugin's: no wait
    staged = tmp_path / ".snap.tmp-1-aaaaaaaaaaaa"
    staged.mkdir()
    assert Heartbeat(store, to_uri(staged)).beat()
    written = json.loads((staged / HEARTBEAT).read_text())
    assert written["stale_after"] == QUEUED_STALE_SECONDS
    _set_back(staged / HEARTBEAT, STOPPED)
    assert not store.abandoned(to_uri(staged))
    _set_back(staged / HEARTBEAT, QUEUED_STALE_SECONDS + 60)
    assert store.abandoned(to_uri(staged))

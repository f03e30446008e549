"""``mqconsole audit clean`` (issue 25 item 2): what killed exports left is removed, a
running export's staging folder is kept; no Spark (in process: ``before_spark``, starting
Spark would fail the test)."""

from __future__ import annotations

import fcntl
import json
import os

from tests.audit.test_export_leftovers import _dead_pid
from tests.cli.conftest import run_cli


def test_clean_removes_killed_exports_staging_and_keeps_a_running_one(tmp_path) -> None:
    exports = tmp_path / "exports"
    (exports / "snap").mkdir(parents=True)  # a published snapshot: never touched
    (exports / "snap" / "manifest.json").write_text("{}")
    killed = exports / f".snap.tmp-{_dead_pid()}-0123456789ab"
    (killed / "messages" / "queue=Q").mkdir(parents=True)
    (killed / "messages" / "queue=Q" / "part-0.parquet").write_bytes(b"PAR1")
    other = exports / f".other.tmp-{_dead_pid()}-cccccccccccc"  # another --out's
    other.mkdir()
    running = exports / f".snap.tmp-{os.getpid()}-bbbbbbbbbbbb"
    running.mkdir()
    fd = os.open(running / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        r = run_cli("audit", "clean", str(exports), home=tmp_path / "home",
                    before_spark=True)
    finally:
        os.close(fd)
    assert r.code == 0, r.err
    assert sorted(r.out.splitlines()) == sorted([
        f"removed {killed}", f"removed {other}",
        f"kept {running} (an export is writing it)"])
    assert not killed.exists() and not other.exists() and running.is_dir()
    assert (exports / "snap" / "manifest.json").is_file()
    # an --out: what is beside it and its own, as JSON (the running one has finished: its
    # lock is free now, so it goes too)
    again = exports / f".snap.tmp-{_dead_pid()}-ddddddddddd0"
    again.mkdir()
    r = run_cli("audit", "clean", str(exports / "snap"), "--json", home=tmp_path / "home",
                before_spark=True)
    assert r.code == 0, r.err
    assert sorted(json.loads(r.out)["removed"]) == sorted([str(again), str(running)])
    r = run_cli("audit", "clean", str(exports), home=tmp_path / "home",
                before_spark=True)
    assert r.code == 0 and "nothing to clean" in r.out


def test_clean_of_a_missing_folder_is_exit_2(tmp_path) -> None:
    r = run_cli("audit", "clean", str(tmp_path / "no" / "such"), home=tmp_path / "home",
                before_spark=True)
    assert r.code == 2 and "no such folder" in r.err
    assert "Traceback" not in r.err
    # (another file system's folders, through Spark's Hadoop: tests/audit/test_store.py)


def test_clean_removes_a_replaced_snapshot_only_once_its_successor_is_committed(
        tmp_path) -> None:
    """A ``--replace`` killed between its renames leaves the old snapshot aside
    (``.NAME.old-…``): once NAME holds a committed snapshot the one aside is removed; while
    NAME is missing, the one aside may be the only snapshot there is: left untouched."""
    exports = tmp_path / "exports"
    for name in ("snap", "gone"):
        aside = exports / f".{name}.old-0123456789ab"
        (aside / "messages").mkdir(parents=True)
        (aside / "manifest.json").write_text("{}")
        (aside / "_SUCCESS").write_text("")
    (exports / "snap").mkdir()
    (exports / "snap" / "manifest.json").write_text("{}")
    (exports / "snap" / "_SUCCESS").write_text("")
    (exports / ".snap.x.old-0123456789ab").mkdir()  # the out "snap.x"'s, which is missing
    r = run_cli("audit", "clean", str(exports / "snap"), "--json", home=tmp_path / "home",
                before_spark=True)
    assert r.code == 0, r.err
    assert json.loads(r.out) == {"removed": [str(exports / ".snap.old-0123456789ab")],
                                 "kept": []}
    assert sorted(p.name for p in exports.iterdir()) == [
        ".gone.old-0123456789ab", ".snap.x.old-0123456789ab", "snap"]
    r = run_cli("audit", "clean", str(exports), "--json", home=tmp_path / "home",
                before_spark=True)
    assert r.code == 0 and json.loads(r.out) == {"removed": [], "kept": []}, r.out
    assert (exports / ".gone.old-0123456789ab" / "manifest.json").is_file()


def test_why_a_staging_folder_was_kept_names_what_judged_it(tmp_path) -> None:
    """This machine's folder in a classic session is judged by its export's lock; over
    Spark Connect (--remote) the same path is judged on the server by its heartbeat, and a
    held lock is not what kept it (it said "an export is writing it" there too)."""
    from mqconsole.cli.commands.audit_cmd import kept_because

    staged = str(tmp_path / ".snap.tmp-1-abc")
    assert kept_because(staged, remote=False) == "an export is writing it"
    assert kept_because(staged, remote=True).startswith("an export may still be writing it")
    assert kept_because("hdfs://nn/x/.snap.tmp-1-abc", remote=False).startswith(
        "an export may still be writing it: its heartbeat is recent")

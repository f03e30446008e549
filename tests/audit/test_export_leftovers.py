"""What a killed or failed export leaves (issue 28 item 17): its temporary folder is removed
by the next export to the same --out, a folder without its manifest is no snapshot, and a
full disk is said as such (exit 1). No Spark here."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

import pytest

from mqconsole.audit.errors import AuditInputError, NoSpace
from mqconsole.audit.export import explain_failure, remove_leftovers
from mqconsole.audit.snapshot import locate
from mqconsole.audit.store import to_uri


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_the_next_export_removes_what_killed_exports_left(tmp_path):
    out = tmp_path / "snap"
    killed = tmp_path / f".snap.tmp-{_dead_pid()}-0123456789ab"  # killed before its lock
    (killed / "messages").mkdir(parents=True)
    unlocked = tmp_path / f".snap.tmp-{os.getpid()}-aaaaaaaaaaaa"  # its lock is free
    unlocked.mkdir()
    (unlocked / ".lock").touch()
    older = tmp_path / ".snap.tmp-0123456789ab"  # an older version's name
    older.mkdir()
    running = tmp_path / f".snap.tmp-{os.getpid()}-bbbbbbbbbbbb"  # a running export's
    running.mkdir()
    fd = os.open(running / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    other = tmp_path / f".other.tmp-{_dead_pid()}-cccccccccccc"  # another --out's
    other.mkdir()
    try:
        removed = remove_leftovers(out)
    finally:
        os.close(fd)
    assert sorted(removed) == sorted(to_uri(p) for p in (killed, unlocked, older))
    assert running.is_dir() and other.is_dir()
    assert not killed.exists() and not unlocked.exists() and not older.exists()


def test_a_folder_without_its_manifest_is_not_a_snapshot(tmp_path):
    """An export killed after Spark wrote messages/_SUCCESS but before the manifest."""
    data = tmp_path / ".snap.tmp-1-x" / "messages" / "queue=Q" / "put_date=2026-12-01"
    data.mkdir(parents=True)
    (data / "part-0.parquet").write_bytes(b"PAR1")
    (data.parent.parent / "_SUCCESS").touch()
    with pytest.raises(AuditInputError, match=r"has no manifest.json: not a finished audit "
                       "snapshot"):
        locate(tmp_path / ".snap.tmp-1-x")


def test_a_full_disk_is_said_as_such_and_is_exit_1():
    spark_text = ("An error occurred while calling o75.parquet.\n: org.apache.spark."
                  "SparkException: Job aborted.\nCaused by: java.io.IOException: No space "
                  "left on device\n\tat java.base/java.io.FileOutputStream.writeBytes")
    error = explain_failure(RuntimeError(spark_text), "local[2]")
    assert isinstance(error, NoSpace) and error.code == 1
    assert str(error) == ("the export failed: no space left on device (nothing was written: "
                          "free some space and export again)")
    assert "o75" not in str(error)

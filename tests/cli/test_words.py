"""Say what happened (issue 17 item 12): a FIFO is told from a missing file; a read-only
profile refusing a copy says "copying"; a save's disk or permission error names the file
the operator gave, not a temporary name; a killed save's temporary file is gone on the next
run; raw control characters typed by the operator come back escaped."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from mqconsole.ops import savefile
from mqconsole.ops.inputs import not_a_file
from mqconsole.ops.savefile import write_messages_file
from tests.support.faulty import make_message

from .conftest import run_cli


def test_not_a_file_says_what_it_is(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert not_a_file(fifo) == f"{fifo} is a FIFO (a named pipe), not a file"
    assert not_a_file(tmp_path) == f"{tmp_path} is a folder, not a file"
    assert not_a_file("/dev/null") == "/dev/null is a device, not a file"
    assert not_a_file(tmp_path / "none") == f"there is no file {tmp_path / 'none'}"
    (tmp_path / "f").write_text("x")
    assert not_a_file(tmp_path / "f") is None


def test_load_of_a_fifo_is_told_from_a_missing_file(cli, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = cli("load", str(fifo), "APP.AUDIT", "--yes")
    assert r.code == 2 and r.err == f"mqconsole: {fifo} is a FIFO (a named pipe), not a file\n"
    r = cli("load", str(tmp_path / "none.dmp"), "APP.AUDIT", "--yes")
    assert r.code == 2 and "there is no file" in r.err


def test_a_read_only_profile_refusing_a_copy_says_copying(tmp_path, demo):
    config = tmp_path / "config.yaml"
    config.write_text(f"profiles:\n  - name: ro\n    read_only: true\n    backend: "
                      f"{{type: embedded, path: {demo}}}\n")
    r = run_cli("--embedded", str(demo), "--config", str(config), "copy", "APP.INVOICES",
                "APP.AUDIT", "--all", "--dest-profile", "ro", "--yes", home=tmp_path / "h")
    assert r.code == 4 and "profile ro is read-only: copying messages to it refused" in r.err


def test_a_full_disk_names_the_file_asked_for(tmp_path, monkeypatch):
    target = tmp_path / "out.dmp"

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(savefile.os, "fsync", full)
    with pytest.raises(OSError) as caught:
        write_messages_file(target, [make_message(1)], qmgr="QM1", queue="Q")
    assert caught.value.filename == str(target) and caught.value.errno == errno.ENOSPC
    assert os.listdir(tmp_path) == []  # no temporary file left


def test_a_killed_saves_temporary_file_is_removed_on_the_next_run(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = tmp_path / f".out.dmp.{dead}.partial"
    stale.write_text("half a file")
    backup = tmp_path / f".QM1-Q-20261125T180000.000Z.dmp.{dead}.partial"  # a delete's
    backup.write_text("half a backup")
    alive = tmp_path / f".other.dmp.{os.getpid()}.partial"  # a save still writing: kept
    alive.write_text("x")
    write_messages_file(tmp_path / "out.dmp", [make_message(1)], qmgr="QM1", queue="Q")
    assert not stale.exists() and not backup.exists() and alive.exists()
    assert (tmp_path / "out.dmp").exists()


def test_control_characters_typed_by_the_operator_are_escaped(cli):
    r = cli("move", "APP.\x1b[2JDLQ", "APP.AUDIT", "--all", "--yes")
    assert r.code == 2 and "\x1b" not in r.err and "\\x1b" in r.err


def test_save_to_an_empty_name_says_so(cli):
    for name in ("", "  "):
        r = cli("save", "APP.INVOICES", name, "--all")
        assert r.code == 2 and r.err == "mqconsole: the file name is empty: name the file " \
            "to write\n"

"""Real ``mqconsole move`` processes of 20,000 messages stopped mid-way — kill -9, SIGTERM,
SIGTERM twice, Ctrl-C once and twice — and the journal checked against the queues each time
(issue 17 items 2 and 3): it accounts for every moved message, says an operation that
never ended was interrupted, and names the one unit whose commit it could not confirm.
Also Ctrl-C on a read-only command and at the confirmation: 130, never 4."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mqconsole.backends.open import open_embedded
from mqconsole.ops.journal import Journal

from .conftest import run_cli, wait_for_output
from .test_journal_faults import DST, MQCONSOLE, SRC, ids

COUNT = 20_000
pytestmark = pytest.mark.slow


def _copy(template: Path, target: Path) -> Path:
    shutil.copy(template, target)
    for suffix in ("-wal", "-shm"):
        if Path(str(template) + suffix).exists():
            shutil.copy(str(template) + suffix, str(target) + suffix)
    return target


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)
    return env


def _depth(path: Path, queue: str) -> int:
    qm = open_embedded(path)
    try:
        return qm.inquire_queue(queue).depth or 0
    finally:
        qm.close()


@contextmanager
def watching(path: Path) -> Iterator[Callable[[str], int]]:
    """``depth(queue)`` read through one connection held while a test waits on a process:
    a new connection per look (``_depth``) cost 2.5 ms of CPU and took the file's write
    lock to register, in a loop looking every 5 ms beside the process watched. Closed when
    the wait is over, before the process is stopped: what comes after (a kill, the next
    connection backing out its unit) is as before."""
    qm = open_embedded(path)
    try:
        yield lambda queue: qm.inquire_queue(queue).depth or 0
    finally:
        qm.close()


def _move_until(path: Path, home: Path, depth: int, *extra: str) -> subprocess.Popen:
    """Start a move and return once DESTINATION holds ``depth`` messages (it still runs)."""
    proc = subprocess.Popen([MQCONSOLE, "--embedded", str(path), "move", SRC, DST, "--all",
                             "--yes", *extra], env=_env(home), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    with watching(path) as depth_of:
        while proc.poll() is None and time.monotonic() < deadline:
            if depth_of(DST) >= depth:
                break
            time.sleep(0.005)
    assert proc.poll() is None, "the move ended before it could be stopped"
    return proc


def _journal(home: Path) -> list:
    j = Journal(home / "state" / "journal.jsonl")
    entries = [e for e in j.read() if e.operation == "move"]
    assert j.problems == []
    return entries


def _accounts(entry, moved: list[str]) -> None:
    """Every moved message is in the journal: committed, or in the one unit in doubt."""
    committed, doubt, on_dst = set(entry.msgids), set(entry.in_doubt), set(moved)
    assert len(committed) == len(entry.msgids)
    assert committed <= on_dst <= committed | doubt
    assert on_dst in (committed, committed | doubt)  # a unit commits whole or not at all


def test_kill_9_mid_move_leaves_a_journal_of_every_moved_message(template, tmp_path):
    seed = int(os.environ.get("MQCONSOLE_KILL_SEED", time.time_ns() % (1 << 32)))
    print(f"seed {seed} (rerun with MQCONSOLE_KILL_SEED={seed})")
    rng = random.Random(seed)
    for round_no in range(3):
        path = _copy(template, tmp_path / f"kill{round_no}.sqlite")
        home = tmp_path / f"home{round_no}"
        proc = _move_until(path, home, rng.randrange(100, COUNT // 2))
        time.sleep(rng.uniform(0, 0.02))
        proc.kill()
        proc.wait(timeout=60)
        moved = ids(path, DST)  # (opening it backs out the dead process's unit)
        assert len(moved) + len(ids(path, SRC)) == COUNT
        [entry] = _journal(home)
        assert entry.state == "interrupted" and entry.ended is None
        _accounts(entry, moved)
        assert len(entry.in_doubt) <= 100


def test_sigterm_stops_at_the_next_commit_with_summary_journal_and_143(template, tmp_path):
    path, home = _copy(template, tmp_path / "term.sqlite"), tmp_path / "home"
    proc = _move_until(path, home, 3000)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    moved = ids(path, DST)
    assert f"moved {len(moved)} of {COUNT} selected messages from {SRC}" in err.decode()
    assert f"not tried: {COUNT - len(moved)}" in err.decode()  # they stayed on SRC
    assert "SIGTERM: stopping at the next commit" in err.decode()
    [entry] = _journal(home)
    assert entry.state == "complete" and entry.in_doubt == []
    assert entry.msgids == moved  # in the order they moved
    assert entry.details["cancelled"] is True and 3000 <= len(moved) < COUNT
    assert entry.details["stopped_by"] == "SIGTERM" and entry.stopped() == "by SIGTERM"
    shown = run_cli("--embedded", str(path), "journal", home=home)  # (in this process)
    assert "STOPPED early (by SIGTERM)" in shown.out


SLOW = '''
import pathlib, time
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    if message.body == b"body 3000":  # mid-unit: 1,000 puts are open
        pathlib.Path(__file__).with_name("waiting").touch()
        time.sleep(120)  # a put that hangs (a queue manager that does not answer)
    return None
'''


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130)])
def test_a_second_signal_stops_at_once(template, tmp_path, sig, code):
    """A move hanging in a put ignores the first Ctrl-C until the put returns; the second
    stops it at once: the open unit is backed out, the journal says exactly what was
    committed. Ctrl-C twice is 130, never 4 (refused). (The hang is a plugin's check: the
    first SIGTERM stops that at once — tests/cli/test_plugin_escapes.py.)"""
    folder = tmp_path / "plugins"
    folder.mkdir(mode=0o755)
    (folder / "slow.py").write_text(SLOW)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{folder}]\n")
    path, home = _copy(template, tmp_path / "twice.sqlite"), tmp_path / "home"
    proc = subprocess.Popen([MQCONSOLE, "--config", str(config), "--embedded", str(path),
                             "move", SRC, DST, "--all", "--yes", "--batch", "2000"],
                            env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (folder / "waiting").exists() and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(sig)
    # the first signal handled (a second one sent before that would merge with it)
    early = wait_for_output(proc, "stopping at the next commit")
    assert proc.poll() is None  # still in the put
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    err = early + err
    assert proc.returncode == code, err
    moved = ids(path, DST)
    assert len(moved) == 2000 and len(ids(path, SRC)) == COUNT - 2000
    [entry] = _journal(home)
    assert entry.msgids == moved and entry.in_doubt == [] and entry.state == "complete"
    assert "interrupted at once" in entry.details["error"]
    assert b"Traceback" not in err


def test_one_ctrl_c_stops_at_the_next_commit_with_exit_1(template, tmp_path):
    path, home = _copy(template, tmp_path / "int.sqlite"), tmp_path / "home"
    proc = _move_until(path, home, 3000)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert b"cancelled: what was committed stays committed" in err
    [entry] = _journal(home)
    assert entry.msgids == ids(path, DST) and entry.state == "complete"
    assert entry.stopped() == "by Ctrl-C"


def test_ctrl_c_on_a_read_only_command_is_130(template, tmp_path):
    path = _copy(template, tmp_path / "read.sqlite")
    proc = subprocess.Popen([MQCONSOLE, "--embedded", str(path), "browse", SRC, "--limit",
                             str(COUNT)], env=_env(tmp_path / "home"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    # its first row: start-up is over; it then fills the pipe nobody reads and waits
    assert proc.stdout.readline(), proc.communicate()
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 130, err
    assert err.endswith(b"mqconsole: interrupted\n") and b"Traceback" not in err


def test_ctrl_c_at_the_confirmation_is_130(template, tmp_path, terminal):
    path = _copy(template, tmp_path / "ask.sqlite")
    keyboard = terminal()
    proc = subprocess.Popen([MQCONSOLE, "--embedded", str(path), "move", SRC, DST, "--all"],
                            env=_env(tmp_path / "home"), stdin=keyboard.end,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    keyboard.hand_over()
    deadline = time.monotonic() + 120  # a condition: it reads from the terminal
    while proc.poll() is None and time.monotonic() < deadline and not _reading(proc):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert ids(path, DST) == []


def _reading(proc: subprocess.Popen) -> bool:
    """The process waits at its question (it reads from the terminal)."""
    try:
        with open(f"/proc/{proc.pid}/wchan") as fp:
            return fp.read().strip() in ("n_tty_read", "wait_woken", "tty_read")
    except OSError:
        return False


def test_a_killed_save_leaves_no_partial_file_after_the_next_run(template, tmp_path):
    """kill -9 while a save writes: its temporary file is removed by the next save or
    delete writing in that folder (issue 17 item 12)."""
    path = _copy(template, tmp_path / "save.sqlite")
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen([MQCONSOLE, "--embedded", str(path), "save", SRC,
                             str(out / "all.dmp"), "--all"], env=_env(tmp_path / "home"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240  # (a hang's bound, not a timing)
    while not list(out.glob(".*.partial")) and time.monotonic() < deadline:
        assert proc.poll() is None, "the save ended before it could be killed"
        time.sleep(0.005)
    proc.kill()
    proc.wait(timeout=30)
    assert list(out.glob(".*.partial"))  # what kill -9 leaves
    # the next run (in this process: tests/cli's run_cli)
    r = run_cli("--embedded", str(path), "delete", SRC, "--limit", "1", "--all", "--backup",
                str(out / "one.dmp"), "--yes", home=tmp_path / "home")
    assert r.code == 0, r.err
    assert sorted(p.name for p in out.iterdir()) == ["one.dmp"]

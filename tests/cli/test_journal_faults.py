"""A journal that cannot be written, for real (issue 17 item 1): a folder in its place and a
full disk (/dev/full) stop a change before it starts (exit 6, nothing changed, before any
question); a file size limit (``ulimit -f``) reached mid-way stops the move at the next
commit, prints its summary, names the journal's file and exits 6 — and the queues hold what
the summary says."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.journal import Journal
from tests.support.queues import msgids

from .conftest import run_cli

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")
SRC, DST = "J.SRC", "J.DST"


def make_qm(path: Path, count: int) -> Path:
    qm = create_queue_manager(path, name="QMJ")
    for name in (SRC, DST):
        qm.define_queue(QueueAttrs(name=name, max_depth=1_000_000))
    for i in range(count):
        md = MQMD(format="MQSTR", ccsid=1208, msg_id=b"JRNL" + i.to_bytes(20, "big"))
        qm.put(SRC, Message(md, f"body {i}".encode()), context=Context.SET_ALL,
               syncpoint=True)
    qm.commit()
    qm.close()
    return path


def ids(path: Path, queue: str) -> list[str]:
    qm = open_embedded(path)
    try:
        return [msg_id.hex().upper() for msg_id in msgids(qm, queue)]
    finally:
        qm.close()


def mqconsole(*args: str, home: Path, limit: int | None = None,
              ) -> subprocess.CompletedProcess:
    """``mqconsole ARGS``: in this process (tests/cli's ``run_cli``) unless ``limit`` is
    given, a file size limit (``ulimit -f``), which only a process of its own can have."""
    if limit is None:
        r = run_cli(*args, home=home)
        return subprocess.CompletedProcess([MQCONSOLE, *args], r.code, r.out, r.err)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)

    def preexec() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([MQCONSOLE, *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=300, preexec_fn=preexec)


@pytest.fixture
def qm_file(tmp_path) -> Path:
    return make_qm(tmp_path / "qm.sqlite", 300)


def test_a_folder_in_place_of_the_journal_changes_nothing_and_asks_nothing(tmp_path, qm_file):
    home = tmp_path / "home"
    journal = home / "state" / "journal.jsonl"
    journal.mkdir(parents=True)
    # no --yes and no terminal: a change would be refused (4); the journal is said first
    p = mqconsole("--embedded", str(qm_file), "move", SRC, DST, "--all", home=home)
    assert p.returncode == 6, p.stderr
    assert p.stderr == (f"mqconsole: the journal {journal} could not be written: a folder is "
                        "in its place: nothing was changed\n")
    assert len(ids(qm_file, SRC)) == 300 and ids(qm_file, DST) == []


def test_a_full_disk_at_the_start_changes_nothing(tmp_path, qm_file):
    home = tmp_path / "home"
    journal = home / "state" / "journal.jsonl"
    journal.parent.mkdir(parents=True)
    journal.symlink_to("/dev/full")  # every write: ENOSPC
    p = mqconsole("--embedded", str(qm_file), "move", SRC, DST, "--all", "--yes", home=home)
    assert p.returncode == 6, p.stderr
    assert "could not be written: No space left on device: nothing was changed" in p.stderr
    assert str(journal) in p.stderr and "Traceback" not in p.stderr
    assert len(ids(qm_file, SRC)) == 300 and ids(qm_file, DST) == []


def test_a_file_size_limit_reached_mid_way(tmp_path):
    qm_file = make_qm(tmp_path / "qm.sqlite", 3000)
    home = tmp_path / "home"
    journal = home / "state" / "journal.jsonl"
    journal.parent.mkdir(parents=True)
    limit = 24 * 1024 * 1024  # far above the queue manager's files
    line = json.dumps({"time": "2026-11-01T00:00:00.000Z", "operation": "copy",
                       "details": {"pad": "x" * 900}}) + "\n"
    with open(journal, "w") as fp:  # old records up to 20 KB below the limit
        fp.write(line * ((limit - 20_000) // len(line)))
    before = journal.stat().st_size
    p = mqconsole("--embedded", str(qm_file), "move", SRC, DST, "--all", "--yes", "--json",
                  home=home, limit=limit)
    assert p.returncode == 6, p.stderr
    summary = json.loads(p.stdout)
    moved = ids(qm_file, DST)
    # the summary says what happened, and it did: stopped at the next commit
    assert summary["exit_code"] == 6 and summary["done"] == len(moved)
    assert 0 < len(moved) < 3000 and len(ids(qm_file, SRC)) == 3000 - len(moved)
    assert summary["stopped_early"] == "the journal could not be written"
    assert summary["journal_problem"] == (f"the journal {journal} could not be written: "
                                          "File too large")
    assert f"mqconsole: the journal {journal} could not be written: File too large" in p.stderr
    # what the journal kept is whole records, and never more than moved
    j = Journal(journal)
    [entry] = [e for e in j.read() if e.operation == "move"]
    assert j.problems == [] and journal.stat().st_size <= limit
    assert set(entry.msgids) <= set(moved)
    # and every message that moved is in a record or in doubt (issue 28 item 3: the unit
    # whose record could not be written was backed out, not committed without one)
    assert set(entry.msgids) | set(entry.in_doubt) >= set(moved)
    assert journal.stat().st_size > before


def test_reading_a_journal_that_is_a_folder_is_an_error_not_an_empty_journal(tmp_path):
    """``mqconsole journal`` over a folder said 'no journal entries' and exited 0: a script
    checking what was done would believe nothing was. Now one sentence and exit 2."""
    home = tmp_path / "home"
    journal = home / "state" / "journal.jsonl"
    journal.mkdir(parents=True)
    p = mqconsole("journal", home=home)
    assert p.returncode == 2, p.stderr
    assert p.stderr == (f"mqconsole: the journal {journal} cannot be read: a folder is in "
                        "its place\n")
    journal.rmdir()
    p = mqconsole("journal", home=home)  # none yet: nothing recorded, said, exit 0
    assert p.returncode == 0 and p.stderr == f"no journal entries in {journal}\n"

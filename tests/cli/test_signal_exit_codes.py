"""Exit codes under signals, with real processes (issue 28 item 11): SIGHUP is treated as
SIGTERM is (stop at the next commit, summary and journal, exit 129); the dead-letter
handler stopped by SIGTERM in its RETRYINT wait exits alike under WAIT(NO) and WAIT(n) (0,
its documented code for a stop by a signal); a WAIT(YES) handler's end record names the
signal that stopped it. Synchronised on the queues, the attempt counts and files a plugin
writes, never on sleeps."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dlq.attempts import AttemptStore
from mqconsole.ops.journal import Journal

from .test_journal_faults import DST, MQCONSOLE, SRC, ids
from .test_journal_signals import COUNT, _copy, _env, _journal, _move_until

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
pytestmark = pytest.mark.slow


def test_sighup_stops_a_move_at_the_next_commit_with_summary_journal_and_129(
        template, tmp_path):
    path, home = _copy(template, tmp_path / "hup.sqlite"), tmp_path / "home"
    proc = _move_until(path, home, 3000)
    proc.send_signal(signal.SIGHUP)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 129, err
    moved = ids(path, DST)
    text = err.decode()
    # --all selected the whole queue; those after the stop were never tried (they stayed)
    assert f"moved {len(moved)} of {COUNT} selected messages from {SRC}" in text
    assert f"not tried: {COUNT - len(moved)}" in text, text
    assert "SIGHUP: stopping at the next commit" in text and "Traceback" not in text
    [entry] = _journal(home)
    assert entry.state == "complete" and entry.in_doubt == [] and entry.msgids == moved
    assert entry.details["stopped_by"] == "SIGHUP" and entry.stopped() == "by SIGHUP"


def _dead_letters(path: Path, count: int, dest: str) -> None:
    qm = create_queue_manager(path)
    qm.define_queue(QueueAttrs(name="APP.FULL", max_depth=0))  # every retry fails: Q_FULL
    qm.define_queue(QueueAttrs(name="APP.BACK", max_depth=100_000))
    for i in range(count):
        md = MQMD(format="MQSTR", ccsid=1208, msg_id=b"SIGS" + i.to_bytes(20, "big"))
        md, body = add_dead_letter_header(md, f"body {i}".encode(), reason=2053,
                                          dest_q_name=dest, dest_qmgr_name="QM1")
        qm.put(DLQ, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    qm.close()


@pytest.mark.parametrize("wait", ["WAIT(NO)", "WAIT(600)"])
def test_sigterm_in_the_retry_wait_exits_alike_under_wait_no_and_wait_n(tmp_path, wait):
    """Each message's retry failed (its queue is full); the handler waits RETRYINT for the
    retry due. SIGTERM there: the same exit code under WAIT(NO) and WAIT(n) — it was 1
    under WAIT(NO) and 0 under WAIT(n), with the same failures."""
    path = tmp_path / "qm.sqlite"
    _dead_letters(path, 5, "APP.FULL")
    rules = tmp_path / "r.rules"
    rules.write_text(f"RETRYINT(600) {wait}\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(9)\n")
    counts = tmp_path / "attempts.sqlite"
    proc = subprocess.Popen([MQCONSOLE, "--embedded", str(path), "dlq-handler", "--rules",
                             str(rules), "--attempts-file", str(counts), "--yes", "--json"],
                            env=_env(tmp_path / "home"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if counts.exists():
                store = AttemptStore(counts, "QM1", DLQ)
                try:
                    if len(store.counts()) == 5:
                        break  # every retry failed and was counted: now the wait
                finally:
                    store.close()
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err  # a stop by a signal: the handler's documented 0
    assert b"Traceback" not in err


HOLD = '''
import pathlib, time
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    here = pathlib.Path(__file__).parent
    if message.body == b"body 120":  # mid-cycle: the handler is holding a unit open
        (here / "waiting").touch()
        while not (here / "go").exists():  # a slow put, until the test has signalled
            time.sleep(0.01)
    return None
'''


# the signal comes while a plugin's check holds a unit open: it stops at once (the check
# may never return), 143 or 129 even for the handler (docs/dlq-handler.md, docs/plugins.md)
@pytest.mark.parametrize(("signum", "name", "code"), [(signal.SIGTERM, "SIGTERM", 143),
                                                      (signal.SIGHUP, "SIGHUP", 129)],
                         ids=["TERM", "HUP"])
def test_a_wait_yes_handler_stopped_by_a_signal_says_so_in_its_end_record(
        tmp_path, signum, name, code):
    path = tmp_path / "qm.sqlite"
    _dead_letters(path, 200, "APP.BACK")
    folder = tmp_path / "plugins"
    folder.mkdir(mode=0o700)
    (folder / "hold.py").write_text(HOLD)
    (folder / "hold.py").chmod(0o600)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{folder}]\n")
    rules = tmp_path / "r.rules"
    rules.write_text("WAIT(YES)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n")
    home = tmp_path / "home"
    proc = subprocess.Popen([MQCONSOLE, "--config", str(config), "--embedded", str(path),
                             "dlq-handler", "--rules", str(rules), "--yes", "--batch", "50"],
                            env=_env(home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (folder / "waiting").exists() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(signum)  # handled before the check can return (it sleeps: EINTR)
        (folder / "go").touch()
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    j = Journal(home / "state" / "journal.jsonl")
    cycles = [e for e in j.read() if e.operation == "dlq-handler"]
    assert j.problems == [] and cycles
    last = cycles[-1]
    assert last.state == "complete"
    assert last.details.get("stopped_by") == name
    assert last.stopped() == "interrupted at once: the open unit of work was backed out"
    # the unit held open was backed out: 100 retried (two units of 50), the rest stayed
    assert len(ids(path, "APP.BACK")) == 100 and len(ids(path, DLQ)) == 100

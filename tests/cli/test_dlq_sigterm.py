"""SIGTERM (a service manager's stop) or SIGINT (Ctrl-C) to a real ``mqconsole
dlq-handler`` in the middle of a pass over 10,000 dead-letter messages: it backs out its
open unit of work and ends cleanly, and every message is exactly once either still on the
dead-letter queue (as it was) or on its destination (header removed). SIGKILL too: the
next connection backs the dead process's unit of work out, with the same result; and the
attempt counts a killed handler wrote are there for the next one (restart durability
across real processes)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dlq.attempts import AttemptStore
from tests.support.queues import msgids_and_bodies

from .conftest import run_cli, signal_delivered, wait_for_output

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")
DLQ, DEST = "SYSTEM.DEAD.LETTER.QUEUE", "APP.BACK"
COUNT = 10_000
ROUNDS = 3

pytestmark = pytest.mark.slow


def _body(i: int) -> bytes:
    return f"body {i} {i * 7919 % 100003}".encode()


def _msgid(i: int) -> bytes:
    return b"TERM" + i.to_bytes(20, "big")


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("term") / "template.sqlite"
    qm = create_queue_manager(path)
    qm.change_queue(DLQ, max_depth=1_000_000)
    qm.define_queue(QueueAttrs(name=DEST, max_depth=1_000_000))
    for i in range(COUNT):
        md = MQMD(format="MQSTR", ccsid=1208, encoding=546, msg_id=_msgid(i), persistence=1,
                  priority=4, user_identifier="termtest")
        md, body = add_dead_letter_header(md, _body(i), reason=2053, dest_q_name=DEST,
                                          dest_qmgr_name="QM1")
        qm.put(DLQ, Message(md, body), context=Context.SET_ALL, syncpoint=True)
        if i % 500 == 499:
            qm.commit()
    qm.commit()
    qm.close()
    return path


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL],
                         ids=["TERM", "INT", "KILL"])
def test_sigterm_mid_pass_loses_and_duplicates_nothing(template, tmp_path, signum) -> None:
    seed = int(os.environ.get("MQCONSOLE_KILL_SEED", time.time_ns() % (1 << 32)))
    rng = random.Random(seed)
    rules = tmp_path / "retry.rules"
    rules.write_text("WAIT(YES)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(tmp_path / "home")
    stopped_mid_pass = 0
    for round_no in range(ROUNDS):
        path = tmp_path / f"round{round_no}.sqlite"
        shutil.copy(template, path)
        for suffix in ("-wal", "-shm"):
            if Path(str(template) + suffix).exists():
                shutil.copy(str(template) + suffix, str(path) + suffix)
        # past start-up and at least two commits (batch 50), thousands still to go:
        # mid-pass wherever it lands, at a random point of a unit of work; the handler's
        # work up to the signal is this test's CPU, so the signal comes within the first
        # 1,000 (where in the pass does not matter, where in a unit does)
        target = rng.randrange(100, 1000)
        proc = subprocess.Popen([MQCONSOLE, "--embedded", str(path), "dlq-handler", "--rules",
                                 str(rules), "--yes", "--batch", "50"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        watcher = open_embedded(path)
        try:
            deadline = time.monotonic() + 120
            while proc.poll() is None and time.monotonic() < deadline:
                if (watcher.inquire_queue(DEST).depth or 0) >= target:
                    break
                time.sleep(0.01)
            proc.send_signal(signum)
            code = proc.wait(timeout=60)
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        finally:
            watcher.close()
        if signum == signal.SIGKILL:
            assert code == -signal.SIGKILL, err
        else:
            assert code == 0, err
            assert "stopped (a signal or cancel)" in err and "Traceback" not in err
        qm = open_embedded(path)
        try:
            left, back = msgids_and_bodies(qm, DLQ), msgids_and_bodies(qm, DEST)
            assert not qm.queue_status(DLQ).uncommitted_messages
        finally:
            qm.close()
        if 0 < len(back) < COUNT:
            stopped_mid_pass += 1
        # on the DLQ: as it was (header and all); on the destination: the original body
        have = Counter((mid, body[172:]) for mid, body in left) + Counter(back)
        want = Counter((_msgid(i), _body(i)) for i in range(COUNT))
        assert have == want, (f"round {round_no} (seed {seed}): "
                              f"{sum((want - have).values())} lost, "
                              f"{sum((have - want).values())} duplicated")
        path.unlink()
    assert stopped_mid_pass >= 2, f"the signals should land mid-pass (seed {seed})"


def test_attempt_counts_survive_a_killed_handler(tmp_path) -> None:
    """A long-lived handler retrying messages to a full queue is SIGKILLed; the counts it
    wrote are in the file, the next run carries them on (each message's attempts one
    more than stored) and, with a table whose first rule's budget they exceed, falls
    through to the next rule at once — then forgets them, the messages having left."""
    path = tmp_path / "qm.sqlite"
    qm = create_queue_manager(path)
    qm.define_queue(QueueAttrs(name="APP.FULL", max_depth=0))
    qm.define_queue(QueueAttrs(name="CATCH"))
    for i in range(50):
        md = MQMD(format="MQSTR", ccsid=1208, msg_id=_msgid(i), priority=4)
        md, body = add_dead_letter_header(md, _body(i), reason=2053, dest_q_name="APP.FULL",
                                          dest_qmgr_name="QM1")
        qm.put(DLQ, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    qm.close()
    counts = tmp_path / "attempts.sqlite"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(tmp_path / "home")

    def handler(table: str, *args: str, **kw) -> subprocess.Popen:
        rules = tmp_path / "r.rules"
        rules.write_text(table)
        return subprocess.Popen([MQCONSOLE, "--embedded", str(path), "dlq-handler", "--rules",
                                 str(rules), "--attempts-file", str(counts), "--yes", *args],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)

    def next_run(table: str, *args: str) -> tuple[int, str, str]:
        rules = tmp_path / "r.rules"
        rules.write_text(table)
        r = run_cli("--embedded", str(path), "dlq-handler", "--rules", str(rules),
                    "--attempts-file", str(counts), "--yes", *args, home=tmp_path / "home")
        return r.code, r.out, r.err

    def stored() -> dict[bytes, int]:
        if not counts.exists():
            return {}
        store = AttemptStore(counts, "QM1", DLQ)
        try:
            return store.counts()
        finally:
            store.close()

    proc = handler("RETRYINT(0) WAIT(YES)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(999)\n")
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            now = stored()
            if len(now) == 50 and min(now.values()) >= 3:
                break
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    before = stored()
    assert len(before) == 50 and min(before.values()) >= 3
    # the next run carries the counts on (in this process: tests/cli's run_cli)
    code, out, err = next_run("RETRYINT(0)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(999)\n",
                              "--once", "--json")
    assert code == 1, err
    lines = json.loads(out)["messages"]
    assert len(lines) == 50 and all(m["outcome"] == "failed" for m in lines)
    after = stored()
    assert after == {k: n + 1 for k, n in before.items()}
    assert sorted(m["attempts"] for m in lines) == sorted(after.values())
    # a budget of 2 the counts exceed: the next matching rule applies at once (its own
    # budget added: 2 + 999 more than the attempts made)
    code, out, err = next_run("RETRYINT(0)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\n"
                              "ACTION(FWD) FWDQ(CATCH) RETRY(999)\n", "--once", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert {(m["rule"], m["outcome"]) for m in doc["messages"]} == {(2, "forwarded")}
    assert stored() == {}
    qm = open_embedded(path)
    try:
        assert qm.inquire_queue("CATCH").depth == 50 and qm.inquire_queue(DLQ).depth == 0
    finally:
        qm.close()


HANG = '''
import pathlib, time
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    if message.body.startswith(b"body 1500 "):  # mid-unit: 500 puts are open
        pathlib.Path(__file__).with_name("waiting").touch()
        time.sleep(120)  # a put that hangs (a queue manager that does not answer)
    return None
'''


@pytest.mark.parametrize(("first", "second", "code"),
                         [(signal.SIGINT, signal.SIGINT, 130),
                          (signal.SIGTERM, None, 143)],
                         ids=["INT-INT", "TERM"])
def test_a_hanging_put_stopped_by_a_second_signal(template, tmp_path, first, second,
                                                  code) -> None:
    """The handler hangs in a put (here a site plugin's check that does not return): the
    first Ctrl-C waits for it and Ctrl-C again stops at once (130); SIGTERM stops a plugin
    that does not return at the first (143: a service manager need not SIGKILL it). Either
    way the open unit of work is backed out, the 1,000 messages committed before it are on
    their destination, every message is there exactly once."""
    folder = tmp_path / "plugins"
    folder.mkdir(mode=0o755)
    (folder / "hang.py").write_text(HANG)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{folder}]\n")
    rules = tmp_path / "retry.rules"
    rules.write_text("WAIT(YES)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n")
    path = tmp_path / "hang.sqlite"
    shutil.copy(template, path)
    for suffix in ("-wal", "-shm"):
        if Path(str(template) + suffix).exists():
            shutil.copy(str(template) + suffix, str(path) + suffix)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(tmp_path / "home")
    proc = subprocess.Popen([MQCONSOLE, "--config", str(config), "--embedded", str(path),
                             "dlq-handler", "--rules", str(rules), "--yes", "--batch", "1000"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (folder / "waiting").exists() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(first)
        # the first signal handled (a second SIGINT sent before that would merge with it);
        # SIGTERM stops a plugin's check that never returns at once
        early = (wait_for_output(proc, "Ctrl-C again to stop at once")
                 if first == signal.SIGINT else b"")
        if second is not None:
            signal_delivered(proc, first)
            assert proc.poll() is None  # still in the put
            proc.send_signal(second)
        _, err = proc.communicate(timeout=60)
        err = early + err
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert b"Traceback" not in err
    qm = open_embedded(path)
    try:
        left, back = msgids_and_bodies(qm, DLQ), msgids_and_bodies(qm, DEST)
        assert not qm.queue_status(DLQ).uncommitted_messages
    finally:
        qm.close()
    assert len(back) == 1000 and len(left) == COUNT - 1000
    have = Counter((mid, body[172:]) for mid, body in left) + Counter(back)
    assert have == Counter((_msgid(i), _body(i)) for i in range(COUNT))

"""SIGTERM (a service manager's stop) or SIGINT (Ctrl-C) to a real ``mqconsole
dlq-handler`` in the middle of a pass over 10,000 dead-letter messages: it backs out its
open unit of work and ends cleanly, and every message is exactly once either still on the
dead-letter queue (as it was) or on its destination (header removed)."""

from __future__ import annotations

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


def _contents(qm, queue: str) -> list[tuple[bytes, bytes]]:
    out = []
    with qm.browse(queue) as cur:
        while True:
            batch = cur.next_batch(1000)
            out.extend((m.md.msg_id, m.body) for m in batch)
            if len(batch) < 1000:
                return out


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
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
        target = rng.randrange(300, COUNT - 2000)
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
        assert code == 0, err
        assert "stopped (a signal or cancel)" in err and "Traceback" not in err
        qm = open_embedded(path)
        try:
            left, back = _contents(qm, DLQ), _contents(qm, DEST)
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

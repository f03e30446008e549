"""Contract: several processes on one queue manager at once (the TUI and a scripted command).

Children are plain subprocesses running the same protocol code; they connect with
``mqconsole.backends.open.open_backend(backend.spec())``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from contract_support import bodies, browse_all, put_bodies

import mqconsole
from mqconsole.backends.base import QueueManager

ROOT = Path(mqconsole.__file__).resolve().parent.parent

# Runs in the children and, for the in-process getter, in the test itself.
WORKER = r'''
import json, sys, time
from mqconsole.backends.base import Context
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message


def putter(qm, queue, n, stops):
    for i in range(n):
        qm.put(queue, Message(MQMD(format="MQSTR", priority=5), str(i).encode()),
               context=Context.NEW, syncpoint=i % 4 != 0)
        if i % 10 == 9:
            qm.commit()
    qm.commit()
    for _ in range(stops):
        qm.put(queue, Message(MQMD(format="MQSTR", priority=0), b"STOP"), syncpoint=False)
    return []


def getter(qm, queue, deadline=240.0):
    """Get under syncpoint until a STOP; commit every 5, back out every 7th batch."""
    done, pending, batches = [], [], 0
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            m = qm.get(queue, syncpoint=True)
        except MQError as e:
            if e.reason != 2033:
                raise
            if pending:
                qm.commit()
                done.extend(pending)
                pending = []
            time.sleep(0.002)
            continue
        if m.body == b"STOP":
            qm.commit()
            return done + pending
        pending.append(m.body.decode())
        if len(pending) == 5:
            batches += 1
            if batches % 7 == 0:
                qm.backout()
            else:
                qm.commit()
                done.extend(pending)
            pending = []
    raise SystemExit("getter: no STOP before the deadline")


def hold(qm, queue, n):
    for _ in range(n):
        qm.get(queue, syncpoint=True)
    print("held", flush=True)
    time.sleep(120)


if __name__ == "__main__":
    from mqconsole.backends.open import open_backend
    args = json.loads(sys.argv[1])
    qm = open_backend(args["spec"])
    role = args["role"]
    if role == "putter":
        out = putter(qm, args["queue"], args["n"], args["stops"])
    elif role == "getter":
        out = getter(qm, args["queue"])
    else:
        hold(qm, args["queue"], args["n"])
    qm.close()
    print(json.dumps(out), flush=True)
'''


def _spawn(tmp_path: Path, **args: object) -> subprocess.Popen[str]:
    script = tmp_path / "contract_worker.py"
    if not script.exists():
        script.write_text(WORKER)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen([sys.executable, str(script), json.dumps(args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(proc: subprocess.Popen[str], timeout: float = 240) -> list[str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def multiprocess(backend):
    # conftest.pytest_collection_modifyitems leaves out backends without a second process
    assert backend.multiprocess
    return backend


def test_put_in_one_process_get_in_two(multiprocess, qm: QueueManager, make_queue,
                                       tmp_path: Path) -> None:
    n = 300
    queue = make_queue("MP", max_depth=10_000)
    spec = multiprocess.spec()
    putter = _spawn(tmp_path, spec=spec, role="putter", queue=queue, n=n, stops=2)
    getter = _spawn(tmp_path, spec=spec, role="getter", queue=queue)
    ns: dict[str, object] = {"__name__": "contract_worker"}
    exec(compile(WORKER, "contract_worker", "exec"), ns)
    mine = ns["getter"](qm, queue)  # type: ignore[operator]
    assert _result(putter) == []
    theirs = _result(getter)
    together = mine + theirs
    assert len(together) == n, f"got {len(together)} messages, expected {n}"
    assert sorted(together, key=int) == [str(i) for i in range(n)]
    assert bodies(qm, queue) == []
    assert qm.inquire_queue(queue).depth == 0


def test_a_killed_process_unit_of_work_is_backed_out(multiprocess, qm: QueueManager,
                                                     make_queue, tmp_path: Path) -> None:
    queue = make_queue("KILL")
    put_bodies(qm, queue, "a", "b", "c")
    child = _spawn(tmp_path, spec=multiprocess.spec(), role="hold", queue=queue, n=2)
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.strip() == "held", child.stderr.read() if child.stderr else ""
    assert bodies(qm, queue) == [b"c"]
    child.kill()
    child.wait(timeout=120)
    deadline = time.monotonic() + 120  # (a hang's bound: the suite's, on a busy machine)
    while time.monotonic() < deadline:
        probe = qm.new_connection()  # a queue manager notices a broken connection
        probe.close()
        if len(bodies(qm, queue)) == 3:
            break
        time.sleep(0.05)
    got = [(m.body, m.md.backout_count) for m in browse_all(qm, queue)]
    assert got == [(b"a", 1), (b"b", 1), (b"c", 0)]

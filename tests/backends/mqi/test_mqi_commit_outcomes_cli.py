"""The CLI on the real-MQ backend (stand-in, child processes): for every operation that
changes messages (load, edit, delete, move, copy, resubmit, dlq-handler, save --remove,
put), a commit whose reply is lost (MQCMIT answered 2009 after it completed) exits 5
"outcome unknown" — never 3 "cannot connect" — and nothing is done twice. (``queue set`` commits
nothing: PCF requests are put outside syncpoint.)"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import standin

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.embedded.connection import open_embedded
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.savefile import write_messages_file
from tests.support.faulty import browse_all, fill, make_message

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")
QMGR, ADMIN, PASSWORD = "QMOUT", "mqadmin", "out-passw0rd"
SRC, DST, DLQ = "APP.SRC", "APP.DST", "APP.DLQ"
N = 4


@pytest.fixture
def setup(tmp_path: Path):
    path = tmp_path / "qm.qm"
    create_queue_manager(path, QMGR).close()
    qm = open_embedded(path, principal=ADMIN)
    for name in (SRC, DST, DLQ):
        qm.define_queue(QueueAttrs(name=name))
    config = tmp_path / "config.yaml"
    config.write_text(f"""profiles:
  - name: real
    backend:
      type: mq
      queue_manager: {QMGR}
      channel: DEV.APP.SVRCONN
      connection_name: mqhost(1414)
      user: {ADMIN}
      password_env: MQOUT_PASSWORD
""")
    spec = {"name": QMGR, "path": str(path), "admin": ADMIN, "password": PASSWORD,
            "encoding": 546, "default_user": "mqm"}

    def run(*args: str, faults: list[dict] | None = None) -> subprocess.CompletedProcess:
        base = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
        base.update(MQCONSOLE_HOME=str(tmp_path / "home"), MQOUT_PASSWORD=PASSWORD)
        env = standin.child_env([spec], base, faults=faults)
        return standin.run_cli(["--config", str(config), "--profile", "real", *args], env)

    yield qm, run, tmp_path
    qm.close()


def _messages() -> list[Message]:
    return [make_message(i) for i in range(N)]


def _load(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    path = tmp_path / "in.dmp"
    write_messages_file(path, _messages(), qmgr=QMGR, queue=SRC)

    def check() -> None:
        assert len(browse_all(qm, DST)) == N  # committed once, never re-put
    return ["load", str(path), DST, "--yes"], check


def _edit(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    fill(qm, SRC, _messages())
    target = browse_all(qm, SRC)[1]

    def check() -> None:
        bodies = [m.body for m in browse_all(qm, SRC)]
        assert len(bodies) == N and b"edited" in bodies and target.body not in bodies
    return ["edit", SRC, target.md.msg_id.hex(), "--payload-text", "edited", "--yes"], check


def _delete(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    fill(qm, SRC, _messages())

    def check() -> None:
        assert browse_all(qm, SRC) == []
    return ["delete", SRC, "--all", "--yes"], check


def _move(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    fill(qm, SRC, _messages())

    def check() -> None:
        assert browse_all(qm, SRC) == [] and len(browse_all(qm, DST)) == N
    return ["move", SRC, DST, "--all", "--yes"], check


def _resubmit(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    dead = []
    for m in _messages():
        md, body = add_dead_letter_header(m.md, m.body, reason=2053, dest_q_name=DST)
        dead.append(Message(md, body))
    fill(qm, DLQ, dead)

    def check() -> None:
        assert browse_all(qm, DLQ) == [] and len(browse_all(qm, DST)) == N
    return ["resubmit", DLQ, "--all", "--yes"], check


def _copy(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    fill(qm, SRC, _messages())

    def check() -> None:  # copied once: never put again after the lost reply
        assert len(browse_all(qm, SRC)) == N and len(browse_all(qm, DST)) == N
    return ["copy", SRC, DST, "--all", "--yes"], check


def _dlq_handler(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    _resubmit(qm, tmp_path)
    rules = tmp_path / "rules.txt"
    rules.write_text("RETRYINT(0) WAIT(NO)\nACTION(RETRY)\n")

    def check() -> None:
        assert browse_all(qm, DLQ) == [] and len(browse_all(qm, DST)) == N
    return ["dlq-handler", "--rules", str(rules), "--input", DLQ, "--once",
            "--attempts-file", str(tmp_path / "attempts.sqlite"), "--yes"], check


def _save_remove(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    fill(qm, SRC, _messages())
    path = tmp_path / "saved.dmp"

    def check() -> None:  # removed once, and the file holds every message
        from mqconsole.ops.dmpfile import load_file

        assert browse_all(qm, SRC) == [] and len(load_file(path)) == N
    return ["save", SRC, str(path), "--remove", "--all", "--yes"], check


def _put(qm, tmp_path: Path) -> tuple[list[str], Callable[[], None]]:
    def check() -> None:  # the commit's error reaches the command: 5, not 3
        assert len(browse_all(qm, DST)) == N
    return ["put", DST, "--text", "hello", "--count", str(N)], check


OPERATIONS = {"put": _put, "load": _load, "edit": _edit, "delete": _delete, "move": _move,
              "copy": _copy, "resubmit": _resubmit, "dlq-handler": _dlq_handler,
              "save-remove": _save_remove}


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_a_lost_commit_reply_exits_5_and_nothing_is_done_twice(setup, name) -> None:
    qm, run, tmp_path = setup
    args, check = OPERATIONS[name](qm, tmp_path)
    r = run(*args, faults=[{"call": "MQCMIT", "rc": 2009, "effect": "commit"}])
    assert r.returncode == 5, (r.returncode, r.stderr)
    assert "unknown" in r.stderr and "Traceback" not in r.stderr
    check()

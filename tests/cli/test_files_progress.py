"""``mqconsole save --all`` and ``mqconsole load`` in a terminal (a pseudo-terminal here):
one progress bar on stderr that reaches the whole count, its finished line printed once
(issue 16)."""

from __future__ import annotations

import os
import re
import subprocess

from mqconsole.backends.base import Context
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dmpfile import read_messages

from .conftest import MQCONSOLE

N = 2500


def run_in_terminal(terminal, args: list[str], home) -> tuple[int, str]:
    """Run mqconsole with stderr on a pseudo-terminal (``terminal``, the fixture; stdout a
    pipe): its code and what the terminal got."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)
    screen = terminal()
    proc = subprocess.Popen([MQCONSOLE, *args], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=screen.end)
    screen.hand_over()
    try:
        seen = screen.read_to_the_end()
        proc.communicate(timeout=300)
    finally:
        screen.close()
    return proc.returncode, seen.decode(errors="replace")


def test_save_all_and_load_show_one_bar_each_finished_once(tmp_path, terminal):
    db = tmp_path / "qm.sqlite"
    qm = open_embedded(db, create=True)
    for q in ("APP.SRC", "APP.DST"):
        qm.define_queue(QueueAttrs(q, max_depth=100_000))
    for i in range(N):
        qm.put("APP.SRC", Message(MQMD(format="MQSTR"), b"m%d" % i * 50),
               context=Context.SET_ALL, syncpoint=True)
        if i % 500 == 499:
            qm.commit()
    qm.commit()
    qm.close()
    target = tmp_path / "all.dmp"
    code, seen = run_in_terminal(terminal, ["--embedded", str(db), "save", "APP.SRC", "--all",
                                  str(target)], tmp_path / "home")
    assert code == 0, seen
    assert seen.count(f"] {N}/{N}") == 1, seen
    assert len(re.findall(r"\[[#-]+\] \d+/\d+\r?\n", seen)) == 1, seen  # one finished line
    assert sum(1 for _ in read_messages(target)) == N
    code, seen = run_in_terminal(terminal, ["--embedded", str(db), "load", str(target), "APP.DST",
                                  "--yes"], tmp_path / "home")
    assert code == 0, seen
    assert seen.count(f"] {N}/{N}") == 1, seen
    assert len(re.findall(r"\[[#-]+\] \d+/\d+\r?\n", seen)) == 1, seen
    qm = open_embedded(db)
    try:
        assert qm.inquire_queue("APP.DST").depth == N
    finally:
        qm.close()

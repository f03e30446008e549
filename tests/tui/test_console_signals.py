"""The real console in a pseudo-terminal (issue 17 item 6): while a slow filter runs over a
queue read to its end — a search through 60 MB of payloads — SIGTERM and SIGHUP
still end it (143, 129) and q still quits. Before, the filter ran on the event loop and the
console ignored keys and signals for minutes."""

from __future__ import annotations

import os
import random
import signal
import sys
from pathlib import Path

import pytest

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.messages import put_messages
from tests.support.ptyconsole import Console as PtyConsole

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")
pytestmark = [pytest.mark.slow, pytest.mark.pty]


@pytest.fixture(scope="module")
def slow_qm(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("signals") / "qm.sqlite"
    qm = create_queue_manager(str(path), name="QMS")
    qm.define_queue(QueueAttrs(name="SLOW", max_depth=10_000, max_msg_length=200_000))
    # RE2 cannot backtrack, but on a random run of a's and b's '[ab]*a[ab]{200}c' keeps more
    # states than its automaton's cache holds, so it runs as a simulation: linear, about
    # 1.7 us a byte on a quiet core here; 600 payloads of 100,000 bytes (all in the console's
    # window of 64 MB) take over a minute to search, so the filter is still running when the
    # test's key or signal comes, however fast the machine. (A periodic "abab…" payload let
    # the automaton settle: the filter ended in 0.1 s on a quiet machine and raced the key.)
    body = bytes(random.Random(7).choice(b"ab") for _ in range(100_000))
    put_messages(qm, "SLOW", MQMD(format="MQSTR", ccsid=1208), body, count=600)
    qm.close()
    return path


def Console(path: Path, home: Path) -> PtyConsole:
    return PtyConsole("--embedded", str(path), home=home)


@pytest.mark.parametrize(("how", "code"), [("SIGTERM", 143), ("SIGHUP", 129), ("q", 0)])
def test_the_console_answers_while_a_slow_filter_runs(slow_qm, tmp_path, how, code):
    console = Console(slow_qm, tmp_path / "home")
    console.wait_for("SLOW")
    console.keys(b"\r")  # SLOW: the first row (sorted by name)
    console.wait_for("showing 600 of 600")
    console.keys(b"/")
    for ch in "text ~ '[ab]*a[ab]{200}c'":
        os.write(console.fd, ch.encode())
    console.keys(b"\r")
    console.wait_for("filtering")  # the filter runs (for seconds)
    if how == "q":
        # escape stops the filter (or, when the filter runs in the reading itself because
        # it was typed before the console handled the end of the reading, that reading or
        # the screen), then q quits: both answered while the slow filter runs off the event
        # loop — a filter on the event loop held both keys for minutes
        console.keys(b"\x1b", b"q")
    else:
        os.kill(console.pid, getattr(signal, how))
    assert console.exit_code() == code, console.text()[-2000:]

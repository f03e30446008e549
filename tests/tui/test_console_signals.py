"""The real console in a pseudo-terminal (issue 17 item 6): while a slow filter runs over a
queue read to its end, SIGTERM and SIGHUP still end it (143, 129) and q still quits. Before,
the filter ran on the event loop and the console ignored keys and signals for minutes.

The filter is slow by construction, not by the machine's speed: a site plugin's audit
column (a ``--where`` field, ops/where_columns.py) takes a tenth of a second per message, so
filtering the queue's 600 messages takes a minute on any machine — longer than the test
waits for the console to end, so a filter on the event loop fails it. (It was a regular
expression over 60 MB of payloads, which a fast machine searched before the key came and a
slow one spent a minute of CPU on.)"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.messages import put_messages

pytestmark = pytest.mark.slow  # (pty and subprocess: the pty_console fixture)

PACED = '''
import time
from mqconsole.plugins import AuditColumn, hookimpl

def _pace(message):
    time.sleep(0.1)  # the cost of a slow column, by construction (not a synchronisation)
    return "seen"

@hookimpl
def mqconsole_audit_columns():
    return [AuditColumn("pace", "string", _pace)]
'''


@pytest.fixture(scope="module")
def slow_site(tmp_path_factory) -> tuple[Path, Path]:
    """A queue SLOW of 600 small messages, and a configuration loading the paced column."""
    folder = tmp_path_factory.mktemp("signals")
    path = folder / "qm.sqlite"
    qm = create_queue_manager(str(path), name="QMS")
    qm.define_queue(QueueAttrs(name="SLOW", max_depth=10_000))
    put_messages(qm, "SLOW", MQMD(format="MQSTR", ccsid=1208), b"payload", count=600)
    qm.close()
    plugins = folder / "site-plugins"
    plugins.mkdir(mode=0o700)
    (plugins / "paced.py").write_text(PACED)
    config = folder / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{plugins}]\n")
    return path, config


@pytest.mark.parametrize(("how", "code"), [("SIGTERM", 143), ("SIGHUP", 129), ("q", 0)])
def test_the_console_answers_while_a_slow_filter_runs(slow_site, tmp_path, how, code,
                                                      pty_console):
    path, config = slow_site
    console = pty_console("--config", str(config), "--embedded", str(path),
                          home=tmp_path / "home")
    console.wait_for("SLOW")
    console.keys(b"\r")  # SLOW: the first row (sorted by name)
    console.wait_for("showing 600 of 600")
    console.keys(b"/")
    for ch in "paced_pace = 'seen'":
        os.write(console.fd, ch.encode())
    console.keys(b"\r")
    console.wait_for("filtering")  # the filter runs (a minute)
    if how == "q":
        # escape stops the filter (also one typed before the console handled the end
        # of the reading: it runs on the messages read too, test_messages_races.py),
        # then q quits: both answered while the slow filter runs off the event loop —
        # a filter on the event loop held both keys. q only once the escape was taken:
        # a q that reaches the console's read with the escape is one key, alt+q (on a
        # busy machine the two arrived together and nothing quit or stopped)
        console.keys(b"\x1b")
        console.wait_for("Stopped filtering")
        console.keys(b"q")
    else:
        os.kill(console.pid, getattr(signal, how))
    assert console.exit_code() == code, console.text()[-2000:]

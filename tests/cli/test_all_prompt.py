"""The question before a change of --all says how many messages that is (issue 15 item
14), asked in a terminal (a pseudo-terminal here)."""

from __future__ import annotations

import os
import pty
import subprocess
import time

from .conftest import MQCONSOLE


def test_the_all_question_gives_the_count(demo, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(tmp_path / "home")
    controller, terminal = pty.openpty()
    proc = subprocess.Popen([MQCONSOLE, "--embedded", str(demo), "move", "APP.ORDERS",
                             "APP.AUDIT", "--all"], env=env, stdin=terminal,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(terminal)
    try:
        time.sleep(0.5)
        os.write(controller, b"n\n")
        _, err = proc.communicate(timeout=120)
    finally:
        os.close(controller)
    text = err.decode()
    assert proc.returncode == 4, text
    assert "(40 messages on APP.ORDERS now)?" in text

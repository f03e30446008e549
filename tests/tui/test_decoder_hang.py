"""The real console in a pseudo-terminal with a site decoder that never returns (issue 28
item 8): the message's Decoded tab says the decoder timed out, the console goes on
answering, and ``q`` ends the process at once (before, it stayed alive with a blank screen,
waiting for the decoder's thread)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # (pty and subprocess: the pty_console fixture)

SPIN = '''
import time
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_decode_payload(message, payload):
    while True:  # never returns, and keeps a core busy
        time.sleep(0.001)
'''


def test_q_quits_while_a_decoder_never_returns(tmp_path, demo_file, pty_console):
    folder = tmp_path / "site-plugins"
    folder.mkdir(mode=0o700)
    (folder / "spin.py").write_text(SPIN)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{folder}]\n")
    console = pty_console("--config", str(config), "--embedded", str(demo_file),
                          home=tmp_path / "home", wait=120, exit_wait=60)
    console.wait_for("APP.AUDIT")
    console.keys(b"\x1b[B", b"\r")  # APP.INVOICES, its first message
    console.wait_for("showing 12 of 12")  # its rows read: enter opens the first
    console.keys(b"\r")
    console.wait_for("7 Decoded")
    console.keys(b"7")
    console.wait_for("decoder spin timed out")
    shown = console.mark()
    console.keys(b"\x1b")  # back to the queue: the console still answers
    # (q once the escape was taken: read together they are one key, alt+q)
    console.wait_for("showing 12 of 12", since=shown)
    console.keys(b"q")
    assert console.exit_code() == 0, console.text()[-2000:]
    assert "Traceback" not in console.text()

"""The real console in a pseudo-terminal with a site decoder that never returns (issue 28
item 8): the message's Decoded tab says the decoder timed out, the console goes on
answering, and ``q`` ends the process at once (before, it stayed alive with a blank screen,
waiting for the decoder's thread)."""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import signal
import struct
import sys
import time
from pathlib import Path

import pytest

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")
pytestmark = pytest.mark.slow

SPIN = '''
import time
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_decode_payload(message, payload):
    while True:  # never returns, and keeps a core busy
        time.sleep(0.001)
'''


class Console:
    def __init__(self, *args: str, home: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
        env.update(MQCONSOLE_HOME=str(home), TERM="xterm-256color")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child
            os.execve(MQCONSOLE, [MQCONSOLE, *args], env)
        import fcntl
        import termios

        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
        self.out = bytearray()

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    return
                if not data:
                    return
                self.out.extend(data)

    def text(self) -> str:
        return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", bytes(self.out)).decode("utf-8",
                                                                               "replace")

    def wait_for(self, words: str, seconds: float = 120) -> None:
        end = time.monotonic() + seconds
        while words not in self.text()[-20000:]:
            assert time.monotonic() < end, f"the console never showed {words!r}"
            self.pump(0.2)

    def keys(self, *keys: bytes) -> None:
        for k in keys:
            os.write(self.fd, k)
            self.pump(0.2)

    def exit_code(self, seconds: float = 60) -> int | None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return None


def test_q_quits_while_a_decoder_never_returns(tmp_path, demo_file):
    folder = tmp_path / "site-plugins"
    folder.mkdir(mode=0o700)
    (folder / "spin.py").write_text(SPIN)
    config = tmp_path / "config.yaml"
    config.write_text(f"plugins:\n  paths: [{folder}]\n")
    console = Console("--config", str(config), "--embedded", str(demo_file),
                      home=tmp_path / "home")
    try:
        console.wait_for("APP.AUDIT")
        console.keys(b"\x1b[B", b"\r")  # APP.INVOICES, its first message
        console.wait_for("APP.INVOICES")
        console.keys(b"\r")
        console.wait_for("7 Decoded")
        console.keys(b"7")
        console.wait_for("decoder spin timed out")
        console.keys(b"\x1b")  # back to the queue: the console still answers
        console.keys(b"q")
        assert console.exit_code() == 0, console.text()[-2000:]
        assert "Traceback" not in console.text()
    finally:
        with contextlib.suppress(ChildProcessError):  # (a failure: never leave it running)
            if os.waitpid(console.pid, os.WNOHANG) == (0, 0):
                os.kill(console.pid, signal.SIGKILL)
                os.waitpid(console.pid, 0)

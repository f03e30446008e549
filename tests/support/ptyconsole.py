"""The real console in a pseudo-terminal (its own process), for tests of signals, keys and
quitting that a pilot cannot show: what it draws, the keys typed, its exit code. A test
starts it with the ``pty_console`` fixture (tests/support/terminals.py), which puts the
test in the pty tier and kills a console left running."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import struct
import sys
import time
from pathlib import Path

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")


class Console:
    """``Console(*args, home=...)``: ``mqconsole ARGS`` at 120x30; ``wait`` and ``exit_wait``
    are how long :meth:`wait_for` and :meth:`exit_code` wait unless told; ``stdin``: a file
    descriptor to read keys from instead of the terminal."""

    def __init__(self, *args: str, home: Path, wait: float = 60, exit_wait: float = 30,
                 stdin: int | None = None) -> None:
        self.wait, self.exit_wait = wait, exit_wait
        env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
        env.update(MQCONSOLE_HOME=str(home), TERM="xterm-256color")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child
            if stdin is not None:  # input from another terminal than the one drawn on
                os.dup2(stdin, 0)
            os.execve(MQCONSOLE, [MQCONSOLE, *args], env)
        import fcntl
        import termios

        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
        self.out = bytearray()
        self.code: int | None = None  # its exit code, once :meth:`exit_code` saw it end

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

    def text(self, since: int = 0) -> str:
        """What was drawn (from byte ``since`` of the output: a :meth:`mark`)."""
        return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", bytes(self.out[since:])).decode(
            "utf-8", "replace")

    def mark(self) -> int:
        """Where the output is now: ``wait_for(words, since=mark)`` waits for words drawn
        after it (a screen shown again, whose words were drawn before too)."""
        return len(self.out)

    def wait_for(self, words: str, seconds: float | None = None, *, since: int = 0) -> None:
        """Wait until the screen shows ``words``; a failure ends with the screen's last text."""
        end = time.monotonic() + (self.wait if seconds is None else seconds)
        while words not in (tail := self.text(since)[-20000:]):
            assert time.monotonic() < end, (f"the console never showed {words!r}: "
                                            f"...{tail[-1500:]!r}")
            self.pump(0.2)

    def keys(self, *keys: bytes) -> None:
        for k in keys:
            os.write(self.fd, k)
            self.pump(0.2)

    def exit_code(self, seconds: float | None = None) -> int | None:
        end = time.monotonic() + (self.exit_wait if seconds is None else seconds)
        while time.monotonic() < end:
            self.pump(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.code = os.waitstatus_to_exitcode(status)
                return self.code
        self.kill()
        return None

    def kill(self) -> None:
        """SIGKILL, and the process reaped."""
        os.kill(self.pid, signal.SIGKILL)
        self.code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])

    def close(self) -> None:
        """Kill the console if it still runs (a failed test never leaves it running) and
        close its terminal."""
        if self.code is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.code = os.waitstatus_to_exitcode(status)
            else:
                self.kill()
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)

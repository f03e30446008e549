"""The real console whose terminal input goes away (an SSH connection dropped) without a
SIGHUP: the driver notices the hang-up, ends input and the console exits 129 instead of
spinning on end-of-file for ever (with Textual's public driver API only)."""

from __future__ import annotations

import contextlib
import os
import pty
import signal

import pytest

from tests.support.ptyconsole import Console

pytestmark = pytest.mark.slow


def test_input_hung_up_ends_the_console_with_129(tmp_path, demo_file):
    keyboard, keys_end = pty.openpty()  # not the controlling terminal: no SIGHUP comes
    console = Console("--embedded", str(demo_file), home=tmp_path / "home", wait=120,
                      exit_wait=120, stdin=keys_end)
    os.close(keys_end)
    try:
        console.wait_for("APP.AUDIT")
        os.close(keyboard)  # the keyboard's side of the terminal is gone
        assert console.exit_code() == 129, console.text()[-2000:]
        assert "Traceback" not in console.text()
    finally:
        with contextlib.suppress(ChildProcessError):  # (a failure: never leave it running)
            if os.waitpid(console.pid, os.WNOHANG) == (0, 0):
                os.kill(console.pid, signal.SIGKILL)
                os.waitpid(console.pid, 0)

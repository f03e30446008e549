"""The real console whose terminal input goes away (an SSH connection dropped) without a
SIGHUP: the driver notices the hang-up, ends input and the console exits 129 instead of
spinning on end-of-file for ever (with Textual's public driver API only)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # (pty and subprocess: the terminal and pty_console fixtures)


def test_input_hung_up_ends_the_console_with_129(tmp_path, demo_file, terminal, pty_console):
    keyboard = terminal()  # not the controlling terminal: no SIGHUP comes
    console = pty_console("--embedded", str(demo_file), home=tmp_path / "home", wait=120,
                          exit_wait=120, stdin=keyboard.end)
    keyboard.hand_over()
    console.wait_for("APP.AUDIT")
    keyboard.close()  # the keyboard's side of the terminal is gone
    assert console.exit_code() == 129, console.text()[-2000:]
    assert "Traceback" not in console.text()

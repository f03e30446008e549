"""The command line's progress line (issue 15 item 14): the finished bar printed once, and
'1 message'."""

from __future__ import annotations

import io
import sys

from mqconsole.cli import operate


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_finished_bar_is_printed_once(monkeypatch):
    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    draw = operate.progress_line()
    assert draw is not None
    draw(5, 10)
    draw(10, 10)
    draw(10, 10)  # the engine reports the end again (the last unit, then the summary)
    out = err.getvalue()
    assert out.count("] 10/10") == 1 and out.count("\n") == 1


def test_one_message_is_one_message(monkeypatch):
    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    draw = operate.progress_line()
    draw(1, None)
    assert err.getvalue() == "\r1 message"

"""Pseudo-terminals for tests: the fixtures through which a test opens one, and so the
``pty`` tier.

* ``terminal``: ``terminal()`` opens a pseudo-terminal (a :class:`Terminal`): its
  ``end`` for a process's stdin, stdout or stderr, its ``controller`` for the test;
* ``pty_console``: ``pty_console(*args, home=...)`` starts the real console in one of its
  own (:class:`tests.support.ptyconsole.Console`).

A test using either is in the ``pty`` tier, and so ``subprocess`` (tests/support/tiers.py's
``FIXTURES``: nobody marks it); what they opened is closed, and a console still running is
killed, when the test ends. A test that opens a pseudo-terminal another way (``pty.openpty``,
``pty.fork``, ``os.openpty``, ``os.forkpty``) outside that tier fails
(``tiers.forbid_processes``), in every run.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.ptyconsole import Console


class Terminal:
    """A pseudo-terminal: ``end`` (the terminal a process is given) and ``controller`` (the
    keyboard and the screen: what the process writes is read there, what is written there
    the process reads)."""

    def __init__(self) -> None:
        self.controller, self._end = os.openpty()
        self._open = {self.controller, self._end}

    @property
    def end(self) -> int:
        assert self._end in self._open, "the terminal's end was handed over"
        return self._end

    def hand_over(self) -> None:
        """Close this process's copy of ``end`` once a process was started with it: the
        controller then reads the end of the output when that process ends."""
        self._close(self._end)

    def write(self, data: bytes) -> None:
        os.write(self.controller, data)

    def read_to_the_end(self) -> bytes:
        """Everything the process writes to the terminal, until it closes its end (EIO on
        Linux, or end-of-file): after :meth:`hand_over`."""
        out = bytearray()
        while True:
            try:
                chunk = os.read(self.controller, 65536)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            out += chunk
        return bytes(out)

    def close(self) -> None:
        for fd in list(self._open):
            self._close(fd)

    def _close(self, fd: int) -> None:
        if fd in self._open:  # (each once: a number closed twice may be another file's)
            self._open.discard(fd)
            os.close(fd)


@pytest.fixture
def terminal() -> Iterator[Callable[[], Terminal]]:
    """``terminal()``: a new :class:`Terminal`, closed when the test ends."""
    opened: list[Terminal] = []

    def open_one() -> Terminal:
        opened.append(Terminal())
        return opened[-1]

    yield open_one
    for t in opened:
        t.close()


@pytest.fixture
def pty_console() -> Iterator[Callable[..., Console]]:
    """``pty_console(*args, home=..., wait=60, exit_wait=30, stdin=None)``: ``mqconsole
    ARGS`` in a pseudo-terminal of its own (:class:`Console`); one still running when the
    test ends (a failure) is killed, and its terminal closed."""
    started: list[Console] = []

    def start(*args: str, home: Path, **kw: object) -> Console:
        started.append(Console(*args, home=home, **kw))  # type: ignore[arg-type]
        return started[-1]

    yield start
    for console in started:
        with contextlib.suppress(OSError):
            console.close()

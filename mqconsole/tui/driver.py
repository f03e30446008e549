"""A Linux/macOS driver that notices a lost terminal instead of spinning.

When an SSH connection drops, the terminal's reads return end-of-file for ever; Textual's
input thread would then loop at full speed. This driver treats end-of-file on the terminal
as "the terminal is gone" and asks the app to exit (``MQConsoleApp.terminal_lost``).
Everything else is Textual's ``LinuxDriver``.
"""

from __future__ import annotations

import contextlib
import os
import selectors
from codecs import getincrementaldecoder
from functools import partial

from textual import events

# the one internal of Textual the console uses: LinuxDriver's own input thread reads with it
# (Textual is pinned to one minor version in pyproject.toml, the snapshots are the gate)
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver


class SafeLinuxDriver(LinuxDriver):
    def run_input_thread(self) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        fileno = self.fileno
        parser = XTermParser(self._debug)
        feed, tick = parser.feed, parser.tick
        decode = getincrementaldecoder("utf-8")(errors="replace").decode
        try:
            while not self.exit_event.is_set():
                for _key, mask in selector.select(0.1):
                    if not mask & selectors.EVENT_READ:
                        continue
                    try:
                        data = os.read(fileno, 1024 * 4)
                    except OSError:
                        data = b""
                    if not data:  # end of file: the terminal is gone
                        self._lost()
                        return
                    for event in feed(decode(data)):
                        self.process_message(event)
                for event in tick():
                    self.process_message(event)
        finally:
            selector.close()

    def _lost(self) -> None:
        app = self._app
        lost = getattr(app, "terminal_lost", None)
        if lost is not None:  # post_message is thread-safe; a closed app takes none
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                app.post_message(events.Callback(callback=partial(lost, "lost terminal")))


__all__ = ["SafeLinuxDriver"]

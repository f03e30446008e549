"""A Linux/macOS driver that notices a lost terminal instead of spinning.

When an SSH connection drops, the terminal's reads return end-of-file for ever; Textual's
input thread would then loop at full speed. Beside Textual's own input thread (unchanged),
this driver polls the terminal for a hang-up (``POLLHUP``: the other end of the terminal
closed; nothing is read here), then stops the input thread (``exit_event``, as Textual does
when it stops input) and asks the app to exit (``MQConsoleApp.terminal_lost``). No internal
of Textual is used.
"""

from __future__ import annotations

import contextlib
import select
import threading
from functools import partial
from typing import Any

from textual import events
from textual.drivers.linux_driver import LinuxDriver

_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


class SafeLinuxDriver(LinuxDriver):
    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.console_app = app

    def run_input_thread(self) -> None:
        done = threading.Event()
        threading.Thread(target=self.watch_hangup, args=(done,), name="hangup-watch",
                         daemon=True).start()
        try:
            super().run_input_thread()
        finally:
            done.set()

    def watch_hangup(self, done: threading.Event) -> None:
        """Until input stops: a hang-up of the terminal ends input and tells the app."""
        poller = select.poll()
        poller.register(self.fileno, select.POLLHUP)  # (HUP, ERR and NVAL always reported)
        while not done.is_set() and not self.exit_event.is_set():
            if any(mask & _GONE for _fd, mask in poller.poll(100)):
                self.exit_event.set()  # Textual's input thread ends at its next look
                self.terminal_gone()
                return

    def terminal_gone(self) -> None:
        lost = getattr(self.console_app, "terminal_lost", None)
        if lost is not None:  # post_message is thread-safe; a closed app takes none
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                self.console_app.post_message(
                    events.Callback(callback=partial(lost, "lost terminal")))


__all__ = ["SafeLinuxDriver"]

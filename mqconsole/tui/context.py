"""What the console is given to run: the profile, the settings, and how to connect.

Plain values only, so tests and the bench build a console without a configuration file and
``run_app`` builds them from the CLI session (``config/`` is read by the CLI and passed
down, as docs/architecture.md says).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mqconsole.mq.errors import MQError

REPO_THEMES = Path(__file__).resolve().parent.parent.parent / "themes"
MIN_WIDTH, MIN_HEIGHT = 80, 24  # below this the console says "terminal too small"


@dataclass(frozen=True)
class ProfileInfo:
    """The profile as the console needs it (shaped like ``config.Profile``)."""

    name: str = "default"
    read_only: bool = False
    theme: str | None = None
    banner: str | None = None
    environment: str | None = None
    description: str = ""

    @classmethod
    def of(cls, profile: Any) -> ProfileInfo:
        return cls(name=str(getattr(profile, "name", "default")),
                   read_only=bool(getattr(profile, "read_only", False)),
                   theme=getattr(profile, "theme", None),
                   banner=getattr(profile, "banner", None),
                   environment=getattr(profile, "environment", None),
                   description=str(getattr(profile, "description", "") or ""))


@dataclass
class Settings:
    """Console settings (from the ``tui``, ``theme``, ``keymap``, ``journal`` config)."""

    theme: str | None = None
    themes_dirs: list[Path] = field(default_factory=lambda: [REPO_THEMES])
    keymap: dict[str, str] = field(default_factory=dict)
    refresh_seconds: float = 5.0
    page_size: int = 200
    journal_path: Path | None = None
    backup_dir: Path | None = None
    clock: Callable[[], datetime] | None = None
    save_dir: Path | None = None  # where "save to file" suggests files (default: cwd)

    def now(self) -> datetime:
        return self.clock() if self.clock is not None else datetime.now(UTC)

    @property
    def editor(self) -> str:
        return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"


class Connections:
    """The console's connections to one queue manager.

    ``main`` lists and inquires queues and changes attributes (one call at a time, under a
    lock); every browse and every long operation gets a connection of its own
    (``QueueManager.new_connection``), so a move never waits for a refresh and units of work
    never mix (real-mq.md: give browsing its own connection).
    """

    def __init__(self, connect: Callable[[], Any]) -> None:
        self._connect = connect
        self._main: Any = None
        self._lock = threading.RLock()
        self._extra: list[Any] = []
        self.closed = False

    def main(self) -> Any:
        with self._lock:
            if self.closed:
                raise MQError(2018, "the console is closing")  # MQRC_HCONN_ERROR
            if self._main is None:
                self._main = self._connect()
            return self._main

    def call(self, fn: Callable[[Any], Any]) -> Any:
        """Run ``fn(qm)`` on the main connection (serialised)."""
        with self._lock:
            return fn(self.main())

    def new(self) -> Any:
        """A new connection (closed by :meth:`release` or :meth:`close`)."""
        with self._lock:
            qm = self.main().new_connection()
            self._extra.append(qm)
            return qm

    def release(self, qm: Any) -> None:
        with self._lock:
            if qm in self._extra:
                self._extra.remove(qm)
        with contextlib.suppress(Exception):
            qm.close()

    def close(self) -> None:
        with self._lock:
            self.closed = True
            conns = [*self._extra, self._main]
            self._extra.clear()
            self._main = None
        for qm in conns:
            if qm is not None:
                with contextlib.suppress(Exception):
                    qm.close()


def describe_error(exc: BaseException, *, queue: str | None = None) -> str:
    """One sentence naming the queue and the MQ reason (name and number)."""
    where = f"{queue}: " if queue else ""
    if isinstance(exc, MQError):
        detail = f"{exc.detail}: " if exc.detail else ""
        return f"{where}{detail}{exc.reason_name} ({exc.reason})"
    reason = getattr(exc, "reason", None)
    if isinstance(reason, int):
        from mqconsole.mq.names import reason_name

        return f"{where}{exc}: {reason_name(reason)} ({reason})"
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename or ''}: {exc.strerror}".lstrip(": ")
    return f"{where}{text}"


__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "REPO_THEMES", "Connections", "ProfileInfo", "Settings",
           "describe_error"]

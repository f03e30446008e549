"""What the console is given to run: the profile, the settings, and how to connect; and
:class:`ConsoleContext`, what every screen and the actions are given to reach the console.

Plain values only, so tests and the bench build a console without a configuration file and
``run_app`` builds them from the CLI session (``config/`` is read by the CLI and passed
down, as docs/architecture.md says).

Screens and actions never import :mod:`mqconsole.tui.app`: they get a
:class:`ConsoleContext` (state, connections, workers, notifications) and ask the app for
anything else — opening a screen, refreshing the queues — by posting the Textual messages of
:mod:`mqconsole.tui.requests`. A test keeps the package free of import circles.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache, partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from textual import events
from textual.worker import Worker, WorkerState

from mqconsole.mq.errors import MQError
from mqconsole.mq.names import reason_label
from mqconsole.mq.reasons import MQRC_HCONN_ERROR
from mqconsole.tui.flow import FLOW, in_thread, start
from mqconsole.tui.requests import QueuesLoaded
from mqconsole.tui.safe import clean

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message

    from mqconsole.backends.base import QueueManager
    from mqconsole.backends.spec import AskPassword
    from mqconsole.ops.journal import Journal
    from mqconsole.ops.operation import Kind, Operation
    from mqconsole.ops.selection import Mark
    from mqconsole.plugins import PluginHost

REPO_THEMES = Path(__file__).resolve().parent.parent.parent / "themes"
STYLES_DIR = Path(__file__).resolve().parent / "styles"
STYLES: list[str | PurePath] = [STYLES_DIR / "dialogs.tcss", STYLES_DIR / "widgets.tcss",
          STYLES_DIR / "console.tcss"]  # the app's CSS_PATH
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
    #: the backend asks for its password (``password_prompt``) unless ``password_env``'s
    #: variable holds one: the console asks in a dialog before switching to it
    password_prompt: bool = False
    password_env: str | None = None

    @classmethod
    def of(cls, profile: Any) -> ProfileInfo:
        backend = getattr(profile, "backend", None)
        return cls(name=str(getattr(profile, "name", "default")),
                   read_only=bool(getattr(profile, "read_only", False)),
                   theme=getattr(profile, "theme", None),
                   banner=getattr(profile, "banner", None),
                   environment=getattr(profile, "environment", None),
                   description=str(getattr(profile, "description", "") or ""),
                   password_prompt=bool(getattr(backend, "password_prompt", False)),
                   password_env=getattr(backend, "password_env", None))

    @property
    def asks_password(self) -> bool:
        """Whether opening this profile will ask for a password (as the opener decides:
        ``password_env``'s variable first, then the prompt)."""
        return self.password_prompt and not (self.password_env
                                             and os.environ.get(self.password_env))


@dataclass
class Settings:
    """Console settings (from the ``tui``, ``theme``, ``keymap``, ``journal`` config)."""

    theme: str | None = None
    themes_dirs: list[Path] = field(default_factory=lambda: [REPO_THEMES])
    keymap: dict[str, str] = field(default_factory=dict)
    refresh_seconds: float = 5.0
    page_size: int = 200
    journal_path: Path | None = None
    journal_rotation: Any = None  # ops.journal.Rotation
    backup_dir: Path | None = None
    clock: Callable[[], datetime] | None = None
    save_dir: Path | None = None  # where "save to file" suggests files (default: cwd)
    # the audit screen: what Spark's readers open (a backend spec or the profile, no
    # password), the Spark master and settings (``tui.audit_conf``: the audit commands'
    # ``--conf``, checked by their parser), and where snapshots go (default: <state>/audits)
    audit_connection: Any = None
    audit_master: str | None = None
    audit_conf: dict[str, str] = field(default_factory=dict)
    audit_dir: Path | None = None
    # how the audit screen runs its jobs: a runner for the master and the Spark settings,
    # ``runner(master, conf=…)`` (``audit.runner``); None: in the audit's own process, so
    # the console never imports Spark's libraries
    audit_runner: Callable[..., Any] | None = None
    # how the dead-letter handler screen plans and runs its pass (``ops.dlq.child``): None,
    # in the handler's own process (its millions of short-lived objects are not the
    # console's to keep); the tests: ``InProcess``
    handler_runner: Callable[[], Any] | None = None
    # how the replay screen replays (``ops.replaychild``): None, in the replay's own process;
    # the tests: ``InProcess``
    replay_runner: Callable[[], Any] | None = None

    def now(self) -> datetime:
        return self.clock() if self.clock is not None else datetime.now(UTC)

    def journal(self) -> Journal:
        """The journal the console writes and shows (rotated as the config says)."""
        from mqconsole.ops.journal import Journal

        return Journal(self.journal_path, rotation=self.journal_rotation)

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
                raise MQError(MQRC_HCONN_ERROR, "the console is closing")  # MQRC_HCONN_ERROR
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
    """One sentence naming the queue and the MQ reason (name and number), and what a change
    the error stopped had committed before it (the operation's note)."""
    text = _describe_error(exc, queue=queue)
    notes = "; ".join(str(n) for n in getattr(exc, "__notes__", ()))
    return f"{text} ({notes})" if notes else text


def _describe_error(exc: BaseException, *, queue: str | None = None) -> str:
    where = f"{queue}: " if queue else ""
    if isinstance(exc, MQError):
        detail = f"{exc.detail}: " if exc.detail else ""
        return f"{where}{detail}{reason_label(exc.reason)}"
    reason = getattr(exc, "reason", None)
    if isinstance(reason, int):
        from mqconsole.mq.names import reason_name

        return f"{where}{exc}: {reason_name(reason)} ({reason})"
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename or ''}: {exc.strerror}".lstrip(": ")
    return f"{where}{text}"


class ConsoleContext:
    """What screens and actions are given: the profile, settings, connections, what the
    console knows of the queue manager, notifications and the router of failed workers
    (backend calls are flows awaiting :func:`mqconsole.tui.flow.in_thread`).

    One per console; a profile switch changes ``profile`` and ``conns`` in place, so screens
    keep the same context. ``app`` is Textual's ``App`` (for screens, notifications and
    workers), never the console's own class: requests to the console go as messages
    (:meth:`request`).
    """

    def __init__(self, app: App[Any], *, profile: ProfileInfo, settings: Settings,
                 conns: Connections, plugins: PluginHost | None = None) -> None:
        from mqconsole.plugins import NO_PLUGINS

        self.app = app
        self.profile = profile
        self.settings = settings
        self.conns = conns
        self.plugins: PluginHost = plugins if plugins is not None else NO_PLUGINS
        self.qmgr_info: Any = None
        self.dlq_depth: int | None = None
        self.queue_rows: list[dict[str, Any]] = []
        #: one line about the last queue listing when the backend could not ask the command
        #: server (the real-MQ backend's ``last_listing_note``: the profile's queues listed
        #: with MQINQ instead), else None
        self.listing_note: str | None = None
        self._dirty: dict[str, frozenset[Mark] | None] = {}  # queue -> what left it
        self._filters: dict[str, str] = {}  # queue -> the filter last used on it
        # other queue managers to move or copy to: the config's profiles, opened by name
        # for a verb ("moving", "copying"); None: no configuration (--embedded)
        self.profile_names: list[str] = []
        self.open_profile: Callable[[str, str, AskPassword], QueueManager] | None = None

    @property
    def read_only(self) -> bool:
        return bool(self.profile.read_only)

    @property
    def qmgr_name(self) -> str | None:
        return self.qmgr_info.name if self.qmgr_info is not None else None

    def operation(self, kind: Kind) -> Operation:
        """The operation of ``kind`` for this console: its journal, profile and plugins
        (the operation journals and tells the plugins itself)."""
        from mqconsole.ops.operation import Operation

        return Operation(kind, journal=self.settings.journal(),
                         profile=self.profile.name, plugins=self.plugins,
                         details={"tui": True})

    def request(self, message: Message) -> None:
        """Ask the console for something (open a screen, refresh the queues, ...)."""
        self.app.post_message(message)

    def notify(self, text: str, **kw: Any) -> None:
        """A notification; ``text`` is shown as plain text, never as markup."""
        kw["markup"] = False
        self.app.notify(text, **kw)

    # -- workers (backend calls are flows awaiting flow.in_thread) -----------------------
    def post_from_thread(self, callback: Callable[..., Any], *args: Any, **kw: Any) -> None:
        """Run ``callback`` on the event loop soon (never blocks the calling thread): Textual's
        ``post_message`` is thread-safe, and a closed app takes no more messages."""
        with contextlib.suppress(RuntimeError):  # the event loop is already closed
            self.app.post_message(events.Callback(callback=partial(callback, *args, **kw)))

    def worker_changed(self, event: Worker.StateChanged) -> None:
        """The one router of failed workers (the app's and every screen's): a worker that
        ended in an error no flow reports becomes a notification — never a crashed app
        (every worker of the console runs with ``exit_on_error=False``)."""
        worker = event.worker
        if (event.state == WorkerState.ERROR and worker.description != FLOW
                and worker.error is not None):
            self.report_error(worker.error, what=worker.name)

    def report_error(self, exc: BaseException, *, queue: str | None = None,
                     what: str = "") -> None:
        """The one place errors are shown: a notification naming the queue and MQ reason."""
        message = describe_error(exc, queue=queue)
        self.app.log.error(f"{what}: {message}")
        self.app.notify(clean(message), title=clean(what[:1].upper() + what[1:] or "Error"),
                        severity="error", markup=False, timeout=12)

    # -- the queue manager ------------------------------------------------------------------
    def load_queues(self, then: Callable[[list[dict[str, Any]]], Any] | None = None) -> None:
        """Read the queue manager and its queues; then ``then(rows)`` and the banners. A newer
        read cancels this one (its result, even one already in, is dropped)."""
        start(self.app, partial(self._load_queues, then), what="list queues", group="queues",
              exclusive=True)

    async def _load_queues(self, then: Callable[[list[dict[str, Any]]], Any] | None) -> None:
        def read() -> tuple[Any, list[dict[str, Any]], str | None]:
            from mqconsole.ops.queues import queue_rows

            def work(qm: Any) -> tuple[Any, list[dict[str, Any]], str | None]:
                info = qm.inquire_qmgr()
                rows = queue_rows(qm)
                note = getattr(qm, "last_listing_note", None)
                for r in rows:
                    r["ipprocs"] = r["opprocs"] = None
                    if r.get("type") != "local" or len(rows) > 2000:
                        continue
                    try:
                        st = qm.queue_status(r["name"])
                    except Exception:  # no authority to inquire status: shown as '-'
                        continue
                    r["ipprocs"], r["opprocs"] = st.open_input_count, st.open_output_count
                return info, rows, note

            return self.conns.call(work)

        info, rows, note = await in_thread(self, read, queue=None, what="list queues",
                                           group="queues")
        self.qmgr_info = info
        self.queue_rows = rows
        self.listing_note = note
        dlq = info.dead_letter_queue.strip()
        self.dlq_depth = next((r["depth"] for r in rows if r["name"] == dlq), None)
        if then is not None:
            then(rows)
        self.request(QueuesLoaded())

    def mark_dirty(self, queue: str, left: frozenset[Mark] | None = None) -> None:
        """``queue`` changed: its message list is read again when shown — or, when ``left``
        says exactly which marked messages went (and nothing else changed), only their rows
        go (``MessagesScreen.update_after``). Changes add up until the list is shown."""
        if queue in self._dirty:
            before = self._dirty[queue]
            left = None if before is None or left is None else before | left
        self._dirty[queue] = left

    def remember_filter(self, queue: str, where: str | None) -> None:
        """The filter last used on ``queue`` (None: none), for when it is opened again."""
        if where:
            self._filters[queue] = where
        else:
            self._filters.pop(queue, None)

    def remembered_filter(self, queue: str) -> str | None:
        return self._filters.get(queue)

    def take_dirty(self, queue: str) -> bool:
        return self.take_change(queue)[0]

    def take_change(self, queue: str) -> tuple[bool, frozenset[Mark] | None]:
        """Whether ``queue`` changed since it was shown, and which marked messages left it
        (None: read it again)."""
        if queue in self._dirty:
            return True, self._dirty.pop(queue)
        return False, None

    @property
    def has_doctor(self) -> bool:
        return _module_exists("mqconsole.ops.doctor") and _module_exists(
            "mqconsole.tui.screens.doctor")

    @property
    def has_replay(self) -> bool:
        return _module_exists("mqconsole.model.engine") and _module_exists(
            "mqconsole.tui.screens.replay")


@cache
def _module_exists(name: str) -> bool:
    """Whether ``name`` can be imported, found without importing it or the packages it is
    in (``importlib.util.find_spec`` imports the parents: asking for ``mqconsole.model.engine``
    imported the whole delivery model and pydantic's scenario schema, most of the console's
    start-up CPU, for the footer's first look at its keys). Asked once a process: the queue
    screen's footer asks for the doctor and the replay on every key."""
    path: Any = None
    parts = name.split(".")
    for i in range(len(parts)):
        full = ".".join(parts[:i + 1])
        module = sys.modules.get(full)
        try:
            spec = module.__spec__ if module is not None else \
                importlib.machinery.PathFinder.find_spec(full, path)
        except (ImportError, ValueError):
            return False
        if spec is None:
            return False
        path = spec.submodule_search_locations
        if path is None and i < len(parts) - 1:
            return False  # a module where a package was wanted
    return True


__all__ = [
    "MIN_HEIGHT",
    "MIN_WIDTH",
    "REPO_THEMES",
    "STYLES",
    "Connections",
    "ConsoleContext",
    "ProfileInfo",
    "Settings",
    "describe_error",
]

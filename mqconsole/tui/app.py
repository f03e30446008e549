"""The terminal console (``mqconsole`` / ``mqconsole tui`` / ``make run``).

Screens: queues → messages of a queue → one message; the journal; the profile chooser; the
doctor and the replay timeline when the model is there. ``:`` opens the command palette
(every action and screen), ``/`` filters, ``?`` lists the keys of the screen, ``escape``
goes back, ``q`` quits. Details for operators: docs/tui.md.

How it is built (Harlequin's way): every backend call runs in a thread worker through
:meth:`MQConsoleApp.backend`, which reports failures in one place — a notification naming
the queue and the MQ reason — so a slow or failing queue manager never freezes the screen.
Changes go through ``ops`` only (:mod:`mqconsole.tui.actions`). Text from messages and the
queue manager reaches widgets only as ``rich.text.Text`` made safe by :mod:`.safe`.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App, SystemCommand
from textual.screen import Screen

from mqconsole.tui import keys as K
from mqconsole.tui.context import (
    MIN_HEIGHT,
    MIN_WIDTH,
    REPO_THEMES,
    Connections,
    ProfileInfo,
    Settings,
    describe_error,
)
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen

DEFAULT_THEME = "mqconsole-dark"
EXIT_GRACE_SECONDS = 5.0  # after a signal or a lost terminal, waiting for workers


class MQConsoleApp(App[None]):
    TITLE = "mqconsole"
    BINDINGS = K.bindings(K.APP_KEYS)
    ENABLE_COMMAND_PALETTE = True
    NOTIFICATION_TIMEOUT = 8
    CSS = """
    Screen { background: $background; }
    Footer { height: 1; }
    """

    def __init__(self, connect: Callable[[], Any] | None = None, *,
                 profile: ProfileInfo | None = None,
                 profiles: Sequence[ProfileInfo] = (),
                 connect_for: Callable[[ProfileInfo], Any] | None = None,
                 settings: Settings | None = None, **kw: Any) -> None:
        if "driver_class" not in kw and os.name == "posix":
            from mqconsole.tui.driver import SafeLinuxDriver

            kw["driver_class"] = SafeLinuxDriver
        super().__init__(**kw)
        self.settings = settings or Settings()
        self.profiles = list(profiles)
        self._connect_for = connect_for
        self.profile = profile or (self.profiles[0] if len(self.profiles) == 1
                                   else ProfileInfo())
        if connect is None and connect_for is not None and profile is not None:
            connect = lambda: connect_for(profile)  # noqa: E731
        self._choose_profile = connect is None and len(self.profiles) > 1
        self.conns = Connections(connect or (lambda: None))
        self._actions: Any = None
        self.qmgr_info: Any = None
        self.dlq_depth: int | None = None
        self.queue_rows: list[dict[str, Any]] = []
        self.theme_problems: list[str] = []
        self._dirty: set[str] = set()
        self._too_small: Any = None
        self._stopping = False
        self._size_checks = False

    # -- start and stop ---------------------------------------------------------------------
    @property
    def actions(self) -> Any:
        """The :class:`~mqconsole.tui.actions.ActionRunner` (imported when first needed)."""
        if self._actions is None:
            from mqconsole.tui.actions import ActionRunner

            self._actions = ActionRunner(self)
        return self._actions

    @property
    def read_only(self) -> bool:
        return bool(self.profile.read_only)

    def on_mount(self) -> None:
        self._load_themes()
        self._apply_keymap()
        self._install_signal_handlers()
        if self._choose_profile:
            self._show_chooser(can_leave=False)
        else:
            self._start_profile()

        def ready() -> None:
            self._size_checks = True
            self._check_size()

        self.call_after_refresh(ready)

    def _start_profile(self) -> None:
        from mqconsole.tui.screens.queues import QueuesScreen

        self._apply_theme()
        self.sub_title = self.profile.name
        self.push_screen(QueuesScreen())

    def _show_chooser(self, *, can_leave: bool) -> None:
        from mqconsole.tui.screens.misc import ProfileScreen

        def chosen(p: ProfileInfo | None) -> None:
            if p is None:
                return
            self.stop_everything()
            old = self.conns  # disconnecting is a backend call: not on the event loop
            threading.Thread(target=old.close, name="disconnect", daemon=True).start()
            self.profile = p
            assert self._connect_for is not None
            self.conns = Connections(lambda: self._connect_for(p))  # type: ignore[misc]
            self.qmgr_info, self.dlq_depth, self.queue_rows = None, None, []
            while len(self.screen_stack) > 1:
                self.pop_screen()
            self._start_profile()

        self.push_screen(ProfileScreen(self.profiles, can_leave=can_leave), chosen)

    def action_profiles(self) -> None:
        if len(self.profiles) > 1 and self._connect_for is not None:
            self._show_chooser(can_leave=True)
        else:
            self.notify("The configuration names only one profile.", markup=False)

    def stop_everything(self) -> None:
        """Ask every running operation and browse to stop at its next safe point."""
        for screen in self.screen_stack:
            stop = getattr(screen, "_stop", None)
            if stop is not None and screen.__class__.__name__ == "MessagesScreen":
                with contextlib.suppress(Exception):
                    stop()
            cancel = getattr(screen, "on_cancel", None)
            if cancel is not None and screen.__class__.__name__ == "ProgressDialog":
                with contextlib.suppress(Exception):
                    cancel()

    async def action_quit(self) -> None:
        self.stop_everything()
        self.exit()

    def _install_signal_handlers(self) -> None:
        if self.is_headless:
            return
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(sig, self.terminal_lost, f"signal {sig.name}")

    def terminal_lost(self, why: str = "lost terminal") -> None:
        """SIGHUP, SIGTERM or end-of-file on the terminal: stop cleanly, do not spin."""
        if self._stopping:
            return
        self._stopping = True
        self.stop_everything()
        code = 129 if "SIGHUP" in why or "lost" in why else 143

        def watchdog() -> None:  # workers stuck in a queue manager call must not keep us
            time.sleep(EXIT_GRACE_SECONDS)
            os._exit(code)

        if not self.is_headless:  # (a test's process must live on)
            threading.Thread(target=watchdog, name="exit-watchdog", daemon=True).start()
        self.exit(return_code=code)

    # -- themes and keys ----------------------------------------------------------------------
    def _load_themes(self) -> None:
        from mqconsole.tui.themes import load_themes

        loaded = load_themes(self.settings.themes_dirs)
        for theme in loaded.themes.values():
            self.register_theme(theme)
        self.theme_problems = loaded.problems
        for problem in loaded.problems:
            self.notify(f"{problem} — using the default theme instead", title="Theme file",
                        severity="warning", markup=False)

    def _apply_theme(self) -> None:
        wanted = self.profile.theme or self.settings.theme or DEFAULT_THEME
        if wanted in self.available_themes:
            self.theme = wanted
        else:
            fallback = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
            if wanted != DEFAULT_THEME:
                self.notify(f"There is no theme named {wanted}; using {fallback}.",
                            title="Theme", severity="warning", markup=False)
            self.theme = fallback

    def _apply_keymap(self) -> None:
        keymap = dict(self.settings.keymap)
        unknown = K.unknown_keymap_ids(keymap)
        if unknown:
            self.notify("keymap: no binding has the id " + ", ".join(unknown)
                        + " (press ? to see the ids)", title="Keymap", severity="warning",
                        markup=False)
        if keymap:
            self.set_keymap({k: v for k, v in keymap.items() if k not in unknown})

    # -- workers: every backend call goes through here -------------------------------------
    def backend(self, fn: Callable[[], Any], *, done: Callable[[Any], Any] | None = None,
                failed: Callable[[BaseException], Any] | None = None,
                queue: str | None = None, what: str = "", group: str = "backend",
                exclusive: bool = False, quiet: tuple[type[BaseException], ...] = ()) -> Any:
        """Run ``fn`` in a thread worker; ``done(result)`` or ``failed(exc)`` run on the event
        loop afterwards. Failures (but those in ``quiet``) are reported by :meth:`report_error`.
        """

        def job() -> None:
            try:
                result = fn()
            except BaseException as exc:  # reported in one place, never a crash
                if not isinstance(exc, quiet):
                    self.post_from_thread(self.report_error, exc, queue=queue, what=what)
                if failed is not None:
                    self.post_from_thread(failed, exc)
                return
            if done is not None:
                self.post_from_thread(done, result)

        return self.run_worker(job, thread=True, group=group, exclusive=exclusive,
                               name=what or "backend", exit_on_error=False)

    def post_from_thread(self, callback: Callable[..., Any], *args: Any, **kw: Any) -> None:
        """Run ``callback`` on the event loop soon (never blocks the calling thread)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def call() -> None:
            self.call_later(callback, *args, **kw)

        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(call)

    def report_error(self, exc: BaseException, *, queue: str | None = None,
                     what: str = "") -> None:
        """The one place errors are shown: a notification naming the queue and MQ reason."""
        message = describe_error(exc, queue=queue)
        self.log.error(f"{what}: {message}")
        self.notify(clean(message), title=clean(what.capitalize() or "Error"),
                    severity="error", markup=False, timeout=12)

    # -- the queue manager ------------------------------------------------------------------
    def load_queues(self, then: Callable[[list[dict[str, Any]]], Any] | None = None) -> None:
        def read() -> tuple[Any, list[dict[str, Any]]]:
            from mqconsole.ops.queues import queue_rows

            def work(qm: Any) -> tuple[Any, list[dict[str, Any]]]:
                info = qm.inquire_qmgr()
                rows = queue_rows(qm)
                for r in rows:
                    r["ipprocs"] = r["opprocs"] = None
                    if r.get("type") != "local" or len(rows) > 2000:
                        continue
                    try:
                        st = qm.queue_status(r["name"])
                    except Exception:  # no authority to inquire status: shown as '-'
                        continue
                    r["ipprocs"], r["opprocs"] = st.open_input_count, st.open_output_count
                return info, rows

            return self.conns.call(work)

        def got(out: tuple[Any, list[dict[str, Any]]]) -> None:
            info, rows = out
            self.qmgr_info = info
            self.queue_rows = rows
            dlq = info.dead_letter_queue.strip()
            self.dlq_depth = next((r["depth"] for r in rows if r["name"] == dlq), None)
            if then is not None:
                then(rows)
            self.refresh_banners()

        self.backend(read, done=got, what="list queues", group="queues", exclusive=True)

    def refresh_banners(self) -> None:
        from mqconsole.tui.widgets.banner import Banner

        for screen in self.screen_stack:
            for banner in screen.query(Banner):
                banner.refresh()

    def refresh_queues_soon(self) -> None:
        from mqconsole.tui.screens.queues import QueuesScreen

        queues = next((s for s in self.screen_stack if isinstance(s, QueuesScreen)), None)
        self.load_queues(queues._show if queues is not None else None)

    def mark_dirty(self, queue: str) -> None:
        self._dirty.add(queue)
        from mqconsole.tui.screens.messages import MessagesScreen

        if isinstance(self.screen, MessagesScreen) and self.screen.queue == queue:
            self._dirty.discard(queue)
            self.screen.action_refresh()

    def take_dirty(self, queue: str) -> bool:
        if queue in self._dirty:
            self._dirty.discard(queue)
            return True
        return False

    # -- screens ------------------------------------------------------------------------------
    def open_queue(self, name: str) -> None:
        from mqconsole.tui.screens.messages import MessagesScreen

        self.push_screen(MessagesScreen(name))

    def show_message(self, queue: str, view: Any) -> None:
        from mqconsole.tui.screens.detail import DetailScreen

        self.push_screen(DetailScreen(queue, view))

    def leave_detail(self) -> None:
        from mqconsole.tui.screens.detail import DetailScreen

        if isinstance(self.screen, DetailScreen):
            self.pop_screen()

    def show_queue_info(self, name: str) -> None:
        from mqconsole.tui.screens.dialogs import TextDialog

        def read() -> dict[str, Any]:
            from mqconsole.ops.queues import queue_doc

            return self.conns.call(lambda qm: queue_doc(qm, name))

        def show(doc: dict[str, Any]) -> None:
            body = Text()
            for key, value in doc.items():
                if isinstance(value, dict):
                    for k2, v2 in value.items():
                        body.append(f"{key}.{k2}: ", "bold")
                        body.append(clean(v2) + "\n")
                    continue
                body.append(f"{key}: ", "bold")
                body.append(clean(value if not isinstance(value, list) else
                                  ", ".join(map(str, value)) or "-") + "\n")
            self.push_screen(TextDialog(Text(f"Queue {clean(name)}"), body))

        self.backend(read, done=show, queue=name, what="inquire queue")

    def action_journal(self) -> None:
        from mqconsole.tui.screens.journal import JournalScreen

        if not isinstance(self.screen, JournalScreen):
            self.push_screen(JournalScreen())

    def action_queues(self) -> None:
        from mqconsole.tui.screens.queues import QueuesScreen

        while len(self.screen_stack) > 1 and not isinstance(self.screen, QueuesScreen):
            self.pop_screen()

    @property
    def has_doctor(self) -> bool:
        return _module_exists("mqconsole.ops.doctor") and _module_exists(
            "mqconsole.tui.screens.doctor")

    @property
    def has_replay(self) -> bool:
        return _module_exists("mqconsole.model.engine") and _module_exists(
            "mqconsole.tui.screens.replay")

    def open_doctor(self) -> None:
        if not self.has_doctor:
            self.notify("The doctor is not part of this version.", markup=False)
            return
        from mqconsole.tui.screens.doctor import DoctorScreen

        self.push_screen(DoctorScreen())

    def open_replay(self, queue: str | None = None) -> None:
        if not self.has_replay:
            self.notify("The delivery model replay is not part of this version.",
                        markup=False)
            return
        from mqconsole.tui.screens.replay import ReplayScreen

        self.push_screen(ReplayScreen(queue))

    # -- help and palette ---------------------------------------------------------------------
    def action_help(self) -> None:
        from mqconsole.tui.screens.misc import HelpDialog

        screen = self.screen
        rows: list[tuple[str, str, str]] = []
        seen: set[tuple[str, str]] = set()
        for key, active in screen.active_bindings.items():
            b = active.binding
            if not active.enabled or not b.id or b.id.startswith("dialog_"):
                continue  # widgets' own keys (arrows, copy, ...) are in the docs
            desc = b.description or b.action
            if (key, desc) in seen:
                continue
            seen.add((key, desc))
            rows.append((self.get_key_display(b), desc, b.id or ""))
        rows.sort(key=lambda r: (r[2] == "", r[1].lower()))
        title = f"Keys of {screen.__class__.__name__.replace('Screen', '').lower()}"
        self.push_screen(HelpDialog(rows, title))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        if isinstance(screen, ConsoleScreen):
            for command in screen.commands():
                yield SystemCommand(command.title, command.help or command.title,
                                    lambda c=command, s=screen: s.run_command(c))
        yield SystemCommand("Queues", "The list of queues", self.action_queues)
        yield SystemCommand("Journal", "The journal of changes", self.action_journal)
        if self.has_doctor:
            yield SystemCommand("Doctor", "What a poison message would do on each queue",
                                self.open_doctor)
        if self.has_replay:
            yield SystemCommand("Replay", "Replay the delivery model on a queue",
                                lambda: self.open_replay(None))
        for row in self.queue_rows:
            if row.get("type") == "local":
                name = row["name"]
                yield SystemCommand(f"Open {name}", f"Browse the messages of {name}",
                                    lambda n=name: self.open_queue(n), discover=False)
        if len(self.profiles) > 1 and self._connect_for is not None:
            yield SystemCommand("Switch profile", "Choose another profile",
                                self.action_profiles)
        yield SystemCommand("Keys", "The keys of this screen and their ids", self.action_help)
        yield SystemCommand("Theme", "Change the theme", self.action_change_theme)
        yield SystemCommand("Quit", "Leave the console", self.action_quit)

    # -- clipboard ---------------------------------------------------------------------------
    def copy_text(self, text: str, *, what: str) -> None:
        self.copy_to_clipboard(text)
        self.notify(f"Copied the {what} to the clipboard (OSC 52). If your terminal ignores "
                    "OSC 52, W saves it to a file.", markup=False)

    def copy_payload(self, view: Any) -> None:
        from mqconsole.mq.payload import safe_text

        text = view.text
        if text is not None and safe_text(text) == text:
            data, what = text, "payload"
        else:
            data, what = view.payload.hex(), "payload (as hex: it is not plain text)"
        if len(data) > 60_000:
            self.notify("The payload is too large for the clipboard (OSC 52): save it to a "
                        "file instead.", markup=False, severity="warning")
            self.save_payload(view)
            return
        self.copy_text(data, what=what)

    def save_payload(self, view: Any) -> None:
        from mqconsole.tui.screens.dialogs import InputDialog

        folder = self.settings.save_dir or Path.cwd()
        default = str(Path(folder) / f"payload-{view.msgid[-16:]}.bin")

        def check(path: str) -> str | None:
            p = Path(path).expanduser()
            if p.exists():
                return f"{path} exists: choose another name."
            if not p.parent.is_dir():
                return f"There is no folder {p.parent}."
            return None

        def got(path: str | None) -> None:
            if not path:
                return
            data = bytes(view.payload)

            def write() -> str:
                target = Path(path).expanduser()
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as fp:
                    fp.write(data)
                return str(target)

            self.backend(write, done=lambda p: self.notify(
                f"Wrote {len(data):,} bytes to {p}", markup=False), what="save payload")

        self.push_screen(InputDialog("Save the payload", txt("Write the payload bytes to:"),
                                     value=default, validate=check), got)

    # -- size ---------------------------------------------------------------------------------
    def on_resize(self, event: Any) -> None:
        self._check_size()

    def _check_size(self) -> None:
        if not self._size_checks:
            return
        w, h = self.size
        small = w < MIN_WIDTH or h < MIN_HEIGHT
        if small and self._too_small is None:
            from mqconsole.tui.screens.misc import TooSmallScreen

            self._too_small = TooSmallScreen()
            self.push_screen(self._too_small)
        elif small and self._too_small is not None:
            self._too_small.update_size()
        elif not small and self._too_small is not None:
            if self.screen is self._too_small:
                self.pop_screen()
            self._too_small = None


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


# -- entry points -------------------------------------------------------------------------------

def settings_from_config(config: Any) -> Settings:
    """Console settings from a ``config.Config`` (duck-typed: tests pass plain objects)."""
    tui = getattr(config, "tui", None)
    dirs = [REPO_THEMES]
    user_dir = getattr(config, "themes_dir", None)
    if user_dir is not None:
        dirs.append(Path(user_dir))
    theme = getattr(config, "theme", None)
    return Settings(
        theme=None if theme in (None, "textual-dark") else theme,
        themes_dirs=dirs,
        keymap=dict(getattr(config, "keymap", {}) or {}),
        refresh_seconds=float(getattr(tui, "refresh_seconds", 5.0)),
        page_size=int(getattr(tui, "page_size", 200)),
        journal_path=getattr(getattr(config, "journal", None), "path", None),
        backup_dir=getattr(config, "backup_dir", None),
    )


def _user_config_exists(session: Any) -> bool:
    from mqconsole import paths

    if getattr(session, "config_file", None):
        return True
    if os.environ.get(paths.CONFIG_ENV):
        return True
    return paths.default_config_file().is_file()


def build_app(session: Any) -> MQConsoleApp:
    """The console for a CLI session (``mqconsole.cli.session.Session``)."""
    if getattr(session, "embedded_path", None) is not None:
        # --embedded: no profile from the config, but the config's console settings if any
        # (read only when a file exists: pydantic costs a quarter of a second to import)
        settings = settings_from_config(session.config) if _user_config_exists(session) \
            else settings_from_config(None)
        if not _user_config_exists(session):
            from mqconsole import paths

            settings.themes_dirs.append(paths.user_config_dir() / "themes")
        profile = ProfileInfo.of(session.profile)
        session.connect()  # fail fast with a one-line CLI error rather than inside the UI
        return MQConsoleApp(session.new_connection, profile=profile, settings=settings)
    config = session.config
    settings = settings_from_config(config)
    infos = [ProfileInfo.of(p) for p in config.profiles]

    def connect_for(p: ProfileInfo) -> Any:
        session.close()
        session.profile_name = p.name
        return session.new_connection()

    if session.profile_name is None and config.default_profile_name is None and len(infos) > 1:
        return MQConsoleApp(profiles=infos, connect_for=connect_for, settings=settings)
    profile = ProfileInfo.of(session.profile)
    session.connect()
    return MQConsoleApp(session.new_connection, profile=profile, profiles=infos,
                        connect_for=connect_for, settings=settings)


def run_app(session: Any) -> None:
    """Run the console on the session's profile (blocks until the operator quits)."""
    app = build_app(session)
    try:
        app.run()
    finally:
        app.conns.close()
    code = app.return_code or 0
    if code:
        raise SystemExit(code)


class DevApp(MQConsoleApp):
    """``make dev``: ``textual run --dev "mqconsole.tui.app:run_dev" DEMO.sqlite``.

    ``textual run`` imports ``run_dev`` (this class) and instantiates it, so ``textual
    console`` shows the log and worker errors. The embedded file is the last command-line
    argument (default ``.demo/demo.sqlite``).
    """

    def __init__(self) -> None:
        import sys

        from mqconsole.backends.open import open_embedded

        args = [a for a in sys.argv[1:] if not a.startswith("-")]
        path = args[-1] if args and args[-1].endswith((".sqlite", ".db")) \
            else ".demo/demo.sqlite"
        target = str(Path(path).absolute())
        super().__init__(lambda: open_embedded(target),
                         profile=ProfileInfo(name="dev", environment="dev"))


run_dev = DevApp


__all__ = ["DevApp", "MQConsoleApp", "build_app", "run_app", "run_dev", "settings_from_config"]

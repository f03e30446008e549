"""The terminal console (``mqconsole`` / ``mqconsole tui`` / ``make run``).

Screens: queues → messages of a queue → one message; the journal; the profile chooser; the
doctor and the replay timeline when the model is there. ``:`` opens the command palette
(every action and screen), ``/`` filters, ``?`` lists the keys of the screen, ``escape``
goes back, ``q`` quits. Details for operators: docs/tui.md.

How it is built (Harlequin's way): every backend call runs in a thread worker — a flow
awaiting :func:`mqconsole.tui.flow.in_thread` (a screen's own flows are workers of that
screen, :func:`mqconsole.tui.flow.start`, so they end with it, the audit screen's too);
the operation screen runs an ``@work`` worker of its own — and a failure is a notification
(naming the queue and the MQ reason), so a slow or failing queue manager never freezes the screen.
Changes go through ``ops`` only (:mod:`mqconsole.tui.actions`). Text from messages and the
queue manager reaches widgets only as ``rich.text.Text`` made safe by :mod:`.safe`.

This module is the top of the package: it imports the screens, and nothing in the package
imports it. Screens and actions are given the :class:`~mqconsole.tui.context.ConsoleContext`
and ask for the rest with the messages of :mod:`mqconsole.tui.requests`, handled here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import App, SystemCommand
from textual.screen import ModalScreen, Screen
from textual.worker import Worker

from mqconsole.plugins import NO_PLUGINS, PluginHost
from mqconsole.tui import keys as K
from mqconsole.tui import requests as R
from mqconsole.tui.context import (
    MIN_HEIGHT,
    MIN_WIDTH,
    REPO_THEMES,
    STYLES,
    Connections,
    ConsoleContext,
    ProfileInfo,
    Settings,
)
from mqconsole.tui.flow import in_thread, launch
from mqconsole.tui.palette import PluginActions
from mqconsole.tui.safe import clean
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.screens.queues import QueuesScreen
from mqconsole.tui.threads import use_fresh_contexts
from mqconsole.tui.widgets.banner import Banner

if TYPE_CHECKING:
    from mqconsole.backends.spec import AskPassword

DEFAULT_THEME = "mqconsole-dark"
EXIT_GRACE_SECONDS = 5.0  # after a signal or a lost terminal, waiting for workers


class MQConsoleApp(App[None], inherit_bindings=False):
    TITLE = "mqconsole"
    # Textual's own bindings are not inherited (its ctrl+q came first): q before ctrl+q, so
    # the footer says "q Quit" where q quits and "^q Quit" where a text field takes the q;
    # ctrl+c says how to quit, as Textual's does
    BINDINGS = K.bindings(K.APP_KEYS)
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {PluginActions}
    NOTIFICATION_TIMEOUT = 8
    CSS_PATH = STYLES  # tui/styles/*.tcss

    def __init__(self, connect: Callable[[], Any] | None = None, *,
                 profile: ProfileInfo | None = None,
                 profiles: Sequence[ProfileInfo] = (),
                 connect_for: Callable[..., Any] | None = None,
                 settings: Settings | None = None, plugins: PluginHost | None = None,
                 plugins_for: Callable[[ProfileInfo], PluginHost] | None = None,
                 open_profile: Callable[[str, str, AskPassword], Any] | None = None,
                 audit_connection_for: Callable[[ProfileInfo], object] | None = None,
                 **kw: Any) -> None:
        # connect_for(profile) opens a profile switched to; connect_for(profile, ask) when
        # the console asked its password (in a dialog, on the event loop): ``ask`` answers
        # the opener's question with what was typed
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
        self.ctx = ConsoleContext(self, profile=self.profile, settings=self.settings,
                                  conns=Connections(connect or (lambda: None)),
                                  plugins=plugins)
        self._plugins_for = plugins_for  # a profile's own plugins (plugins: in a profile)
        # what the audit screen's readers open for a profile switched to (its BackendSpec)
        self._audit_connection_for = audit_connection_for
        self.ctx.profile_names = [p.name for p in self.profiles]
        self.ctx.open_profile = open_profile  # another profile's queue manager, to move to
        self.theme_problems: list[str] = []
        self._too_small: Any = None
        self._stopping = False
        self._size_checks = False

    # -- start and stop ---------------------------------------------------------------------
    def _fatal_error(self) -> None:
        """A bug's report without the frames' local variables (Textual shows them, and a
        message's payload would be among them: payloads never reach the terminal), the
        exception's text made safe and cut short. (The one name of Textual's the console
        overrides: Textual has no public hook for an unhandled exception; the report is
        given to the public ``panic``, which ends the app and prints it.)"""
        import sys

        from rich.traceback import Traceback

        self.bell()
        exc_type, exc, tb = sys.exc_info()
        if exc_type is None or exc is None:
            trace: Any = Traceback(show_locals=False, width=None)
        else:
            extracted = Traceback.extract(exc_type, exc, tb, show_locals=False)
            for stack in extracted.stacks:
                stack.exc_value = clean(stack.exc_value)[:200]
            trace = Traceback(extracted, width=None)
        self.panic(trace)

    @property
    def conns(self) -> Connections:
        return self.ctx.conns

    @property
    def read_only(self) -> bool:
        return self.ctx.read_only

    def on_mount(self) -> None:
        use_fresh_contexts(asyncio.get_running_loop())  # a closed screen is let go
        self._watch_plugins()
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
        self._apply_theme()
        self.sub_title = self.profile.name
        self.push_screen(QueuesScreen(self.ctx))

    def _show_chooser(self, *, can_leave: bool) -> None:
        from mqconsole.tui.screens.misc import ProfileScreen

        def chosen(p: ProfileInfo | None) -> None:
            if p is None:
                return
            if p.asks_password:  # asked here, on the event loop, never in a worker
                self._ask_password_then(p, switch)
            else:
                switch(p, None)

        def switch(p: ProfileInfo, password: str | None) -> None:
            self.stop_everything()
            ctx = self.ctx
            old = ctx.conns  # disconnecting is a backend call: not on the event loop
            threading.Thread(target=old.close, name="disconnect", daemon=True).start()
            self.profile = ctx.profile = p
            connect_for = self._connect_for
            assert connect_for is not None
            if password is None:
                ctx.conns = Connections(lambda: connect_for(p))
            else:  # the opener asks when it needs it, and is given what was typed
                ctx.conns = Connections(lambda: connect_for(p, lambda _prompt: password))
            ctx.qmgr_info, ctx.dlq_depth, ctx.queue_rows = None, None, []
            if self._audit_connection_for is not None:  # the audit reads this profile's
                self.settings.audit_connection = self._audit_connection_for(p)
            if self._plugins_for is not None:  # production may run fewer plugins
                ctx.plugins = self._plugins_for(p)
                self._watch_plugins()
            while len(self.screen_stack) > 1:
                self.pop_screen()
            self._start_profile()

        self.push_screen(ProfileScreen(self.profiles, can_leave=can_leave), chosen)

    def _ask_password_then(self, p: ProfileInfo,
                           then: Callable[[ProfileInfo, str | None], None]) -> None:
        """Ask profile ``p``'s password in a dialog, then ``then(p, password)``; escape
        leaves the console where it was, and says so."""
        from mqconsole.tui.screens.dialogs import PasswordDialog

        def answered(password: str | None) -> None:
            if password is None:
                where = (f"still on profile {self.profile.name}" if self.screen_stack[1:]
                         else "not connected")
                self.notify(clean(f"No password given for profile {p.name}: {where}."),
                            title="Profile", severity="warning", markup=False)
                if not self.screen_stack[1:]:  # nothing to go back to: choose again
                    self._show_chooser(can_leave=False)
                return
            then(p, password)

        self.push_screen(PasswordDialog(f"MQ password for profile {p.name}:"), answered)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.ctx.worker_changed(event)

    def action_profiles(self) -> None:
        if len(self.profiles) > 1 and self._connect_for is not None:
            self._show_chooser(can_leave=True)
        else:
            self.notify("The configuration names only one profile.", markup=False)

    def stop_everything(self) -> None:
        """Ask every running operation and browse to stop at its next safe point."""
        for screen in self.screen_stack:
            if isinstance(screen, R.StopsWork):
                with contextlib.suppress(Exception):
                    screen.stop_work()

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

    # -- plugins ------------------------------------------------------------------------------
    def _watch_plugins(self) -> None:
        """Each plugin problem (one that did not load, a hook that raised) as one
        notification: those found at start-up now, later ones as they happen (from any
        thread). The host says each problem once."""
        host = self.ctx.plugins
        if host is NO_PLUGINS:  # (shared: never given a console's callback)
            return
        for problem in host.problems:
            self._plugin_problem(problem)
        host.on_problem = lambda sentence: self.ctx.post_from_thread(self._plugin_problem,
                                                                      sentence)

    def _plugin_problem(self, sentence: str) -> None:
        self.notify(clean(sentence), title="Site plugin", severity="warning", markup=False,
                    timeout=15)

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

    # -- what screens and actions ask for (mqconsole.tui.requests) ---------------------------
    def report_error(self, exc: BaseException, *, queue: str | None = None,
                     what: str = "") -> None:
        self.ctx.report_error(exc, queue=queue, what=what)

    @on(R.QueuesLoaded)
    def refresh_banners(self) -> None:
        for screen in self.screen_stack:
            for banner in screen.query(Banner):
                banner.refresh()

    @on(R.QueuesChanged)
    def refresh_queues_soon(self) -> None:
        queues = next((s for s in self.screen_stack if isinstance(s, QueuesScreen)), None)
        self.ctx.load_queues(queues._show if queues is not None else None)

    @on(R.QueueChanged)
    def _queue_changed(self, event: R.QueueChanged) -> None:
        """Read the queue's messages again now if they are what the operator looks at."""
        from mqconsole.tui.screens.messages import MessagesScreen

        shown = next((s for s in reversed(self.screen_stack)
                      if not isinstance(s, ModalScreen)), None)
        if isinstance(shown, MessagesScreen) and shown.queue == event.queue:
            shown.take_change()

    @on(R.OpenQueue)
    def open_queue(self, event: R.OpenQueue) -> None:
        from mqconsole.tui.screens.messages import MessagesScreen  # (screens past the first
        # are imported when first shown: the console starts sooner)

        self.push_screen(MessagesScreen(self.ctx, event.name, where=event.where))

    @on(R.ShowMessage)
    def _show_message(self, event: R.ShowMessage) -> None:
        from mqconsole.tui.screens.detail import DetailScreen

        self.push_screen(DetailScreen(self.ctx, event.queue, event.view))

    @on(R.LeaveDetail)
    def _leave_detail(self) -> None:
        from mqconsole.tui.screens.detail import DetailScreen

        if isinstance(self.screen, DetailScreen):
            self.pop_screen()

    @on(R.CheckSize)
    def _size_changed(self) -> None:
        self._check_size()

    @on(R.ShowQueueInfo)
    def _show_queue_info(self, event: R.ShowQueueInfo) -> None:
        from mqconsole.tui.screens.dialogs import TextDialog

        name = event.name

        def read() -> dict[str, Any]:
            from mqconsole.ops.queues import queue_doc

            return self.conns.call(lambda qm: queue_doc(qm, name))

        def show(doc: dict[str, Any]) -> None:
            from mqconsole.ops.queues import attribute_lines

            body = Text()  # the names and words MQ operators know, as queue show says them
            for label, value in attribute_lines(doc):
                body.append(f"{label}: ", "bold")
                body.append(clean(value) + "\n")
            self.push_screen(TextDialog(Text(f"Queue {clean(name)}"), body))

        async def inquire() -> None:
            show(await in_thread(self.ctx, read, queue=name, what="inquire queue"))

        launch(self.ctx, inquire(), what="inquire queue")

    def action_journal(self) -> None:
        from mqconsole.tui.screens.journal import JournalScreen

        if not isinstance(self.screen, JournalScreen):
            self.push_screen(JournalScreen(self.ctx))

    def action_queues(self) -> None:
        while len(self.screen_stack) > 1 and not isinstance(self.screen, QueuesScreen):
            self.pop_screen()

    @on(R.OpenDoctor)
    def open_doctor(self) -> None:
        if not self.ctx.has_doctor:
            self.notify("The doctor is not part of this version.", markup=False)
            return
        from mqconsole.tui.screens.doctor import DoctorScreen  # (optional part)

        self.push_screen(DoctorScreen(self.ctx))

    def open_replay(self, queue: str | None = None) -> None:
        if not self.ctx.has_replay:
            self.notify("The delivery model replay is not part of this version.",
                        markup=False)
            return
        from mqconsole.tui.screens.replay import ReplayScreen  # (optional part)

        self.push_screen(ReplayScreen(self.ctx, queue))

    @on(R.OpenReplay)
    def _open_replay(self, event: R.OpenReplay) -> None:
        self.open_replay(event.queue)

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
        title = f"Keys of {getattr(screen, 'HELP_NAME', 'this screen')}"
        self.push_screen(HelpDialog(rows, title))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        if isinstance(screen, ConsoleScreen):
            for command in screen.commands():
                yield SystemCommand(command.title, command.help or command.title,
                                    lambda c=command, s=screen: s.run_command(c))
        yield SystemCommand("Queues", "The list of queues", self.action_queues)
        yield SystemCommand("Journal", "The journal of changes", self.action_journal)
        if self.ctx.has_doctor:
            yield SystemCommand("Doctor", "What a poison message would do on each queue",
                                self.open_doctor)
        if self.ctx.has_replay:
            yield SystemCommand("Replay", "Replay the delivery model on a queue",
                                lambda: self.open_replay(None))
        for row in self.ctx.queue_rows:
            if row.get("type") == "local":
                name = row["name"]
                yield SystemCommand(f"Open {name}", f"Browse the messages of {name}",
                                    lambda n=name: self.open_queue(R.OpenQueue(n)),
                                    discover=False)
        if len(self.profiles) > 1 and self._connect_for is not None:
            yield SystemCommand("Switch profile", "Choose another profile",
                                self.action_profiles)
        yield SystemCommand("Keys", "The keys of this screen and their ids", self.action_help)
        yield SystemCommand("Theme", "Change the theme", self.action_change_theme)
        yield SystemCommand("Quit", "Leave the console", self.action_quit)

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
        audit_master=getattr(tui, "audit_master", None),
        audit_conf=_audit_conf(getattr(tui, "audit_conf", None)),
        journal_path=getattr(getattr(config, "journal", None), "path", None),
        journal_rotation=_rotation(getattr(getattr(config, "journal", None), "rotate", None)),
        backup_dir=getattr(config, "backup_dir", None),
    )


def _audit_conf(conf: Any) -> dict[str, str]:
    """``tui.audit_conf`` through the parser of the audit commands' ``--conf`` (a bad
    setting is one sentence, exit 2, before the console starts)."""
    if not conf:
        return {}
    from mqconsole.audit.session import parse_conf

    return parse_conf([f"{key}={value}" for key, value in dict(conf).items()])


def _rotation(rotate: Any) -> Any:
    """The config's ``journal.rotate`` as ``ops.journal.Rotation`` (None: never rotated)."""
    if rotate is None:
        return None
    from mqconsole.ops.journal import Rotation

    return Rotation(max_bytes=getattr(rotate, "max_size", None),
                    max_age=getattr(rotate, "max_age_delta", None),
                    keep=getattr(rotate, "keep", None))


def _user_config_exists(session: Any) -> bool:
    from mqconsole import paths

    if getattr(session, "config_file", None):
        return True
    if os.environ.get(paths.CONFIG_ENV):
        return True
    return paths.default_config_file().is_file()


def _audit_connection(session: Any) -> object:
    """What the audit screen's Spark readers open for this session's profile (a
    ``BackendSpec``: plain values, no password)."""
    return session.backend_spec()


def _cannot_ask(prompt: str) -> str | None:
    """In a worker the terminal is Textual's: a password is asked in a dialog before the
    switch (``_ask_password_then``), never here."""
    return None


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
        settings.audit_connection = _audit_connection(session)
        session.connect()  # fail fast with a one-line CLI error rather than inside the UI
        return MQConsoleApp(session.new_connection, profile=profile, settings=settings,
                            plugins=session.plugins)
    config = session.config
    settings = settings_from_config(config)
    infos = [ProfileInfo.of(p) for p in config.profiles]

    def connect_for(p: ProfileInfo, ask_password: AskPassword | None = None) -> Any:
        session.close()
        session.profile_name = p.name
        return session.new_connection(ask_password or _cannot_ask)

    def plugins_for(p: ProfileInfo) -> PluginHost:
        return session.plugins_for_profile(p.name)

    def audit_connection_for(p: ProfileInfo) -> object:
        return session.backend_spec(p.name)

    def open_profile(name: str, verb: str, ask_password: AskPassword) -> Any:
        from mqconsole.ops.destination import open_profile_destination

        return open_profile_destination(session.backend_spec(name), verb,
                                        read_only=config.profile(name).read_only,
                                        ask_password=ask_password)

    if session.profile_name is None and config.default_profile_name is None and len(infos) > 1:
        return MQConsoleApp(profiles=infos, connect_for=connect_for, settings=settings,
                            plugins=session.plugins, plugins_for=plugins_for,
                            open_profile=open_profile,
                            audit_connection_for=audit_connection_for)
    profile = ProfileInfo.of(session.profile)
    settings.audit_connection = _audit_connection(session)
    session.connect()
    return MQConsoleApp(session.new_connection, profile=profile, profiles=infos,
                        connect_for=connect_for, settings=settings, plugins=session.plugins,
                        plugins_for=plugins_for, open_profile=open_profile,
                        audit_connection_for=audit_connection_for)


def run_app(session: Any) -> None:
    """Run the console on the session's profile (blocks until the operator quits)."""
    from mqconsole.tui.heap import keep_big_blocks_apart

    keep_big_blocks_apart()  # a long session: glibc gives big blocks back when freed
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

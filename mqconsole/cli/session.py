"""What the global options resolve to: the config, the profile, and a connection."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import CliError
from .exit_codes import ExitCode

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager
    from mqconsole.backends.spec import AskPassword, BackendSpec
    from mqconsole.config import Config, Profile
    from mqconsole.ops.journal import Journal
    from mqconsole.ops.outputs import StateFiles
    from mqconsole.plugins import PluginHost, PluginsSettings


@dataclass(frozen=True)
class _AdHocEmbedded:
    path: str
    type: str = "embedded"
    principal: str | None = None


@dataclass(frozen=True)
class _AdHocProfile:
    """The profile ``--embedded PATH`` stands for (shaped like ``config.Profile``)."""

    backend: _AdHocEmbedded
    name: str = "embedded"
    read_only: bool = False
    theme: str | None = None
    banner: str | None = None
    environment: str | None = None
    description: str = ""


@dataclass
class Session:
    config_file: str | None = None
    profile_name: str | None = None
    embedded_path: str | None = None
    no_plugins: bool = False
    _config: Config | None = None
    _plugins: PluginHost | None = None
    _qm: QueueManager | None = None
    _extra: list[QueueManager] = field(default_factory=list)

    # -- configuration -----------------------------------------------------------------
    @property
    def config(self) -> Config:
        if self._config is None:
            from mqconsole.config import load_config

            self._config = load_config(self.config_file)
        return self._config

    @property
    def profile(self) -> Profile | _AdHocProfile:
        if self.embedded_path is not None:
            # --embedded needs no configuration file: skip loading pydantic (fast start)
            path = self.embedded_path
            if path != ":memory:":
                path = str(Path(path).expanduser().absolute())
            return _AdHocProfile(backend=_AdHocEmbedded(path=path))
        return self.config.profile(self.profile_name)

    @property
    def read_only(self) -> bool:
        return bool(self.profile.read_only)

    def refuse_if_read_only(self, what: str) -> None:
        if self.read_only:
            raise CliError(f"profile {self.profile.name} is read-only: {what} refused",
                           ExitCode.REFUSED)

    def has_config_file(self) -> bool:
        """Whether a configuration file applies: ``--config``, ``$MQCONSOLE_CONFIG`` or the
        user's ``config.yaml`` (``--embedded`` runs without one, and reads it only then:
        pydantic costs a quarter of a second to import). The console decides the same."""
        import os

        from mqconsole import paths

        if self.config_file or os.environ.get(paths.CONFIG_ENV):
            return True
        return paths.default_config_file().is_file()

    def journal(self) -> Journal:
        """The journal this session writes: the config's (``journal.path`` and its rotation,
        with ``--embedded`` too when a configuration file applies, as in the console), else
        the default one."""
        from mqconsole.ops.journal import Journal, Rotation
        from mqconsole.ops.outputs import JOURNAL, check_output

        if self.embedded_path is not None and not self.has_config_file():
            journal = Journal(None)
            check_output(journal.path, "journal.path", self.state_files(), allow=(JOURNAL,))
            return journal
        j = self.config.journal
        # journal.path naming the store, its -wal, a backup...: refused before anything is
        # read or asked (the journal would write into it)
        where = f"journal.path (in {self.config.file})" if self.config.file else "journal.path"
        check_output(str(j.path), where, self.state_files(), allow=(JOURNAL,))
        return Journal(j.path, rotation=Rotation(max_bytes=j.rotate.max_size,  # type: ignore[arg-type]
                                                 max_age=j.rotate.max_age_delta,
                                                 keep=j.rotate.keep))

    @property
    def backup_dir(self) -> Path:
        """Where deletes save messages: the config's ``backup_dir`` (--embedded without a
        configuration file: the default)."""
        from mqconsole import paths

        if self.embedded_path is not None and not self.has_config_file():
            return paths.default_backup_dir()
        return Path(self.config.backup_dir or paths.default_backup_dir())

    def state_files(self) -> StateFiles:
        """mqconsole's own files this session knows, which no output may be: every
        embedded store named (``--embedded``, the profiles', the default one), the journal,
        the backup folder, the attempts file and the configuration file."""
        from mqconsole.ops.outputs import StateFiles

        stores = []
        if self.embedded_path not in (None, ":memory:"):
            stores.append(str(Path(self.embedded_path).expanduser().absolute()))
        others: list[tuple[str, str]] = []
        journal = None
        if self.embedded_path is None or self.has_config_file():
            config = self.config
            stores += [str(p.backend.path) for p in config.profiles
                       if p.backend.type == "embedded" and str(p.backend.path) != ":memory:"]
            journal = str(config.journal.path)
            if config.file is not None:
                others.append((str(config.file), "is mqconsole's configuration file"))
        state = StateFiles.defaults(journal=journal, backups=str(self.backup_dir))
        return StateFiles(stores=(*stores, *state.stores), journal=state.journal,
                          backups=state.backups, attempts=state.attempts,
                          others=(*others, *state.others))

    def embedded_file(self) -> str:
        prof = self.profile
        path = getattr(prof.backend, "path", None)  # only an embedded backend has one
        if prof.backend.type != "embedded" or path is None:
            raise CliError(f"profile {prof.name} is not an embedded queue manager")
        return str(path)

    # -- plugins -----------------------------------------------------------------------
    def plugins_settings(self) -> PluginsSettings:
        """The plugin settings of the chosen profile as plain values (--embedded without a
        config file: entry points only)."""
        from mqconsole.plugins import PluginsSettings

        if self.embedded_path is not None and self.config_file is None:
            from mqconsole.config import config_path

            if config_path(None)[0] is None:
                return PluginsSettings()
        # the chosen profile's plugins (config/plugins.py says how they narrow the top-level
        # section); --embedded, or several profiles and none chosen: the top-level section
        profile = None
        if self.embedded_path is None:
            profile = self.profile_name or self.config.default_profile_name
        return self.config.effective_plugins(profile)

    def plugins_for_profile(self, name: str) -> PluginHost:
        """The plugins of profile ``name`` (the console switching profile), loaded now and
        kept as this session's; a problem is said by the console, not on stderr."""
        from mqconsole.plugins import load_plugins, plugins_switched_off

        if plugins_switched_off(self.no_plugins):
            host = load_plugins(switched_off=True)
        else:
            host = load_plugins(self.config.effective_plugins(name))
        self._plugins = host
        return host

    @property
    def plugins(self) -> PluginHost:
        """The site plugins, loaded once; each problem is said once on stderr."""
        if self._plugins is None:
            import sys

            from mqconsole.plugins import load_plugins, plugins_switched_off

            if plugins_switched_off(self.no_plugins):
                host = load_plugins(switched_off=True)
            else:
                settings = self.plugins_settings()
                with contextlib.redirect_stdout(sys.stderr):  # a plugin printing at import
                    host = load_plugins(settings)
            host.stdout_aside = sys.stderr  # stdout is the command's alone (--json)

            def warn(sentence: str) -> None:
                from mqconsole.mq.payload import safe_text

                print(f"mqconsole: {safe_text(sentence)}", file=sys.stderr)

            for problem in host.problems:
                warn(problem)
            host.on_problem = warn
            self._plugins = host
        return self._plugins

    # -- connection --------------------------------------------------------------------
    def backend_spec(self, name: str | None = None) -> BackendSpec:
        """The queue manager of profile ``name`` (default: this session's, or
        ``--embedded``'s file) as the plain values the core opens."""
        from mqconsole.backends.spec import BackendSpec

        if name is None and self.embedded_path is not None:
            path = self.embedded_path
            if path != ":memory:":
                path = str(Path(path).expanduser().absolute())
            return BackendSpec.embedded(path, profile=_AdHocProfile.name)
        from .backendspec import spec_of

        return spec_of(self.config.profile(name if name is not None else self.profile_name))

    def connect(self, ask_password: AskPassword | None = None) -> QueueManager:
        """This session's connection, opened at the first call: a password the profile asks
        for is asked then with ``ask_password`` (default: on the terminal, not echoed)."""
        if self._qm is None:
            from mqconsole.backends.open import open_backend

            self._qm = open_backend(self.backend_spec(),
                                    ask_password=ask_password or ask_on_terminal)
        return self._qm

    def new_connection(self, ask_password: AskPassword | None = None) -> QueueManager:
        qm = self.connect(ask_password).new_connection()
        self._extra.append(qm)
        return qm

    def open_destination(self, embedded: str | None, profile: str | None,
                         verb: str) -> QueueManager | None:
        """Another queue manager to put to (``--dest-embedded PATH`` or ``--dest-profile
        NAME``; neither: None), closed with the session. A read-only profile is refused
        (``verb``: "moving", "copying")."""
        if embedded and profile:
            raise CliError("give --dest-embedded or --dest-profile, not both")
        from mqconsole.ops.destination import open_embedded_destination, open_profile_destination

        qm: QueueManager | None = None
        if embedded:
            qm = open_embedded_destination(embedded)
        elif profile:
            qm = open_profile_destination(self.backend_spec(profile), verb,
                                          read_only=self.config.profile(profile).read_only,
                                          ask_password=ask_on_terminal)
        if qm is not None:
            self._extra.append(qm)
        return qm

    def close(self) -> None:
        for qm in [*self._extra, self._qm]:
            if qm is not None:
                with contextlib.suppress(Exception):  # closing never masks the outcome
                    qm.close()
        self._qm = None
        self._extra.clear()


def ask_on_terminal(prompt: str) -> str:
    """The CLI's ``ask_password``: asked on the terminal, not echoed."""
    import getpass

    return getpass.getpass(prompt)

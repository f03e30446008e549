"""The configuration file: profiles (which queue manager, how to reach it) and console settings.

One YAML file, found by :func:`config_path` (``--config FILE``, then ``MQCONSOLE_CONFIG``,
then ``config.yaml`` in the user config folder), read safely (only plain YAML types) but with
line numbers kept, and validated with pydantic. Every problem becomes one :class:`ConfigError`
whose message is one sentence naming the file, the line and the setting::

    /home/op/.config/mqconsole/config.yaml line 12: profiles.prod.backend.port: ...

``config.example.yaml`` at the top of the repository documents every setting; a test fails
when a setting of the schema below is missing from it.

Passwords never go in the file: an ``mq`` profile names an environment variable
(``password_env``) or asks for a prompt (``password_prompt``);
:meth:`Profile.resolve_password` reads one of them when connecting. No model here holds a
password, so no dump, repr or log can show one.
"""

from __future__ import annotations

import difflib
import getpass
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mqconsole import paths
from mqconsole.mq.payload import first_of, located

ORIGIN_FLAG = "--config"
ORIGIN_ENV = "MQCONSOLE_CONFIG"
ORIGIN_USER_DIR = "user config dir"
ORIGIN_DEFAULTS = "none (built-in defaults)"

DEFAULT_PROFILE_NAME = "default"
DEFAULT_THEME = "mqconsole-dark"

# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigProblem:
    """One problem found in a configuration file."""

    problem: str
    file: str | None = None
    line: int | None = None
    setting: str | None = None

    def sentence(self) -> str:
        return located(self.problem, file=self.file, line=self.line, subject=self.setting)



class ConfigError(Exception):
    """A configuration that cannot be used. ``str()`` is one sentence for the operator.

    ``problems`` holds every problem found (first in file order is the one in the message);
    ``file``, ``line``, ``setting`` and ``problem`` describe that first one.
    """

    def __init__(
        self,
        problem: str | list[ConfigProblem],
        *,
        file: str | os.PathLike[str] | None = None,
        line: int | None = None,
        setting: str | None = None,
    ) -> None:
        if isinstance(problem, list):
            problems = problem
        else:
            problems = [ConfigProblem(problem, None if file is None else str(file), line, setting)]
        if not problems:
            raise ValueError("ConfigError needs at least one problem")
        self.problems: list[ConfigProblem] = problems
        first = problems[0]
        self.file = first.file
        self.line = first.line
        self.setting = first.setting
        self.problem = first.problem
        super().__init__(first_of([p.sentence() for p in problems]))

    def __str__(self) -> str:
        return str(self.args[0])


# --------------------------------------------------------------------------------------------
# Small validators
# --------------------------------------------------------------------------------------------

Loc = tuple[Any, ...]

_MQ_NAME_CHARS = re.compile(r"^[A-Za-z0-9._/%]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEX_COLOUR = re.compile(r"^#[0-9A-Fa-f]{6}$")
_CONNAME_ENTRY = re.compile(r"^(?P<host>[^\s(),]+)(?:\((?P<port>[^()]*)\))?$")
_URL_SCHEMES = ("file", "http", "https", "ftp")
_PROFILE_NAME_BAD = re.compile(r"[\s\x00-\x1f\x7f]")

ENVIRONMENTS = ("production", "staging", "acceptance", "test", "dev")

# CSS colour names (as Textual accepts them) and the ANSI names.
_CSS_COLOUR_TEXT = """
    aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue
    blueviolet brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk
    crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki
    darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen
    darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue
    dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite
    gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki
    lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan
    lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen
    lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen linen
    magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
    mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream
    mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid
    palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum
    powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown
    seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen
    steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow
    yellowgreen"""
_CSS_COLOURS = frozenset(_CSS_COLOUR_TEXT.split())
_ANSI_BASE = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")
_ANSI_COLOURS = frozenset(
    [f"bright_{c}" for c in _ANSI_BASE]
    + [f"ansi_{c}" for c in _ANSI_BASE]
    + [f"ansi_bright_{c}" for c in _ANSI_BASE]
)
COLOUR_NAMES = _CSS_COLOURS | _ANSI_COLOURS


_AT = "__mqconsole_at__"


def _err(kind: str, message: str, at: Loc | None = None) -> PydanticCustomError:
    """A validation error; ``at`` extends its location (for checks made on a parent model)."""
    # pydantic only fills in {names} of the context, and the only name is _AT.
    return PydanticCustomError(kind, message, None if at is None else {_AT: at})


def _base_dir(info: ValidationInfo) -> Path:
    ctx = info.context or {}
    base = ctx.get("base_dir")
    return Path(base) if base is not None else Path.cwd()


def _resolve_path(value: str | os.PathLike[str], base: Path) -> Path:
    p = Path(os.fspath(value)).expanduser()
    if not p.is_absolute():
        p = base / p
    return Path(os.path.normpath(p))


def _check_mq_name(value: str | None, what: str, max_len: int, *, group: bool = False) -> None:
    if value is None:
        return
    body = value[1:] if group and value.startswith("*") else value
    if not body or len(value) > max_len or not _MQ_NAME_CHARS.match(body):
        raise _err(
            "mq_name",
            f"not a valid {what}: at most {max_len} characters from A-Z a-z 0-9 . _ / %",
        )


def check_connection_name(value: str) -> list[tuple[str, int | None]]:
    """Parse an MQ connection name list, ``host(port)[,host(port)...]``; raise ValueError."""
    if len(value) > 264:
        raise ValueError(f"is {len(value)} characters; MQ allows at most 264")
    entries: list[tuple[str, int | None]] = []
    for raw in value.split(","):
        entry = raw.strip()
        if not entry:
            raise ValueError("has an empty entry; write host(port), host(port)")
        m = _CONNAME_ENTRY.match(entry)
        if not m:
            raise ValueError(f"entry {entry!r} is not of the form host(port)")
        host, port_text = m.group("host"), m.group("port")
        if port_text is None and host.count(":") == 1 and host.rsplit(":", 1)[1].isdigit():
            raise ValueError(f"entry {entry!r}: MQ writes the port in brackets, host(port)")
        port: int | None = None
        if port_text is not None:
            if not port_text.strip().isdigit() or not 1 <= int(port_text) <= 65535:
                raise ValueError(f"entry {entry!r}: the port must be a number from 1 to 65535")
            port = int(port_text)
        entries.append((host, port))
    return entries


# --------------------------------------------------------------------------------------------
# The schema
# --------------------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class EmbeddedBackendConfig(_Model):
    """The bundled SQLite queue manager (a file, or ``:memory:``)."""

    type: Literal["embedded"] = "embedded"
    path: str | None = Field(
        default=None,
        description="SQLite file of the embedded queue manager, or :memory:",
        validate_default=True,
    )
    principal: str | None = Field(
        default=None, description="user name checked against the embedded authorities"
    )

    @field_validator("path")
    @classmethod
    def _path(cls, value: str | None, info: ValidationInfo) -> str:
        if value is None:
            return str(paths.default_embedded_path())
        if not value.strip():
            raise _err("empty", "must not be empty (leave it out for the default file)")
        if value == ":memory:":
            return value
        return str(_resolve_path(value, _base_dir(info)))

    @field_validator("principal")
    @classmethod
    def _principal(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise _err("empty", "must not be empty")
        return value

    @property
    def in_memory(self) -> bool:
        return self.path == ":memory:"


class MQBackendConfig(_Model):
    """A real IBM MQ queue manager, as a client or in bindings mode."""

    type: Literal["mq"] = "mq"
    queue_manager: str | None = Field(
        default=None, description="queue manager name (or *GROUP with a CCDT)"
    )
    connection_name: str | None = Field(default=None, description="host(port)[,host(port)...]")
    channel: str | None = Field(default=None, description="server-connection channel")
    cipher_spec: str | None = Field(default=None, description="TLS CipherSpec, at most 32")
    key_repository: str | None = Field(default=None, description="key repository stem")
    certificate_label: str | None = Field(default=None, description="client certificate label")
    ccdt_url: str | None = Field(default=None, description="client channel definition table")
    bindings: bool = Field(default=False, description="connect in bindings mode (local)")
    user: str | None = Field(default=None, description="user id sent in the MQCSP")
    password_env: str | None = Field(
        default=None, description="environment variable holding the password"
    )
    password_prompt: bool = Field(default=False, description="ask for the password")

    @field_validator("queue_manager")
    @classmethod
    def _qmgr(cls, value: str | None) -> str | None:
        _check_mq_name(value, "queue manager name", 48, group=True)
        return value

    @field_validator("channel")
    @classmethod
    def _channel(cls, value: str | None) -> str | None:
        _check_mq_name(value, "channel name", 20)
        return value

    @field_validator("connection_name")
    @classmethod
    def _conname(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            check_connection_name(value)
        except ValueError as exc:
            raise _err("connection_name", f"not a connection name list: {exc}") from None
        return ",".join(part.strip() for part in value.split(","))

    @field_validator("cipher_spec")
    @classmethod
    def _cipher(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.strip() or re.search(r"\s", value):
            raise _err("cipher_spec", "must be a CipherSpec name without spaces")
        if len(value) > 32:
            raise _err(
                "cipher_spec_too_long",
                f"is {len(value)} characters; MQ allows at most 32 (it truncates longer "
                "ones silently and the connection fails with 2393 MQRC_SSL_INITIALIZATION_ERROR)",
            )
        return value

    @field_validator("key_repository")
    @classmethod
    def _keyr(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if not value.strip():
            raise _err("empty", "must not be empty")
        return str(_resolve_path(value, _base_dir(info)))

    @field_validator("certificate_label")
    @classmethod
    def _certlabl(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or len(value) > 64):
            raise _err("certificate_label", "must be 1 to 64 characters")
        return value

    @field_validator("ccdt_url")
    @classmethod
    def _ccdt(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if not value.strip():
            raise _err("empty", "must not be empty")
        scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", value)
        if scheme:
            if scheme.group(1).lower() not in _URL_SCHEMES:
                raise _err(
                    "ccdt_url", "must be a file path or a file://, http://, https:// or ftp:// URL"
                )
            return value
        return _resolve_path(value, _base_dir(info)).as_uri()

    @field_validator("user")
    @classmethod
    def _user(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or len(value) > 1024):
            raise _err("user", "must be 1 to 1024 characters")
        return value

    @field_validator("password_env")
    @classmethod
    def _penv(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise _err(
                "password_env",
                "must be the name of an environment variable (letters, digits, _), "
                "not the password itself",
            )
        return value

    @model_validator(mode="before")
    @classmethod
    def _no_password(cls, data: Any) -> Any:
        if isinstance(data, dict) and "password" in data:
            raise _err("password_in_file", _PASSWORD_REFUSED, at=("password",))
        return data

    @model_validator(mode="after")
    def _consistent(self) -> MQBackendConfig:
        if self.bindings:
            for name in ("connection_name", "channel", "ccdt_url"):
                if getattr(self, name) is not None:
                    raise _err(
                        "bindings_conflict",
                        f"bindings mode connects locally and takes no {name}; drop one of the two",
                        at=("bindings",),
                    )
        if self.connection_name is not None and self.channel is None:
            raise _err(
                "channel_missing",
                "a connection_name needs a channel too",
                at=("connection_name",),
            )
        if self.connection_name is not None and self.ccdt_url is not None:
            raise _err(
                "ccdt_conflict",
                "set connection_name and channel, or ccdt_url, not both",
                at=("ccdt_url",),
            )
        if (self.password_env or self.password_prompt) and self.user is None:
            field = "password_env" if self.password_env else "password_prompt"
            raise _err("user_missing", "a password needs a user: set user", at=(field,))
        return self


_PASSWORD_REFUSED = (
    "passwords never go in the config file; name an environment variable holding it "
    "with password_env, or set password_prompt: true to be asked"
)

Backend = Annotated[EmbeddedBackendConfig | MQBackendConfig, Field(discriminator="type")]


class Profile(_Model):
    """A named way of reaching one queue manager, with how the console looks and behaves there."""

    name: str = Field(description="profile name, chosen with --profile")
    description: str | None = Field(default=None, description="one line shown in choosers")
    environment: Literal["production", "staging", "acceptance", "test", "dev"] | None = Field(
        default=None, description="what kind of system this is"
    )
    read_only: bool = Field(default=False, description="refuse every change")
    theme: str | None = Field(default=None, description="theme for this profile")
    banner: str | None = Field(default=None, description="banner colour: name or #rrggbb")
    backend: Backend

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value:
            raise _err("empty", "must not be empty")
        if _PROFILE_NAME_BAD.search(value):
            raise _err("profile_name", "must not contain spaces or control characters")
        if value.startswith("-"):
            raise _err("profile_name", "must not start with -")
        if len(value) > 64:
            raise _err("profile_name", "must be at most 64 characters")
        return value

    @field_validator("theme")
    @classmethod
    def _theme(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise _err("empty", "must not be empty (leave it out for the default theme)")
        return value

    @field_validator("banner")
    @classmethod
    def _banner(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if _HEX_COLOUR.match(value):
            return value.lower()
        name = value.strip().lower().replace("-", "_")
        if name in COLOUR_NAMES:
            return name
        raise _err(
            "colour",
            f"{value!r} is not a colour: use a colour name (red, orange, darkred, ...) or #rrggbb",
        )

    @property
    def kind(self) -> str:
        """``"embedded"`` or ``"mq"``."""
        return self.backend.type

    @property
    def is_production(self) -> bool:
        return self.environment == "production"

    def resolve_password(self, prompt_fn: Callable[[str], str] | None = None) -> str | None:
        """The password to connect with, or None when the profile uses none.

        Reads the environment variable named by ``password_env``; when it is unset or empty
        and ``password_prompt`` is true, asks with ``prompt_fn(prompt)`` (default:
        :func:`getpass.getpass`, which does not echo). Never logs or stores the password.
        Raises :class:`ConfigError` when ``password_env`` names an unset variable and no
        prompt is allowed.
        """
        backend = self.backend
        if not isinstance(backend, MQBackendConfig):
            return None
        if backend.password_env:
            value = os.environ.get(backend.password_env)
            if value:
                return value
        if backend.password_prompt:
            ask = prompt_fn or getpass.getpass
            who = backend.user or "the user"
            return ask(f"MQ password for {who} (profile {self.name}): ")
        if backend.password_env:
            raise ConfigError(
                f"the environment variable {backend.password_env} named by password_env "
                "is not set; set it, or set password_prompt: true to be asked",
                setting=f"profiles.{self.name}.backend.password_env",
            )
        return None


class PluginsConfig(_Model):
    """Which site plugins load."""

    enabled: list[str] = Field(default_factory=list, description="load only these")
    disabled: list[str] = Field(default_factory=list, description="never load these")
    paths: list[Path] = Field(default_factory=list, description="folders of plugin modules")

    @field_validator("paths")
    @classmethod
    def _paths(cls, value: list[Path], info: ValidationInfo) -> list[Path]:
        return [_resolve_path(p, _base_dir(info)) for p in value]

    @model_validator(mode="after")
    def _overlap(self) -> PluginsConfig:
        both = sorted(set(self.enabled) & set(self.disabled))
        if both:
            raise _err(
                "plugin_both",
                f"{', '.join(both)} cannot be both enabled and disabled",
                at=("disabled",),
            )
        return self


class JournalConfig(_Model):
    """The journal of every change."""

    path: Path | None = Field(
        default=None, description="journal file (JSON lines)", validate_default=True
    )

    @field_validator("path")
    @classmethod
    def _path(cls, value: Path | None, info: ValidationInfo) -> Path:
        if value is None:
            return paths.default_journal_path()
        return _resolve_path(value, _base_dir(info))


class TuiConfig(_Model):
    """The interactive console."""

    refresh_seconds: float = Field(
        default=5.0, ge=0, le=3600, description="queue list refresh; 0 = only on demand"
    )
    page_size: int = Field(default=200, ge=1, le=100_000, description="messages per page")


class Config(_Model):
    """The whole configuration. Build it with :func:`load_config`."""

    default_profile: str | None = Field(default=None, description="profile used without --profile")
    profiles: list[Profile] = Field(
        default_factory=list, description="the profiles", validate_default=True
    )
    theme: str = Field(default=DEFAULT_THEME, description="default theme name")
    themes_dir: Path | None = Field(
        default=None, description="folder of the user's theme files", validate_default=True
    )
    keymap: dict[str, str] = Field(default_factory=dict, description="binding id -> key")
    plugins: PluginsConfig = Field(default_factory=PluginsConfig)
    journal: JournalConfig = Field(default_factory=JournalConfig)
    backup_dir: Path | None = Field(
        default=None, description="where deletes save messages first", validate_default=True
    )
    tui: TuiConfig = Field(default_factory=TuiConfig)

    _file: Path | None = PrivateAttr(default=None)
    _origin: str = PrivateAttr(default=ORIGIN_DEFAULTS)

    @field_validator("themes_dir")
    @classmethod
    def _themes_dir(cls, value: Path | None, info: ValidationInfo) -> Path:
        if value is None:
            return paths.user_config_dir() / "themes"
        return _resolve_path(value, _base_dir(info))

    @field_validator("backup_dir")
    @classmethod
    def _backup_dir(cls, value: Path | None, info: ValidationInfo) -> Path:
        if value is None:
            return paths.default_backup_dir()
        return _resolve_path(value, _base_dir(info))

    @field_validator("theme")
    @classmethod
    def _theme(cls, value: str) -> str:
        if not value.strip():
            raise _err("empty", "must not be empty")
        return value

    @field_validator("keymap")
    @classmethod
    def _keymap(cls, value: dict[str, str]) -> dict[str, str]:
        for binding, key in value.items():
            if not binding.strip():
                raise _err("empty", "a binding id must not be empty")
            if not key.strip():
                raise _err("empty", f"the key for {binding} must not be empty", at=(binding,))
        return value

    @field_validator("profiles")
    @classmethod
    def _profiles(cls, value: list[Profile]) -> list[Profile]:
        if not value:
            return [_default_profile()]
        seen: dict[str, int] = {}
        for index, profile in enumerate(value):
            if profile.name in seen:
                raise _err(
                    "duplicate_profile",
                    f"the profile name {profile.name} is used twice "
                    f"(first by profiles[{seen[profile.name]}]); names must be unique",
                    at=(index, "name"),
                )
            seen[profile.name] = index
        return value

    @model_validator(mode="after")
    def _default(self) -> Config:
        name = self.default_profile
        if name is not None and name not in self.profile_names():
            raise _err(
                "unknown_default_profile",
                f"there is no profile named {name}; known: {', '.join(self.profile_names())}",
                at=("default_profile",),
            )
        return self

    # -- where it came from --------------------------------------------------------------

    @property
    def file(self) -> Path | None:
        """The file this configuration was read from, or None for the built-in defaults."""
        return self._file

    @property
    def origin(self) -> str:
        """How the file was found: see :func:`config_path`."""
        return self._origin

    # -- profiles ------------------------------------------------------------------------

    def profile_names(self) -> list[str]:
        return [p.name for p in self.profiles]

    @property
    def default_profile_name(self) -> str | None:
        """``default_profile``, or the only profile's name; None when a choice is needed."""
        if self.default_profile is not None:
            return self.default_profile
        if len(self.profiles) == 1:
            return self.profiles[0].name
        return None

    def profile(self, name: str | None = None) -> Profile:
        """The profile named ``name``, or the default one; raises :class:`ConfigError`."""
        wanted = name if name is not None else self.default_profile_name
        file = None if self._file is None else str(self._file)
        if wanted is None:
            raise ConfigError(
                f"no profile chosen: there are several ({', '.join(self.profile_names())}) "
                "and no default_profile; choose one with --profile NAME",
                file=file,
            )
        for profile in self.profiles:
            if profile.name == wanted:
                return profile
        raise ConfigError(
            f"no profile named {wanted}; known: {', '.join(self.profile_names())}", file=file
        )


def _default_profile() -> Profile:
    return Profile(
        name=DEFAULT_PROFILE_NAME,
        description="the embedded queue manager in the user data folder",
        backend=EmbeddedBackendConfig(),
    )


def default_config() -> Config:
    """The configuration used when there is no file: one embedded profile, ``default``."""
    cfg = Config(default_profile=DEFAULT_PROFILE_NAME, profiles=[_default_profile()])
    cfg._origin = ORIGIN_DEFAULTS
    return cfg


def embedded_profile(path: str, *, name: str = "embedded", read_only: bool = False) -> Profile:
    """An ad-hoc profile for ``--embedded PATH`` (relative paths from the current folder)."""
    try:
        return Profile(name=name, read_only=read_only, backend=EmbeddedBackendConfig(path=path))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(_strip_value_error(first["msg"]), setting="--embedded") from None


# --------------------------------------------------------------------------------------------
# Finding the file
# --------------------------------------------------------------------------------------------


def config_path(explicit: str | os.PathLike[str] | None = None) -> tuple[Path | None, str]:
    """Which file holds the configuration, and how it was found.

    In order: ``explicit`` (``--config FILE``) → ``"--config"``; the environment variable
    ``MQCONSOLE_CONFIG`` → ``"MQCONSOLE_CONFIG"``; ``config.yaml`` in the user config folder
    (``MQCONSOLE_HOME`` when set), if it exists → ``"user config dir"``; else
    ``(None, "none (built-in defaults)")``. A file named by the flag or the variable is
    returned even when missing (loading it then fails with a :class:`ConfigError`).
    Paths are absolute, ``~`` expanded.
    """
    if explicit is not None and os.fspath(explicit) != "":
        return Path(os.fspath(explicit)).expanduser().absolute(), ORIGIN_FLAG
    env = os.environ.get(paths.CONFIG_ENV, "").strip()
    if env:
        return Path(env).expanduser().absolute(), ORIGIN_ENV
    candidate = paths.default_config_file()
    if candidate.is_file():
        return candidate, ORIGIN_USER_DIR
    return None, ORIGIN_DEFAULTS


def load_config(explicit: str | os.PathLike[str] | None = None) -> Config:
    """Find (see :func:`config_path`), read and validate the configuration."""
    path, origin = config_path(explicit)
    if path is None:
        return default_config()
    return load_config_file(path, origin=origin)


def load_config_file(path: str | os.PathLike[str], *, origin: str = ORIGIN_FLAG) -> Config:
    """Read and validate one configuration file; every problem is a :class:`ConfigError`."""
    path = Path(os.fspath(path))
    shown = str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"no such config file (named by {origin})", file=shown) from None
    except IsADirectoryError:
        raise ConfigError("is a folder, not a config file", file=shown) from None
    except PermissionError:
        raise ConfigError("cannot read the config file: permission denied", file=shown) from None
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise ConfigError(f"cannot read the config file: {reason}", file=shown) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError("is not UTF-8 text", file=shown, line=line) from None
    cfg = parse_config(text, filename=shown, base_dir=path.absolute().parent)
    cfg._file = path
    cfg._origin = origin
    return cfg


# --------------------------------------------------------------------------------------------
# YAML with line numbers
# --------------------------------------------------------------------------------------------

_MAX_NODES = 200_000
_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_TAG}{t}" for t in ("null", "bool", "int", "float", "str", "timestamp")}


class _Builder:
    """Turns a composed node tree into plain data plus a map from setting paths to lines."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.lines: dict[Loc, int] = {}
        self.duplicates: list[tuple[Loc, int, int]] = []  # (loc, line, first line)
        self.nodes = 0
        self.constructor = yaml.constructor.SafeConstructor()

    def fail(self, node: yaml.Node, message: str, setting: str | None = None) -> ConfigError:
        return ConfigError(
            message, file=self.filename, line=node.start_mark.line + 1, setting=setting
        )

    def build(self, node: yaml.Node, loc: Loc) -> Any:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise self.fail(node, "is too large (aliases nested too deeply?)")
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != f"{_TAG}seq":
                raise self.fail(node, f"unsupported YAML tag {_tag(node.tag)}", _dotted_raw(loc))
            items = []
            for index, child in enumerate(node.value):
                self.lines.setdefault((*loc, index), child.start_mark.line + 1)
                items.append(self.build(child, (*loc, index)))
            return items
        if isinstance(node, yaml.MappingNode):
            if node.tag != f"{_TAG}map":
                raise self.fail(node, f"unsupported YAML tag {_tag(node.tag)}", _dotted_raw(loc))
            return self.mapping(node, loc)
        raise self.fail(node, "unsupported YAML node")  # pragma: no cover

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag not in _SCALAR_TAGS:
            raise self.fail(node, f"unsupported YAML tag {_tag(node.tag)}")
        construct = self.constructor.yaml_constructors[node.tag]
        try:
            return construct(self.constructor, node)
        except (yaml.YAMLError, ValueError) as exc:
            problem = getattr(exc, "problem", None) or "cannot be read"
            raise self.fail(node, problem) from None

    def key(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, "a key must be a plain name, not a list or mapping")
        return self.scalar(node)

    def mapping(self, node: yaml.MappingNode, loc: Loc) -> dict[Any, Any]:
        merged: list[tuple[Any, yaml.Node, yaml.Node]] = []
        explicit: list[tuple[Any, yaml.Node, yaml.Node]] = []
        first_line: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == f"{_TAG}merge":
                sources = (
                    value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                )
                for source in sources:
                    if not isinstance(source, yaml.MappingNode):
                        raise self.fail(
                            value_node,
                            "a merge (<<) needs a mapping or a list of mappings",
                            _dotted_raw(loc),
                        )
                    for k_node, v_node in source.value:
                        if k_node.tag == f"{_TAG}merge":
                            raise self.fail(k_node, "nested merges (<<) are not supported")
                        merged.append((self.key(k_node), k_node, v_node))
                continue
            key = self.key(key_node)
            try:
                hash(key)
            except TypeError:  # pragma: no cover - scalars are hashable
                raise self.fail(key_node, "a key must be a plain name") from None
            line = key_node.start_mark.line + 1
            if key in first_line:
                self.duplicates.append(((*loc, key), line, first_line[key]))
                continue
            first_line[key] = line
            explicit.append((key, key_node, value_node))
        result: dict[Any, Any] = {}
        taken = {k for k, _, _ in explicit}
        done_merged: set[Any] = set()
        for key, key_node, value_node in merged:
            # the first merged mapping wins over later ones, explicit keys over all
            if key in taken or key in done_merged:
                continue
            done_merged.add(key)
            self.lines[(*loc, key)] = key_node.start_mark.line + 1
            result[key] = self.build(value_node, (*loc, key))
        for key, key_node, value_node in explicit:
            self.lines[(*loc, key)] = key_node.start_mark.line + 1
            result[key] = self.build(value_node, (*loc, key))
        return result


def _tag(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def _dotted_raw(loc: Loc) -> str:
    out = ""
    for el in loc:
        if isinstance(el, int) and not isinstance(el, bool):
            out += f"[{el}]"
        else:
            out += ("." if out else "") + str(el)
    return out


def _compose(text: str, filename: str) -> tuple[Any, dict[Loc, int]]:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "is not valid YAML"
        if exc.context and exc.problem and "found" in exc.problem:
            problem = f"{exc.context}, {exc.problem}"
        problem = " ".join(problem.split())
        raise ConfigError(
            f"is not valid YAML: {problem}",
            file=filename,
            line=None if mark is None else mark.line + 1,
        ) from None
    except yaml.reader.ReaderError as exc:
        line = text[: exc.position].count("\n") + 1
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise ConfigError(
            f"is not valid YAML: it contains a character YAML does not allow (U+{char:04X})",
            file=filename,
            line=line,
        ) from None
    except yaml.YAMLError as exc:
        problem = " ".join(str(exc).split())
        raise ConfigError(f"is not valid YAML: {problem}", file=filename) from None
    except RecursionError:
        raise ConfigError("is not usable YAML: nested too deeply", file=filename) from None
    if root is None:
        return {}, {}
    builder = _Builder(filename)
    try:
        data = builder.build(root, ())
    except RecursionError:
        raise ConfigError("is not usable YAML: nested too deeply", file=filename) from None
    if builder.duplicates:
        raise ConfigError(
            [
                ConfigProblem(
                    f"this setting appears twice (first at line {first}); "
                    "YAML would silently keep only the last one",
                    filename,
                    line,
                    _display_loc(loc, data),
                )
                for loc, line, first in sorted(builder.duplicates, key=lambda d: d[1])
            ]
        )
    if data is None:  # "---" or "null": an empty document
        return {}, {}
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a single value ({type(data).__name__})"
        raise ConfigError(
            f"must be a mapping of settings (default_profile:, profiles:, ...), not {kind}",
            file=filename,
            line=root.start_mark.line + 1,
        )
    return data, builder.lines


# --------------------------------------------------------------------------------------------
# Validation errors → sentences
# --------------------------------------------------------------------------------------------

_TAGGED_UNIONS = {"backend"}


def _strip_value_error(msg: str) -> str:
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    return msg


def _descend(cur: Any, el: Any) -> Any:
    if isinstance(cur, dict):
        return cur.get(el)
    if isinstance(cur, list) and isinstance(el, int) and 0 <= el < len(cur):
        return cur[el]
    return None


def _clean_loc(loc: Loc, data: Any) -> Loc:
    """Pydantic's loc without the union tags it inserts, and without ``[key]`` markers."""
    out: list[Any] = []
    cur = data
    for el in loc:
        if el == "[key]":
            continue
        if (
            out
            and out[-1] in _TAGGED_UNIONS
            and isinstance(cur, dict)
            and isinstance(el, str)
            and el == cur.get("type")
        ):
            continue
        out.append(el)
        cur = _descend(cur, el)
    return tuple(out)


def _display_loc(loc: Loc, data: Any) -> str:
    """``profiles.prod.backend.port`` (the profile's name when it is usable), else indexes."""
    names: list[str] = []
    profiles = data.get("profiles") if isinstance(data, dict) else None
    if isinstance(profiles, list):
        names = [p.get("name") if isinstance(p, dict) else None for p in profiles]
    out = ""
    cur = data
    for i, el in enumerate(loc):
        parent, cur = cur, _descend(cur, el)
        if isinstance(el, int) and not isinstance(el, bool) and not isinstance(parent, dict):
            name = names[el] if i == 1 and loc[0] == "profiles" and el < len(names) else None
            if (
                isinstance(name, str)
                and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name)
                and names.count(name) == 1
            ):
                out += f".{name}"
            else:
                out += f"[{el}]"
        else:
            out += ("." if out else "") + str(el)
    return out


def _line_for(loc: Loc, lines: dict[Loc, int]) -> int | None:
    for n in range(len(loc), 0, -1):
        line = lines.get(loc[:n])
        if line is not None:
            return line
    return None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in get_args(annotation):
        found.extend(_models_in(arg))
    return found


def _model_at(loc: Loc, data: Any) -> list[type[BaseModel]]:
    """The model(s) that hold the settings at ``loc`` (several for an undecided union)."""
    models: list[type[BaseModel]] = [Config]
    cur = data
    for el in loc:
        if isinstance(el, int) and not isinstance(el, bool):
            cur = _descend(cur, el)
            continue
        if len(models) != 1 or el not in models[0].model_fields:
            return []
        models = _models_in(models[0].model_fields[el].annotation)
        cur = _descend(cur, el)
        if not models:
            return []
        if len(models) > 1 and isinstance(cur, dict):
            tagged = [m for m in models if cur.get("type") in get_args(_type_of(m))]
            models = tagged or models
    return models


def _type_of(model: type[BaseModel]) -> Any:
    field = model.model_fields.get("type")
    return None if field is None else field.annotation


def _unknown_setting(loc: Loc, data: Any) -> str:
    key = loc[-1]
    if key == "password":
        return _PASSWORD_REFUSED
    models = _model_at(loc[:-1], data)
    if len(models) == 1 and isinstance(key, str):
        allowed = list(models[0].model_fields)
        parent = _descend_all(data, loc[:-1])
        kind = parent.get("type") if isinstance(parent, dict) else None
        if loc[-2:-1] == ("backend",) and kind:
            others = [
                m
                for m in _models_in(Profile.model_fields["backend"].annotation)
                if key in m.model_fields and m is not models[0]
            ]
            if others:
                other = get_args(_type_of(others[0]))[0]
                article = "an" if str(kind)[:1] in "aeiou" else "a"
                return f"unknown setting for {article} {kind} backend (it belongs to type: {other})"
        if models[0] is MQBackendConfig and key in ("host", "port", "hostname", "conname"):
            return "unknown setting; MQ takes host and port in connection_name: host(port)"
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        if close:
            return f"unknown setting; did you mean {close[0]}?"
        return f"unknown setting; known here: {', '.join(allowed)}"
    return "unknown setting"


def _descend_all(data: Any, loc: Loc) -> Any:
    cur = data
    for el in loc:
        cur = _descend(cur, el)
    return cur


def _problem_text(error: Any, loc: Loc, data: Any) -> tuple[str, Loc]:
    kind = error["type"]
    msg = _strip_value_error(error["msg"])
    if kind == "extra_forbidden":
        return _unknown_setting(loc, data), loc
    if kind == "missing":
        return "required setting is missing", loc
    if kind == "union_tag_invalid":
        tag = (error.get("ctx") or {}).get("tag")
        return f"unknown backend type {tag}; use embedded or mq", (*loc, "type")
    if kind == "union_tag_not_found":
        return "required setting is missing: type: embedded or type: mq", (*loc, "type")
    if kind == "invalid_key":
        return "setting names must be text", loc
    if kind in ("bool_type", "bool_parsing"):
        return "must be true or false", loc
    if kind in (
        "string_type",
        "int_type",
        "int_parsing",
        "float_type",
        "float_parsing",
        "bool_type",
        "bool_parsing",
    ):
        value = _descend_all(data, loc)
        if kind == "string_type" and isinstance(value, bool | int | float):
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            return f"{msg} (YAML read this as {shown}; put it in quotes)", loc
    return msg, loc


def _problems_from(
    exc: ValidationError, data: Any, lines: dict[Loc, int], filename: str | None
) -> list[ConfigProblem]:
    problems: list[ConfigProblem] = []
    for error in exc.errors(include_url=False):
        loc = _clean_loc(tuple(error["loc"]), data)
        at = (error.get("ctx") or {}).get(_AT)
        if at:
            loc = (*loc, *at)
        text, loc = _problem_text(error, loc, data)
        problem = ConfigProblem(
            problem=text,
            file=filename,
            line=_line_for(loc, lines),
            setting=_display_loc(loc, data) or None,
        )
        if problem not in problems:
            problems.append(problem)
    problems.sort(key=lambda p: (p.line is None, p.line or 0))
    return problems


def parse_config(
    text: str, *, filename: str = "<config>", base_dir: str | os.PathLike[str] | None = None
) -> Config:
    """Validate configuration text; relative paths in it are taken from ``base_dir``."""
    data, lines = _compose(text, filename)
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    # Top-level keys starting with "x-" are free: a place for YAML anchors (&tls) to reuse.
    data = {k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("x-"))}
    try:
        return Config.model_validate(data, context={"base_dir": base})
    except ValidationError as exc:
        raise ConfigError(_problems_from(exc, data, lines, filename)) from None


# --------------------------------------------------------------------------------------------
# Showing it
# --------------------------------------------------------------------------------------------


def dump_config(cfg: Config) -> str:
    """The effective configuration as YAML (defaults filled in, paths resolved).

    Passwords are never part of it: an ``mq`` profile shows ``password_env: NAME`` or
    ``password_prompt: true``, never a value.
    """
    data = cfg.model_dump(mode="json", exclude_none=True)
    if data.get("default_profile") is None and cfg.default_profile_name is not None:
        data["default_profile"] = cfg.default_profile_name
    ordered = {"default_profile": data.pop("default_profile", None), **data}
    if ordered["default_profile"] is None:
        del ordered["default_profile"]
    source = "built-in defaults" if cfg.file is None else f"{cfg.file} ({cfg.origin})"
    body = yaml.safe_dump(ordered, sort_keys=False, default_flow_style=False, allow_unicode=True)
    return f"# effective mqconsole configuration, from {source}\n{body}"


def iter_setting_paths(model: type[BaseModel] = Config, prefix: str = "") -> Iterator[str]:
    """Every setting of the schema once, as a dotted path (list items and union members merged)."""
    seen: set[str] = set()

    def walk(model: type[BaseModel], prefix: str) -> Iterator[str]:
        for name, field in model.model_fields.items():
            path = f"{prefix}.{name}" if prefix else name
            if path not in seen:
                seen.add(path)
                yield path
            for sub in _models_in(field.annotation):
                yield from walk(sub, path)

    yield from walk(model, prefix)


__all__ = [
    "COLOUR_NAMES",
    "ENVIRONMENTS",
    "Config",
    "ConfigError",
    "ConfigProblem",
    "EmbeddedBackendConfig",
    "JournalConfig",
    "MQBackendConfig",
    "PluginsConfig",
    "Profile",
    "TuiConfig",
    "config_path",
    "default_config",
    "dump_config",
    "embedded_profile",
    "iter_setting_paths",
    "load_config",
    "load_config_file",
    "parse_config",
]

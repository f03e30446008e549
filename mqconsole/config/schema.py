"""The whole configuration: the root model :class:`Config` and the ``journal:`` section."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from mqconsole import paths

from .checks import Model, err, not_blank, path_setting
from .console import DEFAULT_THEME, TuiConfig, check_keymap
from .errors import ConfigError
from .locate import ORIGIN_DEFAULTS
from .plugins import PluginsConfig, crossed, effective_plugins
from .profiles import DEFAULT_PROFILE_NAME, Profile, default_profile

if TYPE_CHECKING:
    from mqconsole.plugins import PluginsSettings


_SIZE = re.compile(r"^\s*(\d+)\s*(B|KB|KIB|K|MB|MIB|M|GB|GIB|G)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1024**2, "MB": 1024**2,
               "MIB": 1024**2, "G": 1024**3, "GB": 1024**3, "GIB": 1024**3}
_AGE = re.compile(r"^\s*(\d+)\s*([hdw])\s*$", re.IGNORECASE)
_AGE_HOURS = {"h": 1, "d": 24, "w": 24 * 7}
MIN_ROTATE_BYTES = 64 * 1024
MAX_ROTATE_DAYS = 3660


class JournalRotation(Model):
    """When the journal is renamed aside (``journal.<UTC time>.jsonl``, beside it) and a new
    one started; ``mqconsole journal`` reads them all."""

    max_size: int | str | None = Field(
        default=None, description="rotate past this size: 50MB, 1GB, 65536 (bytes)"
    )
    max_age: str | None = Field(
        default=None, description="rotate when its first record is older: 12h, 7d, 2w"
    )
    keep: int | None = Field(default=None, ge=1, le=100_000,
                             description="rotated files kept, oldest dropped (default: all)")

    @field_validator("max_size")
    @classmethod
    def _max_size(cls, value: int | str | None) -> int | None:
        if value is None:
            return None
        m = _SIZE.match(str(value)) if not isinstance(value, bool) else None
        if m is None:
            raise err("size", f"{value!r} is not a size: use 50MB, 1GB or a number of bytes")
        size = int(m.group(1)) * _SIZE_UNITS[(m.group(2) or "").upper()]
        if size < MIN_ROTATE_BYTES:
            raise err("size", f"{value!r} is smaller than 64KB: the journal would rotate "
                      "at almost every change")
        return size

    @field_validator("max_age")
    @classmethod
    def _max_age(cls, value: str | None) -> str | None:
        if value is None:
            return None
        m = _AGE.match(str(value))
        if m is None:
            raise err("age", f"{value!r} is not an age: use hours, days or weeks (12h, 7d, "
                      "2w)")
        hours = int(m.group(1)) * _AGE_HOURS[m.group(2).lower()]
        if not 1 <= hours <= MAX_ROTATE_DAYS * 24:
            raise err("age", f"{value!r} is out of range: 1h to {MAX_ROTATE_DAYS}d")
        return value

    @property
    def max_age_delta(self) -> timedelta | None:
        if self.max_age is None:
            return None
        m = _AGE.match(self.max_age)
        assert m is not None  # checked when read
        return timedelta(hours=int(m.group(1)) * _AGE_HOURS[m.group(2).lower()])


class JournalConfig(Model):
    """The journal of every change."""

    path: Path | None = Field(
        default=None, description="journal file (JSON lines)", validate_default=True
    )
    rotate: JournalRotation = Field(default_factory=JournalRotation)

    @field_validator("path")
    @classmethod
    def _path(cls, value: Path | None, info: ValidationInfo) -> Path:
        return path_setting(value, info, paths.default_journal_path)


class Config(Model):
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
        return path_setting(value, info, lambda: paths.user_config_dir() / "themes")

    @field_validator("backup_dir")
    @classmethod
    def _backup_dir(cls, value: Path | None, info: ValidationInfo) -> Path:
        return path_setting(value, info, paths.default_backup_dir)

    @field_validator("theme")
    @classmethod
    def _theme(cls, value: str) -> str:
        not_blank(value)
        return value

    @field_validator("keymap")
    @classmethod
    def _keymap(cls, value: dict[str, str]) -> dict[str, str]:
        return check_keymap(value)

    @field_validator("profiles")
    @classmethod
    def _profiles(cls, value: list[Profile]) -> list[Profile]:
        if not value:
            return [default_profile()]
        seen: dict[str, int] = {}
        for index, profile in enumerate(value):
            if profile.name in seen:
                raise err(
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
            raise err(
                "unknown_default_profile",
                f"there is no profile named {name}; known: {', '.join(self.profile_names())}",
                at=("default_profile",),
            )
        for index, profile in enumerate(self.profiles):
            both = [] if profile.plugins is None else crossed(self.plugins, profile.plugins)
            if both:
                raise err(
                    "plugin_both",
                    f"{_plugins_named(both)} disabled for every profile by plugins.disabled "
                    "at the top of the file, so a profile cannot enable it",
                    at=("profiles", index, "plugins", "enabled"),
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

    # -- plugins -------------------------------------------------------------------------

    def effective_plugins(self, profile: str | None = None) -> PluginsSettings:
        """The plugin settings the profile named ``profile`` runs with (None: the top-level
        section alone), for ``mqconsole.plugins.load_plugins``; see ``config/plugins.py``
        for how a profile's section changes the top-level one."""
        chosen = None if profile is None else self.profile(profile).plugins
        return effective_plugins(self.plugins, chosen)


def _plugins_named(names: list[str]) -> str:
    return f"plugin {names[0]} is" if len(names) == 1 else f"plugins {', '.join(names)} are"


def default_config() -> Config:
    """The configuration used when there is no file: one embedded profile, ``default``."""
    cfg = Config(default_profile=DEFAULT_PROFILE_NAME, profiles=[default_profile()])
    cfg._origin = ORIGIN_DEFAULTS
    return cfg

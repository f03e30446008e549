"""``plugins:``: which site plugins load, from where, and each one's own settings.

The section sits at the top of the file and may sit in a profile too, so production can run
fewer plugins. A profile's section changes the top-level one setting by setting
(:func:`effective_plugins`):

- ``enabled``: the profile's list, when it gives one, replaces the top-level list;
- ``disabled``: adds to the top-level list (what is off everywhere stays off);
- ``paths``: the profile's list, when it gives one, replaces the top-level list;
- ``settings``: merged per plugin, key by key, the profile's values winning.

A plugin both enabled and disabled is an error, in one section or across the two. The
folders in ``paths`` are checked when the plugins load (``mqconsole.plugins``: a folder
others can write to is refused), not here: the file stays valid on another machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from .checks import Model, base_dir, err, resolve_path

if TYPE_CHECKING:
    from mqconsole.plugins import PluginsSettings

_BAD_NAME = re.compile(r"[\s\x00-\x1f\x7f]")


def _check_names(value: list[str] | None) -> list[str] | None:
    for index, name in enumerate(value or []):
        if not name or _BAD_NAME.search(name):
            raise err(
                "plugin_name",
                "a plugin name (its entry point's or file's name) must not be empty "
                "or hold spaces",
                at=(index,),
            )
    return value


def _check_settings(value: Any) -> Any:
    """``plugins.settings``: plugin name -> a mapping of that plugin's own settings."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise err("plugin_settings", "must be a mapping: plugin name -> its own settings")
    out: dict[str, dict[Any, Any]] = {}
    for name, section in value.items():
        if not isinstance(name, str) or not name or _BAD_NAME.search(name):
            raise err("plugin_name", "a plugin name must be text without spaces", at=(name,))
        if section is None:
            section = {}
        if not isinstance(section, dict):
            raise err(
                "plugin_settings",
                f"the settings of plugin {name} must be a mapping (setting: value), "
                f"not {_kind(section)}",
                at=(name,),
            )
        found = _password_key(section)
        if found is not None:
            raise err("password_in_file", _PLUGIN_PASSWORD, at=(name, *found))
        out[name] = section
    return out


_PLUGIN_PASSWORD = (
    "passwords never go in the config file; let the plugin read it from an environment "
    "variable named here instead"
)


def _password_key(value: Any) -> tuple[Any, ...] | None:
    """Where a key named ``password`` sits in a plugin's settings, or None."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and key.lower() == "password":
                return (key,)
            inner = _password_key(item)
            if inner is not None:
                return (key, *inner)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            inner = _password_key(item)
            if inner is not None:
                return (index, *inner)
    return None


def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else f"a single value ({value!r})"


def _both(enabled: Iterable[str] | None, disabled: Iterable[str]) -> list[str]:
    return sorted(set(enabled or ()) & set(disabled))


class _PluginsSection(Model):
    """What the top-level and the profile's ``plugins:`` check alike."""

    @field_validator("enabled", "disabled", check_fields=False)
    @classmethod
    def _names(cls, value: list[str] | None) -> list[str] | None:
        return _check_names(value)

    @field_validator("paths", check_fields=False)
    @classmethod
    def _paths(cls, value: list[Path] | None, info: ValidationInfo) -> list[Path] | None:
        if value is None:
            return None
        return [resolve_path(p, base_dir(info)) for p in value]

    @field_validator("settings", mode="before", check_fields=False)
    @classmethod
    def _settings(cls, value: Any) -> Any:
        return _check_settings(value)

    @model_validator(mode="after")
    def _overlap(self) -> _PluginsSection:
        both = _both(getattr(self, "enabled", None), getattr(self, "disabled", ()))
        if both:
            raise err(
                "plugin_both",
                f"{', '.join(both)} cannot be both enabled and disabled",
                at=("disabled",),
            )
        return self


class PluginsConfig(_PluginsSection):
    """Which site plugins load, and their settings."""

    enabled: list[str] = Field(default_factory=list, description="load only these")
    disabled: list[str] = Field(default_factory=list, description="never load these")
    paths: list[Path] = Field(default_factory=list, description="folders of plugin modules")
    settings: dict[str, dict[Any, Any]] = Field(
        default_factory=dict, description="plugin name -> its own settings"
    )


class ProfilePluginsConfig(_PluginsSection):
    """A profile's ``plugins:``: changes the top-level section for that profile only."""

    enabled: list[str] | None = Field(
        default=None, description="load only these (replaces the top-level list)"
    )
    disabled: list[str] = Field(
        default_factory=list, description="never load these either (adds to the top level)"
    )
    paths: list[Path] | None = Field(
        default=None, description="folders of plugin modules (replaces the top-level list)"
    )
    settings: dict[str, dict[Any, Any]] = Field(
        default_factory=dict, description="merged into the top-level settings, per plugin"
    )


def crossed(top: PluginsConfig, profile: ProfilePluginsConfig) -> list[str]:
    """Plugins the profile enables that the top level disables (a contradiction)."""
    return _both(profile.enabled, top.disabled)


def effective_plugins(
    top: PluginsConfig, profile: ProfilePluginsConfig | None = None
) -> PluginsSettings:
    """The plugin settings one profile runs with, as the plugin loader takes them."""
    from mqconsole.plugins import PluginsSettings

    if profile is None:
        return PluginsSettings(
            paths=list(top.paths),
            enabled=list(top.enabled),
            disabled=list(top.disabled),
            settings={name: dict(section) for name, section in top.settings.items()},
        )
    settings = {name: dict(section) for name, section in top.settings.items()}
    for name, section in profile.settings.items():
        settings[name] = {**settings.get(name, {}), **section}
    return PluginsSettings(
        paths=list(top.paths if profile.paths is None else profile.paths),
        enabled=list(top.enabled if profile.enabled is None else profile.enabled),
        disabled=list(dict.fromkeys([*top.disabled, *profile.disabled])),
        settings=settings,
    )

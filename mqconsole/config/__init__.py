"""The configuration file: profiles (which queue manager, how to reach it) and console settings.

One YAML file, found by :func:`config_path` (``--config FILE``, then ``MQCONSOLE_CONFIG``,
then ``config.yaml`` in the user config folder), read safely (only plain YAML types) but with
line numbers kept (:mod:`mqconsole.yamlines`, shared with the delivery model's scenarios), and
validated with pydantic. Every problem becomes one :class:`ConfigError` whose message is one
sentence naming the file, the line and the setting::

    /home/op/.config/mqconsole/config.yaml line 12: profiles.prod.backend.port: ...

``config.example.yaml`` at the top of the repository documents every setting; a test fails
when a setting of the schema is missing from it.

Passwords never go in the file: an ``mq`` profile names an environment variable
(``password_env``) or asks for a prompt (``password_prompt``); the faces pass both down in a
``BackendSpec`` (``cli/backendspec.py``) and the backend's opener reads the variable, or asks
through the face's ``ask_password`` (the CLI on the terminal, the console in a dialog).

One module per job: ``locate`` (finding the file), ``loading`` (reading and validating it),
``errors`` and ``sentences`` (problems as sentences), ``checks`` (small validators), the
models in ``schema`` (the root), ``profiles``, ``backends``, ``console`` (themes, keymap,
``tui:``) and ``plugins``; ``show`` (``config show``).

The names below are imported on first use (PEP 562): ``locate`` and ``errors`` need no
pydantic, so a process that only asks whether a configuration file applies, or names
``ConfigError``, does not pay pydantic's import and the models' build (about a
quarter of a second of a CLI start).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .backends import EmbeddedBackendConfig, MQBackendConfig
    from .checks import check_connection_name
    from .console import COLOUR_NAMES, DEFAULT_THEME, TuiConfig
    from .errors import ConfigError, ConfigProblem
    from .loading import load_config, load_config_file, parse_config
    from .locate import ORIGIN_DEFAULTS, ORIGIN_ENV, ORIGIN_FLAG, ORIGIN_USER_DIR, config_path
    from .plugins import PluginsConfig, ProfilePluginsConfig
    from .profiles import DEFAULT_PROFILE_NAME, ENVIRONMENTS, Profile, embedded_profile
    from .schema import Config, JournalConfig, default_config
    from .show import dump_config, iter_setting_paths

_WHERE: dict[str, str] = {
    "COLOUR_NAMES": "console",
    "Config": "schema",
    "ConfigError": "errors",
    "ConfigProblem": "errors",
    "DEFAULT_PROFILE_NAME": "profiles",
    "DEFAULT_THEME": "console",
    "ENVIRONMENTS": "profiles",
    "EmbeddedBackendConfig": "backends",
    "JournalConfig": "schema",
    "MQBackendConfig": "backends",
    "ORIGIN_DEFAULTS": "locate",
    "ORIGIN_ENV": "locate",
    "ORIGIN_FLAG": "locate",
    "ORIGIN_USER_DIR": "locate",
    "PluginsConfig": "plugins",
    "Profile": "profiles",
    "ProfilePluginsConfig": "plugins",
    "TuiConfig": "console",
    "check_connection_name": "checks",
    "config_path": "locate",
    "default_config": "schema",
    "dump_config": "show",
    "embedded_profile": "profiles",
    "iter_setting_paths": "show",
    "load_config": "loading",
    "load_config_file": "loading",
    "parse_config": "loading",
}
"""Each public name and the module of this package that defines it."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next lookup is a plain one
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = [
    "COLOUR_NAMES",
    "DEFAULT_PROFILE_NAME",
    "DEFAULT_THEME",
    "ENVIRONMENTS",
    "ORIGIN_DEFAULTS",
    "ORIGIN_ENV",
    "ORIGIN_FLAG",
    "ORIGIN_USER_DIR",
    "Config",
    "ConfigError",
    "ConfigProblem",
    "EmbeddedBackendConfig",
    "JournalConfig",
    "MQBackendConfig",
    "PluginsConfig",
    "Profile",
    "ProfilePluginsConfig",
    "TuiConfig",
    "check_connection_name",
    "config_path",
    "default_config",
    "dump_config",
    "embedded_profile",
    "iter_setting_paths",
    "load_config",
    "load_config_file",
    "parse_config",
]

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
"""

from __future__ import annotations

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

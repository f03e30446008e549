"""Finding the configuration file: ``--config FILE``, ``MQCONSOLE_CONFIG``, the user folder."""

from __future__ import annotations

import os
from pathlib import Path

from mqconsole import paths

ORIGIN_FLAG = "--config"
ORIGIN_ENV = "MQCONSOLE_CONFIG"
ORIGIN_USER_DIR = "user config dir"
ORIGIN_DEFAULTS = "none (built-in defaults)"


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

"""Where mqconsole keeps its files.

Three folders, from platformdirs unless ``MQCONSOLE_HOME`` is set:

========================  =============================================  ==========================
what                      platformdirs (Linux shown)                     with ``MQCONSOLE_HOME=H``
========================  =============================================  ==========================
config folder             ``~/.config/mqconsole``                        ``H``
data folder               ``~/.local/share/mqconsole``                   ``H/data``
state folder              ``~/.local/state/mqconsole``                   ``H/state``
========================  =============================================  ==========================

Inside them: ``config.yaml`` (config folder), ``qm.sqlite``, the default
embedded queue manager (data folder), ``backups/`` (saved messages before a
delete) and ``journal.jsonl`` (the change journal) in the state folder.

Nothing here creates a folder; callers that write call :func:`ensure_dir`.
This module imports only the standard library and platformdirs (it is on the
path of every command, so it must stay cheap).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

APP_NAME = "mqconsole"
HOME_ENV = "MQCONSOLE_HOME"
CONFIG_ENV = "MQCONSOLE_CONFIG"

CONFIG_FILE_NAME = "config.yaml"
EMBEDDED_FILE_NAME = "qm.sqlite"
JOURNAL_FILE_NAME = "journal.jsonl"
ATTEMPTS_FILE_NAME = "dlq-attempts.sqlite"  # the dead-letter handler's durable counts
BACKUP_DIR_NAME = "backups"


def home_override() -> Path | None:
    """The folder named by ``MQCONSOLE_HOME`` (``~`` expanded), or None when unset or empty."""
    value = os.environ.get(HOME_ENV, "").strip()
    if not value:
        return None
    return Path(value).expanduser().absolute()


def user_config_dir() -> Path:
    """The folder holding ``config.yaml``."""
    home = home_override()
    if home is not None:
        return home
    from platformdirs import user_config_path

    return user_config_path(APP_NAME, appauthor=False)


def user_data_dir() -> Path:
    """The folder holding the default embedded queue manager."""
    home = home_override()
    if home is not None:
        return home / "data"
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def user_state_dir() -> Path:
    """The folder holding backups and the change journal."""
    home = home_override()
    if home is not None:
        return home / "state"
    from platformdirs import user_state_path

    return user_state_path(APP_NAME, appauthor=False)


def default_config_file() -> Path:
    """``<config folder>/config.yaml`` (it may not exist)."""
    return user_config_dir() / CONFIG_FILE_NAME


def default_embedded_path() -> Path:
    """``<data folder>/qm.sqlite``: the embedded queue manager used when nothing else is named."""
    return user_data_dir() / EMBEDDED_FILE_NAME


def default_backup_dir() -> Path:
    """``<state folder>/backups``: where a delete saves the messages first."""
    return user_state_dir() / BACKUP_DIR_NAME


def default_journal_path() -> Path:
    """``<state folder>/journal.jsonl``: the journal of every change."""
    return user_state_dir() / JOURNAL_FILE_NAME


def default_attempts_path() -> Path:
    """Where the CLI and the console keep the dead-letter handler's attempt counts (the same
    file for both, so a count survives a switch of face too)."""
    return user_state_dir() / ATTEMPTS_FILE_NAME


def ensure_dir(path: Path) -> Path:
    """Create ``path`` and each missing parent, private to the user (0700: ``mkdir``'s
    ``parents=True`` would give the parents the default mode); return it."""
    missing = []
    p = Path(path)
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            folder.mkdir(mode=0o700)
    return path


__all__ = [
    "APP_NAME",
    "ATTEMPTS_FILE_NAME",
    "CONFIG_ENV",
    "HOME_ENV",
    "default_attempts_path",
    "default_backup_dir",
    "default_config_file",
    "default_embedded_path",
    "default_journal_path",
    "ensure_dir",
    "home_override",
    "user_config_dir",
    "user_data_dir",
    "user_state_dir",
]

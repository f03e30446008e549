"""Reading the configuration: the file's bytes, YAML with lines, validation into :class:`Config`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mqconsole.inputfile import NotAFile, open_input
from mqconsole.yamlines import Loc, YamlProblem, read

from .errors import ConfigError
from .locate import ORIGIN_FLAG, config_path
from .schema import Config, default_config
from .sentences import duplicate_problems, validation_problems

# A config file is small: far fewer nodes than this means an alias bomb, not settings.
_MAX_NODES = 200_000


def read_yaml(text: str, filename: str) -> tuple[dict[Any, Any], dict[Loc, int]]:
    """The settings as a plain mapping and the line of each; every problem a ConfigError.

    YAML anchors and merges (``<<: *tls``) are allowed, a setting given twice is an error.
    """
    try:
        doc = read(text, merge_keys=True, timestamps=True, max_nodes=_MAX_NODES)
    except YamlProblem as exc:
        raise ConfigError(exc.problem, file=filename, line=exc.line, setting=exc.setting) from None
    if doc.duplicates:
        raise ConfigError(duplicate_problems(doc.duplicates, doc.data, filename))
    if doc.data is None:  # "", "---" or "null": an empty document
        return {}, {}
    data = doc.data
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a single value ({type(data).__name__})"
        raise ConfigError(
            f"must be a mapping of settings (default_profile:, profiles:, ...), not {kind}",
            file=filename,
            line=doc.line,
        )
    return data, doc.lines


def parse_config(
    text: str, *, filename: str = "<config>", base_dir: str | os.PathLike[str] | None = None
) -> Config:
    """Validate configuration text; relative paths in it are taken from ``base_dir``."""
    data, lines = read_yaml(text, filename)
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    # Top-level keys starting with "x-" are free: a place for YAML anchors (&tls) to reuse.
    data = {k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("x-"))}
    try:
        return Config.model_validate(data, context={"base_dir": base})
    except ValidationError as exc:
        raise ConfigError(validation_problems(exc, data, lines, filename)) from None


MAX_CONFIG_BYTES = 4 * 1024 * 1024


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
        # with a limit: /dev/zero is a sentence, not a crash; a FIFO never waited for
        with open_input(path) as fp:
            raw = fp.read(MAX_CONFIG_BYTES + 1)
    except NotAFile as exc:
        raise ConfigError(f"is {exc.kind}, not a config file", file=shown) from None
    except FileNotFoundError:
        raise ConfigError(f"no such config file (named by {origin})", file=shown) from None
    except IsADirectoryError:
        raise ConfigError("is a folder, not a config file", file=shown) from None
    except PermissionError:
        raise ConfigError("cannot read the config file: permission denied", file=shown) from None
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise ConfigError(f"cannot read the config file: {reason}", file=shown) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"holds more than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB: not a "
                          "config file", file=shown)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError("is not UTF-8 text", file=shown, line=line) from None
    cfg = parse_config(text, filename=shown, base_dir=path.absolute().parent)
    cfg._file = path
    cfg._origin = origin
    return cfg

"""Small validators shared by the configuration models, and how they report a problem.

A validator raises :func:`err`; ``at`` extends the error's location when a check made on a
parent model concerns one of its settings (the sentences in ``sentences.py`` read it back).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo
from pydantic_core import PydanticCustomError

Loc = tuple[Any, ...]

AT = "__mqconsole_at__"

_MQ_NAME_CHARS = re.compile(r"^[A-Za-z0-9._/%]+$")
_CONNAME_ENTRY = re.compile(r"^(?P<host>[^\s(),]+)(?:\((?P<port>[^()]*)\))?$")


class Model(BaseModel):
    """Every configuration model: unknown settings are errors, assignments are validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def err(kind: str, message: str, at: Loc | None = None) -> PydanticCustomError:
    """A validation error; ``at`` extends its location (for checks made on a parent model)."""
    # pydantic only fills in {names} of the context, and the only name is AT.
    return PydanticCustomError(kind, message, None if at is None else {AT: at})


def strip_value_error(msg: str) -> str:
    """Pydantic's message without the ``Value error, `` it puts in front."""
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    return msg


def base_dir(info: ValidationInfo) -> Path:
    """The folder relative paths are taken from (the config file's), else the current one."""
    ctx = info.context or {}
    base = ctx.get("base_dir")
    return Path(base) if base is not None else Path.cwd()


def resolve_path(value: str | os.PathLike[str], base: Path) -> Path:
    p = Path(os.fspath(value)).expanduser()
    if not p.is_absolute():
        p = base / p
    return Path(os.path.normpath(p))


def path_setting(value: Path | None, info: ValidationInfo, default: Callable[[], Path]) -> Path:
    """A path setting: ``default()`` when left out, else resolved from the file's folder."""
    if value is None:
        return default()
    return resolve_path(value, base_dir(info))


def sized(value: str | None, kind: str, max_len: int) -> str | None:
    """``value`` unless it is blank or longer than ``max_len`` characters."""
    if value is not None and (not value.strip() or len(value) > max_len):
        raise err(kind, f"must be 1 to {max_len} characters")
    return value


def not_blank(value: str | None, message: str = "must not be empty") -> str | None:
    """``value`` unless it is empty or only spaces."""
    if value is not None and not value.strip():
        raise err("empty", message)
    return value


def check_mq_name(value: str | None, what: str, max_len: int, *, group: bool = False) -> None:
    if value is None:
        return
    body = value[1:] if group and value.startswith("*") else value
    if not body or len(value) > max_len or not _MQ_NAME_CHARS.match(body):
        raise err(
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

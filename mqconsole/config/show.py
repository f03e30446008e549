"""Showing the configuration: the effective settings as YAML, and every setting's path."""

from __future__ import annotations

from collections.abc import Iterator

import yaml
from pydantic import BaseModel

from .schema import Config
from .sentences import models_in


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
            for sub in models_in(field.annotation):
                yield from walk(sub, path)

    yield from walk(model, prefix)

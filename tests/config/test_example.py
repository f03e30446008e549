"""config.example.yaml documents every setting of the schema, each with a comment."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import yaml
from pydantic import BaseModel

from mqconsole.config import (
    Config,
    EmbeddedBackendConfig,
    MQBackendConfig,
    load_config,
)

from .conftest import EXAMPLE


def _models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in get_args(annotation):
        found.extend(_models(arg))
    return found


def schema_paths(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Every setting: nested models, list items and every member of a union, dotted."""
    out: set[str] = set()
    for name, field in model.model_fields.items():
        path = f"{prefix}.{name}" if prefix else name
        out.add(path)
        for sub in _models(field.annotation):
            out |= schema_paths(sub, path)
    return out


def example_keys() -> dict[str, list[int]]:
    """Dotted key paths written in the example (list items merged) → lines they appear on."""
    root = yaml.compose(EXAMPLE.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    found: dict[str, list[int]] = {}

    def walk(node: yaml.Node, prefix: str) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.tag == "tag:yaml.org,2002:merge":
                    continue
                path = f"{prefix}.{key.value}" if prefix else key.value
                found.setdefault(path, []).append(key.start_mark.line)
                walk(value, path)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item, prefix)

    walk(root, "")
    return found


def test_schema_walk_sees_nested_models_and_union_members() -> None:
    paths = schema_paths(Config)
    assert {"profiles.backend.path", "profiles.backend.channel", "tui.page_size"} <= paths
    assert "profiles.backend.password" not in paths


def test_every_setting_of_the_schema_is_in_the_example() -> None:
    written = example_keys()
    missing = sorted(schema_paths(Config) - set(written))
    assert not missing, f"config.example.yaml lacks these settings: {missing}"


def test_every_setting_in_the_example_has_a_comment() -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    written = example_keys()

    def commented(line_no: int) -> bool:
        if "#" in lines[line_no]:
            return True
        above = line_no - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        return above >= 0 and lines[above].lstrip().startswith(("#", "- #"))

    undocumented = sorted(
        path
        for path in schema_paths(Config)
        if not any(commented(n) for n in written.get(path, []))
    )
    assert not undocumented, f"settings without a comment in the example: {undocumented}"


def test_example_validates_and_has_the_promised_profiles(home: Path) -> None:
    cfg = load_config(str(EXAMPLE))
    assert cfg.origin == "--config"
    by_name = {p.name: p for p in cfg.profiles}
    dev, test, prod = by_name["dev"], by_name["test"], by_name["prod"]
    assert isinstance(dev.backend, EmbeddedBackendConfig)
    assert isinstance(test.backend, MQBackendConfig) and not test.read_only
    assert isinstance(prod.backend, MQBackendConfig)
    assert prod.read_only and prod.banner == "red" and prod.theme
    assert prod.environment == "production"
    assert cfg.profile(None).name == cfg.default_profile


def test_example_never_holds_a_password_key() -> None:
    assert not [k for k in example_keys() if k.rsplit(".", 1)[-1] == "password"]

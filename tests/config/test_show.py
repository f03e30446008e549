"""config show: the effective configuration as YAML, without passwords."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.config import (
    dump_config,
    load_config,
    parse_config,
)

from .conftest import EXAMPLE, MQ_PROFILE, write


def test_dump_config_round_trips_and_hides_passwords(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROD_PW", "topsecret")
    monkeypatch.setenv("MQCONSOLE_TEST_PASSWORD", "topsecret")
    for text in (MQ_PROFILE, EXAMPLE.read_text(encoding="utf-8")):
        cfg = load_config(str(write(tmp_path / "c.yaml", text)))
        shown = dump_config(cfg)
        assert "topsecret" not in shown
        assert "password_env:" in shown
        again = parse_config(shown)
        assert again.model_dump() == cfg.model_dump() | {"default_profile": again.default_profile}


def test_dump_config_of_defaults(home: Path) -> None:
    shown = dump_config(load_config(None))
    assert shown.startswith("# effective mqconsole configuration, from built-in defaults")
    assert str(home / "data" / "qm.sqlite") in shown
    assert "default_profile: default" in shown

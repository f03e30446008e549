"""Helpers for the configuration tests: a private MQCONSOLE_HOME, files written inline."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mqconsole.config import ConfigError, parse_config

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "config.example.yaml"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own MQCONSOLE_HOME and no MQCONSOLE_CONFIG."""
    home = tmp_path / "home"
    monkeypatch.setenv("MQCONSOLE_HOME", str(home))
    monkeypatch.delenv("MQCONSOLE_CONFIG", raising=False)
    return home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def fails(text: str, name: str = "config.yaml") -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_config(textwrap.dedent(text), filename=name)
    return info.value


MQ_PROFILE = """\
profiles:
  - name: dev
    backend:
      type: embedded
      path: dev.sqlite
  - name: prod
    backend:
      type: mq
      queue_manager: QM1
      connection_name: mq1(1414)
      channel: APP.SVRCONN
      user: op
      password_env: PROD_PW
"""

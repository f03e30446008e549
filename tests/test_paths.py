"""Where mqconsole keeps its files: platformdirs, or MQCONSOLE_HOME for everything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from mqconsole import paths


@pytest.fixture
def no_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(paths.HOME_ENV, raising=False)


def test_mqconsole_home_overrides_every_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path))
    assert paths.home_override() == tmp_path
    assert paths.user_config_dir() == tmp_path
    assert paths.user_data_dir() == tmp_path / "data"
    assert paths.user_state_dir() == tmp_path / "state"
    assert paths.default_config_file() == tmp_path / "config.yaml"
    assert paths.default_embedded_path() == tmp_path / "data" / "qm.sqlite"
    assert paths.default_backup_dir() == tmp_path / "state" / "backups"
    assert paths.default_journal_path() == tmp_path / "state" / "journal.jsonl"


def test_platformdirs_without_mqconsole_home(no_home: None) -> None:
    assert paths.home_override() is None
    assert paths.user_config_dir() == platformdirs.user_config_path("mqconsole", appauthor=False)
    assert paths.user_data_dir() == platformdirs.user_data_path("mqconsole", appauthor=False)
    assert paths.user_state_dir() == platformdirs.user_state_path("mqconsole", appauthor=False)
    assert paths.default_config_file().name == "config.yaml"
    assert paths.default_embedded_path().parent == paths.user_data_dir()


def test_empty_mqconsole_home_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.HOME_ENV, "  ")
    assert paths.home_override() is None
    assert paths.user_data_dir() == platformdirs.user_data_path("mqconsole", appauthor=False)


def test_mqconsole_home_expands_tilde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(paths.HOME_ENV, "~/mqc")
    assert paths.user_config_dir() == tmp_path / "mqc"


def test_relative_mqconsole_home_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(paths.HOME_ENV, "rel")
    assert paths.user_state_dir() == tmp_path / "rel" / "state"


def test_nothing_is_created_until_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))
    paths.default_journal_path()
    paths.default_embedded_path()
    assert not (tmp_path / "home").exists()
    made = paths.ensure_dir(paths.default_backup_dir())
    assert made.is_dir()
    assert paths.ensure_dir(made) == made  # idempotent


@pytest.mark.subprocess
def test_paths_imports_only_stdlib_and_platformdirs() -> None:
    code = (
        "import sys, mqconsole.paths as p; p.default_journal_path(); "
        "bad = [m for m in ('pydantic', 'yaml', 'textual', 'rich', 'click') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == ""

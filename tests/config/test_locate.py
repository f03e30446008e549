"""Finding the configuration file: --config, MQCONSOLE_CONFIG, the user folder, defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.config import (
    ConfigError,
    EmbeddedBackendConfig,
    config_path,
    default_config,
    load_config,
)

from .conftest import write


def test_discovery_order_flag_env_user_dir_defaults(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nothing anywhere: built-in defaults
    assert config_path(None) == (None, "none (built-in defaults)")

    user_file = write(home / "config.yaml", "theme: from-user-dir\n")
    assert config_path(None) == (user_file, "user config dir")
    assert load_config().theme == "from-user-dir"

    env_file = write(tmp_path / "env.yaml", "theme: from-env\n")
    monkeypatch.setenv("MQCONSOLE_CONFIG", str(env_file))
    assert config_path(None) == (env_file, "MQCONSOLE_CONFIG")
    assert load_config().theme == "from-env"

    flag_file = write(tmp_path / "flag.yaml", "theme: from-flag\n")
    assert config_path(str(flag_file)) == (flag_file, "--config")
    cfg = load_config(str(flag_file))
    assert cfg.theme == "from-flag"
    assert cfg.file == flag_file and cfg.origin == "--config"


def test_no_config_at_all_gives_one_embedded_default_profile(home: Path) -> None:
    cfg = load_config(None)
    assert cfg.file is None and cfg.origin == "none (built-in defaults)"
    profile = cfg.profile(None)
    assert profile.name == "default"
    assert isinstance(profile.backend, EmbeddedBackendConfig)
    assert profile.backend.path == str(home / "data" / "qm.sqlite")
    assert cfg.journal.path == home / "state" / "journal.jsonl"
    assert cfg.backup_dir == home / "state" / "backups"
    assert cfg.tui.refresh_seconds == 5 and cfg.tui.page_size == 200
    assert default_config().profile_names() == ["default"]


def test_file_without_profiles_keeps_the_default_profile(tmp_path: Path, home: Path) -> None:
    cfg = load_config(str(write(tmp_path / "c.yaml", "tui:\n  page_size: 50\n")))
    assert cfg.profile_names() == ["default"] and cfg.tui.page_size == 50


def test_missing_file_named_by_flag_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError) as info:
        load_config(str(missing))
    assert str(missing) in str(info.value) and "--config" in str(info.value)


def test_missing_file_named_by_env_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MQCONSOLE_CONFIG", str(tmp_path / "nope.yaml"))
    with pytest.raises(ConfigError, match="MQCONSOLE_CONFIG"):
        load_config()


def test_a_folder_or_binary_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="folder"):
        load_config(str(tmp_path))
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"theme: ok\ntheme2: \xff\xfe\n")
    with pytest.raises(ConfigError) as info:
        load_config(str(bad))
    assert info.value.line == 2 and "UTF-8" in str(info.value)

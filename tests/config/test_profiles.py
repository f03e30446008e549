"""Profiles: banners, environments, names, lookup and passwords."""

from __future__ import annotations

import pytest

from mqconsole.config import (
    ConfigError,
    parse_config,
)

from .conftest import MQ_PROFILE, fails


@pytest.mark.parametrize("banner", ["red", "DarkRed", "#FF0000", "bright_red"])
def test_banner_colours_accepted(banner: str) -> None:
    parse_config(MQ_PROFILE + f"    banner: '{banner}'\n")


@pytest.mark.parametrize("banner", ["reddish", "#ff00", "#gg0000", "rgb(1,2,3)"])
def test_banner_colours_refused(banner: str) -> None:
    err = fails(MQ_PROFILE + f"    banner: '{banner}'\n")
    assert (err.line, err.setting) == (14, "profiles.prod.banner")


def test_environment_must_be_known() -> None:
    err = fails(MQ_PROFILE + "    environment: prodution\n")
    assert err.setting == "profiles.prod.environment"


@pytest.mark.parametrize("name", ["", "my profile", "-x"])
def test_bad_profile_names(name: str) -> None:
    err = fails(f"profiles:\n  - name: '{name}'\n    backend: {{type: embedded}}\n")
    assert err.setting == "profiles[0].name"


def test_profile_lookup() -> None:
    cfg = parse_config(MQ_PROFILE)
    assert cfg.profile("prod").name == "prod"
    with pytest.raises(ConfigError) as info:
        cfg.profile("qa")
    assert "no profile named qa; known: dev, prod" in str(info.value)
    with pytest.raises(ConfigError, match="--profile"):
        cfg.profile(None)
    assert cfg.default_profile_name is None
    assert parse_config("default_profile: prod\n" + MQ_PROFILE).profile(None).name == "prod"


def test_single_profile_is_the_default() -> None:
    cfg = parse_config("profiles:\n  - name: only\n    backend: {type: embedded}\n")
    assert cfg.profile(None).name == "only"


def test_password_source_needs_a_user() -> None:
    err = fails(MQ_PROFILE.replace("      user: op\n", ""))
    assert err.setting == "profiles.prod.backend.password_env"

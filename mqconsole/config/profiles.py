"""A profile: a named way of reaching one queue manager, and how the console behaves there."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, ValidationError, field_validator

from .backends import Backend, EmbeddedBackendConfig
from .checks import Model, err, not_blank, strip_value_error
from .console import check_colour
from .errors import ConfigError
from .plugins import ProfilePluginsConfig

DEFAULT_PROFILE_NAME = "default"
ENVIRONMENTS = ("production", "staging", "acceptance", "test", "dev")

_PROFILE_NAME_BAD = re.compile(r"[\s\x00-\x1f\x7f]")


class Profile(Model):
    """A named way of reaching one queue manager, with how the console looks and behaves there."""

    name: str = Field(description="profile name, chosen with --profile")
    description: str | None = Field(default=None, description="one line shown in choosers")
    environment: Literal["production", "staging", "acceptance", "test", "dev"] | None = Field(
        default=None, description="what kind of system this is"
    )
    read_only: bool = Field(default=False, description="refuse every change")
    theme: str | None = Field(default=None, description="theme for this profile")
    banner: str | None = Field(default=None, description="banner colour: name or #rrggbb")
    backend: Backend
    plugins: ProfilePluginsConfig | None = Field(
        default=None, description="this profile's plugins: narrows the top-level section"
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value:
            raise err("empty", "must not be empty")
        if _PROFILE_NAME_BAD.search(value):
            raise err("profile_name", "must not contain spaces or control characters")
        if value.startswith("-"):
            raise err("profile_name", "must not start with -")
        if len(value) > 64:
            raise err("profile_name", "must be at most 64 characters")
        return value

    @field_validator("theme")
    @classmethod
    def _theme(cls, value: str | None) -> str | None:
        return not_blank(value, "must not be empty (leave it out for the default theme)")

    @field_validator("banner")
    @classmethod
    def _banner(cls, value: str | None) -> str | None:
        return check_colour(value)

    @property
    def kind(self) -> str:
        """``"embedded"`` or ``"mq"``."""
        return self.backend.type

    @property
    def is_production(self) -> bool:
        return self.environment == "production"


def default_profile() -> Profile:
    """The profile used without a config file: the embedded queue manager, ``default``."""
    return Profile(
        name=DEFAULT_PROFILE_NAME,
        description="the embedded queue manager in the user data folder",
        backend=EmbeddedBackendConfig(),
    )


def embedded_profile(path: str, *, name: str = "embedded", read_only: bool = False) -> Profile:
    """An ad-hoc profile for ``--embedded PATH`` (relative paths from the current folder)."""
    try:
        return Profile(name=name, read_only=read_only, backend=EmbeddedBackendConfig(path=path))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(strip_value_error(first["msg"]), setting="--embedded") from None

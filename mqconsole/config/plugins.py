"""``plugins:``: which site plugins load, from where, and each one's own settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationInfo, field_validator, model_validator

from .checks import Model, base_dir, err, resolve_path


class PluginsConfig(Model):
    """Which site plugins load."""

    enabled: list[str] = Field(default_factory=list, description="load only these")
    disabled: list[str] = Field(default_factory=list, description="never load these")
    paths: list[Path] = Field(default_factory=list, description="folders of plugin modules")

    @field_validator("paths")
    @classmethod
    def _paths(cls, value: list[Path], info: ValidationInfo) -> list[Path]:
        return [resolve_path(p, base_dir(info)) for p in value]

    @model_validator(mode="after")
    def _overlap(self) -> PluginsConfig:
        both = sorted(set(self.enabled) & set(self.disabled))
        if both:
            raise err(
                "plugin_both",
                f"{', '.join(both)} cannot be both enabled and disabled",
                at=("disabled",),
            )
        return self

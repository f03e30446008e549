"""The plugins section."""

from __future__ import annotations

from .conftest import fails


def test_plugins_both_enabled_and_disabled() -> None:
    err = fails("plugins:\n  enabled: [a]\n  disabled: [a]\n")
    assert err.setting == "plugins.disabled"

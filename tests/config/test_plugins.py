"""The plugins section: settings per plugin, a profile's own section, the effective value."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.config import load_config, parse_config
from mqconsole.plugins import PluginsSettings

from .conftest import EXAMPLE, fails

TOP = """\
plugins:
  enabled: []
  disabled: [old]
  paths: [site]
  settings:
    ticket: {folder: /tickets, payload_as: hex}
    age: {days: 7}
profiles:
  - name: prod
    backend: {type: embedded}
    plugins:
      enabled: [ticket, age]
      disabled: [extra]
      settings:
        ticket: {folder: /prod/tickets}
        fresh: {x: 1}
  - name: dev
    backend: {type: embedded}
"""


def test_plugins_both_enabled_and_disabled() -> None:
    err = fails("plugins:\n  enabled: [a]\n  disabled: [a]\n")
    assert err.setting == "plugins.disabled"


def test_settings_are_a_free_mapping_per_plugin(tmp_path: Path) -> None:
    cfg = parse_config(
        "plugins:\n  paths: [site]\n  settings:\n    ticket:\n      folder: t\n"
        "      nested: {a: [1, 2]}\n    empty:\n",
        base_dir=tmp_path,
    )
    assert cfg.plugins.settings == {"ticket": {"folder": "t", "nested": {"a": [1, 2]}},
                                    "empty": {}}
    assert cfg.plugins.paths == [tmp_path / "site"]


def test_top_level_alone() -> None:
    cfg = parse_config(TOP, base_dir="/etc/mq")
    assert cfg.effective_plugins() == PluginsSettings(
        paths=[Path("/etc/mq/site")], enabled=[], disabled=["old"],
        settings={"ticket": {"folder": "/tickets", "payload_as": "hex"}, "age": {"days": 7}},
    )
    # a profile without a plugins section runs the top-level one
    assert cfg.effective_plugins("dev") == cfg.effective_plugins(None)


def test_a_profile_narrows_the_top_level_section() -> None:
    cfg = parse_config(TOP, base_dir="/etc/mq")
    prod = cfg.effective_plugins("prod")
    assert prod.enabled == ["ticket", "age"]           # replaces
    assert prod.disabled == ["old", "extra"]           # adds up
    assert prod.paths == [Path("/etc/mq/site")]        # left out: the top-level list
    assert prod.settings == {                          # merged per plugin, profile wins
        "ticket": {"folder": "/prod/tickets", "payload_as": "hex"},
        "age": {"days": 7},
        "fresh": {"x": 1},
    }
    assert not prod.chooses("old") and not prod.chooses("extra") and prod.chooses("age")
    assert not prod.chooses("other")


def test_a_profile_may_replace_the_folders_with_none() -> None:
    cfg = parse_config(TOP.replace("      disabled: [extra]\n", "      paths: []\n"))
    assert cfg.effective_plugins("prod").paths == []


def test_the_effective_value_is_a_copy() -> None:
    cfg = parse_config(TOP)
    cfg.effective_plugins("prod").settings["ticket"]["folder"] = "changed"
    assert cfg.plugins.settings["ticket"]["folder"] == "/tickets"
    assert cfg.profile("prod").plugins.settings["ticket"]["folder"] == "/prod/tickets"


def test_an_unknown_profile_is_a_config_error() -> None:
    cfg = parse_config(TOP)
    with pytest.raises(Exception, match="no profile named qa; known: prod, dev"):
        cfg.effective_plugins("qa")


@pytest.mark.parametrize(
    ("text", "line", "setting", "problem"),
    [
        ("plugins:\n  settings: [a]\n", 2, "plugins.settings",
         "must be a mapping: plugin name -> its own settings"),
        ("plugins:\n  settings:\n    ticket: [1, 2]\n", 3, "plugins.settings.ticket",
         "the settings of plugin ticket must be a mapping (setting: value), not a list"),
        ("plugins:\n  settings:\n    ticket: 3\n", 3, "plugins.settings.ticket",
         "the settings of plugin ticket must be a mapping (setting: value), "
         "not a single value (3)"),
        ("plugins:\n  settings:\n    ticket:\n      url: x\n      auth:\n        password: s\n",
         6, "plugins.settings.ticket.auth.password",
         "passwords never go in the config file; let the plugin read it from an environment "
         "variable named here instead"),
        ("plugins:\n  enabled:\n    - ok\n    - 'a b'\n", 4, "plugins.enabled[1]",
         "a plugin name (its entry point's or file's name) must not be empty or hold spaces"),
        ("plugins:\n  setings: {}\n", 2, "plugins.setings",
         "unknown setting; did you mean settings?"),
        ("profiles:\n  - name: p\n    backend: {type: embedded}\n    plugins:\n"
         "      enable: [a]\n", 5, "profiles.p.plugins.enable",
         "unknown setting; did you mean enabled?"),
        ("plugins:\n  disabled: [a]\nprofiles:\n  - name: p\n    backend: {type: embedded}\n"
         "    plugins:\n      enabled: [a, b]\n", 7, "profiles.p.plugins.enabled",
         "plugin a is disabled for every profile by plugins.disabled at the top of the file, "
         "so a profile cannot enable it"),
        ("profiles:\n  - name: p\n    backend: {type: embedded}\n    plugins:\n"
         "      enabled: [a]\n      disabled: [a]\n", 6, "profiles.p.plugins.disabled",
         "a cannot be both enabled and disabled"),
        ("profiles:\n  - name: p\n    backend: {type: embedded}\n    plugins:\n"
         "      settings: {t: 5}\n", 5, "profiles.p.plugins.settings.t",
         "the settings of plugin t must be a mapping (setting: value), not a single value (5)"),
    ],
)
def test_bad_plugin_settings_name_file_line_and_setting(
    text: str, line: int, setting: str, problem: str
) -> None:
    err = fails(text)
    assert (err.line, err.setting, err.problem) == (line, setting, problem)
    assert str(err) == f"config.yaml line {line}: {setting}: {problem}"


def test_the_example_runs_fewer_plugins_in_production(home: Path) -> None:
    cfg = load_config(str(EXAMPLE))
    top, prod = cfg.effective_plugins(None), cfg.effective_plugins("prod")
    assert top.enabled == [] and prod.enabled == ["fixed_width", "no_old_messages"]
    assert prod.disabled == ["legacy_decoder", "ticket_file"] and prod.paths == []
    assert prod.settings["no_old_messages"] == {"days": 2, "operations": ["move", "resubmit"]}
    assert cfg.effective_plugins("dev") == top

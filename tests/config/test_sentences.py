"""Errors: one sentence naming the file, the line and the setting, never a traceback."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.config import (
    ConfigError,
    MQBackendConfig,
    load_config,
    parse_config,
)
from tests.support.examples import examples

from .conftest import MQ_PROFILE, fails, write


def test_bad_type_names_file_line_and_setting(tmp_path: Path) -> None:
    path = write(
        tmp_path / "config.yaml",
        """\
        profiles:
          - name: dev
            backend: {type: embedded}
        tui:
          page_size: lots
        """,
    )
    with pytest.raises(ConfigError) as info:
        load_config(str(path))
    err = info.value
    assert str(err).startswith(f"{path} line 5: tui.page_size: Input should be a valid integer")
    assert (err.line, err.setting) == (5, "tui.page_size")
    assert "\n" not in str(err)


def test_bad_type_in_a_profile_uses_the_profile_name() -> None:
    err = fails(MQ_PROFILE + "    read_only: maybe\n")
    assert str(err) == "config.yaml line 14: profiles.prod.read_only: must be true or false"


def test_unknown_key_with_its_line_and_a_suggestion() -> None:
    err = fails(MQ_PROFILE.replace("      channel:", "      chanel:"))
    assert err.line == 11
    assert err.setting == "profiles.prod.backend.chanel"
    assert "did you mean channel" in str(err)


def test_unknown_key_at_top_level() -> None:
    err = fails("theme: x\nbogus: 1\n")
    assert (err.line, err.setting) == (2, "bogus")
    assert "unknown setting" in err.problem


def test_setting_of_the_other_backend_type_is_named_as_such() -> None:
    err = fails(MQ_PROFILE.replace("      path: dev.sqlite", "      channel: X"))
    assert err.setting == "profiles.dev.backend.channel" and "type: mq" in str(err)


def test_duplicate_key_is_detected_with_both_lines() -> None:
    err = fails(MQ_PROFILE + "      channel: OTHER.SVRCONN\n")
    assert err.line == 14
    assert err.setting == "profiles.prod.backend.channel"
    assert "twice" in err.problem and "line 11" in err.problem


def test_duplicate_top_level_key() -> None:
    err = fails("theme: a\ntheme: b\n")
    assert (err.line, err.setting) == (2, "theme")


def test_bad_yaml_names_the_line() -> None:
    err = fails("profiles:\n  - name: a\n   backend: [\n")
    assert err.line == 3 and "not valid YAML" in str(err)
    assert str(err).startswith("config.yaml line 3: ")


def test_tab_indentation_names_the_line() -> None:
    err = fails("tui:\n\tpage_size: 3\n")
    assert err.line == 2


@pytest.mark.parametrize(
    "text",
    ["- a\n- b\n", "just text\n", "42\n"],
)
def test_a_file_that_is_not_a_mapping(text: str) -> None:
    assert "mapping" in str(fails(text))


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_an_empty_file_means_defaults(text: str) -> None:
    assert parse_config(text).profile_names() == ["default"]


def test_password_key_is_refused_and_never_echoed() -> None:
    err = fails(MQ_PROFILE + "      password: hunter2\n")
    assert err.line == 14 and err.setting == "profiles.prod.backend.password"
    assert "passwords never go in the config file" in str(err)
    assert "password_env" in str(err) and "password_prompt" in str(err)
    assert "hunter2" not in str(err)


def test_password_key_refused_at_profile_and_top_level() -> None:
    err = fails(MQ_PROFILE + "    password: hunter2\n")
    assert err.setting == "profiles.prod.password" and "never go in" in str(err)
    err = fails("password: hunter2\n")
    assert "never go in" in str(err) and "hunter2" not in str(err)


def test_password_key_refused_when_built_in_code() -> None:
    with pytest.raises(ValueError, match="never go in"):
        MQBackendConfig.model_validate({"type": "mq", "password": "x"})


def test_password_env_holding_a_password_is_refused() -> None:
    err = fails(MQ_PROFILE.replace("PROD_PW", "'s3cr3t!'"))
    assert err.setting == "profiles.prod.backend.password_env"
    assert "s3cr3t" not in str(err)


def test_duplicate_profile_names() -> None:
    err = fails(MQ_PROFILE.replace("name: prod", "name: dev"))
    assert err.line == 6 and err.setting == "profiles[1].name"
    assert "used twice" in str(err)


def test_default_profile_naming_nothing() -> None:
    err = fails("default_profile: prd\n" + MQ_PROFILE)
    assert (err.line, err.setting) == (1, "default_profile")
    assert "prd" in str(err) and "dev, prod" in str(err)


def test_missing_required_setting_points_at_its_parent() -> None:
    err = fails("profiles:\n  - description: no name\n    backend: {type: embedded}\n")
    assert (err.line, err.setting) == (2, "profiles[0].name")
    err = fails("profiles:\n  - name: a\n    backend:\n      path: x\n")
    assert (err.line, err.setting) == (3, "profiles.a.backend.type")
    err = fails("profiles:\n  - name: a\n    backend:\n      type: kafka\n")
    assert (err.line, err.setting) == (4, "profiles.a.backend.type")


def test_unsafe_yaml_tags_are_refused() -> None:
    err = fails("theme: !!python/object/apply:os.system ['echo hi']\n")
    assert "unsupported YAML tag" in str(err) and err.line == 1


def test_several_problems_give_one_error_listing_the_first() -> None:
    err = fails("tui:\n  page_size: x\n  refresh_seconds: y\nbogus: 1\n")
    assert err.line == 2 and len(err.problems) == 3
    assert str(err).endswith("(and 2 more problems)")
    assert [p.line for p in err.problems] == [2, 3, 4]


def test_a_bad_spark_setting_of_the_console_names_its_line() -> None:
    """tui.audit_conf (the audit screen's --conf): a name that is not spark.KEY, or a value
    that is not one value, is one sentence at the setting's own line."""
    err = fails("tui:\n  audit_conf:\n    spark.executor.memory: 4g\n    executor.cores: 2\n")
    assert (err.line, err.setting) == (4, "tui.audit_conf.executor.cores")
    assert str(err).endswith("'executor.cores' is not a Spark setting: name it spark.KEY "
                             "(as --conf spark.KEY=VALUE does)")
    err = fails("tui:\n  audit_conf:\n    spark.jars: [a.jar, b.jar]\n")
    assert (err.line, err.setting) == (3, "tui.audit_conf.spark.jars")
    assert "needs one value" in str(err)
    # what the audit commands' --conf refuses too (audit.session.NOT_CONF)
    err = fails("tui:\n  audit_conf:\n    spark.executor.memory: 4g\n    spark.master: yarn\n")
    assert (err.line, err.setting) == (4, "tui.audit_conf.spark.master")
    assert str(err).endswith("spark.master is not taken here: name the master with "
                             "tui.audit_master")
    err = fails("tui:\n  audit_conf:\n    spark.submit.deployMode: cluster\n")
    assert (err.line, err.setting) == (3, "tui.audit_conf.spark.submit.deployMode")
    assert "mqconsole's own process is the Spark driver" in str(err)


def test_control_characters_from_the_file_are_shown_escaped() -> None:
    err = fails('"\\e[31mred": 1\n')
    assert "\x1b" not in str(err) and "\\x1b[31mred" in str(err)


def test_a_value_yaml_turned_into_a_boolean_gets_a_hint() -> None:
    err = fails("keymap:\n  toggle: on\n")
    assert err.setting == "keymap.toggle" and "quotes" in str(err)


@examples(200)
@given(st.text(max_size=200))
def test_no_text_escapes_as_anything_but_config_error(text: str) -> None:
    try:
        parse_config(text)
    except ConfigError as exc:
        assert str(exc).isprintable()  # one line, no control characters


@examples(100)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(
                st.sampled_from(["profiles", "name", "backend", "type", "tui", "path", "x"]),
                children,
                max_size=3,
            )
        ),
        max_leaves=12,
    )
)
def test_no_structure_escapes_as_anything_but_config_error(data: Any) -> None:
    with contextlib.suppress(ConfigError):
        parse_config(yaml.safe_dump(data))

"""The configuration file: discovery, schema, errors with lines, example coverage, passwords."""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from mqconsole.config import (
    Config,
    ConfigError,
    EmbeddedBackendConfig,
    MQBackendConfig,
    Profile,
    config_path,
    default_config,
    dump_config,
    embedded_profile,
    load_config,
    parse_config,
)

REPO = Path(__file__).resolve().parents[1]
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


# --------------------------------------------------------------------------------------------
# The example documents every setting
# --------------------------------------------------------------------------------------------


def _models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in get_args(annotation):
        found.extend(_models(arg))
    return found


def schema_paths(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Every setting: nested models, list items and every member of a union, dotted."""
    out: set[str] = set()
    for name, field in model.model_fields.items():
        path = f"{prefix}.{name}" if prefix else name
        out.add(path)
        for sub in _models(field.annotation):
            out |= schema_paths(sub, path)
    return out


def example_keys() -> dict[str, list[int]]:
    """Dotted key paths written in the example (list items merged) → lines they appear on."""
    root = yaml.compose(EXAMPLE.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    found: dict[str, list[int]] = {}

    def walk(node: yaml.Node, prefix: str) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.tag == "tag:yaml.org,2002:merge":
                    continue
                path = f"{prefix}.{key.value}" if prefix else key.value
                found.setdefault(path, []).append(key.start_mark.line)
                walk(value, path)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item, prefix)

    walk(root, "")
    return found


def test_schema_walk_sees_nested_models_and_union_members() -> None:
    paths = schema_paths(Config)
    assert {"profiles.backend.path", "profiles.backend.channel", "tui.page_size"} <= paths
    assert "profiles.backend.password" not in paths


def test_every_setting_of_the_schema_is_in_the_example() -> None:
    written = example_keys()
    missing = sorted(schema_paths(Config) - set(written))
    assert not missing, f"config.example.yaml lacks these settings: {missing}"


def test_every_setting_in_the_example_has_a_comment() -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    written = example_keys()

    def commented(line_no: int) -> bool:
        if "#" in lines[line_no]:
            return True
        above = line_no - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        return above >= 0 and lines[above].lstrip().startswith(("#", "- #"))

    undocumented = sorted(
        path
        for path in schema_paths(Config)
        if not any(commented(n) for n in written.get(path, []))
    )
    assert not undocumented, f"settings without a comment in the example: {undocumented}"


def test_example_validates_and_has_the_promised_profiles(home: Path) -> None:
    cfg = load_config(str(EXAMPLE))
    assert cfg.origin == "--config"
    by_name = {p.name: p for p in cfg.profiles}
    dev, test, prod = by_name["dev"], by_name["test"], by_name["prod"]
    assert isinstance(dev.backend, EmbeddedBackendConfig)
    assert isinstance(test.backend, MQBackendConfig) and not test.read_only
    assert isinstance(prod.backend, MQBackendConfig)
    assert prod.read_only and prod.banner == "red" and prod.theme
    assert prod.environment == "production"
    assert cfg.profile(None).name == cfg.default_profile


def test_example_never_holds_a_password_key() -> None:
    assert not [k for k in example_keys() if k.rsplit(".", 1)[-1] == "password"]


# --------------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Errors: one sentence, with file, line and setting
# --------------------------------------------------------------------------------------------


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


def test_control_characters_from_the_file_are_shown_escaped() -> None:
    err = fails('"\\e[31mred": 1\n')
    assert "\x1b" not in str(err) and "\\x1b[31mred" in str(err)


def test_a_value_yaml_turned_into_a_boolean_gets_a_hint() -> None:
    err = fails("keymap:\n  toggle: on\n")
    assert err.setting == "keymap.toggle" and "quotes" in str(err)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_no_text_escapes_as_anything_but_config_error(text: str) -> None:
    try:
        parse_config(text)
    except ConfigError as exc:
        assert str(exc).isprintable()  # one line, no control characters


@settings(max_examples=100, deadline=None)
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


# --------------------------------------------------------------------------------------------
# Backends and profile settings
# --------------------------------------------------------------------------------------------


def test_relative_embedded_path_is_taken_from_the_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = write(tmp_path / "conf" / "config.yaml", MQ_PROFILE)
    monkeypatch.chdir(tmp_path)
    cfg = load_config(str(Path("conf") / "config.yaml"))
    assert cfg.profile("dev").backend.path == str(conf.parent / "dev.sqlite")


def test_embedded_path_tilde_and_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    cfg = parse_config(
        """\
profiles:
  - name: a
    backend: {type: embedded, path: ~/qm/a.sqlite}
  - name: b
    backend: {type: embedded, path: ":memory:"}
  - name: c
    backend: {type: embedded}
"""
    )
    assert cfg.profile("a").backend.path == str(tmp_path / "qm" / "a.sqlite")
    assert cfg.profile("b").backend.path == ":memory:"
    assert cfg.profile("b").backend.in_memory
    assert cfg.profile("c").backend.path.endswith("qm.sqlite")


def test_embedded_profile_for_the_embedded_flag(tmp_path: Path) -> None:
    profile = embedded_profile(str(tmp_path / "x.sqlite"))
    assert profile.kind == "embedded" and profile.backend.path == str(tmp_path / "x.sqlite")


def test_mq_backend_fields() -> None:
    cfg = parse_config(
        """\
profiles:
  - name: t
    backend:
      type: mq
      queue_manager: QMT
      connection_name: " a(1414) , b(1415)"
      channel: SYSTEM.DEF.SVRCONN
      cipher_spec: ANY_TLS12_OR_HIGHER
      key_repository: /var/mqm/key
      certificate_label: lbl
      user: op
      password_env: QMT_PW
      password_prompt: true
""",
    )
    backend = cfg.profile("t").backend
    assert isinstance(backend, MQBackendConfig)
    assert backend.connection_name == "a(1414),b(1415)"
    assert backend.bindings is False


def test_cipher_spec_longer_than_32_is_refused() -> None:
    err = fails(MQ_PROFILE + "      cipher_spec: " + "X" * 33 + "\n")
    assert err.setting == "profiles.prod.backend.cipher_spec" and "2393" in str(err)
    parse_config(MQ_PROFILE + "      cipher_spec: " + "X" * 32 + "\n")


@pytest.mark.parametrize(
    "conname", ["host(1414)", "host", "10.0.0.1(1414),10.0.0.2(1415)", "fe80::1(1414)"]
)
def test_connection_name_forms_accepted(conname: str) -> None:
    parse_config(MQ_PROFILE.replace("mq1(1414)", f"'{conname}'"))


@pytest.mark.parametrize(
    "conname", ["host:1414", "host(abc)", "host(0)", "host(70000)", "a(1),,b(2)", "a b(1)"]
)
def test_connection_name_forms_refused(conname: str) -> None:
    err = fails(MQ_PROFILE.replace("mq1(1414)", f"'{conname}'"))
    assert err.setting == "profiles.prod.backend.connection_name" and err.line == 10


def test_mq_names_are_checked() -> None:
    err = fails(MQ_PROFILE.replace("APP.SVRCONN", "A.CHANNEL.NAME.TOO.LONG"))
    assert err.setting == "profiles.prod.backend.channel"
    err = fails(MQ_PROFILE.replace("QM1", "'QM 1'"))
    assert err.setting == "profiles.prod.backend.queue_manager"


def test_bindings_conflicts_and_channel_needed() -> None:
    err = fails(MQ_PROFILE + "      bindings: true\n")
    assert err.setting == "profiles.prod.backend.bindings"
    err = fails(MQ_PROFILE.replace("      channel: APP.SVRCONN\n", ""))
    assert err.setting == "profiles.prod.backend.connection_name" and "channel" in err.problem
    err = fails(MQ_PROFILE + "      ccdt_url: https://x/ccdt.json\n")
    assert err.setting == "profiles.prod.backend.ccdt_url"


def test_ccdt_path_becomes_a_file_url(tmp_path: Path) -> None:
    cfg = parse_config(
        "profiles:\n  - name: p\n    backend: {type: mq, ccdt_url: ccdt.json}\n",
        base_dir=tmp_path,
    )
    assert cfg.profile("p").backend.ccdt_url == (tmp_path / "ccdt.json").as_uri()
    err = fails("profiles:\n  - name: p\n    backend: {type: mq, ccdt_url: 'gopher://x'}\n")
    assert err.setting == "profiles.p.backend.ccdt_url"


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


def test_yaml_anchors_and_merge_keys(tmp_path: Path) -> None:
    cfg = parse_config(
        """\
x-tls: &tls
  cipher_spec: ANY_TLS12
  channel: TLS.SVRCONN
profiles:
  - name: a
    backend:
      <<: *tls
      type: mq
      connection_name: h(1)
      channel: MINE.SVRCONN
""",
    )
    backend = cfg.profile("a").backend
    assert backend.cipher_spec == "ANY_TLS12" and backend.channel == "MINE.SVRCONN"


def test_plugins_both_enabled_and_disabled() -> None:
    err = fails("plugins:\n  enabled: [a]\n  disabled: [a]\n")
    assert err.setting == "plugins.disabled"


# --------------------------------------------------------------------------------------------
# Profiles and passwords
# --------------------------------------------------------------------------------------------


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


def test_password_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    profile = parse_config(MQ_PROFILE).profile("prod")
    monkeypatch.setenv("PROD_PW", "s3cret")
    assert profile.resolve_password() == "s3cret"
    assert "s3cret" not in repr(profile) and "s3cret" not in profile.model_dump_json()


def test_password_env_unset_without_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROD_PW", raising=False)
    profile = parse_config(MQ_PROFILE).profile("prod")
    with pytest.raises(ConfigError, match="PROD_PW"):
        profile.resolve_password()


def test_password_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROD_PW", raising=False)
    profile = parse_config(MQ_PROFILE + "      password_prompt: true\n").profile("prod")
    asked: list[str] = []

    def prompt(text: str) -> str:
        asked.append(text)
        return "typed"

    assert profile.resolve_password(prompt) == "typed"
    assert "op" in asked[0] and "prod" in asked[0]
    monkeypatch.setenv("PROD_PW", "from-env")
    assert profile.resolve_password(prompt) == "from-env"  # the variable wins
    assert len(asked) == 1


def test_no_password_for_embedded_or_userless_profiles() -> None:
    cfg = parse_config(MQ_PROFILE)
    assert cfg.profile("dev").resolve_password() is None
    local = Profile(name="l", backend=MQBackendConfig(queue_manager="QM", bindings=True))
    assert local.resolve_password() is None


def test_password_source_needs_a_user() -> None:
    err = fails(MQ_PROFILE.replace("      user: op\n", ""))
    assert err.setting == "profiles.prod.backend.password_env"


# --------------------------------------------------------------------------------------------
# config show
# --------------------------------------------------------------------------------------------


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

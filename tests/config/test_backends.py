"""The backend of a profile: embedded paths, MQ client settings and their checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.config import (
    MQBackendConfig,
    embedded_profile,
    load_config,
    parse_config,
)

from .conftest import MQ_PROFILE, fails, write


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


@pytest.mark.parametrize(("key", "value", "words"), [
    ("dynamic_queue_prefix", "MQCONSOLE", "must end with one *"),
    ("dynamic_queue_prefix", "A*B*", "must end with one *"),
    ("dynamic_queue_prefix", "X" * 34 + "*", "at most 33 characters"),
    ("command_queue", "SYSTEM COMMAND", "not a valid queue name (command_queue)"),
    ("model_queue", "M" * 49, "not a valid queue name (model_queue)"),
    ("command_scope", "QM 1", "command scope"),
])
def test_the_command_server_settings_are_checked(key: str, value: str, words: str) -> None:
    """issue 22 item 4: command_queue, model_queue, dynamic_queue_prefix and command_scope,
    each refused in one sentence naming the setting (MQOD DynamicQName: at most 33
    characters before the *)."""
    err = fails(f"profiles:\n  - name: p\n    backend: {{type: mq, {key}: '{value}'}}\n")
    assert err.setting == f"profiles.p.backend.{key}"
    assert words in str(err)


@pytest.mark.parametrize(("extra", "setting", "words"), [
    ("ccdt_url: /etc/ccdt.json, cipher_spec: ANY_TLS12", "cipher_spec",
     "a client channel definition table decides the channel's TLS"),
    ("ccdt_url: /etc/ccdt.json, ssl_peer_name: 'CN=QM1'", "ssl_peer_name",
     "a client channel definition table decides the channel's TLS"),
    ("cipher_spec: ANY_TLS12", "cipher_spec", "goes with connection_name and channel"),
    ("bindings: true, cipher_spec: ANY_TLS12", "bindings", "takes no cipher_spec"),
    ("connection_name: 'h(1)', channel: C, ssl_peer_name: 'CN=QM1'", "ssl_peer_name",
     "set cipher_spec too"),
    ("connection_name: 'h(1)', channel: C, cipher_spec: ANY_TLS12, ssl_peer_name: QM1",
     "ssl_peer_name", "distinguished name"),
])
def test_tls_settings_that_would_be_ignored_are_refused(extra: str, setting: str,
                                                        words: str) -> None:
    """issue 22 item 10: cipher_spec with ccdt_url was silently ignored (the CCDT decides);
    so were cipher_spec without a channel (MQSERVER) and in bindings mode."""
    err = fails(f"profiles:\n  - name: p\n    backend: {{type: mq, {extra}}}\n")
    assert err.setting == f"profiles.p.backend.{setting}", err.setting
    assert words in str(err)

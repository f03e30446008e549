"""A profile becomes the plain BackendSpec the core opens (the core never reads the config),
and the CLI asks a password_prompt profile's password on the terminal when it connects."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.backends.spec import BackendSpec
from mqconsole.cli.backendspec import spec_of
from mqconsole.config import MQBackendConfig, Profile


def _profile(**backend: object) -> Profile:
    return Profile.model_validate({"name": "prod", "backend": {"type": "mq", **backend}})


def test_every_mq_setting_reaches_the_spec_and_no_password_is_in_it() -> None:
    """A schema field the spec ignored would silently do nothing."""
    client = dict(queue_manager="QM1", connection_name="mq1(1414)", channel="APP.SVRCONN",
                  cipher_spec="TLS_AES_128_GCM_SHA256", key_repository="/k/key",
                  ssl_peer_name="CN=QM1,O=Example",
                  certificate_label="ibmwebspheremqop", key_repository_password_env="KEYPW",
                  user="op", password_env="PW", library="pymqi", queues="APP.*",
                  password_prompt=True, command_queue="SYSTEM.COMMAND.INPUT",
                  model_queue="APP.REPLY.MODEL", dynamic_queue_prefix="APP.MQCONSOLE.*",
                  command_scope="*")
    ccdt = dict(queue_manager="*QM", ccdt_url="file:///c/ccdt.json")
    local = dict(queue_manager="QM1", bindings=True, library="ibmmq")
    fields = set(MQBackendConfig.model_fields) - {"type"}
    carried: set[str] = set()
    for backend in (client, ccdt, local):
        profile = _profile(**backend)
        cfg = profile.backend
        spec = spec_of(profile)
        assert (spec.kind, spec.profile) == ("mq", "prod") and spec.mq is not None
        assert spec.mq.password is None and spec.mq.key_repository_password is None
        for name in fields:
            got = spec.password_prompt if name == "password_prompt" else getattr(spec.mq, name)
            assert got == getattr(cfg, name), name
            if getattr(cfg, name) != MQBackendConfig.model_fields[name].default:
                carried.add(name)
    assert carried == fields  # each field set in one of them


def test_an_embedded_profile_is_its_file_and_principal(tmp_path: Path) -> None:
    profile = Profile.model_validate({"name": "dev", "backend": {
        "type": "embedded", "path": str(tmp_path / "qm"), "principal": "viewer"}})
    assert spec_of(profile) == BackendSpec.embedded(str(tmp_path / "qm"), principal="viewer",
                                                    profile="dev")


def test_the_cli_asks_the_password_on_the_terminal_when_it_connects(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mqconsole.backends import open as opener
    from mqconsole.cli.session import Session

    config = tmp_path / "config.yaml"
    config.write_text("profiles:\n  - name: prod\n    backend:\n      type: mq\n"
                      "      queue_manager: QM1\n      user: op\n      password_prompt: true\n")
    asked: list[str] = []
    monkeypatch.setattr("getpass.getpass", lambda prompt: asked.append(prompt) or "typed")
    opened: list[tuple[BackendSpec, str | None]] = []

    def open_backend(spec, *, ask_password=None):
        opened.append((spec, ask_password(spec.password_prompt_text())))
        return object()

    monkeypatch.setattr(opener, "open_backend", open_backend)
    Session(config_file=str(config), profile_name="prod").connect()
    [(spec, answer)] = opened
    assert spec.password_prompt and spec.mq is not None and spec.mq.password is None
    assert (asked, answer) == (["MQ password for op (profile prod): "], "typed")

from __future__ import annotations

import yaml

from .conftest import run_cli


def test_config_path_sources(tmp_path):
    r = run_cli("config", "path", "--json", home=tmp_path)
    assert r.code == 0 and r.json["path"] is None
    cfg = tmp_path / "c.yaml"
    cfg.write_text("profiles:\n  - name: a\n    backend:\n      type: embedded\n"
                   "      path: x.sqlite\n")
    r = run_cli("config", "path", "--json", home=tmp_path, env={"MQCONSOLE_CONFIG": str(cfg)})
    assert r.json["path"] == str(cfg) and r.json["source"] == "MQCONSOLE_CONFIG"
    r = run_cli("--config", str(cfg), "config", "path", "--json", home=tmp_path)
    assert r.json["source"] == "--config"


def test_config_validate_and_show(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("profiles:\n  - name: test\n    backend:\n      type: mq\n"
                   "      queue_manager: QM1\n      connection_name: host(1414)\n"
                   "      channel: DEV.APP.SVRCONN\n      user: app\n      password_env: MQPW\n")
    r = run_cli("--config", str(cfg), "config", "validate", "--json", home=tmp_path,
                env={"MQPW": "s3cret"})
    assert r.code == 0 and r.json["valid"] and r.json["profiles"] == ["test"]
    r = run_cli("--config", str(cfg), "config", "show", home=tmp_path, env={"MQPW": "s3cret"})
    assert r.code == 0 and "s3cret" not in r.out
    assert yaml.safe_load(r.out)["profiles"][0]["backend"]["password_env"] == "MQPW"


def test_config_validate_reports_line(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("profiles:\n  - name: test\n    backend:\n      type: embedded\n"
                   "      path: x\n      colour: blue\n")
    r = run_cli("--config", str(cfg), "config", "validate", home=tmp_path)
    assert r.code == 2 and "line 6" in r.err and "colour" in r.err


def test_example_config_validates(tmp_path):
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "config.example.yaml"
    r = run_cli("--config", str(example), "config", "validate", home=tmp_path)
    assert r.code == 0, r.err

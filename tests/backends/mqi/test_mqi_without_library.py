"""Without IBM's MQ client library: mqconsole still starts, embedded profiles work, and an
``mq`` profile fails with one sentence saying what is missing (exit code 3).

These run real ``mqconsole`` processes. On this machine ``libmqm_r.so`` is absent, so they
run as they are; where MQ is installed, a blocker on PYTHONPATH makes both libraries fail
to import the way they do without it, so the test means the same everywhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mqconsole.backends.mqi import shim

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")


@pytest.fixture
def no_mq_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MQCONSOLE_") and k not in ("PYTHONPATH", "MQSERVER")}
    env["MQCONSOLE_HOME"] = str(tmp_path / "home")
    if shim.probe_client_library() is None:  # MQ is installed here: hide it
        block = tmp_path / "block"
        (block / "ibmmq").mkdir(parents=True)
        (block / "ibmmq" / "__init__.py").write_text(textwrap.dedent("""\
            try:
                raise ImportError("libmqm_r.so: cannot open shared object file: "
                                  "No such file or directory")
            except ImportError:
                raise ModuleNotFoundError("No module named 'ibmmqc'")
            """))
        (block / "pymqi").mkdir()
        (block / "pymqi" / "__init__.py").write_text(
            "raise ModuleNotFoundError(\"No module named 'pymqe'\")\n")
        env["PYTHONPATH"] = str(block)
    return env


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MQCONSOLE, *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_importing_mqconsole_imports_no_mq_library(no_mq_env) -> None:
    code = ("import sys, mqconsole.backends.open, mqconsole.backends.mqi, mqconsole.cli.main;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ibmmq', 'pymqi')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=no_mq_env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_help_and_an_embedded_profile_work(no_mq_env, tmp_path: Path) -> None:
    r = run(no_mq_env, "--help")
    assert r.returncode == 0 and "Usage" in r.stdout
    qm = tmp_path / "qm.sqlite"
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"profiles:\n  - name: local\n    backend:\n      type: embedded\n"
                   f"      path: {qm}\n")
    r = run(no_mq_env, "--embedded", str(qm), "init")
    assert r.returncode == 0, r.stderr
    r = run(no_mq_env, "--config", str(cfg), "--profile", "local", "queues")
    assert r.returncode == 0, r.stderr
    assert "SYSTEM.DEAD.LETTER.QUEUE" in r.stdout


def test_an_mq_profile_says_what_is_missing(no_mq_env, tmp_path: Path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text("profiles:\n  - name: prod\n    backend:\n      type: mq\n"
                   "      queue_manager: QM1\n      connection_name: mqhost(1414)\n"
                   "      channel: DEV.APP.SVRCONN\n      user: app\n"
                   "      password_env: MQT_PASSWORD\n")
    env = dict(no_mq_env, MQT_PASSWORD="do-not-show-me")
    r = run(env, "--config", str(cfg), "--profile", "prod", "queues")
    assert r.returncode == 3, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr  # one sentence, no traceback
    text = lines[0]
    assert "libmqm_r.so: cannot open shared object file" in text  # the loader's own words
    assert "redistributable client" in text
    assert "LD_LIBRARY_PATH" in text and "MQ_FILE_PATH" in text
    assert "do-not-show-me" not in r.stderr + r.stdout


def test_the_sentence_digs_out_the_loader_error() -> None:
    try:
        try:
            raise ImportError("libmqm_r.so: cannot open shared object file: No such file")
        except ImportError:
            raise ModuleNotFoundError("No module named 'ibmmqc'") from None
    except ImportError as hidden:
        # ``from None`` hides __cause__ but __context__ keeps the loader's error
        assert shim.root_cause(hidden).startswith("libmqm_r.so")
    with pytest.raises(shim.MQLibraryMissing) as info:
        raise shim.MQLibraryMissing("one sentence", {})
    assert str(info.value) == "one sentence" and info.value.reason == 2059


def test_load_refuses_an_unknown_library() -> None:
    with pytest.raises(ValueError):
        shim.load("pymqi2")

"""Real invocations of the ``mqconsole`` executable of this venv."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self):
        return json.loads(self.out)


def run_cli(*args: str, home: Path, input: str | None = None, env: dict | None = None) -> Result:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    full_env["MQCONSOLE_HOME"] = str(home)
    full_env.update(env or {})
    p = subprocess.run([MQCONSOLE, *args], capture_output=True, text=True, input=input,
                       env=full_env, timeout=120)
    return Result(p.returncode, p.stdout, p.stderr)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("demo")
    path = d / "demo.sqlite"
    r = run_cli("--embedded", str(path), "init", "--demo", home=d)
    assert r.code == 0, r.err
    return path


@pytest.fixture
def demo(tmp_path, demo_template) -> Path:
    """A private copy of the demo queue manager (tests may change it)."""
    target = tmp_path / "qm.sqlite"
    shutil.copy(demo_template, target)
    for suffix in ("-wal", "-shm"):
        extra = Path(str(demo_template) + suffix)
        if extra.exists():
            shutil.copy(extra, str(target) + suffix)
    return target


@pytest.fixture
def cli(tmp_path, demo):
    """``cli('queues', '--json')`` runs mqconsole on the private demo queue manager."""

    def call(*args: str, **kw) -> Result:
        return run_cli("--embedded", str(demo), *args, home=tmp_path / "home", **kw)

    return call

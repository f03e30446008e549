"""Putting the stand-in in place of the MQ libraries' C extensions, in this process and in
child processes.

* ibmmq: ``sys.modules["ibmmq.ibmmqc"]`` is the stand-in before ``import ibmmq``; the rest of
  ibmmq (from PyPI, installed in the venv) is its real Python code.
* pymqi: PyPI has only its sdist, which does not compile here (``cmqc.h`` missing), but its
  Python code is pure: ``pymqi/__init__.py`` is loaded from an unpacked sdist with
  ``sys.modules["pymqi.pymqe"]`` as the stand-in. The sdist is found through
  ``MQCONSOLE_PYMQI_SRC`` (a folder holding ``pymqi/__init__.py``) or the cache
  ``~/.cache/mqconsole-tests/pymqi``; ``python tests/backends/mqi/standin.py --fetch-pymqi``
  fills the cache with ``pip download pymqi --no-deps --no-binary :all:``.
* children: both libraries fall back to a top-level ``import ibmmqc`` / ``import pymqe``;
  ``child_env`` puts ``standin_path/`` (which has those two modules) on PYTHONPATH and
  describes the registered queue managers in ``MQCONSOLE_STANDIN_QMGRS``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
STANDIN_PATH = HERE / "standin_path"
ROOT = HERE.parents[2]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import fake_ibmmqc  # noqa: E402
from fake_ibmmqc import ENGINE, IBMMQC, PYMQE, QMgrDef  # noqa: E402

ENV_QMGRS = "MQCONSOLE_STANDIN_QMGRS"
#: JSON list of ``ENGINE.fail_next`` keyword arguments, applied in a child at start
ENV_FAULTS = "MQCONSOLE_STANDIN_FAULTS"
PYMQI_VERSION = "1.12.13"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mqconsole-tests"


def install_ibmmq() -> ModuleType:
    """The real ibmmq package running on the stand-in."""
    current = sys.modules.get("ibmmq.ibmmqc")
    if current is None:
        sys.modules["ibmmq.ibmmqc"] = IBMMQC
    mod = importlib.import_module("ibmmq")
    assert mod.ibmmqc is IBMMQC, "ibmmq was imported before the stand-in was put in place"
    return mod


def pymqi_source() -> Path | None:
    """The folder holding ``pymqi/__init__.py`` from pymqi's sdist, if there is one."""
    candidates = []
    if os.environ.get("MQCONSOLE_PYMQI_SRC"):
        candidates.append(Path(os.environ["MQCONSOLE_PYMQI_SRC"]))
    candidates += sorted((CACHE / "pymqi").glob("pymqi-*/code"), reverse=True)
    for c in candidates:
        if (c / "pymqi" / "__init__.py").is_file():
            return c
    return None


def fetch_pymqi() -> Path:
    """pip download pymqi's sdist (no build) and unpack it into the cache."""
    target = CACHE / "pymqi"
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", f"pymqi=={PYMQI_VERSION}",
                        "--no-deps", "--no-binary", ":all:", "-d", tmp], check=True)
        archive = next(Path(tmp).glob("pymqi-*.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter="data")
    src = pymqi_source()
    assert src is not None
    return src


def install_pymqi() -> ModuleType | None:
    """pymqi's real Python code on the stand-in; None when its source is not at hand."""
    if "pymqi" in sys.modules:
        return sys.modules["pymqi"]
    src = pymqi_source()
    if src is None:
        return None
    sys.modules["pymqi.pymqe"] = PYMQE
    spec = importlib.util.spec_from_file_location(
        "pymqi", src / "pymqi" / "__init__.py", submodule_search_locations=[str(src / "pymqi")])
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["pymqi"] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules["pymqi"]
        raise
    return mod


def grant_pcf(admin: Any, principal: str, qmgr: set[str] | frozenset[str] = frozenset()
              ) -> None:
    """What every PCF command needs besides its object's authority (docs/real-mq.md): +connect
    and +dsp on the queue manager object, +put on the command queue, +dsp +get on the model
    queue of the reply queue; ``qmgr`` adds more on the queue manager."""
    admin.set_authority(principal, "", {"connect", "dsp", *qmgr}, object_type="qmgr")
    admin.set_authority(principal, "SYSTEM.ADMIN.COMMAND.QUEUE", {"put"})
    admin.set_authority(principal, "SYSTEM.DEFAULT.MODEL.QUEUE", {"dsp", "get"})


def qmgr_spec(qdef: QMgrDef, path: str) -> dict[str, Any]:
    return {"name": qdef.name, "path": path, "admin": qdef.admin, "password": qdef.password,
            "encoding": qdef.encoding, "default_user": qdef.default_user,
            "check_connect": qdef.check_connect, "command_server": qdef.command_server}


def child_env(specs: list[dict[str, Any]], base: dict[str, str] | None = None, *,
              faults: list[dict[str, Any]] | None = None) -> dict[str, str]:
    """Environment for a child process whose ibmmq/pymqi should find the stand-in;
    ``faults`` (``ENGINE.fail_next`` keyword arguments) are injected in the child."""
    env = dict(os.environ if base is None else base)
    parts = [str(STANDIN_PATH), str(HERE), str(ROOT)]
    src = pymqi_source()
    if src is not None:
        parts.append(str(src))
    if env.get("PYTHONPATH"):
        parts.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env[ENV_QMGRS] = json.dumps(specs)
    if faults:
        env[ENV_FAULTS] = json.dumps(faults)
    return env


#: QMgrDef fields a spec may also give (a z/OS-flavoured queue manager: platform 1 and
#: command_queue SYSTEM.COMMAND.INPUT, encoding 785, an EBCDIC ccsid)
_OPTIONAL = ("platform", "command_queue", "ccsid")


def configure_from_env() -> None:
    """In a child: register the queue managers the parent described."""
    for spec in json.loads(os.environ.get(ENV_QMGRS, "[]")):
        if spec["name"] in ENGINE.qmgrs:
            continue
        ENGINE.register(QMgrDef.for_file(
            spec["name"], spec["path"], spec["admin"], password=spec.get("password"),
            encoding=spec.get("encoding", 546), default_user=spec.get("default_user", "mqm"),
            check_connect=spec.get("check_connect", False),
            command_server=spec.get("command_server", True),
            **{k: spec[k] for k in _OPTIONAL if k in spec}))
    for fault in json.loads(os.environ.pop(ENV_FAULTS, "[]")):
        ENGINE.fail_next(**fault)


def run_cli(args: list[str], env: dict[str, str], *, timeout: float = 300
            ) -> subprocess.CompletedProcess[str]:
    """``mqconsole ARGS`` over the stand-in with ``env`` (made by :func:`child_env`): in this
    process, as tests/cli's ``run_cli`` runs the CLI (its stdin empty), on this process's
    stand-in — the queue managers ``env`` describes registered here for the call when they
    are not already, its faults injected here — or, with ``MQCONSOLE_TEST_CLI=subprocess``,
    as the executable, whose own stand-in reads ``env`` (a process start costs ten times
    the call; this folder's CLI tests made a hundred)."""
    from tests.cli.conftest import IN_PROCESS, _in_process

    exe = str(Path(sys.executable).parent / "mqconsole")
    if not IN_PROCESS:
        return subprocess.run([exe, *args], capture_output=True, text=True, env=env,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    install_ibmmq()
    specs = json.loads(env.get(ENV_QMGRS, "[]"))
    added = [spec["name"] for spec in specs if spec["name"] not in ENGINE.qmgrs]
    faults = list(ENGINE.faults)
    child = {k: v for k, v in env.items() if k not in (ENV_QMGRS, ENV_FAULTS)}
    saved = {k: os.environ.get(k) for k in (ENV_QMGRS, ENV_FAULTS)}
    try:
        os.environ[ENV_QMGRS] = env.get(ENV_QMGRS, "[]")
        os.environ[ENV_FAULTS] = env.get(ENV_FAULTS, "[]")
        configure_from_env()  # (what the child's stand-in would do at its start)
        result = _in_process(list(args), child, None)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        ENGINE.faults[:] = faults  # a fault the call did not meet dies with it, as a child's
        for name in added:
            ENGINE.unregister(name)
    return subprocess.CompletedProcess([exe, *args], result.code, result.out, result.err)


__all__ = ["ENGINE", "IBMMQC", "PYMQE", "QMgrDef", "child_env", "configure_from_env",
           "fake_ibmmqc", "grant_pcf", "install_ibmmq", "install_pymqi", "pymqi_source",
           "run_cli"]

if __name__ == "__main__":
    if "--fetch-pymqi" in sys.argv:
        print(fetch_pymqi())
    else:
        print(pymqi_source())

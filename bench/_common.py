"""Shared helpers for the benchmark scripts (each script prints one JSON document)."""

from __future__ import annotations

import cProfile
import io
import json
import os
import platform
import pstats
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "sqlite": __import__("sqlite3").sqlite_version, "system": platform.platform(),
            "date": datetime.now(UTC).strftime("%Y-%m-%d")}


def emit(name: str, figures: dict) -> None:
    print(json.dumps({"bench": name, "machine": machine(), **figures}, indent=2))


class Timer:
    def __enter__(self) -> Timer:
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0


def mqconsole_exe() -> str:
    return str(Path(sys.executable).parent / "mqconsole")


def run(args: list[str], env: dict | None = None, *,
        bytecode: bool = True) -> subprocess.CompletedProcess:
    """Run a timed process as an installed mqconsole runs: with Python's bytecode cache
    (``pip install`` compiles it; this workspace sets ``PYTHONDONTWRITEBYTECODE``, which
    would make every timed start compile mqconsole's modules from source). See
    ``warm_bytecode``. ``bytecode=False``: as this workspace runs it (after
    ``drop_bytecode``: mqconsole compiled at every start, its dependencies cached)."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(args, capture_output=True, text=True, env=env, check=False)


def warm_bytecode() -> None:
    """Compile the package's bytecode once, as ``pip install`` does, before timing
    processes (``run``)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "mqconsole")],
                   check=True, capture_output=True)


def drop_bytecode() -> None:
    """Remove the package's compiled bytecode (``run(bytecode=False)``)."""
    for cache in (ROOT / "mqconsole").rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


BYTECODE_NOTE = ("processes timed with Python's bytecode cache, as an installed package has "
                 "it (compiled once before timing)")


def profile_of(work: Callable[[], object], top: int) -> str:
    """The ``top`` functions by own time while ``work()`` runs (cProfile), as text."""
    prof = cProfile.Profile()
    prof.enable()
    work()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()

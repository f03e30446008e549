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


def _stat_cpu(pid: int) -> tuple[int, float]:
    """(parent pid, user + system seconds of ``pid`` and of its children it waited for)."""
    try:
        with open(f"/proc/{pid}/stat") as fp:
            fields = fp.read().rsplit(")", 1)[1].split()
        return int(fields[1]), sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return -1, 0.0


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds so far of ``root`` and every process under it (a JVM, Python workers)."""
    stats = {int(e.name): _stat_cpu(int(e.name)) for e in os.scandir("/proc")
             if e.name.isdigit()}
    kids: dict[int, list[int]] = {}
    for pid, (ppid, _cpu) in stats.items():
        kids.setdefault(ppid, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0.0))[1]
        todo.extend(kids.get(pid, []))
    return total


_MEASURE = r"""
import ctypes, json, os, resource, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
t0 = time.perf_counter()
code = subprocess.Popen(sys.argv[2:]).wait()
wall = time.perf_counter() - t0
deadline = time.monotonic() + 60
while time.monotonic() < deadline:  # orphans (a JVM its Python left) are ours: reap them
    try:
        if os.waitpid(-1, os.WNOHANG)[0] == 0:
            time.sleep(0.05)
    except ChildProcessError:
        break
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as fp:
    json.dump({"wall": wall, "code": code, "cpu": ru.ru_utime + ru.ru_stime}, fp)
"""


def measured(args: list[str], env: dict | None = None
             ) -> tuple[float, float, subprocess.CompletedProcess]:
    """Run ``args`` as a new process: its wall seconds, the CPU seconds (user + system) of
    its whole tree — every descendant, even one its parent never waited for (a child
    subreaper collects them) — and its output."""
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".json") as figures:
        done = subprocess.run([sys.executable, "-c", _MEASURE, figures.name, *args],
                              capture_output=True, text=True, env=env, check=False)
        got = json.loads(Path(figures.name).read_text() or "{}")
    if not got:
        raise SystemExit(f"could not measure {args[0]}: {done.stderr[-2000:]}")
    return got["wall"], got["cpu"], subprocess.CompletedProcess(args, got["code"],
                                                                done.stdout, done.stderr)

"""Shared helpers for the benchmark scripts (each script prints one JSON document)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
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


def run(args: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, env=env, check=False)

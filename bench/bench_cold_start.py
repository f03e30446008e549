"""Cold start of ``mqconsole queues`` (target under 0.5 s; no textual or pyspark import)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import (
    BYTECODE_NOTE,
    Timer,
    drop_bytecode,
    emit,
    mqconsole_exe,
    run,
    warm_bytecode,
)


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, MQCONSOLE_HOME=str(Path(d) / "home"))
        qm = str(Path(d) / "demo.sqlite")
        r = run([mqconsole_exe(), "--embedded", qm, "init", "--demo"], env=env)
        assert r.returncode == 0, r.stderr
        warm_bytecode()
        times = []
        for _ in range(7):
            with Timer() as t:
                r = run([mqconsole_exe(), "--embedded", qm, "queues"], env=env)
            assert r.returncode == 0, r.stderr
            times.append(t.seconds)
        drop_bytecode()
        uncached = []
        for _ in range(3):
            with Timer() as t:
                r = run([mqconsole_exe(), "--embedded", qm, "queues"], env=env,
                        bytecode=False)
            assert r.returncode == 0, r.stderr
            uncached.append(t.seconds)
        warm_bytecode()
        json_times = []
        for _ in range(5):
            with Timer() as t:
                r = run([mqconsole_exe(), "--embedded", qm, "queues", "--json"], env=env)
            json_times.append(t.seconds)
        bare = []
        for _ in range(5):
            with Timer() as t:
                subprocess.run([sys.executable, "-c", "pass"], check=True)
            bare.append(t.seconds)
        probe = subprocess.run(
            [sys.executable, "-X", "importtime", "-c",
             f"import sys; sys.argv=['mqconsole','--embedded',{qm!r},'queues','--json'];"
             f"from mqconsole.cli.main import main; main(sys.argv[1:])"],
            capture_output=True, text=True, env=env)
        heavy = sorted({line.split("|")[-1].strip().split(".")[0]
                        for line in probe.stderr.splitlines()
                        if line.split("|")[-1].strip().split(".")[0] in ("textual", "pyspark")})
    emit("cold_start_queues", {
        "median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3),
        "json_median_s": round(statistics.median(json_times), 3),
        "bare_python_s": round(statistics.median(bare), 3),
        # as this workspace runs it (PYTHONDONTWRITEBYTECODE=1: mqconsole compiled at
        # every start, its dependencies cached)
        "no_bytecode_cache_median_s": round(statistics.median(uncached), 3),
        "note": BYTECODE_NOTE,
        "heavy_imports_on_path": heavy, "target_s": 0.5,
    })


if __name__ == "__main__":
    main()

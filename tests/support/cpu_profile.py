"""CPU time per test, for finding what the suite spends (issue 26): a pytest plugin.

    CPU_PROFILE_OUT=/tmp/cpu.jsonl python -m pytest -p tests.support.cpu_profile -n 0 ...
    python -m tests.support.cpu_profile /tmp/cpu.jsonl      # the top files and folders

Each test (setup, call and teardown) gets the CPU time (user + sys) of the whole process
tree over it: this process, the children it reaped meanwhile, and the live descendants'
growth (a Spark JVM, a console in a pty), read from /proc. A module- or session-scoped
fixture counts in the test that first or last uses it. Wall time is written beside. One
JSON line per test, appended (each xdist worker appends its own).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

_TICK = os.sysconf("SC_CLK_TCK")


def _descendants_cpu(root: int) -> dict[int, float]:
    """Each live descendant of ``root`` and its CPU seconds (its own and its reaped
    children's)."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        pid = int(name)
        parent[pid] = int(fields[1])
        cpu[pid] = sum(int(x) for x in fields[11:15]) / _TICK
    found: dict[int, float] = {}
    for pid in cpu:
        p = parent.get(pid, 0)
        while p > 1:
            if p == root:
                found[pid] = cpu[pid]
                break
            p = parent.get(p, 0)
    return found


def _tree_cpu() -> tuple[float, dict[int, float]]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    base = own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
    return base, _descendants_cpu(os.getpid())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    out = os.environ.get("CPU_PROFILE_OUT")
    if not out:
        yield
        return
    base0, live0 = _tree_cpu()
    t0 = time.perf_counter()
    yield
    wall = time.perf_counter() - t0
    base1, live1 = _tree_cpu()
    # a descendant alive at both ends counts its growth, one born meanwhile counts whole;
    # one gone meanwhile was reaped into base1 or into a live parent's, with what it had
    # spent before: that part is taken off
    cpu = (base1 - base0 + sum(c - live0.get(pid, 0.0) for pid, c in live1.items())
           - sum(c for pid, c in live0.items() if pid not in live1))
    line = json.dumps({"nodeid": item.nodeid, "cpu": round(cpu, 3), "wall": round(wall, 3),
                       "end": round(time.time(), 3),
                       "worker": os.environ.get("PYTEST_XDIST_WORKER", "")})
    with open(out, "a") as f:
        f.write(line + "\n")


def summarize(path: str, top: int = 25) -> None:
    """Print the top files and the folders by CPU from a profile's JSON lines."""
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for line in Path(path).read_text().splitlines():
        rec = json.loads(line)
        f = files[rec["nodeid"].split("::")[0]]
        f[0] += rec["cpu"]
        f[1] += rec["wall"]
        f[2] += 1
    folders: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for name, (cpu, wall, n) in files.items():
        folder = folders[str(Path(name).parent)]
        folder[0] += cpu
        folder[1] += wall
        folder[2] += n
    for title, table, limit in (("files", files, top), ("folders", folders, 100)):
        print(f"{'CPU s':>8} {'wall s':>8} {'tests':>6}  {title}")
        for name, (cpu, wall, n) in sorted(table.items(), key=lambda kv: -kv[1][0])[:limit]:
            print(f"{cpu:8.1f} {wall:8.1f} {n:6d}  {name}")
        total = [sum(v[i] for v in table.values()) for i in range(3)]
        print(f"{total[0]:8.1f} {total[1]:8.1f} {total[2]:6d}  (all)\n")


if __name__ == "__main__":
    summarize(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25)

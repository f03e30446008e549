"""A payload search over a flooded dead-letter queue, as whole processes (issue 27).

``browse --where "reason = Q_FULL and payload ~ 'zzzz'" --json`` on the dead-letter queue
of ``bench_dlq_scale.py`` (N messages of 1 KiB: a dead-letter header with four reasons,
852 bytes of payload; built once in ``.bench/``), timed from start to exit, beside a bare
loop over the same SQLite rows, also a whole process: read every row's MD and body in
queue order, check the dead-letter reason (struct), search the payload bytes (``re`` on
bytes, from byte 172). Runs alternate (A B A B ...), ``--runs`` of each; the figures are
the medians, ``ratio`` = bare loop / browse (goal >= 0.5), with the load average before
and after. ``--code DIR`` times the browse with another checkout's code (``PYTHONPATH``),
e.g. main before this change, for a like-for-like "before".

``--hostile``: a queue of N messages whose payload is 10,000 a's and a ``!`` (the input
that made the old engine backtrack), searched with ``payload ~ '(a+)+$'`` and
``payload ~ '(a|aa)+$'`` by ``browse --json`` as a whole process at each size given,
with the seconds per message and per MB: linear time is the same rate at every size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import struct
import sys
import time
from pathlib import Path

from _common import emit, mqconsole_exe, run, warm_bytecode
from bench_dlq_scale import BENCH_DATA, DLQ, data_file

WHERE = "reason = Q_FULL and payload ~ 'zzzz'"
HOSTILE_Q = "APP.HOSTILE"
HOSTILE = b"a" * 10_000 + b"!"


def bare(path: str, pattern: str) -> None:
    """The least the search needs: every row in queue order, the reason, the payload."""
    rx = re.compile(pattern.encode())
    be, le = struct.Struct(">i"), struct.Struct("<i")
    db = sqlite3.connect(path)
    found = []
    for md, body in db.execute("SELECT md, body FROM messages WHERE queue = ? "
                               "ORDER BY npri, id", (DLQ,)):
        if md[32:40] == b"MQDEAD  " and body[:4] == b"DLH ":
            s = be if md[24] == 0 and md[27] & 0x0F == 1 else le
            if s.unpack_from(body, 8)[0] == 2053 and rx.search(body, 172):
                found.append(body[172:232])
    db.close()
    print(json.dumps([f.decode("latin-1") for f in found]))


def timed(args: list[str], env: dict | None = None) -> tuple[float, int]:
    t0 = time.perf_counter()
    res = run(args, env)
    return time.perf_counter() - t0, res.returncode


def browse_args(path: Path, where: str, queue: str = DLQ) -> list[str]:
    return [mqconsole_exe(), "--embedded", str(path), "browse", queue, "--where", where,
            "--json"]


def search_figures(path: Path, runs: int, code: str | None) -> dict:
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = code
    a_times, b_times, ratios, codes = [], [], [], set()
    bare_args = [sys.executable, __file__, "--bare", str(path), "zzzz"]
    timed(browse_args(path, WHERE), env)  # warm the file into the page cache
    for _ in range(runs):
        a, code_a = timed(browse_args(path, WHERE), env)
        b, code_b = timed(bare_args)
        a_times.append(a)
        b_times.append(b)
        ratios.append(b / a)
        codes |= {code_a, code_b}
    return {"browse_seconds": statistics.median(a_times), "browse_all": a_times,
            "bare_seconds": statistics.median(b_times), "bare_all": b_times,
            "ratio": statistics.median(b_times) / statistics.median(a_times),
            "ratio_pairwise_median": statistics.median(ratios), "exit_codes": sorted(codes),
            "code": code or "this checkout"}


def build_hostile(n: int) -> Path:
    path = BENCH_DATA / f"hostile-{n}.sqlite"
    if path.exists():
        return path
    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message
    from mqconsole.mq.queue import QueueAttrs
    BENCH_DATA.mkdir(exist_ok=True)
    tmp = path.with_suffix(".building")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    qm = create_queue_manager(tmp, dead_letter_queue="")
    qm.define_queue(QueueAttrs(HOSTILE_Q, max_depth=n + 1, max_msg_length=100_000))
    for i in range(n):
        qm.put(HOSTILE_Q, Message(MQMD(format="MQSTR", ccsid=1208, persistence=0), HOSTILE),
               syncpoint=True)
        if i % 1000 == 999:
            qm.commit()
    qm.commit()
    qm.close()
    tmp.rename(path)
    return path


def hostile_figures(sizes: list[int], code: str | None) -> dict:
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = code
    out: dict = {}
    for n in sizes:
        path = build_hostile(n)
        row: dict = {}
        timed(browse_args(path, "payload ~ 'zzzz'", HOSTILE_Q), env)  # page cache
        for pattern in ("(a+)+$", "(a|aa)+$"):
            seconds, code_ = timed(browse_args(path, f"payload ~ '{pattern}'", HOSTILE_Q),
                                   env)
            mb = n * len(HOSTILE) / 1e6
            row[pattern] = {"seconds": seconds, "exit_code": code_,
                            "us_per_message": seconds / n * 1e6, "mb_per_second": mb / seconds}
        out[str(n)] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="300000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", help="PYTHONPATH for the browse (another checkout)")
    parser.add_argument("--hostile", help="sizes of the hostile queue, e.g. 30000,300000")
    parser.add_argument("--bare", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare:
        bare(*args.bare)
        return
    warm_bytecode()
    figures: dict = {"where": WHERE, "load_average": os.getloadavg()}
    if args.hostile:
        figures["hostile"] = hostile_figures([int(s) for s in args.hostile.split(",")],
                                             args.code)
    else:
        for n in (int(s) for s in args.sizes.split(",")):
            figures[str(n)] = search_figures(data_file(n), args.runs, args.code)
    figures["load_average_after"] = os.getloadavg()
    emit("payload_search", figures)


if __name__ == "__main__":
    main()

"""Throughput and memory of ``mqconsole move --all`` on the embedded backend next to a bare
SQLite get+put loop, at one or more sizes in one command (issue 16).

    python bench/bench_move.py --messages 100000,1000000 --repeat 1

For each size N (messages of 1 KiB, persistent, one priority) a template queue manager is
built once under ``--dir`` (default: the worktree's ``.bench/``), and each figure runs in a
process of its own on a fresh copy of it, so each peak RSS is that figure's own:

* ``bare_full``: a plain SQLite loop moving the same rows — read them in keyset order,
  INSERT each into the destination and DELETE it from the source, COMMIT every ``--batch``
  — on a table holding what the queue manager's rows hold for the purpose (the packed
  364-byte MD, the 1 KiB body, the 24-byte MsgId) with the two indexes a put and a get must
  keep (queue order; MsgId), WAL with ``synchronous=FULL``: the WAL synced at every commit,
  the durability the queue manager gives a unit of work of persistent messages;
* ``cli``: the whole ``mqconsole --embedded FILE move SRC DST --all --yes`` process, start-up
  and the journal (a unit record before and a commit record after every commit) included:
  the figure of the issue (``ratio_cli`` = cli / bare_full, goal 0.75);
* ``cli_checks``: the same with a site plugin whose ``check_put`` accepts every message
  (registered through the config's ``plugins.paths``): with checks registered every message
  goes the step way and is checked, so this is what plugin checks cost;
* ``inproc``: ``ops.transfer.transfer()`` in a process of its own (no journal, no CLI);
* ``inproc_journal``: the same with the journal an operation keeps (``Journal.begin`` and its
  per-unit records through ``Control``), timing the journal's calls: ``journal_us_per_unit``;
* ``inproc_checks``: the same with a trivial ``check_put`` plugin in a ``PluginHost``, timing
  the checks: ``check_us_per_message`` (the rest of the difference is the step path);
* up to ``--nonpersistent-max`` messages (default 200,000) also ``inproc_nonpersistent``
  against ``bare_normal`` (``synchronous=NORMAL``: no sync per commit, the durability of
  non-persistent messages) on a template of non-persistent messages.

Each is run ``--repeat`` times (default 1; ``--figures`` picks some). A round runs the bare
loop first and last; each run is set against the mean of its round's two (a run and its
bare loops share the machine's mood) and the median over rounds is reported.
The load average is printed before and after each size: on a shared machine the ratios
are the figures. ``--instructions`` adds what the machine's load cannot change: the
instructions per moved message of the bare loop and the in-process figures (valgrind's
callgrind at 1,000 and 4,000 messages, the difference; waiting for the disk is not in
it). ``--profile`` adds a cProfile of the in-process move (stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import BYTECODE_NOTE, ROOT, Timer, emit, mqconsole_exe, profile_of, warm_bytecode

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.result import Control
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer

SRC, DST = "BENCH.SRC", "BENCH.DST"
BODY = bytes(range(256)) * 4
PLUGIN = '''
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    return None
'''


# -- the data ----------------------------------------------------------------------------

def build(path: Path, n: int, persistence: int = 1) -> None:
    qm = create_queue_manager(path, name="BENCH")
    for q in (SRC, DST):
        qm.define_queue(QueueAttrs(name=q, max_depth=10_000_000))
    for i in range(n):
        md = MQMD(format="MQSTR", ccsid=1208, persistence=persistence, priority=5,
                  msg_id=b"BENCH" + i.to_bytes(19, "big"), user_identifier="bench")
        qm.put(SRC, Message(md, BODY), context=Context.SET_ALL, syncpoint=True)
        if i % 1000 == 999:
            qm.commit()
    qm.commit()
    qm.close()


def fresh(template: Path, target: Path) -> Path:
    shutil.copy(template, target)
    for suffix in ("-wal", "-shm"):
        extra = Path(str(template) + suffix)
        if extra.exists():
            shutil.copy(extra, str(target) + suffix)
    return target


def remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-mqlock"):
        Path(str(path) + suffix).unlink(missing_ok=True)


# -- each figure, in a process of its own (``--child``) ----------------------------------

def build_bare(path: Path, n: int) -> None:
    """The bare loop's table: the same rows as the queue manager's for the purpose."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE m (id INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT, npri INT,"
               " msg_id BLOB, md BLOB, body BLOB)")
    db.execute("CREATE INDEX mq ON m(queue, npri, id)")
    db.execute("CREATE INDEX mi ON m(queue, msg_id)")  # as messages_msg_id
    md = MQMD(format="MQSTR", ccsid=1208).pack()
    for start in range(0, n, 100_000):
        db.execute("BEGIN")
        db.executemany("INSERT INTO m(queue, npri, msg_id, md, body) VALUES ('S', 4, ?, ?, ?)",
                       ((i.to_bytes(24, "big"), md, BODY)
                        for i in range(start, min(n, start + 100_000))))
        db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def bare_loop(path: Path, n: int, batch: int, sync: str) -> dict:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={sync}")
    moved = 0
    with Timer() as t:
        last = (-1, -1)
        while True:
            rows = db.execute("SELECT npri, id, msg_id, md, body FROM m WHERE queue = 'S' AND "
                              "(npri, id) > (?, ?) ORDER BY npri, id LIMIT ?",
                              (*last, batch)).fetchall()
            if not rows:
                break
            db.execute("BEGIN IMMEDIATE")
            for npri, rid, msg_id, md_b, body_b in rows:
                db.execute("INSERT INTO m(queue, npri, msg_id, md, body) VALUES "
                           "('D', ?, ?, ?, ?)", (npri, msg_id, md_b, body_b))
                db.execute("DELETE FROM m WHERE id = ?", (rid,))
            db.execute("COMMIT")
            moved += len(rows)
            last = (rows[-1][0], rows[-1][1])
    assert moved == n
    db.close()
    return {"rate": n / t.seconds}


class TimedControl(Control):
    """A ``Control`` that times what the journal's per-unit records take."""

    seconds = 0.0
    units = 0

    def before_commit(self, msgids: list[str], destinations: list[str | None]) -> bool:
        t0 = time.perf_counter()
        recorded = super().before_commit(msgids, destinations)
        self.seconds += time.perf_counter() - t0
        self.units += 1
        return recorded

    def after_commit(self) -> None:
        t0 = time.perf_counter()
        super().after_commit()
        self.seconds += time.perf_counter() - t0


def in_process(path: Path, n: int, batch: int, *, journal: Path | None = None,
               checks: bool = False) -> dict:
    from mqconsole.ops.journal import Journal, JournalEntry
    from mqconsole.plugins import PluginHost, hookimpl

    qm = open_embedded(path)
    control = TimedControl()
    if journal is not None:
        control.journal = Journal(journal).begin(JournalEntry(
            operation="move", qmgr="BENCH", profile=None, source=SRC, destinations=[DST]))
    check = None
    spent = [0.0]
    if checks:
        class Trivial:
            @hookimpl
            def mqconsole_check_put(self, operation, message, destination):
                return None

        host = PluginHost()
        host.register(Trivial(), "trivial")

        def check(message: Message, destination: str) -> str | None:  # as Operation._check
            t0 = time.perf_counter()
            try:
                return host.check_put("move", message, destination)
            finally:
                spent[0] += time.perf_counter() - t0

    with Timer() as t:
        r = transfer(qm, SRC, DST, Selection.build(all_=True), batch=batch, control=control,
                     check=check)
    assert r.done == n and r.all_done, r.to_json()
    qm.close()
    out = {"rate": n / t.seconds}
    if journal is not None:
        out["journal_us_per_unit"] = control.seconds / max(control.units, 1) * 1e6
    if checks:
        out["check_us_per_message"] = spent[0] / n * 1e6
    return out


def child(args: argparse.Namespace) -> None:
    path, n, batch = Path(args.path), args.messages_one, args.batch
    kind = args.child
    if kind in ("bare_full", "bare_normal"):
        out = bare_loop(path, n, batch, "FULL" if kind == "bare_full" else "NORMAL")
    elif kind == "inproc_journal":
        out = in_process(path, n, batch, journal=Path(str(path) + ".journal"))
    elif kind == "inproc_checks":
        out = in_process(path, n, batch, checks=True)
    else:  # inproc, inproc_nonpersistent
        out = in_process(path, n, batch)
    print(json.dumps(out))


# -- the parent: run a figure and take its peak RSS --------------------------------------

def measured(cmd: list[str], env: dict | None = None) -> tuple[str, float]:
    """Run ``cmd``; its stdout and its peak RSS in MB (``wait4``: this child's own)."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as an installed mqconsole runs (_common.run)
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        assert p.stdout is not None
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{cmd[:4]} failed ({p.returncode}): {err.read()[-2000:]}")
    return out, usage.ru_maxrss / 1024


def run_child(kind: str, path: Path, n: int, batch: int) -> dict:
    out, rss = measured([sys.executable, __file__, "--child", kind, "--path", str(path),
                         "--messages-one", str(n), "--batch", str(batch)])
    doc = json.loads(out.strip().splitlines()[-1])
    doc["rss_mb"] = rss
    return doc


def run_cli(path: Path, n: int, batch: int, home: Path, config: Path | None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)
    cmd = [mqconsole_exe()]
    if config is not None:
        cmd += ["--config", str(config)]
    cmd += ["--embedded", str(path), "move", SRC, DST, "--all", "--yes", "--batch", str(batch),
            "--json"]
    with Timer() as t:
        out, rss = measured(cmd, env)
    assert f'"done": {n}' in out, out[:500]
    return {"rate": n / t.seconds, "rss_mb": rss}


def plugin_config(work: Path) -> Path:
    folder = work / "site-plugins"
    folder.mkdir(exist_ok=True)
    os.chmod(folder, 0o755)
    (folder / "accept_all.py").write_text(PLUGIN)
    cfg = work / "plugins.yaml"
    cfg.write_text(f"plugins:\n  paths: [{folder}]\n")
    return cfg


def median_ratio(ours: list[float], bare: list[float]) -> float:
    return round(statistics.median(a / b for a, b in zip(ours, bare, strict=True)), 3)


FIGURES = ("cli", "cli_checks", "inproc", "inproc_journal", "inproc_checks",
           "inproc_nonpersistent")


def one_size(work: Path, n: int, batch: int, repeat: int, np_max: int,
             figures: tuple[str, ...] = FIGURES) -> dict:
    """Every figure at ``n`` messages, ``repeat`` rounds. A round runs the bare loop first
    and last, and each figure is set against the mean of the two (the machine's mood
    drifts over a round of many minutes at 1,000,000)."""
    load_before = os.getloadavg()
    template, template_np, template_bare = templates(work, n, np_max)
    cfg = plugin_config(work)
    if n > np_max:
        figures = tuple(f for f in figures if f != "inproc_nonpersistent")
    runs: dict[str, list[dict]] = {}
    target = work / f"run-{n}.sqlite"
    bare = work / f"bare-{n}.sqlite"

    def add(kind: str, doc: dict) -> None:
        runs.setdefault(kind, []).append(doc)

    def bare_loop_run(kind: str, label: str) -> None:
        add(label, run_child(kind, fresh(template_bare, bare), n, batch))
        remove(bare)

    for _ in range(repeat):
        bare_loop_run("bare_full", "bare_full")
        if "inproc_nonpersistent" in figures:
            bare_loop_run("bare_normal", "bare_normal")
        for kind in figures:
            if kind.startswith("cli"):
                home = work / "home"
                shutil.rmtree(home, ignore_errors=True)
                add(kind, run_cli(fresh(template, target), n, batch, home,
                                  cfg if kind == "cli_checks" else None))
            else:
                src = template_np if kind == "inproc_nonpersistent" else template
                add(kind, run_child(kind, fresh(src, target), n, batch))
            remove(target)
            Path(str(target) + ".journal").unlink(missing_ok=True)
        bare_loop_run("bare_full", "bare_full_after")
    rates = {k: [d["rate"] for d in v] for k, v in runs.items()}
    full = [(a + b) / 2 for a, b in zip(rates["bare_full"], rates["bare_full_after"],
                                         strict=True)]
    per_msg_us = {k: 1e6 / statistics.median(v) for k, v in rates.items()}
    doc: dict = {
        "messages": n,
        "load_average_before": [round(x, 1) for x in load_before],
        "rates_per_s": {k: [round(x) for x in v] for k, v in rates.items()},
        "peak_rss_mb": {k: round(max(d["rss_mb"] for d in v), 1) for k, v in runs.items()},
    }
    # the figures: each run against the mean of its round's bare loops, median of rounds
    names = {"cli": "ratio_cli", "inproc": "ratio_in_process",
             "cli_checks": "ratio_cli_with_checks",
             "inproc_checks": "ratio_in_process_with_checks",
             "inproc_journal": "ratio_in_process_journaled"}
    for kind, name in names.items():
        if kind in rates:
            doc[name] = median_ratio(rates[kind], full)
    if "inproc_nonpersistent" in rates:
        doc["ratio_in_process_nonpersistent"] = median_ratio(rates["inproc_nonpersistent"],
                                                             rates["bare_normal"])
    # what plugin checks and the journal cost
    if "cli_checks" in rates and "cli" in rates:
        doc["checks_cost_us_per_message_cli"] = round(per_msg_us["cli_checks"]
                                                      - per_msg_us["cli"], 1)
    if "inproc_checks" in rates:
        if "inproc" in rates:
            doc["checks_cost_us_per_message_in_process"] = round(
                per_msg_us["inproc_checks"] - per_msg_us["inproc"], 1)
        doc["check_call_us_per_message"] = round(statistics.median(
            d["check_us_per_message"] for d in runs["inproc_checks"]), 2)
    if "inproc_journal" in rates:
        unit_us = statistics.median(d["journal_us_per_unit"] for d in runs["inproc_journal"])
        doc["journal_us_per_unit"] = round(unit_us, 1)
        doc["journal_share_of_a_unit"] = round(unit_us / (per_msg_us["inproc_journal"]
                                                          * batch), 4)
    doc["load_average_after"] = [round(x, 1) for x in os.getloadavg()]
    return doc


def templates(work: Path, n: int, np_max: int) -> tuple[Path, Path, Path]:
    """The queue managers (persistent, non-persistent up to ``np_max``) and the bare
    loop's table of ``n`` messages, built once (kept for the next run: delete the folder
    to rebuild)."""
    template = work / f"template-{n}.sqlite"
    template_np = work / f"template-np-{n}.sqlite"
    template_bare = work / f"template-bare-{n}.sqlite"
    if not template.exists():
        build(template, n)
    if n <= np_max and not template_np.exists():
        build(template_np, n, persistence=0)
    if not template_bare.exists():
        build_bare(template_bare, n)
    return template, template_np, template_bare


def instructions(work: Path, batch: int, kinds: tuple[str, ...] = (
        "bare_full", "inproc", "inproc_journal", "inproc_checks")) -> dict:
    """Instructions per moved message of each figure, counted by valgrind's callgrind at
    1,000 and 4,000 messages and taking the difference (start-up drops out): what each
    costs in CPU work whatever the machine's load (waiting for the disk not included)."""
    counts: dict[str, dict[int, int]] = {}
    for n in (1000, 4000):
        template, _, template_bare = templates(work, n, 0)
        for kind in kinds:
            target = work / f"cg-{n}.sqlite"
            fresh(template_bare if kind.startswith("bare") else template, target)
            p = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                 sys.executable, __file__, "--child", kind, "--path", str(target),
                 "--messages-one", str(n), "--batch", str(batch)],
                capture_output=True, text=True, check=False)
            if p.returncode != 0:
                raise SystemExit(f"{kind} at {n} under callgrind failed: {p.stderr[-3000:]}")
            remove(target)
            Path(str(target) + ".journal").unlink(missing_ok=True)
            collected = [line for line in p.stderr.splitlines() if "Collected" in line]
            counts.setdefault(kind, {})[n] = int(collected[-1].split(":")[-1])
    per = {k: (v[4000] - v[1000]) / 3000 for k, v in counts.items()}
    return {"instructions_per_message": {k: round(v) for k, v in per.items()},
            "ratio_in_process_by_instructions": round(per["bare_full"] / per["inproc"], 3)}


def profile(template: Path, work: Path, batch: int, top: int = 25) -> str:
    path = fresh(template, work / "profile.sqlite")
    qm = open_embedded(path)
    try:
        return profile_of(lambda: transfer(qm, SRC, DST, Selection.build(all_=True,
                                                                          limit=20_000),
                                           batch=batch), top)
    finally:
        qm.close()
        remove(path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", default="100000",
                    help="sizes, comma-separated (e.g. 100000,1000000)")
    ap.add_argument("--batch", type=int, default=100, help="messages per unit of work")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of every figure")
    ap.add_argument("--nonpersistent-max", type=int, default=200_000,
                    help="the non-persistent pair only up to this size")
    ap.add_argument("--dir", type=Path, default=ROOT / ".bench" / "move",
                    help="where the data goes (templates are kept for the next run)")
    ap.add_argument("--figures", default=",".join(FIGURES),
                    help="which figures besides the bare loops (comma-separated; default "
                    "all: " + ",".join(FIGURES) + ")")
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions per moved message with valgrind")
    ap.add_argument("--profile", action="store_true",
                    help="also print a cProfile of the in-process move on stderr")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    ap.add_argument("--messages-one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    sizes = [int(x) for x in args.messages.split(",")]
    work: Path = args.dir
    work.mkdir(parents=True, exist_ok=True)
    warm_bytecode()
    results = []
    for n in sizes:  # each size on stderr as soon as it is measured
        results.append(one_size(work, n, args.batch, args.repeat, args.nonpersistent_max,
                                tuple(args.figures.split(","))))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    prof = profile(work / f"template-{sizes[0]}.sqlite", work, args.batch) \
        if args.profile else None
    counted = instructions(work, args.batch) if args.instructions else {}
    rss = {k: [r["peak_rss_mb"][k] for r in results] for k in results[-1]["peak_rss_mb"]}
    emit("move", {
        "body_bytes": len(BODY), "commit_every": args.batch, "repeat": args.repeat,
        "cli_note": BYTECODE_NOTE, "target_ratio": 0.75,
        "sizes": results,
        # memory: the peak RSS of each figure at the largest size over the smallest
        "rss_growth": {k: round(v[-1] / v[0], 2) for k, v in rss.items()},
        **counted,
    })
    if prof:
        print(prof, file=sys.stderr)


if __name__ == "__main__":
    main()

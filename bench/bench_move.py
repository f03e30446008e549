"""Throughput of ``mqconsole move`` on the embedded backend next to a bare SQLite loop.

Three figures from one run, each on a fresh copy of the same data (N messages of 1 KiB,
default 100,000):

* ``move_in_process``: ``ops.transfer.transfer()`` (browse, put under syncpoint, get under
  the cursor, commit every 100) called in this process;
* ``move_cli``: a whole ``mqconsole --embedded FILE move SRC DST --all --yes`` process,
  start-up and journal included;
* ``protocol_loop``: the bare minimum over the backend (next, the cursor's one-call move
  step, commit every 100) — what the backend costs without the engine's selection, checks
  and bookkeeping; ``engine_overhead`` is the share of time the engine adds;
* ``move_in_process_nonpersistent``: the same move of non-persistent messages (no WAL
  sync at commit);
* ``bare_sqlite``: the same rows moved by a plain SQLite loop — read them in keyset order,
  INSERT each into the destination and DELETE it from the source, COMMIT every 100. Its
  rows hold what the queue manager's rows hold for the purpose (the packed 364-byte MD,
  the 1 KiB body, the 24-byte MsgId) and it keeps the same two indexes a put and a get
  must maintain (queue order, and MsgId for get-by-MsgId). It runs twice, in WAL mode:
  ``bare_sqlite_full_sync`` with synchronous=FULL (the WAL synced at every commit: the
  durability the queue manager gives a unit of work of persistent messages, an
  ``fdatasync`` of the WAL at each MQ commit) and ``bare_sqlite`` with synchronous=NORMAL
  (no sync per commit: the durability of non-persistent messages).

Each is run ``--repeat`` times (default 3) and the best rate reported; each round's ratios
and their median are reported too. The figures of merit compare like with like (target:
>= 0.5 each):

* ``ratio_in_process`` = move of persistent messages / ``bare_sqlite_full_sync``;
* ``ratio_in_process_nonpersistent`` = move of non-persistent messages / ``bare_sqlite``.

``ratio_in_process_vs_normal_sync`` (persistent move, synced at every commit, against the
unsynced bare loop) is reported too, for comparison with older figures; it is not like
with like.
``--profile`` adds the top functions by cumulative time of the in-process move (cProfile,
on a smaller run) so a low ratio says where the time goes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
from pathlib import Path

from _common import BYTECODE_NOTE, Timer, emit, mqconsole_exe, profile_of, run, warm_bytecode

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer

SRC, DST = "BENCH.SRC", "BENCH.DST"


def build(path: Path, n: int, body: bytes, persistence: int = 1) -> None:
    qm = create_queue_manager(path, name="BENCH")
    for q in (SRC, DST):
        qm.define_queue(QueueAttrs(name=q, max_depth=10_000_000))
    for i in range(n):
        md = MQMD(format="MQSTR", ccsid=1208, persistence=persistence, priority=5,
                  msg_id=b"BENCH" + i.to_bytes(19, "big"), user_identifier="bench")
        qm.put(SRC, Message(md, body), context=Context.SET_ALL, syncpoint=True)
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


def move_in_process(path: Path, n: int, batch: int) -> float:
    qm = open_embedded(path)
    with Timer() as t:
        r = transfer(qm, SRC, DST, Selection.build(all_=True), batch=batch)
    assert r.done == n and r.all_done, r.to_json()
    qm.close()
    return n / t.seconds


def protocol_loop(path: Path, n: int, batch: int) -> float:
    """The floor the backend sets: browse next, the move step (the cursor's one-call
    ``move_current_to``, as the engine uses it), commit every ``batch`` — no selection,
    checks, bookkeeping or redo machinery."""
    qm = open_embedded(path)
    done = 0
    with Timer() as t, qm.browse(SRC, for_get=True) as cur:
        while (m := cur.next()) is not None:
            assert cur.move_current_to(DST, m, Context.SET_ALL, "", True) is None
            done += 1
            if done % batch == 0:
                qm.commit()
        qm.commit()
    assert done == n
    qm.close()
    return n / t.seconds


def move_cli(path: Path, n: int, batch: int, home: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["MQCONSOLE_HOME"] = str(home)
    with Timer() as t:
        p = run([mqconsole_exe(), "--embedded", str(path), "move", SRC, DST, "--all", "--yes",
                 "--batch", str(batch), "--json"], env=env)
    assert p.returncode == 0, p.stderr
    assert f'"done": {n}' in p.stdout, p.stdout[:500]
    return n / t.seconds


def bare_sqlite(path: Path, n: int, body: bytes, md: bytes, batch: int,
                sync: str = "NORMAL") -> float:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={sync}")
    db.execute("CREATE TABLE m (id INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT, npri INT,"
               " msg_id BLOB, md BLOB, body BLOB)")
    db.execute("CREATE INDEX mq ON m(queue, npri, id)")
    db.execute("CREATE INDEX mi ON m(queue, msg_id)")  # as messages_msg_id
    db.execute("BEGIN")
    db.executemany("INSERT INTO m(queue, npri, msg_id, md, body) VALUES ('S', 4, ?, ?, ?)",
                   ((i.to_bytes(24, "big"), md, body) for i in range(n)))
    db.execute("COMMIT")
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
    return n / t.seconds


def pair_ratios(ours: list[float], bare: list[float]) -> list[float]:
    return [round(a / b, 3) for a, b in zip(ours, bare, strict=True)]


def profile(template: Path, work: Path, batch: int, top: int = 25) -> str:
    path = fresh(template, work / "profile.sqlite")
    qm = open_embedded(path)
    try:
        return profile_of(lambda: transfer(qm, SRC, DST, Selection.build(all_=True,
                                                                          limit=20_000),
                                           batch=batch), top)
    finally:
        qm.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each measurement; the best is reported (shared machines "
                    "are noisy)")
    ap.add_argument("--profile", action="store_true",
                    help="also print a cProfile of the in-process move on stderr")
    args = ap.parse_args()
    n, batch = args.messages, args.batch
    body = bytes(range(256)) * 4
    md = MQMD(format="MQSTR", ccsid=1208).pack()
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        template = work / "template.sqlite"
        template_np = work / "template-np.sqlite"
        with Timer() as fill:
            build(template, n, body)
        build(template_np, n, body, persistence=0)
        warm_bytecode()
        rates: dict[str, list[float]] = {"bare": [], "bare_full": [], "inproc": [],
                                         "inproc_np": [], "cli": [], "floor": []}
        for r in range(args.repeat):
            rates["bare"].append(bare_sqlite(work / f"bare{r}.sqlite", n, body, md, batch))
            rates["bare_full"].append(bare_sqlite(work / f"full{r}.sqlite", n, body, md, batch,
                                                  "FULL"))
            (work / f"full{r}.sqlite").unlink()
            rates["inproc"].append(move_in_process(fresh(template, work / "a.sqlite"), n,
                                                   batch))
            rates["inproc_np"].append(move_in_process(fresh(template_np, work / "n.sqlite"),
                                                      n, batch))
            rates["cli"].append(move_cli(fresh(template, work / "b.sqlite"), n, batch,
                                         work / "home"))
            rates["floor"].append(protocol_loop(fresh(template, work / "c.sqlite"), n, batch))
            (work / f"bare{r}.sqlite").unlink()
        bare, bare_full, inproc, inproc_np, cli, floor = (
            max(rates[k]) for k in ("bare", "bare_full", "inproc", "inproc_np", "cli", "floor"))
        prof = profile(template, work, batch) if args.profile else None
    emit("move", {
        "messages": n, "body_bytes": len(body), "commit_every": batch,
        "repeat": args.repeat, "all_rates_per_s": {k: [round(x) for x in v]
                                                   for k, v in rates.items()},
        "fill_seconds": round(fill.seconds, 1),
        # persistent messages (a WAL sync per MQ commit) against the bare loop synced at
        # every commit: the same durability
        "move_in_process_per_s": round(inproc), "move_cli_per_s": round(cli),
        "cli_note": BYTECODE_NOTE,
        "protocol_loop_per_s": round(floor),
        "bare_sqlite_full_sync_per_s": round(bare_full),
        "ratio_in_process": round(inproc / bare_full, 3),
        "ratio_cli": round(cli / bare_full, 3),
        # each round's runs against the bare loop of the same round (a run and its bare
        # loop share the machine's mood), and their median: less lucky than best/best
        "ratio_in_process_per_round": pair_ratios(rates["inproc"], rates["bare_full"]),
        "ratio_cli_per_round": pair_ratios(rates["cli"], rates["bare_full"]),
        "ratio_in_process_median_of_rounds": round(statistics.median(
            pair_ratios(rates["inproc"], rates["bare_full"])), 3),
        "ratio_cli_median_of_rounds": round(statistics.median(
            pair_ratios(rates["cli"], rates["bare_full"])), 3),
        "ratio_protocol_loop": round(floor / bare_full, 3),
        # non-persistent messages (no sync) against the bare loop with synchronous=NORMAL
        "move_in_process_nonpersistent_per_s": round(inproc_np),
        "bare_sqlite_per_s": round(bare),
        "ratio_in_process_nonpersistent": round(inproc_np / bare, 3),
        # not like with like (synced move, unsynced bare loop): for older figures
        "ratio_in_process_vs_normal_sync": round(inproc / bare, 3),
        "engine_overhead": round(1 - inproc / floor, 3),
        "target_ratio": 0.5,
    })
    if prof:
        import sys

        print(prof, file=sys.stderr)


if __name__ == "__main__":
    main()

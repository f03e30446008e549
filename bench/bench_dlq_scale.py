"""A dead-letter queue of a million messages: ``summary``, ``--where``, ``save`` and ``load``
each beside a bare loop, memory flat.

Builds (once, cached in the worktree's ``.bench/``, or ``$MQCONSOLE_BENCH_DATA``) an
embedded queue manager file whose dead-letter queue holds N messages of 1 KiB (a
dead-letter header with four reasons and eight destinations, put times spread over a
week), for N = 100,000 and N = 1,000,000 (``--sizes``).
Each figure is measured in a fresh process of its own (so its peak RSS is its own):

* ``summary``: ``ops.summary.summarize_queue`` (the embedded backend counts in SQLite);
* ``summary_plain``: the same summary by browsing every message (``fast=False``; the
  route every backend without ``CountsFacts`` takes) — at the smaller size only unless
  ``--plain-all``;
* ``summary_cli``: the whole ``mqconsole --embedded F summary Q --json`` process;
* ``bare_loop``: the least a summary needs, in a plain loop — read every message's MD
  and body from the same SQLite file in queue order, parse the dead-letter header's
  reason and destination (struct), count them;
* ``where``: a scanning ``--where "reason = Q_FULL and payload ~ 'x'"`` through
  ``ops.browse.iter_views`` (the reason tested in SQLite, the regex on the candidates),
  ``where_plain`` the same testing every browsed message, ``bare_where`` the least it
  needs: read every body, parse the reason, run the regex on the payload of those with
  Q_FULL.

* ``save``: ``ops.savefile.save_queue`` with ``--all`` to a file beside the queue manager's
  (the embedded cursor's packed pages), ``bare_save`` the least it needs: read every MD
  and body in queue order, write the MD's fields as A lines and the body as X lines;
* ``load``: ``ops.savefile.load_to_queue`` of that file onto a new queue manager (the file
  checked first, units of work of 100), ``bare_load`` the least it needs: parse the file
  line by line, pack the MD, insert into a plain SQLite table, a commit every 100.

``ratio_summary`` = bare loop time / summary time, ``ratio_where``, ``ratio_save`` and
``ratio_load`` the same (target >= 0.5 each; ``*_cpu`` the same with the processes' CPU
time, steadier on a shared machine). ``--figures files`` runs save and load only.
``rss_growth`` compares each figure's peak RSS at the largest size with the smallest
(flat: about 1).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import struct
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from _common import Timer, emit, mqconsole_exe, run, warm_bytecode

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
# the queue manager files (2.2 GB at 1M), and the file save writes beside each (3 GB at 1M)
BENCH_DATA = Path(os.environ.get("MQCONSOLE_BENCH_DATA") or Path(__file__).resolve().parent.parent
                  / ".bench")
REASONS = (2053, 2085, 2035, 2051)


def build(path: Path, n: int) -> None:
    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message
    from mqconsole.mq.queue import QueueAttrs
    from mqconsole.ops.timefmt import format_put_date_time, utcnow

    tmp = path.with_suffix(".building")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    qm = create_queue_manager(tmp, dead_letter_queue="")
    qm.define_queue(QueueAttrs(DLQ, max_depth=n + 1))
    now = utcnow()
    from datetime import timedelta
    for i in range(n):
        d, t = format_put_date_time(now - timedelta(seconds=(i * 7919) % 604_800))
        md, body = add_dead_letter_header(
            MQMD(format="MQSTR", persistence=0, put_date=d, put_time=t), b"p" * 852,
            reason=REASONS[i % 4], dest_q_name=f"APP.QUEUE.{i % 8}", dest_qmgr_name="QM1")
        qm.put(DLQ, Message(md, body), syncpoint=True)
        if i % 1000 == 999:
            qm.commit()
    qm.commit()
    qm.close()
    tmp.rename(path)


def data_file(n: int) -> Path:
    folder = BENCH_DATA
    folder.mkdir(exist_ok=True)
    path = folder / f"dlq-{n}.sqlite"
    if not path.exists():
        build(path, n)
    return path


# -- what each child process measures -----------------------------------------------------

def child_summary(path: str, fast: bool) -> dict:
    from mqconsole.backends.open import open_embedded
    from mqconsole.ops.summary import summarize_queue
    qm = open_embedded(path)
    with Timer() as t:
        doc = summarize_queue(qm, DLQ, fast=fast)
    qm.close()
    return {"seconds": t.seconds, "total": doc["total"],
            "groups": len(doc["by_reason_and_dest"])}


def child_bare(path: str) -> dict:
    db = sqlite3.connect(path)
    counts: Counter = Counter()
    be, le = struct.Struct(">i"), struct.Struct("<i")
    n = 0
    with Timer() as t:
        for md, body in db.execute("SELECT md, body FROM messages WHERE queue = ? "
                                   "ORDER BY npri, id", (DLQ,)):
            fmt = md[32:40]
            reason = dest = None
            if fmt == b"MQDEAD  " and body[:4] == b"DLH ":
                s = be if md[24] == 0 and md[27] & 0x0F == 1 else le
                reason = s.unpack_from(body, 8)[0]
                dest = body[12:60].decode("latin-1").strip(" \x00")
            counts[(reason, dest)] += 1
            n += 1
    db.close()
    return {"seconds": t.seconds, "total": n, "groups": len(counts)}


WHERE = "reason = Q_FULL and payload ~ 'x'"  # the example


def child_where(path: str, fast: bool) -> dict:
    from mqconsole.backends.open import open_embedded
    from mqconsole.ops.browse import iter_views, iter_views_plain
    from mqconsole.ops.where import compile_where
    qm = open_embedded(path)
    where = compile_where(WHERE)
    walk = iter_views if fast else iter_views_plain
    with Timer() as t:
        n = sum(1 for _ in walk(qm, DLQ, where=where))
    qm.close()
    return {"seconds": t.seconds, "matched": n}


def child_bare_where(path: str) -> dict:
    """Read every body, parse the header's reason, test the payload of those that match."""
    import re
    rx = re.compile(rb"x")
    db = sqlite3.connect(path)
    be, le = struct.Struct(">i"), struct.Struct("<i")
    n = 0
    with Timer() as t:
        for md, body in db.execute("SELECT md, body FROM messages WHERE queue = ? "
                                   "ORDER BY npri, id", (DLQ,)):
            if md[32:40] == b"MQDEAD  " and body[:4] == b"DLH ":
                s = be if md[24] == 0 and md[27] & 0x0F == 1 else le
                if s.unpack_from(body, 8)[0] == 2053 and rx.search(body, 172):
                    n += 1
    db.close()
    return {"seconds": t.seconds, "matched": n}


# -- save and load (issue 16): each beside the least it needs, in a plain loop ----------------

def _dmp(path: str) -> Path:
    """The file a save writes (and a load reads) beside the queue manager's file."""
    return Path(path).with_suffix(".dmp")


def child_save(path: str) -> dict:
    from mqconsole.backends.open import open_embedded
    from mqconsole.ops.savefile import save_queue
    from mqconsole.ops.selection import Selection
    qm = open_embedded(path)
    target = _dmp(path)
    with Timer() as t:
        result = save_queue(qm, DLQ, target, Selection(all=True), force=True)
    qm.close()
    return {"seconds": t.seconds, "saved": result.done, "file_mb": target.stat().st_size / 1e6}


# the MQMD as mq.md packs it (little-endian, version 2 as the bench puts it): the integers
_MD_INTS = struct.Struct("<4xiiiiiii8xii48xi48x48x12x32x32xi28x8x8x4x24xiiii")
_A_LINES = (
    "A VER {1}\nA RPT {2}\nA MST {3}\nA EXP {4}\nA FDB {5}\nA ENC {6}\nA CCS {7}\n"
    "A FMT {fmt}\nA PRI {8}\nA PER {9}\nA MSI {msi}\nA COI {coi}\nA BOC {10}\n"
    "A RTQ {rtq}\nA RTM {rtm}\nA USR {usr}\nA ACC {acc}\nA AIX {aix}\nA PAT {11}\n"
    "A PAN {pan}\nA PTD {ptd}\nA PTT {ptt}\nA AOX {aox}\nA GRP {grp}\nA MSQ {12}\n"
    "A OFF {13}\nA MSF {14}\nA ORL {15}\n")


def child_bare_save(path: str) -> dict:
    """The least a save needs: read every MD and body in queue order, write each as
    dmpmqmsg writes it (the MD's fields as A lines, the body as X lines of 25 bytes)."""
    db = sqlite3.connect(path)
    target = _dmp(path).with_suffix(".bare.dmp")
    n = 0
    with Timer() as t, open(target, "w", encoding="latin-1", newline="\n") as out:
        out.write("* DMPMQMSG Version:9.0.0.0 Created:Wed Nov 25 00:00:00 2026\n"
                  f"* Qmgr  = QM1\n* Queue = {DLQ}\n\n")
        for md, body in db.execute("SELECT md, body FROM messages WHERE queue = ? "
                                   "ORDER BY npri, id", (DLQ,)):
            v = _MD_INTS.unpack_from(md)
            t_ = md.decode("latin-1")
            h = md.hex().upper()
            out.write(_A_LINES.format(
                0, *v, fmt=t_[32:40], msi=h[96:144], coi=h[144:192], rtq=t_[100:148],
                rtm=t_[148:196], usr=t_[196:208], acc=h[416:480], aix=h[480:544],
                pan=t_[276:304], ptd=t_[304:312], ptt=t_[312:320], aox=h[640:648],
                grp=h[648:696]))
            out.write("X " + body.hex("\n", -25).upper().replace("\n", "\nX ") + "\n\n")
            n += 1
        out.flush()
        os.fsync(out.fileno())
    db.close()
    size = target.stat().st_size
    target.unlink()
    return {"seconds": t.seconds, "saved": n, "file_mb": size / 1e6}


def child_load(path: str) -> dict:
    """``ops.savefile.load_to_queue`` of the file a save wrote, onto an empty queue of a
    new queue manager (units of work of ``DEFAULT_BATCH`` messages, the file checked
    first, as ``mqconsole load`` does)."""
    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.mq.queue import QueueAttrs
    from mqconsole.ops.savefile import DEFAULT_BATCH, load_to_queue
    source = _dmp(path)
    target = _fresh(Path(path).with_suffix(".loaded.sqlite"))
    qm = create_queue_manager(target, dead_letter_queue="")
    qm.define_queue(QueueAttrs("LOADED", max_depth=100_000_000))
    with Timer() as t:
        result = load_to_queue(qm, source, "LOADED", batch=DEFAULT_BATCH)
    qm.close()
    _fresh(target)
    return {"seconds": t.seconds, "loaded": result.done, "batch": DEFAULT_BATCH}


def _fresh(path: Path) -> Path:
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-mqlock")):
        p.unlink(missing_ok=True)
    return path


def child_bare_load(path: str) -> dict:
    """The least a load needs: parse the file line by line (A lines into the MD's fields,
    X lines into the body), pack the MD, insert ``(queue, md, body)`` into a plain SQLite
    table, committing every ``DEFAULT_BATCH`` messages (load's unit of work)."""
    import binascii

    from mqconsole.ops.savefile import DEFAULT_BATCH
    source = _dmp(path)
    target = _fresh(Path(path).with_suffix(".bare.sqlite"))
    db = sqlite3.connect(target)
    db.execute("PRAGMA journal_mode=WAL")  # as the embedded queue manager's file
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, queue TEXT, md BLOB, body BLOB)")
    pack = struct.Struct("<4siiiiiii8sii24s24si48s48s12s32s32si28s8s8s4s24siiii").pack
    unhex = binascii.unhexlify
    n = 0
    rows: list[tuple] = []
    with Timer() as t, open(source, "rb") as fp:
        f: dict[bytes, bytes] = {}
        body: list[bytes] = []
        for line in fp:
            kind = line[:1]
            if kind == b"A":
                f[line[2:5]] = line[6:-1]
            elif kind == b"X":
                body.append(line[2:-1])
            elif line == b"\n" and body:
                def i(k: bytes, f: dict[bytes, bytes] = f) -> int:
                    return int(f[k])
                md = pack(b"MD  ", i(b"VER"), i(b"RPT"), i(b"MST"), i(b"EXP"), i(b"FDB"),
                          i(b"ENC"), i(b"CCS"), f[b"FMT"], i(b"PRI"), i(b"PER"),
                          unhex(f[b"MSI"]), unhex(f[b"COI"]), i(b"BOC"), f[b"RTQ"],
                          f[b"RTM"], f[b"USR"], unhex(f[b"ACC"]), unhex(f[b"AIX"]),
                          i(b"PAT"), f[b"PAN"], f[b"PTD"], f[b"PTT"], unhex(f[b"AOX"]),
                          unhex(f[b"GRP"]), i(b"MSQ"), i(b"OFF"), i(b"MSF"), i(b"ORL"))
                rows.append(("LOADED", md, unhex(b"".join(body))))
                f, body = {}, []
                n += 1
                if len(rows) >= DEFAULT_BATCH:
                    db.executemany("INSERT INTO messages (queue, md, body) VALUES (?, ?, ?)",
                                   rows)
                    db.commit()
                    rows = []
        if rows:
            db.executemany("INSERT INTO messages (queue, md, body) VALUES (?, ?, ?)", rows)
            db.commit()
    db.close()
    _fresh(target)
    return {"seconds": t.seconds, "loaded": n, "batch": DEFAULT_BATCH}


CHILDREN = {"bare": child_bare, "bare_where": child_bare_where,
            "summary": lambda p: child_summary(p, True), "plain": lambda p: child_summary(p, False),
            "where": lambda p: child_where(p, True), "where_plain": lambda p: child_where(p, False),
            "save": child_save, "bare_save": child_bare_save, "load": child_load,
            "bare_load": child_bare_load}


def child(args: list[str]) -> None:
    what, path = args[0], args[1]
    cpu = time.process_time()
    out = CHILDREN[what](path)
    out["cpu_seconds"] = time.process_time() - cpu  # the process's, setup included
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def measure(what: str, path: Path) -> dict:
    res = subprocess.run([sys.executable, __file__, "--child", what, str(path)],
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def measure_cli(path: Path) -> dict:
    t0 = time.perf_counter()
    res = run(["/usr/bin/env", "bash", "-c",
               f"{mqconsole_exe()} --embedded {path} summary {DLQ} --json >/dev/null; "
               "echo"], None)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "ok": res.returncode == 0}


def summary_figures(row: dict, path: Path, plain: bool) -> None:
    row["bare_loop"] = measure("bare", path)
    row["summary"] = measure("summary", path)
    row["bare_loop_again"] = measure("bare", path)  # the machine's drift within the run
    row["where"] = measure("where", path)
    row["bare_where"] = measure("bare_where", path)
    if plain:
        row["summary_plain"] = measure("plain", path)
        row["where_plain"] = measure("where_plain", path)
    row["summary_cli"] = measure_cli(path)
    bare = min(row["bare_loop"]["seconds"], row["bare_loop_again"]["seconds"])
    row["ratio_summary"] = bare / row["summary"]["seconds"]
    row["ratio_summary_cli"] = bare / row["summary_cli"]["seconds"]
    row["ratio_where"] = row["bare_where"]["seconds"] / row["where"]["seconds"]
    if "summary_plain" in row:
        row["ratio_summary_plain"] = bare / row["summary_plain"]["seconds"]
        row["ratio_where_plain"] = row["bare_where"]["seconds"] / row["where_plain"]["seconds"]


def file_figures(row: dict, path: Path) -> None:
    """save --all and load, each between two runs of its bare loop (the faster counts),
    in processes of their own; the file save wrote is what load reads, then removed."""
    row["bare_save"] = measure("bare_save", path)
    row["save"] = measure("save", path)
    row["bare_save_again"] = measure("bare_save", path)
    row["bare_load"] = measure("bare_load", path)
    row["load"] = measure("load", path)
    row["bare_load_again"] = measure("bare_load", path)
    _dmp(str(path)).unlink(missing_ok=True)
    for what in ("save", "load"):
        bare = min(row[f"bare_{what}"]["seconds"], row[f"bare_{what}_again"]["seconds"])
        row[f"ratio_{what}"] = bare / row[what]["seconds"]
        bare_cpu = min(row[f"bare_{what}"]["cpu_seconds"],
                       row[f"bare_{what}_again"]["cpu_seconds"])
        row[f"ratio_{what}_cpu"] = bare_cpu / row[what]["cpu_seconds"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--plain-all", action="store_true")
    parser.add_argument("--child", nargs=2)
    parser.add_argument("--figures", default="summary,files",
                        help="summary (summary and --where) and/or files (save and load)")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    warm_bytecode()
    sizes = [int(s) for s in args.sizes.split(",")]
    figures: dict = {"messages_of": "1 KiB, dead-letter header, persistence 0",
                     "load_average": os.getloadavg()[0]}
    wanted = set(args.figures.split(","))
    for n in sizes:
        path = data_file(n)
        row: dict = {}
        if "summary" in wanted:
            summary_figures(row, path, n == sizes[0] or args.plain_all)
        if "files" in wanted:
            file_figures(row, path)
        figures[str(n)] = row
    if len(sizes) > 1:
        lo, hi = figures[str(sizes[0])], figures[str(sizes[-1])]
        figures["rss_growth"] = {k: hi[k]["peak_rss_mb"] / lo[k]["peak_rss_mb"]
                                 for k in ("summary", "bare_loop", "where", "bare_where",
                                           "save", "bare_save", "load", "bare_load")
                                 if k in hi and k in lo}
    figures["load_average_after"] = os.getloadavg()[0]
    emit("dlq_scale", figures)


if __name__ == "__main__":
    main()

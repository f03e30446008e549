"""``mqconsole audit export`` of 1,000,000 messages on an embedded queue, beside a floor.

Figures (JSON on stdout):

* ``export_seconds``: a whole ``mqconsole --embedded FILE audit export --out DIR --queues
  BIG.DLQ --json`` process (Python start, Spark start, browse, decode, Parquet write with
  zstd partitioned by queue and put date, manifest, rename). Goal: <= 30 s.
* ``floor_seconds``: the same job as a whole process with a synthetic data source yielding
  the same rows (one real 8,192-row Arrow batch repeated, in as many partitions as the
  export reads the queue in: one per core) instead of browsing the queue, written the same
  way (partitioned by queue and put date, no shuffle): what Spark alone costs for these
  rows; ``export_seconds - floor_seconds`` is what reading the queue, decoding the headers
  and folding the stored aggregates add.
* ``cpu_seconds`` (in ``memory``): CPU time of the whole process tree (the JVM, the Python
  workers, the driver), which a loaded machine changes far less than wall time: the
  kernel's count of every descendant reaped (``getrusage(RUSAGE_CHILDREN)`` before and
  after), or the sum of the sampled processes' own seconds where that is more (a process
  left to init is not in the kernel's count); and
  ``cpu_seconds_by_process``: each process's own seconds (its children's not added, so
  nothing counts twice) by kind: Spark's Python processes (``spark_python``: the
  readers, planners and decoders), the ``jvm``, the ``driver`` (the ``mqconsole``
  process) and ``other``; a process is sampled every 0.25 s, so one that ends between two
  looks loses at most that.
* ``memory``: peak resident memory of Spark's Python workers (where batches are built) and
  of the whole process tree, at ``--small`` messages and at N: flat means about the same.

The queue holds dead letters (MQDLH + a 200-byte JSON body), put dates spread over 30 days,
6 reasons, 20 destinations, 10 put applications. It is built once (cached in
``.bench/audit``, or ``$MQCONSOLE_BENCH_DATA/audit``): 10,000 messages put through the
backend, then copied in SQLite to N
(the copy is the bench's setup; the export reads through the backend's browse).
``--mix realistic`` (the default, issue 25 item 10): 5 % of the seed messages carry an RFH2
with a ``usr`` folder after the MQDLH (the general decoder's rows), and every copy gets
a MsgId of its own (random, in the MD and the index), so MsgIds are unique and the MsgId
column does not compress to nothing; ``--mix plain``: the earlier data (every message a
plain dead letter, the 10,000 MsgIds repeated 100 times), the best case.
Options: ``--messages N`` (default 1,000,000), ``--small N`` (default 250,000),
``--master`` (default local[*]); ``--small 0`` skips the small export; ``--no-floor``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from _common import ROOT, emit, mqconsole_exe, warm_bytecode

QUEUE = "BIG.DLQ"
SEED = 10_000
DATA = Path(os.environ.get("MQCONSOLE_BENCH_DATA") or ROOT / ".bench") / "audit"
REASONS = [2053, 2085, 2035, 2087, 2189, 65536 + 7]


def build_queue(path: Path, n: int, mix: str = "realistic") -> None:
    """A queue manager file holding ``n`` messages on BIG.DLQ (cached)."""
    if path.exists():
        return
    from datetime import UTC, datetime, timedelta

    from mqconsole.backends.base import Context
    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message
    from mqconsole.mq.queue import QueueAttrs
    from mqconsole.mq.rfh2 import MQRFH2
    from mqconsole.ops.timefmt import format_put_date_time

    tmp = path.with_suffix(".tmp")
    for p in tmp.parent.glob(tmp.name + "*"):
        p.unlink()
    qm = open_embedded(str(tmp), create=True, name="QMBENCH")
    qm.define_queue(QueueAttrs(name=QUEUE, max_depth=999_999_999))
    start = datetime(2026, 10, 26, tzinfo=UTC)
    for i in range(SEED):
        put = start + timedelta(seconds=i * 30 * 86400 // SEED)
        d, t = format_put_date_time(put)
        body = json.dumps({"orderId": f"ORD-{i:08d}", "customer": f"C{i % 977:04d}",
                           "total": i % 1000 / 7, "currency": "EUR",
                           "note": "x" * 80}).encode()[:200]
        md = MQMD(format="MQSTR", put_date=d, put_time=t, put_appl_name=f"app-{i % 10}",
                  user_identifier="bench", msg_id=os.urandom(24), persistence=1)
        if mix == "realistic" and i % 20 == 7:  # 5 %: an RFH2 with properties (JMS)
            rfh = MQRFH2(folders=[f"<usr><orderId>ORD-{i:08d}</orderId><tenant>eu</tenant>"
                                  "</usr>"], format="MQSTR")
            body = rfh.pack(big_endian=False, ccsid=1208) + body
            md = md.copy(format="MQHRF2", ccsid=1208)
        dd, dt = format_put_date_time(put + timedelta(seconds=5))
        md, body = add_dead_letter_header(md, body, reason=REASONS[i % len(REASONS)],
                                          dest_q_name=f"APP.DEST.{i % 20:02d}",
                                          dest_qmgr_name="QMBENCH", put_appl_name="amqrmppa",
                                          put_date=dd, put_time=dt)
        qm.put(QUEUE, Message(md, body), context=Context.SET_ALL, syncpoint=True)
        if i % 1000 == 999:
            qm.commit()
    qm.commit()
    qm.close()
    db = sqlite3.connect(str(tmp))
    cols = ("queue, npri, priority, backout_count, expires_at, msg_id, correl_id, put_time, "
            "length, put_by, got_by, md, body")
    copies = -(-n // SEED) - 1
    for _ in range(copies):
        db.execute(f"INSERT INTO messages ({cols}) SELECT {cols} FROM messages "
                   f"WHERE id <= {SEED} ORDER BY id")
    db.execute(f"DELETE FROM messages WHERE id > {n}")
    if mix == "realistic":  # a MsgId of its own for every copy, in the MD and the index
        from mqconsole.mq.md import OFFSETS

        at = OFFSETS["msg_id"]
        db.execute(f"UPDATE messages SET msg_id = randomblob(24) WHERE id > {SEED}")
        db.execute(f"UPDATE messages SET md = CAST(substr(md, 1, {at}) || msg_id || "
                   f"substr(md, {at + 25}) AS BLOB) WHERE id > {SEED}")
    db.execute("UPDATE queues SET curdepth = (SELECT count(*) FROM messages "
               "WHERE queue = ?) WHERE name = ?", (QUEUE, QUEUE))
    db.commit()
    db.close()
    os.rename(tmp, path)
    for suffix in ("-wal", "-shm"):
        extra = Path(str(tmp) + suffix)
        if extra.exists():
            os.rename(extra, str(path) + suffix)
    for leftover in tmp.parent.glob(tmp.name + "*"):  # the lock file of the old name
        leftover.unlink()


# -- measuring a process tree ---------------------------------------------------------------

def _tree(root: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as fp:
                ppid = int(fp.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, []))
    return out


def _cpu_seconds(pid: int) -> float:
    """User + system seconds of ``pid`` itself (its reaped children's not added)."""
    try:
        with open(f"/proc/{pid}/stat") as fp:
            fields = fp.read().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:13]) / os.sysconf(
            "SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _reaped_seconds() -> float:
    """User + system seconds of this process's children it has waited for, and of theirs
    (each parent adds its reaped children's to its own count): each process once."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _rss_mb(pid: int) -> tuple[float, str]:
    try:
        with open(f"/proc/{pid}/status") as fp:
            rss = next((int(line.split()[1]) for line in fp if line.startswith("VmRSS:")), 0)
        with open(f"/proc/{pid}/cmdline", "rb") as fp:
            cmd = fp.read().replace(b"\0", b" ").decode(errors="replace")
        return rss / 1024, cmd
    except OSError:
        return 0.0, ""


def timed(args: list[str], env: dict) -> tuple[float, subprocess.CompletedProcess, dict]:
    """Wall seconds of a process, the peak RSS of its Python workers and its tree, and the
    CPU seconds of the tree (sampled: a process that ends between two looks loses at most
    a quarter of a second)."""
    peak = {"python_workers_mb": 0.0, "tree_mb": 0.0, "jvm_mb": 0.0}
    own: dict[int, float] = {}  # a process's own seconds, its children's apart
    kind: dict[int, str] = {}  # pid -> spark_python (Spark's Python processes), jvm, other
    reaped_before = _reaped_seconds()
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.25):
            total = workers = jvm = 0.0
            for pid in _tree(proc.pid):
                own[pid] = max(own.get(pid, 0.0), _cpu_seconds(pid))
                rss, cmd = _rss_mb(pid)
                total += rss
                if "java" in cmd.split(" ")[0]:  # (its arguments name pyspark's daemon)
                    jvm += rss
                    kind[pid] = "jvm"
                elif "pyspark" in cmd and ("daemon" in cmd or "worker" in cmd):
                    workers = max(workers, rss)
                    kind[pid] = "spark_python"
                elif cmd and "java" not in kind.get(pid, ""):
                    kind[pid] = "spark_python" if "pyspark" in cmd else "other"
            peak["tree_mb"] = max(peak["tree_mb"], total)
            peak["python_workers_mb"] = max(peak["python_workers_mb"], workers)
            peak["jvm_mb"] = max(peak["jvm_mb"], jvm)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - t0
    done.set()
    sampler.join()
    reaped = _reaped_seconds() - reaped_before
    by_kind: dict[str, float] = {}
    for pid, seconds_of in own.items():
        name = "driver" if pid == proc.pid else kind.get(pid, "other")
        by_kind[name] = by_kind.get(name, 0.0) + seconds_of
    return seconds, subprocess.CompletedProcess(args, proc.returncode, out, err), {
        **{k: round(v) for k, v in peak.items()},
        "cpu_seconds": round(max(reaped, sum(own.values())), 1),
        "cpu_seconds_by_process": {k: round(v, 1) for k, v in sorted(by_kind.items())}}


CONF: list[str] = []  # --conf K=V given to the export


def export(qm: Path, out: Path, master: str, home: Path) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["MQCONSOLE_HOME"] = str(home)
    seconds, r, memory = timed([mqconsole_exe(), "--embedded", str(qm), "audit", "export",
                                "--out", str(out), "--queues", QUEUE, "--master", master,
                                *(a for kv in CONF for a in ("--conf", kv)), "--json"], env)
    if r.returncode != 0:
        raise SystemExit(f"export failed ({r.returncode}): {r.stderr[-2000:]}")
    return {"seconds": round(seconds, 2), "rows": json.loads(r.stdout)["rows"],
            "memory": memory}


FLOOR = r'''
import sys, time
from pathlib import Path
qm_path, out, master, rows = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
from mqconsole.audit.session import SparkSettings, start_session
from mqconsole.audit.columns import snapshot_columns, spark_ddl, PARTITION_COLUMNS
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

class Floor(DataSource):
    @classmethod
    def name(cls):
        return "mqconsole_floor"
    def schema(self):
        return spark_ddl(snapshot_columns())
    def reader(self, schema):
        return FloorReader(self.options)

class FloorReader(DataSourceReader):
    def __init__(self, options):
        self.options = dict(options)
    def partitions(self):  # as the export splits the queue: one stretch per core
        return [InputPartition(i) for i in range(int(self.options["parts"]))]
    def read(self, partition):
        from mqconsole.audit.rows import BatchBuilder
        from mqconsole.backends.open import open_embedded
        qm = open_embedded(self.options["qm"])
        builder = BatchBuilder(snapshot_columns(), qmgr="QMBENCH", queue="BIG.DLQ",
                               source="queue")
        with qm.browse("BIG.DLQ") as cursor:
            for i, m in enumerate(cursor.next_batch(8192), 1):
                builder.add(m, i)
        batch = builder.flush()
        qm.close()
        parts, rows = int(self.options["parts"]), int(self.options["rows"])
        left = rows // parts + (partition.value < rows % parts)
        while left > 0:
            yield batch.slice(0, min(left, batch.num_rows))
            left -= batch.num_rows

spark = start_session(SparkSettings(master=master))
spark.dataSource.register(Floor)
parts = spark.sparkContext.defaultParallelism
frame = (spark.read.format("mqconsole_floor").option("qm", qm_path).option("rows", rows)
         .option("parts", parts).load())
frame.write.partitionBy(*PARTITION_COLUMNS).option("compression", "zstd").parquet(out)
print(rows)
'''


def floor(qm: Path, out: str, master: str, home: Path, rows: int) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["MQCONSOLE_HOME"] = str(home)
    seconds, r, memory = timed([sys.executable, "-c", FLOOR, str(qm), str(out), master,
                                str(rows)], env)
    if r.returncode != 0:
        raise SystemExit(f"floor failed ({r.returncode}): {r.stderr[-2000:]}")
    return {"seconds": round(seconds, 2), "memory": memory}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=250_000)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--mix", choices=("realistic", "plain"), default="realistic")
    parser.add_argument("--no-floor", action="store_true")
    parser.add_argument("--conf", action="append", default=[], metavar="K=V",
                        help="a Spark setting for the export (repeatable)")
    args = parser.parse_args()
    CONF.extend(args.conf)
    DATA.mkdir(parents=True, exist_ok=True)
    warm_bytecode()
    home = DATA / "home"
    load_before = os.getloadavg()
    figures: dict = {"messages": args.messages, "master": args.master, "mix": args.mix,
                     "conf": args.conf}
    tag = "" if args.mix == "plain" else "-realistic"
    small_qm = DATA / f"qm-{args.small}{tag}.sqlite"
    big_qm = DATA / f"qm-{args.messages}{tag}.sqlite"
    build_queue(big_qm, args.messages, args.mix)
    small = None
    if args.small:  # --small 0: the big export and the floor only
        build_queue(small_qm, args.small, args.mix)
        small = export(small_qm, DATA / "snap-small", args.master, home)
    big = export(big_qm, DATA / "snap", args.master, home)
    flo = {"seconds": None, "memory": {"cpu_seconds": None}} if args.no_floor else floor(
        big_qm, str(DATA / "floor"), args.master, home, args.messages)
    files = sorted((DATA / "snap" / "messages").rglob("*.parquet"))
    figures.update({
        "export_seconds": big["seconds"], "export_rows": big["rows"],
        "floor_seconds": flo["seconds"],
        "reading_and_decoding_seconds": None if flo["seconds"] is None else round(
            big["seconds"] - flo["seconds"], 2),
        "export_cpu_seconds": big["memory"]["cpu_seconds"],
        "floor_cpu_seconds": flo["memory"]["cpu_seconds"],
        "data_files": len(files),
        "data_mb": round(sum(f.stat().st_size for f in files) / 2**20, 1),
        "messages_per_second": round(big["rows"] / big["seconds"]),
        "memory": {**({f"{args.small}_messages": small["memory"]} if small else {}),
                   f"{args.messages}_messages": big["memory"], "floor": flo["memory"]},
        "small_export_seconds": small["seconds"] if small else None,
        "goal_seconds": 30,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    })
    emit("audit_export", figures)


if __name__ == "__main__":
    main()

"""Put and browse throughput of the embedded backend next to a bare SQLite loop.

The bare loop does the same work in the same run: insert rows holding a packed MQMD and a
1 KiB body, committing every 100, then read them back in keyset-paginated batches. The
ratio (backend rate / bare rate) is the figure.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
from pathlib import Path

from _common import Timer, emit

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message


def bare_sqlite(path: Path, n: int, body: bytes, md: bytes, batch: int,
                synchronous: str) -> tuple[float, float]:
    """The same rows (packed MD, body, indexed MsgId) and commit cadence, no MQ logic."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute("CREATE TABLE m (id INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT, npri INT,"
               " msg_id BLOB, md BLOB, body BLOB)")
    db.execute("CREATE INDEX mq ON m(queue, npri, id)")
    db.execute("CREATE INDEX mi ON m(queue, msg_id)")
    with Timer() as put:
        db.execute("BEGIN IMMEDIATE")
        for i in range(n):
            db.execute("INSERT INTO m(queue, npri, msg_id, md, body) VALUES (?,?,?,?,?)",
                       ("Q", 4, i.to_bytes(24, "big"), md, body))
            if (i + 1) % batch == 0:
                db.execute("COMMIT")
                db.execute("BEGIN IMMEDIATE")
        db.execute("COMMIT")
    with Timer() as read:
        got = 0  # one streaming query in delivery order: the cheapest way to read them all
        for _npri, _id, _md, _body in db.execute(
                "SELECT npri, id, md, body FROM m WHERE queue='Q' ORDER BY npri, id"):
            got += 1
    assert got == n
    db.close()
    return n / put.seconds, n / read.seconds


def backend(path: Path, n: int, body: bytes, batch: int) -> tuple[float, float, float]:
    qm = create_queue_manager(str(path), name="BENCH")
    from mqconsole.mq.queue import QueueAttrs

    qm.define_queue(QueueAttrs(name="Q", max_depth=10_000_000))
    md = MQMD(format="MQSTR", ccsid=1208, persistence=1, priority=5)
    with Timer() as put:
        for i in range(n):
            qm.put("Q", Message(md, body), context=Context.NEW, syncpoint=True)
            if (i + 1) % batch == 0:
                qm.commit()
        qm.commit()
    with Timer() as read:
        got = 0
        with qm.browse("Q") as cur:
            while True:
                msgs = cur.next_batch(200)
                got += len(msgs)
                if len(msgs) < 200:
                    break
    assert got == n, got
    with Timer() as read_md:  # the same, looking at each MD (unpacked on first use)
        got = 0
        with qm.browse("Q") as cur:
            while True:
                msgs = cur.next_batch(200)
                for m in msgs:
                    got += m.md.priority == 5
                if len(msgs) < 200:
                    break
    assert got == n, got
    qm.close()
    return n / put.seconds, n / read.seconds, n / read_md.seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=50_000)
    ap.add_argument("--batch", type=int, default=100)
    args = ap.parse_args()
    body = bytes(range(256)) * 4
    md_bytes = MQMD(format="MQSTR").pack()
    with tempfile.TemporaryDirectory() as d:
        # persistent messages: the backend syncs the WAL at every commit, as FULL does
        bare_put, bare_read = bare_sqlite(Path(d) / "bare.sqlite", args.messages, body,
                                          md_bytes, args.batch, "FULL")
        bare_put_normal, _ = bare_sqlite(Path(d) / "bare2.sqlite", args.messages, body,
                                         md_bytes, args.batch, "NORMAL")
        be_put, be_read, be_read_md = backend(Path(d) / "qm.sqlite", args.messages, body,
                                              args.batch)
    emit("embedded_throughput", {
        "messages": args.messages, "body_bytes": len(body), "commit_every": args.batch,
        "backend_put_per_s": round(be_put), "bare_sqlite_put_per_s": round(bare_put),
        "put_ratio": round(be_put / bare_put, 3),
        "bare_sqlite_put_per_s_sync_normal": round(bare_put_normal),
        "put_ratio_vs_sync_normal": round(be_put / bare_put_normal, 3),
        "note": "bare loop: same rows and indexes, synchronous=FULL like the backend's "
                "commit of persistent messages; reads parse nothing (the backend parses MDs)",
        "backend_browse_per_s": round(be_read), "bare_sqlite_read_per_s": round(bare_read),
        "browse_ratio": round(be_read / bare_read, 3),
        # messages keep their MD packed until it is looked at: the same browse, reading
        # each one's MD (all 29 fields unpacked)
        "backend_browse_reading_md_per_s": round(be_read_md),
        "browse_reading_md_ratio": round(be_read_md / bare_read, 3),
    })


if __name__ == "__main__":
    main()

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


def bare_sqlite(path: Path, n: int, body: bytes, md: bytes, batch: int) -> tuple[float, float]:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE m (id INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT, npri INT,"
               " msg_id BLOB, md BLOB, body BLOB)")
    db.execute("CREATE INDEX mq ON m(queue, npri, id)")
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
        last = (-1, -1)
        got = 0
        while True:
            rows = db.execute("SELECT npri, id, md, body FROM m WHERE queue='Q' AND "
                              "(npri, id) > (?, ?) ORDER BY npri, id LIMIT 200", last).fetchall()
            for r in rows:
                MQMD.unpack(r[2])
            got += len(rows)
            if len(rows) < 200:
                break
            last = (rows[-1][0], rows[-1][1])
    assert got == n
    db.close()
    return n / put.seconds, n / read.seconds


def backend(path: Path, n: int, body: bytes, batch: int) -> tuple[float, float]:
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
    qm.close()
    return n / put.seconds, n / read.seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=50_000)
    ap.add_argument("--batch", type=int, default=100)
    args = ap.parse_args()
    body = bytes(range(256)) * 4
    md_bytes = MQMD(format="MQSTR").pack()
    with tempfile.TemporaryDirectory() as d:
        bare_put, bare_read = bare_sqlite(Path(d) / "bare.sqlite", args.messages, body,
                                          md_bytes, args.batch)
        be_put, be_read = backend(Path(d) / "qm.sqlite", args.messages, body, args.batch)
    emit("embedded_throughput", {
        "messages": args.messages, "body_bytes": len(body), "commit_every": args.batch,
        "backend_put_per_s": round(be_put), "bare_sqlite_put_per_s": round(bare_put),
        "put_ratio": round(be_put / bare_put, 3),
        "backend_browse_per_s": round(be_read), "bare_sqlite_read_per_s": round(bare_read),
        "browse_ratio": round(be_read / bare_read, 3),
    })


if __name__ == "__main__":
    main()

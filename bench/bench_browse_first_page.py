"""First page of ``browse`` on a queue of 1,000,000 messages (target under 0.2 s).

Fills a queue through the backend (once, cached under .demo/bench-1m.sqlite unless
--fresh), then times the first page three ways: the cursor's first batch in-process,
``ops.browse.iter_views`` for 50 rows in-process, and a whole ``mqconsole browse Q
--limit 50 --json`` process (interpreter start included).
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from _common import BYTECODE_NOTE, ROOT, Timer, emit, mqconsole_exe, run, warm_bytecode

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs


def fill(path: Path, n: int) -> float:
    qm = create_queue_manager(str(path), name="BIG")
    qm.define_queue(QueueAttrs(name="BIG.Q", max_depth=n + 10))
    md = MQMD(format="MQSTR", ccsid=1208)
    body = b'{"order": 12345, "status": "poison"}' * 8
    with Timer() as t:
        for i in range(n):
            qm.put("BIG.Q", Message(md, body), context=Context.NEW, syncpoint=True)
            if (i + 1) % 1000 == 0:
                qm.commit()
        qm.commit()
    qm.close()
    return t.seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--fresh", action="store_true")
    args = ap.parse_args()
    path = ROOT / ".demo" / f"bench-{args.messages}.sqlite"
    path.parent.mkdir(exist_ok=True)
    fill_seconds = None
    if args.fresh or not path.exists():
        for p in path.parent.glob(path.name + "*"):
            p.unlink()
        fill_seconds = fill(path, args.messages)
    from mqconsole.ops.browse import iter_views

    warm_bytecode()
    cursor_times, view_times, cli_times = [], [], []
    for _ in range(5):
        qm = open_embedded(str(path))
        with Timer() as t, qm.browse("BIG.Q") as cur:
            page = cur.next_batch(50)
        assert len(page) == 50
        cursor_times.append(t.seconds)
        with Timer() as t:
            rows = [v.row() for v in iter_views(qm, "BIG.Q", limit=50, batch=50)]
        assert len(rows) == 50
        view_times.append(t.seconds)
        qm.close()
        env = dict(os.environ, MQCONSOLE_HOME=str(path.parent / "home"))
        with Timer() as t:
            r = run([mqconsole_exe(), "--embedded", str(path), "browse", "BIG.Q", "--limit", "50",
                     "--json"], env=env)
        assert r.returncode == 0, r.stderr
        cli_times.append(t.seconds)
    emit("browse_first_page", {
        "queue_depth": args.messages, "page": 50, "fill_seconds": fill_seconds,
        "cursor_first_batch_s": round(statistics.median(cursor_times), 4),
        "iter_views_first_page_s": round(statistics.median(view_times), 4),
        "cli_browse_process_s": round(statistics.median(cli_times), 3),
        "note": BYTECODE_NOTE,
        "target_s": 0.2,
    })


if __name__ == "__main__":
    main()

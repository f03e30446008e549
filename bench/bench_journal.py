"""What journaling each commit costs a move (issue 17 item 2, issue 16's "say what
per-commit journaling costs").

On fresh copies of the same embedded queue manager (N messages of 1 KiB, default 100,000),
``Operation(Move(...)).run`` is timed without a journal and with one (a start record, a
unit record before and a commit record after each commit of ``--batch`` messages, an end
record), alternating, ``--repeat`` times; the best of each is reported with the difference
per commit. ``record_pair_us`` times the two records of one 100-message unit alone
(``Recorder.unit`` + ``Recorder.committed`` on a file in the same folder), and
``end_record_bytes`` / ``journal_bytes`` say how big the journal of the move is.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from _common import Timer, emit

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.journal import Journal, JournalEntry
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.selection import Selection

SRC, DST = "BENCH.SRC", "BENCH.DST"


def build(path: Path, n: int) -> None:
    qm = create_queue_manager(path, name="QMB")
    for name in (SRC, DST):
        qm.define_queue(QueueAttrs(name=name, max_depth=10_000_000))
    body = bytes(range(256)) * 4
    for i in range(n):
        md = MQMD(format="MQSTR", ccsid=1208, persistence=1, msg_id=i.to_bytes(24, "big"))
        qm.put(SRC, Message(md, body), context=Context.SET_ALL, syncpoint=True)
        if i % 1000 == 999:
            qm.commit()
    qm.commit()
    qm.close()


def fresh(template: Path, target: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        extra = Path(str(template) + suffix)
        if extra.exists():
            shutil.copy(extra, str(target) + suffix)
    return target


def move(path: Path, n: int, batch: int, journal: Journal | None) -> float:
    qm = open_embedded(path)
    op = Operation(Move(SRC, DST, Selection(all=True), batch=batch), journal=journal)
    with Timer() as t:
        s = op.run(qm)
    assert s.result.done == n and s.exit_code == 0, s.to_json()
    qm.close()
    return t.seconds


def record_pair_us(folder: Path, rounds: int = 2000) -> float:
    journal = Journal(folder / "pairs.jsonl")
    rec = journal.begin(JournalEntry(operation="move", source=SRC, destinations=[DST]))
    ids = [f"{i:048X}" for i in range(100)]
    dests = [DST] * 100
    with Timer() as t:
        for _ in range(rounds):
            rec.unit(ids, dests)
            rec.committed()
    return t.seconds / rounds * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n, batch = args.messages, args.batch
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        template = work / "template.sqlite"
        build(template, n)
        plain, journaled = [], []
        size = end_size = 0
        for r in range(args.repeat):
            plain.append(move(fresh(template, work / f"p{r}.sqlite"), n, batch, None))
            jpath = work / f"journal{r}.jsonl"
            journaled.append(move(fresh(template, work / f"j{r}.sqlite"), n, batch,
                                  Journal(jpath)))
            size = jpath.stat().st_size
            end_size = len(jpath.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
            for f in work.glob(f"[pj]{r}.sqlite*"):
                f.unlink()
        pair = record_pair_us(work)
    commits = -(-n // batch)
    best_plain, best_journal = min(plain), min(journaled)
    emit("journal", {
        "messages": n, "commit_every": batch, "commits": commits, "repeat": args.repeat,
        "move_without_journal_per_s": round(n / best_plain),
        "move_with_journal_per_s": round(n / best_journal),
        "all_seconds": {"without": [round(x, 3) for x in plain],
                        "with": [round(x, 3) for x in journaled]},
        "journal_cost_share": round(best_journal / best_plain - 1, 4),
        "journal_cost_per_commit_us": round((best_journal - best_plain) / commits * 1e6, 1),
        "record_pair_us": round(pair, 1),
        "journal_bytes": size,
        "end_record_bytes": end_size,
    })


if __name__ == "__main__":
    main()

"""The writer processes of tests/ops/test_journal.py's concurrent-appends test, in a module
of their own: a spawned process imports the module its target lives in, and the test
module brings Hypothesis and pytest with it (0.41 CPU-s a process against 0.12 for this)."""

from __future__ import annotations

from mqconsole.ops.journal import Journal, JournalEntry, Outcome

WRITERS = 4
RECORDS = 500
BIG = 400  # msgids per record: ~20 KB lines, far above PIPE_BUF (4 KB)


def writer(path: str, worker: int) -> None:
    journal = Journal(path)
    for n in range(RECORDS):
        ids = [f"{worker:04d}{n:06d}{k:038X}" for k in range(BIG)]
        journal.append(JournalEntry(operation="move", source=f"W{worker}", msgids=ids,
                                    outcomes=[Outcome(ids[0], "done")],
                                    details={"worker": worker, "n": n}))

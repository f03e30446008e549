"""The export's Python readers alone, outside Spark: CPU seconds per 100,000 messages.

An export's readers (``audit.datasource.MqconsoleReader.read``, one per stretch of the
queue) browse the embedded queue and decode the rows into Arrow batches; with the raw
rows (a queue of real MQ, spread across the cluster) the reader yields them undecoded and
``audit.raw.decode_batch`` decodes them after a repartition. This runs both in one
process on a stretch of ``--rows`` messages of the export bench's queue
(``bench_audit_export.py``'s data, built the same way when missing), after one warm-up
read, and reports CPU seconds (``time.process_time``) per 100,000 rows:

* ``reader``: ``read()`` as an export of an embedded queue runs it (browse + decode);
* ``browse``: the cursor's packed reads alone (``next_packed``), what ``reader`` spends
  in SQLite and the cursor;
* ``raw_read`` and ``raw_decode``: the raw rows' ``read()``, then ``decode_batch`` of them;
* ``first_batch``: the first batch of a fresh reader in this process (imports included),
  and ``pandas_imported`` after it (pyarrow's list conversions import pandas: a third of
  a CPU-second in every Spark Python process that does).

Options: ``--messages N`` (the queue file, default 1,000,000), ``--rows N`` (the stretch,
default 100,000), ``--mix plain|realistic`` (default plain), ``--repeat N`` (default 3:
the median is reported).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from _common import emit
from bench_audit_export import DATA, QUEUE, build_queue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--mix", choices=("realistic", "plain"), default="plain")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    tag = "" if args.mix == "plain" else "-realistic"
    qm_path = str(DATA / f"qm-{args.messages}{tag}.sqlite")
    build_queue(DATA / f"qm-{args.messages}{tag}.sqlite", args.messages, args.mix)

    t0 = time.process_time()
    from mqconsole.audit.columns import snapshot_columns
    from mqconsole.audit.datasource import MqconsoleReader, SourcePartition
    from mqconsole.audit.raw import decode_batch
    from mqconsole.audit.sources import connected, split_queue
    from mqconsole.backends.base import packed_browse
    imports = time.process_time() - t0

    connection = {"backend": "embedded", "path": qm_path}
    with connected(connection) as qm:
        parts = split_queue(qm, "embedded:" + qm_path, QUEUE,
                            max(1, args.messages // args.rows), min(args.rows, 50_000))
    columns = snapshot_columns()

    def reader(raw: bool) -> MqconsoleReader:
        return MqconsoleReader({"embedded": qm_path, "raw": str(raw).lower()}, columns, {},
                               [])

    t0 = time.process_time()
    first = reader(False).read(SourcePartition(0, parts[0]))
    next(first)
    first.close()
    first_batch = time.process_time() - t0
    pandas_imported = "pandas" in sys.modules
    stretch = parts[1] if len(parts) > 1 else parts[0]

    def timed(run) -> tuple[float, int]:
        t = time.process_time()
        rows = run()
        return time.process_time() - t, rows

    def read(raw: bool) -> list:
        return list(reader(raw).read(SourcePartition(1, stretch)))

    def browse() -> int:
        rows = 0
        with connected(connection) as qm, qm.browse_range(QUEUE, stretch.part) as cursor:
            packed = packed_browse(cursor)
            assert packed is not None
            while True:
                page = packed.next_packed(8192)
                rows += len(page)
                if len(page) < 8192:
                    return rows

    read(False)  # warm: every module and cache in place
    figures: dict[str, list[float]] = {k: [] for k in (
        "reader", "browse", "raw_read", "raw_decode")}
    n = 0
    for _ in range(args.repeat):
        seconds, batches = timed(lambda: read(False))
        n = sum(b.num_rows for b in batches)
        figures["reader"].append(seconds)
        figures["browse"].append(timed(browse)[0])
        seconds, raw = timed(lambda: read(True))
        figures["raw_read"].append(seconds)
        figures["raw_decode"].append(timed(lambda raw=raw: [decode_batch(b, columns)
                                                            for b in raw])[0])
    per = 100_000 / max(n, 1)
    emit("audit_reader", {
        "messages": args.messages, "mix": args.mix, "rows": n,
        "cpu_seconds_per_100k": {k: round(statistics.median(v) * per, 3)
                                 for k, v in figures.items()},
        "runs": {k: [round(x * per, 3) for x in v] for k, v in figures.items()},
        "imports_cpu_seconds": round(imports, 2), "first_batch_cpu_seconds": round(
            first_batch, 2), "pandas_imported": pandas_imported,
    })


if __name__ == "__main__":
    main()

"""The audit report (issue 11): warm, as a new process, and DuckDB on the same Parquet.

For each size (default 1,000,000 and 5,000,000 rows) a snapshot is written in the export's
layout (Parquet, zstd, partitioned by queue and put date; synthetic rows with dead-letter
headers, unknown reasons, unparsed headers and duplicate MsgIds) and its stored aggregates
computed (``audit.summary.summarize``: Spark over the written files, as the export does;
its seconds are reported).
Then:

- ``warm``: ``build_report`` on a live local[2] session (median of 3), from the stored
  aggregates; ``warm_from_messages``: the same without them (every list from the messages);
- ``cold``: ``mqconsole audit report --in DIR --json --master local[2]`` as a new process;
- ``duckdb``: the same report (the same lists, from the messages) in DuckDB over the same
  Parquet — pip ``duckdb`` for this bench only; its counts are checked against ours.

``--snapshot DIR`` (issue 25 item 10, like for like): instead of synthetic rows, a snapshot
an export wrote (``bench_audit_export.py`` leaves one in ``.bench/audit/snap``), read by both
Spark and DuckDB from the same files the manifest lists; its stored aggregates are the
export's own.

Usage: bench_audit_report.py [--rows 1000000,5000000] [--dir DIR] [--snapshot DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from _common import Timer, emit, mqconsole_exe

AS_OF = datetime(2026, 11, 25, 10, 0, 0, tzinfo=UTC)
QUEUES = [("QM1", "SYSTEM.DEAD.LETTER.QUEUE"), ("QM1", "APP.ORDERS.BOQ"),
          ("QM1", "APP.BILLING.BOQ"), ("QM2", "SYSTEM.DEAD.LETTER.QUEUE"),
          ("QM2", "APP.PAYMENTS.BOQ"), ("QM3", "SYSTEM.DEAD.LETTER.QUEUE"),
          ("QM3", "APP.AUDIT.BOQ"), ("QM4", "SYSTEM.DEAD.LETTER.QUEUE")]
REASONS = [2053, 2085, 2035, 2030, 2087, 2052, 2189, 2042, 65535, 999]
CHUNK = 1_000_000


def write_snapshot(folder: Path, rows: int, seed: int = 7) -> None:
    """``rows`` synthetic snapshot rows in the export's layout, a million at a time."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mqconsole.audit.columns import arrow_schema, snapshot_columns
    from mqconsole.mq.names import reason_name

    schema = arrow_schema(snapshot_columns())
    rng = np.random.default_rng(seed)
    names = {r: (reason_name(r) if r < 3000 and reason_name(r).startswith("MQRC_") else None)
             for r in REASONS}
    as_of_us = int(AS_OF.timestamp() * 1_000_000)
    positions = dict.fromkeys(range(len(QUEUES)), 0)
    previous_ids: np.ndarray | None = None
    for start in range(0, rows, CHUNK):
        n = min(CHUNK, rows - start)
        q = rng.integers(0, len(QUEUES), n)
        pos = np.empty(n, dtype=np.int64)
        for i in range(len(QUEUES)):
            where = np.nonzero(q == i)[0]
            pos[where] = positions[i] + 1 + np.arange(len(where))
            positions[i] += len(where)
        raw = rng.integers(0, 256, (n, 24), dtype=np.uint8)
        ids = np.array([bytes(r).hex().upper() for r in raw], dtype=object)
        seen = ids[: 10_000] if previous_ids is None else previous_ids
        dup = rng.random(n) < 0.005  # 0.5 % MsgIds seen before (on any queue)
        dup[: 10_000] &= previous_ids is not None
        ids[dup] = rng.choice(seen, int(dup.sum()))
        previous_ids = seen
        put = as_of_us - rng.integers(0, 60 * 86_400_000_000, n)
        put = put // 10_000 * 10_000  # MQ put times are in hundredths of a second
        has_dlh = rng.random(n) < 0.7
        unparsed = rng.random(n) < 0.005
        has_dlh &= ~unparsed
        reason = np.array(REASONS, dtype=np.int32)[rng.integers(0, len(REASONS), n)]
        dest = rng.integers(0, 50, n)
        length = rng.integers(100, 8000, n)
        dlh_put = put + rng.integers(0, 3_600_000_000, n)
        ts = pa.timestamp("us", tz="UTC")
        mask = ~has_dlh
        columns = {
            "qmgr": pa.array([QUEUES[i][0] for i in q]),
            "queue": pa.array([QUEUES[i][1] for i in q]),
            "position": pa.array(pos), "source": pa.repeat("queue", n),
            "msg_id": pa.array(ids, pa.string()),
            "put_time": pa.array(put, ts),
            "put_date": pa.array(put // 86_400_000_000, pa.int32()).cast(pa.date32()),
            "put_appl_name": pa.array([f"app-{i:02d}" for i in rng.integers(0, 40, n)]),
            "backout_count": pa.array(rng.integers(0, 6, n), pa.int32()),
            "length": pa.array(length), "format": pa.array(np.where(has_dlh, "MQDEAD",
                                                                     "MQSTR")),
            "dlh_reason": pa.array(reason, mask=mask),
            "dlh_reason_name": pa.array([names[r] if d else None
                                         for r, d in zip(reason, has_dlh, strict=True)],
                                        pa.string()),
            "dlh_dest_q": pa.array([f"APP.Q{d:02d}" if h else None
                                    for d, h in zip(dest, has_dlh, strict=True)], pa.string()),
            "dlh_dest_qmgr": pa.array(np.where(has_dlh, "QM9", None), pa.string()),
            "dlh_put_time": pa.array(dlh_put, ts, mask=mask),
            "properties": pa.MapArray.from_arrays(
                pa.array(np.zeros(n + 1, dtype=np.int32)), pa.array([], pa.string()),
                pa.array([], pa.string()), mask=pa.array(unparsed)),
            "payload_length": pa.array(np.where(has_dlh, length - 172, length)),
        }
        arrays = [columns[f.name] if f.name in columns else pa.nulls(n, f.type)
                  for f in schema]
        table = pa.Table.from_arrays(arrays, schema=schema)
        pq.write_to_dataset(table, root_path=str(folder), partition_cols=["queue", "put_date"],
                            compression="zstd", basename_template=f"part-{start}-{{i}}.parquet",
                            existing_data_behavior="overwrite_or_ignore")


DUCK_LISTS = {
    "by_queue": "SELECT qmgr, queue, count(*), sum(length) FROM m GROUP BY ALL",
    "by_reason": "SELECT dlh_reason, any_value(dlh_reason_name), count(*) FROM m GROUP BY 1",
    "by_destination": "SELECT dlh_dest_qmgr, dlh_dest_q, count(*) FROM m "
                      "WHERE dlh_reason IS NOT NULL GROUP BY ALL",
    "by_reason_destination": "SELECT dlh_reason, dlh_dest_q, count(*) FROM m "
                             "WHERE dlh_reason IS NOT NULL GROUP BY ALL",
    "by_put_application": "SELECT put_appl_name, count(*) FROM m GROUP BY 1",
    "backout_counts": "SELECT backout_count, count(*) FROM m GROUP BY 1",
    "duplicate_msg_ids": "SELECT msg_id, count(*), list(DISTINCT queue ORDER BY queue) FROM m "
                         "WHERE msg_id IS NOT NULL GROUP BY 1 HAVING count(*) > 1",
}


def duckdb_report(folder: Path) -> tuple[float, dict]:
    """The report's lists in DuckDB over the same Parquet (a fresh connection, timed)."""
    import duckdb

    from mqconsole.audit.report import BUCKET_EDGES

    with Timer() as t:
        con = duckdb.connect()
        nested = next(folder.glob("queue=*/put_date=*"), None) is not None
        files = f"{folder}/queue=*/*/*.parquet" if nested else f"{folder}/queue=*/*.parquet"
        types = "{'queue': VARCHAR, 'put_date': VARCHAR}" if nested else "{'queue': VARCHAR}"
        con.execute(f"CREATE VIEW m AS SELECT * FROM read_parquet('{files}', "
                    f"hive_partitioning=true, hive_types={types})")
        out: dict = {}
        out["totals"] = con.execute("SELECT count(*), sum(length), count_if(properties IS NULL)"
                                    " FROM m").fetchall()
        edges = [(AS_OF - e).strftime("%Y-%m-%d %H:%M:%S+00") for e in BUCKET_EDGES]
        arrival = "coalesce(dlh_put_time, put_time)"
        out["by_age"] = con.execute(
            f"SELECT CASE WHEN {arrival} > TIMESTAMPTZ '{edges[0]}' THEN '<1h' "
            f"WHEN {arrival} > TIMESTAMPTZ '{edges[1]}' THEN '1h-24h' "
            f"WHEN {arrival} > TIMESTAMPTZ '{edges[2]}' THEN '1d-7d' "
            f"WHEN {arrival} > TIMESTAMPTZ '{edges[3]}' THEN '7d-30d' ELSE '>30d' END, "
            f"count(*) FROM m WHERE {arrival} IS NOT NULL GROUP BY 1").fetchall()
        for key, sql in DUCK_LISTS.items():
            out[key] = con.execute(sql).fetchall()
        for key, how in (("oldest", "ASC"), ("youngest", "DESC")):
            out[key] = con.execute(
                f"SELECT {arrival}, qmgr, queue, position, msg_id FROM m WHERE {arrival} "
                f"IS NOT NULL ORDER BY 1 {how}, 2 {how}, 3 {how}, 4 {how}, 5 {how} LIMIT 1"
            ).fetchall()
        con.close()
    return t.seconds, out


def same_counts(ours: dict, duck: dict) -> bool:
    """Our report and DuckDB's agree on every count (a check of the bench itself)."""
    total = duck["totals"][0]
    checks = [ours["messages"] == total[0], ours["bytes"] == total[1],
              ours["unparsed"] == total[2],
              {b["bucket"]: b["count"] for b in ours["by_age"] if b["count"]}
              == dict(duck["by_age"]),
              len(ours["duplicate_msg_ids"]) == len(duck["duplicate_msg_ids"])]
    for key in DUCK_LISTS:
        checks.append(sorted(r["count"] for r in ours[key])
                      == sorted(row[2 if key in ("by_queue", "by_reason", "by_destination",
                                                 "by_reason_destination") else 1]
                                for row in duck[key]))
    return all(checks)


def cold(folder: Path) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with Timer() as t:
        p = subprocess.run([mqconsole_exe(), "audit", "report", "--in", str(folder), "--json",
                            "--as-of", "2026-11-25T10:00:00Z", "--master", "local[2]"],
                           capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"cold report failed: {p.stderr}")
    return t.seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="1000000,5000000")
    parser.add_argument("--dir", default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--snapshot", default=None)
    args = parser.parse_args()
    os.environ.setdefault("MQCONSOLE_HOME", tempfile.mkdtemp(prefix="bench-audit-home-"))
    from mqconsole.audit.report import build_report
    from mqconsole.audit.session import SparkSettings, start_session
    from mqconsole.audit.summary import summarize

    base = Path(args.dir or tempfile.mkdtemp(prefix="bench-audit-"))
    with Timer() as t:
        spark = start_session(SparkSettings(master="local[2]"))
    results: dict = {"session_start_s": round(t.seconds, 2), "sizes": []}
    import json

    sizes = [int(r) for r in args.rows.split(",")]
    if args.snapshot:
        sizes = [json.loads((Path(args.snapshot) / "manifest.json").read_text())["rows"]]
    for rows in sizes:
        folder = base / f"snap-{rows}"
        snapshot = folder
        with Timer() as t:
            if args.snapshot:
                snapshot = Path(args.snapshot).resolve()
                folder = snapshot / "messages"
            elif not folder.exists():
                write_snapshot(folder, rows)
        written = t.seconds
        with Timer() as t:
            if not args.snapshot:  # an export's snapshot has its own
                summarize(spark, folder, folder)
        summary_s = t.seconds
        build_report(spark, snapshot, as_of=AS_OF)  # first job of this size: file listing
        warm = []
        for _ in range(args.rounds):
            with Timer() as t:
                ours = build_report(spark, snapshot, as_of=AS_OF)
            warm.append(t.seconds)
        from_runs = []
        for _ in range(args.rounds):
            with Timer() as t:
                from_messages = build_report(spark, snapshot, as_of=AS_OF, use_summary=False)
            from_runs.append(t.seconds)
        raw_s = statistics.median(from_runs)
        duck_runs = [duckdb_report(folder) for _ in range(args.rounds)]
        duck = duck_runs[0][1]
        duck_s = statistics.median(d[0] for d in duck_runs)
        cold_s = cold(snapshot)
        load = os.getloadavg()[0]
        results["sizes"].append({
            "rows": rows, "snapshot_written_s": round(written, 1),
            "stored_aggregates_s": round(summary_s, 2),
            "warm_s": round(statistics.median(warm), 2), "warm_runs_s": [round(w, 2)
                                                                         for w in warm],
            "warm_from_messages_s": round(raw_s, 2),
            "warm_from_messages_runs_s": [round(r, 2) for r in from_runs],
            "duckdb_runs_s": [round(d[0], 2) for d in duck_runs],
            "cold_process_s": round(cold_s, 2),
            "duckdb_s": round(duck_s, 2),
            "warm_over_duckdb": round(statistics.median(warm) / duck_s, 2),
            "from_messages_over_duckdb": round(raw_s / duck_s, 2),
            "same_report_both_paths": ours == from_messages,
            "same_counts_as_duckdb": same_counts(ours, duck), "load_avg": round(load, 1)})
        print(f"{rows:,} rows: {results['sizes'][-1]}", file=sys.stderr)
    sizes = results["sizes"]
    if len(sizes) > 1:
        a, b = sizes[0], sizes[-1]
        results["growth"] = {k: round(b[k] / a[k], 2) for k in
                             ("warm_s", "warm_from_messages_s", "cold_process_s", "duckdb_s",
                              "stored_aggregates_s")}
        results["growth"]["rows"] = round(b["rows"] / a["rows"], 2)
    spark.stop()
    emit("audit_report", results)


if __name__ == "__main__":
    t0 = time.time()
    main()

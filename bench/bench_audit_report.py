"""The audit report (issues 11 and 25 item 10): one question, four ways, one snapshot.

The question is audit.md's report (every key, every list in its order) at one ``--as-of``.
The four ways, each over the same snapshot:

- ``spark_aggregates``: ``build_report`` — Spark from the stored aggregates (``_summary/``),
  after its check of the data files against the manifest: our normal report;
- ``spark_messages``: ``build_report(use_summary=False)`` — Spark from the messages, the
  recompute ``audit report`` falls back to when the aggregates disagree with the manifest;
- ``duckdb_messages``: DuckDB over the same Parquet files the manifest lists: one
  ``GROUPING SETS`` query (every list and the age buckets), the oldest and youngest, and
  the duplicate MsgIds;
- ``duckdb_aggregates``: DuckDB over the same stored aggregates.

Both DuckDB ways first check each data file's rows against the manifest from the Parquet
footers, as both of ours do (by a Spark count per file).

Each **warm** (in this process: a live ``local[2]`` session, an open DuckDB connection;
median of ``--rounds`` after one unmeasured run) and **cold** (a new process: Python, the
imports, the session or connection, the report; ``spark_aggregates`` cold is the real
``mqconsole audit report --json``). Nothing drops the OS file cache (the machine is shared):
"cold" is a cold process over warm files. Wall seconds and CPU seconds (user + system of
the whole process tree, JVM included: the fairer figure on a loaded machine) for each, and
the load average around each way.

The bench DuckDB's answers are computed by its own SQL and assembled by its own code (not
``report.py``'s), and every report — the four warm ones and the four cold ones — must equal
``spark_aggregates``'s as a whole: the bench stops with exit 1 naming the first difference.

``--snapshot DIR``: a snapshot an export wrote (``bench_audit_export.py --mix realistic``
leaves one in ``.bench/audit/snap``: 5 % RFH2, unique MsgIds, six reasons); its stored
aggregates are the export's own. Without it, synthetic snapshots of ``--rows`` rows (the
layout of issue 11: partitioned by queue and put date, 0.5 % repeated MsgIds, ten
reasons) with their aggregates computed by ``summarize`` (its seconds reported).

Needs the ``[bench]`` extra (``duckdb``).

Usage: bench_audit_report.py [--snapshot DIR | --rows 1000000,5000000 [--dir DIR]]
       [--rounds 3] [--cold-rounds 1] [--as-of 2026-11-25T10:00:00Z]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _common import Timer, emit, measured, mqconsole_exe, tree_cpu_seconds

AS_OF = datetime(2026, 11, 25, 10, 0, 0, tzinfo=UTC)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
QUEUES = [("QM1", "SYSTEM.DEAD.LETTER.QUEUE"), ("QM1", "APP.ORDERS.BOQ"),
          ("QM1", "APP.BILLING.BOQ"), ("QM2", "SYSTEM.DEAD.LETTER.QUEUE"),
          ("QM2", "APP.PAYMENTS.BOQ"), ("QM3", "SYSTEM.DEAD.LETTER.QUEUE"),
          ("QM3", "APP.AUDIT.BOQ"), ("QM4", "SYSTEM.DEAD.LETTER.QUEUE")]
REASONS = [2053, 2085, 2035, 2030, 2087, 2052, 2189, 2042, 65535, 999]
CHUNK = 1_000_000
WAYS = ("spark_aggregates", "spark_messages", "duckdb_messages", "duckdb_aggregates")


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


# -- where a snapshot's parts are ------------------------------------------------------------

class Snap:
    """A snapshot's root (given to ``build_report``), data folder, files and aggregates."""

    def __init__(self, root: Path) -> None:
        self.root = root
        manifest = root / "manifest.json"
        self.manifest = json.loads(manifest.read_text()) if manifest.exists() else {}
        self.data = root / "messages" if (root / "messages").is_dir() else root
        self.summary = root / "_summary"
        listed = self.manifest.get("files")
        self.files = None if listed is None else {str(f["path"]): int(f["rows"])
                                                  for f in listed}

    def parquet(self) -> list[Path]:
        if self.files is not None:
            return [self.data / f for f in self.files]
        return sorted(p for p in self.data.rglob("*.parquet") if "_summary" not in p.parts)


# -- DuckDB: its own SQL, its own assembly -----------------------------------------------------

def micros(value: datetime) -> int:
    return (value - EPOCH) // timedelta(microseconds=1)


def duck_bucket(column: str, as_of: datetime) -> str:
    """The age bucket of ``column`` (µs since the epoch) at ``as_of``, as audit.md says."""
    from mqconsole.audit.report import AFTER_AS_OF, BUCKET_EDGES, BUCKETS

    whens = " ".join(f"WHEN {column} > {micros(as_of - edge)} THEN '{name}'"
                     for name, edge in zip(BUCKETS, BUCKET_EDGES, strict=False))
    return (f"CASE WHEN {column} IS NULL THEN NULL WHEN {column} > {micros(as_of)} "
            f"THEN '{AFTER_AS_OF}' {whens} ELSE '{BUCKETS[-1]}' END")


# the report's lists, named as the stored aggregates name them (summary.py's "list" column)
DUCK_SETS: dict[str, tuple[str, ...]] = {
    "queue": ("qmgr", "queue"), "reason": ("dlh_reason", "dlh_reason_name"),
    "destination": ("has_dlh", "dlh_dest_qmgr", "dlh_dest_q"),
    "reason_destination": ("has_dlh", "dlh_reason", "dlh_dest_q"),
    "application": ("put_appl_name",), "backout": ("backout_count",), "age": ("bucket",)}
DUCK_PLUGIN_TYPES = ("VARCHAR", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BOOLEAN", "DATE",
                     "DOUBLE", "FLOAT", "TIMESTAMP WITH TIME ZONE")


def duck_source(snap: Snap) -> str:
    files = [str(p) for p in snap.parquet()]
    return (f"read_parquet({files!r}, hive_partitioning=true, "
            f"hive_types={{'queue': VARCHAR}})")


def duck_check(con: Any, snap: Snap) -> None:
    """Each data file's rows (from its Parquet footer) as the manifest lists them, as ours
    checks them (by a Spark count) on both of its paths."""
    if snap.files is None:
        return
    found = dict(con.execute(
        f"SELECT file_name, num_rows FROM parquet_file_metadata("
        f"{[str(snap.data / f) for f in snap.files]!r})").fetchall())
    if {str(Path(k).relative_to(snap.data)): v for k, v in found.items()} != snap.files:
        raise SystemExit("DuckDB: the data files disagree with the manifest")


def duck_from_messages(con: Any, snap: Snap, as_of: datetime) -> dict[str, Any]:
    """The report from the messages, after :func:`duck_check`: one GROUPING SETS scan
    (every list, the age buckets), one for the oldest and youngest, one for the duplicate
    MsgIds."""
    from mqconsole.audit.snapshot import FIXED_COLUMNS

    duck_check(con, snap)
    src = duck_source(snap)
    plugins = [name for name, kind, *_ in con.execute(f"DESCRIBE SELECT * FROM {src}")
               .fetchall() if name not in FIXED_COLUMNS and kind in DUCK_PLUGIN_TYPES
               and name != "put_date"]
    sets = {**DUCK_SETS, **{f"plugin:{c}": (f'"{c}"',) for c in plugins}}
    columns = list(dict.fromkeys(c for keys in sets.values() for c in keys))
    width = len(columns)
    def unused(keys: tuple[str, ...]) -> int:  # GROUPING_ID's bits: the set's other columns
        return sum(1 << (width - 1 - i) for i, c in enumerate(columns) if c not in keys)

    label = " ".join(f"WHEN {unused(keys)} THEN '{name}'" for name, keys in sets.items())
    grouping = ", ".join("(" + ", ".join(keys) + ")" for keys in sets.values())
    arrival = "epoch_us(coalesce(dlh_put_time, put_time))"
    rows = con.execute(
        f"SELECT {', '.join(columns)}, CASE GROUPING_ID({', '.join(columns)}) "
        f"WHEN {(1 << width) - 1} THEN 'total' {label} END AS list, count(*) AS n, "
        f"sum(length) AS bytes, count_if(properties IS NULL) AS unparsed "
        f"FROM (SELECT *, dlh_reason IS NOT NULL AS has_dlh, "
        f"{duck_bucket(arrival, as_of)} AS bucket FROM {src}) "
        f"GROUP BY GROUPING SETS ((), {grouping})")
    lists = [dict(zip([d[0] for d in rows.description], r, strict=True))
             for r in rows.fetchall()]
    point = ("CASE WHEN a IS NOT NULL THEN {'arrival': a, 'qmgr': qmgr, 'queue': queue, "
             "'position': position, 'msg_id': msg_id} END")
    oldest, youngest = con.execute(
        f"SELECT min({point}), max({point}) FROM (SELECT *, {arrival} AS a FROM {src})"
    ).fetchone()
    for row in lists:
        if row["list"] == "total":
            row["oldest"], row["youngest"] = oldest, youngest
    ages = {r["bucket"]: r["n"] for r in lists if r["list"] == "age" and r["bucket"]}
    duplicates = con.execute(
        f"SELECT msg_id, count(*), list_sort(list(DISTINCT queue)) FROM {src} "
        f"WHERE msg_id IS NOT NULL GROUP BY msg_id HAVING count(*) > 1").fetchall()
    return duck_assemble(lists, ages, duplicates, plugins, as_of)


def duck_from_aggregates(con: Any, snap: Snap, as_of: datetime) -> dict[str, Any]:
    """The report from the stored aggregates, after checking each data file's rows (from
    its Parquet footer) and the aggregates' row count against the manifest."""
    info = json.loads((snap.summary / "summary.json").read_text())
    duck_check(con, snap)
    if snap.files is not None and info["rows"] != snap.manifest.get("rows"):
        raise SystemExit("DuckDB: the stored aggregates disagree with the manifest")
    rows = con.execute(f"SELECT * FROM read_parquet('{snap.summary}/lists/*.parquet')")
    lists = [dict(zip([d[0] for d in rows.description], r, strict=True))
             for r in rows.fetchall()]
    ages = dict(con.execute(
        f"SELECT {duck_bucket('arrival', as_of)} AS b, sum(n) FROM "
        f"read_parquet('{snap.summary}/arrivals/*.parquet') GROUP BY 1 HAVING b IS NOT NULL"
    ).fetchall())
    duplicates = con.execute(f"SELECT msg_id, n, queues FROM "
                             f"read_parquet('{snap.summary}/duplicates/*.parquet')").fetchall()
    return duck_assemble(lists, ages, duplicates, list(info["plugins"]), as_of)


def duck_assemble(lists: list[dict[str, Any]], ages: dict[str, int],
                  duplicates: list[tuple[Any, ...]], plugins: list[str], as_of: datetime
                  ) -> dict[str, Any]:
    """audit.md's report from the lists' rows: sorted by count descending, then by key with
    nulls last; the destinations of messages with a dead-letter header only."""
    from mqconsole.audit.report import AFTER_AS_OF, BUCKETS, iso

    by: dict[str, list[dict[str, Any]]] = {}
    for row in lists:
        by.setdefault(row["list"], []).append(row)
    total = (by.get("total") or [{}])[0]

    def listed(name: str, keys: dict[str, str], *, bytes_: bool = False,
               dlh_only: bool = False) -> list[dict[str, Any]]:
        out = [{**{k: r[c] for k, c in keys.items()}, "count": int(r["n"]),
                **({"bytes": int(r["bytes"] or 0)} if bytes_ else {})}
               for r in by.get(name, []) if not dlh_only or r["has_dlh"]]
        return sorted(out, key=lambda r: (-r["count"], *[p for k in keys for p in (
            r[k] is None, r[k] if r[k] is not None else 0)]))

    def extreme(point: dict[str, Any] | None) -> dict[str, Any] | None:
        if not point:
            return None
        return {"qmgr": point["qmgr"], "queue": point["queue"], "msg_id": point["msg_id"],
                "put_time": iso(EPOCH + timedelta(microseconds=point["arrival"]))}

    messages = int(total.get("n") or 0)
    report: dict[str, Any] = {
        "messages": messages, "bytes": int(total.get("bytes") or 0),
        "unparsed": int(total.get("unparsed") or 0), "as_of": iso(as_of),
        "by_queue": listed("queue", {"qmgr": "qmgr", "queue": "queue"}, bytes_=True),
        "by_reason": listed("reason", {"reason": "dlh_reason", "name": "dlh_reason_name"}),
        "by_destination": listed("destination", {"qmgr": "dlh_dest_qmgr",
                                                 "queue": "dlh_dest_q"}, dlh_only=True),
        "by_reason_destination": listed("reason_destination", {"reason": "dlh_reason",
                                                               "queue": "dlh_dest_q"},
                                        dlh_only=True),
        "by_age": [{"bucket": b, "count": int(ages.get(b, 0))} for b in (AFTER_AS_OF, *BUCKETS)
                   if b != AFTER_AS_OF or ages.get(b)],
        "by_put_application": listed("application", {"name": "put_appl_name"}),
        "backout_counts": listed("backout", {"backout_count": "backout_count"}),
        "duplicate_msg_ids": sorted(({"msg_id": m, "count": int(n), "queues": list(q)}
                                     for m, n, q in duplicates),
                                    key=lambda d: (-d["count"], d["msg_id"])),
        "oldest": extreme(total.get("oldest")), "youngest": extreme(total.get("youngest")),
    }
    for column in plugins:
        report[f"by_{column}"] = listed(f"plugin:{column}", {"value": column})
    if messages == 0:
        for key in [k for k in report if k.startswith(("by_", "duplicate"))
                    or k == "backout_counts"]:
            if key != "by_age":
                report[key] = []
    return report


def duck_report(way: str, snap: Snap, as_of: datetime, con: Any = None) -> dict[str, Any]:
    import duckdb

    own = con is None
    con = duckdb.connect() if own else con
    try:
        if way == "duckdb_messages":
            return duck_from_messages(con, snap, as_of)
        return duck_from_aggregates(con, snap, as_of)
    finally:
        if own:
            con.close()


# -- timing --------------------------------------------------------------------------------------

def warm(work: Callable[[], dict[str, Any]], rounds: int) -> tuple[dict[str, Any], dict]:
    """One unmeasured run, then ``rounds`` measured: wall and CPU (the process tree)."""
    result = work()
    walls, cpus = [], []
    load = os.getloadavg()[0]
    for _ in range(rounds):
        cpu0 = tree_cpu_seconds(os.getpid())
        with Timer() as t:
            result = work()
        cpus.append(tree_cpu_seconds(os.getpid()) - cpu0)
        walls.append(t.seconds)
    return result, {"warm_s": round(statistics.median(walls), 2),
                    "warm_runs_s": [round(w, 2) for w in walls],
                    "warm_cpu_s": round(statistics.median(cpus), 2),
                    "load_avg": [round(load, 1), round(os.getloadavg()[0], 1)]}


def cold(way: str, snap: Snap, as_of: datetime, rounds: int) -> tuple[dict[str, Any], dict]:
    """``rounds`` new processes answering the question (wall and CPU of the tree)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if way == "spark_aggregates":
        args = [mqconsole_exe(), "audit", "report", "--in", str(snap.root), "--json",
                "--as-of", as_of.isoformat(), "--master", "local[2]"]
    else:
        args = [sys.executable, __file__, "--once", way, "--snapshot", str(snap.root),
                "--as-of", as_of.isoformat()]
    walls, cpus, out = [], [], None
    for _ in range(rounds):
        seconds, cpu, done = measured(args, env)
        if done.returncode != 0:
            raise SystemExit(f"{way} as a new process failed ({done.returncode}): "
                             f"{done.stderr[-2000:]}")
        walls.append(seconds)
        cpus.append(cpu)
        out = json.loads(done.stdout)
    assert out is not None
    return out, {"cold_s": round(statistics.median(walls), 2),
                 "cold_runs_s": [round(w, 2) for w in walls],
                 "cold_cpu_s": round(statistics.median(cpus), 2)}


def once(way: str, snap: Snap, as_of: datetime) -> None:
    """``--once``: one way's report as JSON on stdout (the cold processes)."""
    if way.startswith("duckdb"):
        print(json.dumps(duck_report(way, snap, as_of)))
        return
    from mqconsole.audit.report import build_report
    from mqconsole.audit.session import SparkSettings, start_session

    spark = start_session(SparkSettings(master="local[2]"))
    report = build_report(spark, snap.root, as_of=as_of,
                          use_summary=way == "spark_aggregates")
    spark.stop()
    print(json.dumps(report))


def first_difference(a: Any, b: Any, where: str = "") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in dict.fromkeys([*a, *b]):
            found = first_difference(a.get(key, "<missing>"), b.get(key, "<missing>"),
                                     f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} rows against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{where}: {a!r:.200} against {b!r:.200}"


def check_same(reports: dict[str, dict[str, Any]]) -> None:
    """Every report equals ``spark_aggregates``'s, whole (JSON-normalised), or exit 1; but
    ``notes`` (what the CLI's ``--json`` says about the snapshot, which DuckDB's report and
    ``build_report`` do not give)."""
    def counts(report: dict[str, Any]) -> Any:
        return json.loads(json.dumps({k: v for k, v in report.items() if k != "notes"}))

    base = counts(reports["spark_aggregates"])
    for name, report in reports.items():
        found = first_difference(base, counts(report))
        if found:
            raise SystemExit(f"FAIL: {name}'s report differs from spark_aggregates' at "
                             f"{found}")


# -- the run -------------------------------------------------------------------------------------

def measure(spark: Any, snap: Snap, as_of: datetime, rounds: int, cold_rounds: int) -> dict:
    import duckdb

    from mqconsole.audit.report import build_report

    reports: dict[str, dict[str, Any]] = {}
    ways: dict[str, dict] = {}
    con = duckdb.connect()
    work = {
        "spark_aggregates": lambda: build_report(spark, snap.root, as_of=as_of),
        "spark_messages": lambda: build_report(spark, snap.root, as_of=as_of,
                                               use_summary=False),
        "duckdb_messages": lambda: duck_report("duckdb_messages", snap, as_of, con),
        "duckdb_aggregates": lambda: duck_report("duckdb_aggregates", snap, as_of, con),
    }
    for way in WAYS:
        reports[way], ways[way] = warm(work[way], rounds)
        print(f"{way} warm: {ways[way]}", file=sys.stderr)
    con.close()
    for way in WAYS:
        load = os.getloadavg()[0]
        reports[f"{way}_cold"], figures = cold(way, snap, as_of, cold_rounds)
        ways[way].update(figures, cold_load_avg=[round(load, 1),
                                                 round(os.getloadavg()[0], 1)])
        print(f"{way} cold: {figures}", file=sys.stderr)
    check_same(reports)  # exits 1 naming the first difference
    files = snap.parquet()
    first = reports["spark_aggregates"]

    def ratio(a: str, b: str, key: str) -> float:
        return round(ways[a][key] / ways[b][key], 2)

    return {
        "rows": first["messages"], "data_files": len(files),
        "data_mb": round(sum(f.stat().st_size for f in files) / 2**20, 1),
        "duplicate_msg_ids": len(first["duplicate_msg_ids"]),
        "reasons": len(first["by_reason"]), "unparsed": first["unparsed"],
        "as_of": first["as_of"], "ways": ways,
        "same_report_all_eight": True,
        "spark_messages_over_duckdb_messages": {
            k: ratio("spark_messages", "duckdb_messages", k)
            for k in ("warm_s", "warm_cpu_s", "cold_s", "cold_cpu_s")},
        "spark_aggregates_over_duckdb_aggregates": {
            k: ratio("spark_aggregates", "duckdb_aggregates", k)
            for k in ("warm_s", "warm_cpu_s", "cold_s", "cold_cpu_s")},
        "goal": "spark_messages warm <= 3x duckdb_messages warm (issue 25 item 10)",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="1000000,5000000")
    parser.add_argument("--dir", default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cold-rounds", type=int, default=1)
    parser.add_argument("--snapshot", default=None)
    parser.add_argument("--as-of", default=AS_OF.isoformat())
    parser.add_argument("--once", choices=WAYS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("MQCONSOLE_HOME", tempfile.mkdtemp(prefix="bench-audit-home-"))
    from mqconsole.audit.report import parse_as_of

    as_of = parse_as_of(args.as_of)
    if args.once:
        once(args.once, Snap(Path(args.snapshot).resolve()), as_of)
        return
    from mqconsole.audit.session import SparkSettings, start_session
    from mqconsole.audit.summary import summarize

    with Timer() as t:
        spark = start_session(SparkSettings(master="local[2]"))
    results: dict = {"session_start_s": round(t.seconds, 2), "sizes": [],
                     "load_avg_start": [round(x, 1) for x in os.getloadavg()]}
    if args.snapshot:
        snaps = [Snap(Path(args.snapshot).resolve())]
    else:
        base = Path(args.dir or tempfile.mkdtemp(prefix="bench-audit-"))
        snaps = []
        for rows in (int(r) for r in args.rows.split(",")):
            folder = base / f"snap-{rows}"
            if not folder.exists():
                write_snapshot(folder / "messages", rows)
                # schema 1 (no file list): what the report opens as a snapshot
                (folder / "manifest.json").write_text(json.dumps(
                    {"schema_version": 1, "format": "parquet", "rows": rows}))
            with Timer() as t:
                summarize(spark, str(folder / "messages"), str(folder))
            results.setdefault("stored_aggregates_s", {})[rows] = round(t.seconds, 2)
            snaps.append(Snap(folder))
    for snap in snaps:
        size = measure(spark, snap, as_of, args.rounds, args.cold_rounds)
        results["sizes"].append(size)
        print(f"{size['rows']:,} rows: {json.dumps(size)}", file=sys.stderr)
    results["load_avg_end"] = [round(x, 1) for x in os.getloadavg()]
    spark.stop()
    emit("audit_report", results)


if __name__ == "__main__":
    main()

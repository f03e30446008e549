"""Snapshot rows for the report's tests, a Parquet writer, and the plain-Python oracle.

The oracle computes every count of the report from the rows as Python dicts, with none of
the report's code: loops and dicts, audit.md read literally. The rows are written with
pyarrow in the snapshot's layout (audit.md columns, partitioned by queue), so
the report's tests do not depend on the export; the export's own tests run the same oracle
on what it wrote from queues and files.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mqconsole.audit.columns import SCHEMA_VERSION

AS_OF = datetime(2026, 11, 25, 10, 0, 0, tzinfo=UTC)
BUCKETS = ("<1h", "1h-24h", "1d-7d", "7d-30d", ">30d")

_ts = pa.timestamp("us", tz="UTC")
SCHEMA = pa.schema([
    ("qmgr", pa.string()), ("queue", pa.string()), ("position", pa.int64()),
    ("source", pa.string()), ("msg_id", pa.string()), ("correl_id", pa.string()),
    ("group_id", pa.string()), ("put_time", _ts), ("put_date", pa.date32()),
    ("put_appl_name", pa.string()), ("user_id", pa.string()),
    ("appl_identity_data", pa.string()), ("put_appl_type", pa.int32()),
    ("msg_type", pa.int32()), ("feedback", pa.int32()), ("persistence", pa.int32()),
    ("priority", pa.int32()), ("backout_count", pa.int32()), ("ccsid", pa.int32()),
    ("encoding", pa.int32()), ("expiry", pa.int32()), ("format", pa.string()),
    ("reply_to_q", pa.string()), ("reply_to_qmgr", pa.string()),
    ("dlh_reason", pa.int32()), ("dlh_reason_name", pa.string()),
    ("dlh_dest_q", pa.string()), ("dlh_dest_qmgr", pa.string()),
    ("dlh_format", pa.string()), ("dlh_put_appl_name", pa.string()),
    ("dlh_put_time", _ts), ("xqh_remote_q", pa.string()), ("xqh_remote_qmgr", pa.string()),
    ("properties", pa.map_(pa.string(), pa.string())), ("length", pa.int64()),
    ("payload_length", pa.int64()), ("payload_sha256", pa.string()),
])

REASONS = {2053: "MQRC_Q_FULL", 2085: "MQRC_UNKNOWN_OBJECT_NAME", 2035: "MQRC_NOT_AUTHORIZED",
           2030: "MQRC_MSG_TOO_BIG_FOR_Q", 65535: None, 999: None}
APPS = ["payments.jar", "billing", "amqsput", "CICS REGION 7", ""]
QUEUES = [("QM1", "SYSTEM.DEAD.LETTER.QUEUE"), ("QM1", "APP.ORDERS.BOQ"),
          ("QM2", "SYSTEM.DEAD.LETTER.QUEUE"), ("QM2", "007")]
DESTS = [("QM1", "APP.ORDERS"), ("QM2", "APP.BILLING"), ("QM9", "APP.ORDERS"), ("", "X.Y")]


def make_rows(n: int, seed: int = 11, *, as_of: datetime = AS_OF) -> list[dict[str, Any]]:
    """``n`` snapshot rows with every case the report must count right.

    Dead-letter and plain messages, unknown reason numbers (null names), headers that do
    not parse (header columns and payload length null), the same MsgId on several queues,
    put times on and around every bucket edge of ``as_of`` (and after it), no put time.
    """
    rng = random.Random(seed)
    positions: Counter[tuple[str, str]] = Counter()
    shared_ids = [f"{rng.getrandbits(192):048X}" for _ in range(max(3, n // 40))]
    edges = [timedelta(0), timedelta(hours=1), timedelta(hours=24), timedelta(days=7),
             timedelta(days=30)]
    rows = []
    for i in range(n):
        qmgr, queue = QUEUES[i % len(QUEUES)] if i < 8 else rng.choice(QUEUES)
        positions[(qmgr, queue)] += 1
        kind = rng.random()
        if rng.random() < 0.3:
            edge = rng.choice(edges)
            jitter = timedelta(microseconds=rng.choice([-1, 0, 1, -10_000, 10_000]))
            put = as_of - edge + jitter
        else:
            put = as_of - timedelta(seconds=rng.uniform(-600, 60 * 86400))
        put = put.replace(microsecond=put.microsecond // 10_000 * 10_000) \
            if rng.random() < 0.5 else put
        msg_id = (rng.choice(shared_ids) if rng.random() < 0.15
                  else f"{rng.getrandbits(192):048X}")
        length = rng.randint(0, 5000)
        row: dict[str, Any] = {c: None for c in SCHEMA.names}
        row.update(qmgr=qmgr, queue=queue, position=positions[(qmgr, queue)],
                   source="queue", msg_id=msg_id, correl_id="0" * 48, group_id="0" * 48,
                   put_time=put, put_date=put.date(), put_appl_name=rng.choice(APPS),
                   user_id="mqm", put_appl_type=6, msg_type=8, feedback=0,
                   persistence=rng.choice([0, 1]), priority=rng.randint(0, 9),
                   backout_count=rng.choice([0, 0, 0, 1, 2, 5]), ccsid=1208, encoding=546,
                   expiry=-1, format="MQSTR", length=length,
                   properties={"k": str(i)} if i % 7 == 0 else {},
                   payload_length=length, payload_sha256="AB" * 32)
        if kind < 0.6:  # dead-letter header
            reason = rng.choice(list(REASONS))
            dest_qmgr, dest_q = rng.choice(DESTS)
            dlh_put = put + timedelta(seconds=rng.uniform(0, 3600)) if rng.random() < 0.7 \
                else put - timedelta(days=rng.choice([1, 8, 31]))
            row.update(format="MQDEAD", dlh_reason=reason, dlh_reason_name=REASONS[reason],
                       dlh_dest_q=dest_q, dlh_dest_qmgr=dest_qmgr, dlh_format="MQSTR",
                       dlh_put_appl_name="runmqchl", dlh_put_time=dlh_put,
                       payload_length=max(0, length - 172))
        elif kind < 0.7:  # headers that do not parse
            row.update(format="MQDEAD", properties=None)
        elif kind < 0.72:  # no put time at all (blank PutDate)
            row.update(put_time=None, put_date=None)
        rows.append(row)
    return rows


def write_snapshot(folder: Path, rows: list[dict[str, Any]], *,
                   extra: dict[str, pa.DataType] | None = None, by_date: bool = False) -> Path:
    """Write ``rows`` as a snapshot folder as the export lays it out: ``manifest.json`` (what
    the report needs of one) and ``messages/`` (Parquet, zstd, partitioned by queue, one
    file a queue). ``by_date``: partitioned by queue and put date, as exports before issue
    25 wrote them (a file a queue and day: about a hundred files for a few hundred rows
    here), which the reader still reads as they are (docs/audit.md)."""
    schema = SCHEMA
    for name, type_ in (extra or {}).items():
        schema = schema.append(pa.field(name, type_))
    table = pa.Table.from_pylist(
        [{**r, "properties": None if r["properties"] is None else list(r["properties"].items())}
         for r in rows], schema=schema)
    (folder / "messages").mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps(
        {"schema_version": SCHEMA_VERSION, "format": "parquet", "data": "messages"}))
    pq.write_to_dataset(table, root_path=str(folder / "messages"),
                        partition_cols=["queue", "put_date"] if by_date else ["queue"],
                        compression="zstd", existing_data_behavior="overwrite_or_ignore",
                        basename_template="part-{i}.parquet")
    return folder


def arrival(row: dict[str, Any]) -> datetime | None:
    return row["dlh_put_time"] or row["put_time"]


def bucket(when: datetime | None, as_of: datetime) -> str | None:
    if when is None:
        return None
    age = as_of - when
    if age < timedelta(0):
        return "after as-of"
    if age < timedelta(hours=1):
        return "<1h"
    if age < timedelta(hours=24):
        return "1h-24h"
    if age < timedelta(days=7):
        return "1d-7d"
    if age < timedelta(days=30):
        return "7d-30d"
    return ">30d"


def _order(counter: dict[Any, int], names: tuple[str, ...]) -> list[dict[str, Any]]:
    rows = []
    for key, count in counter.items():
        keys = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(names, keys, strict=True)), "count": count})

    def sort_key(row: dict[str, Any]) -> tuple[Any, ...]:
        out: list[Any] = [-row["count"]]
        for name in names:
            out += [row[name] is None, row[name] if row[name] is not None else 0]
        return tuple(out)

    return sorted(rows, key=sort_key)


def _iso(when: datetime) -> str:
    """The one timestamp style (milliseconds, microseconds only when it has them)."""
    text = when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    sub = f".{when.microsecond:06d}" if when.microsecond % 1000 else \
        f".{when.microsecond // 1000:03d}"
    return text + sub + "Z"


def oracle(rows: list[dict[str, Any]], as_of: datetime = AS_OF,
           plugins: tuple[str, ...] = ()) -> dict[str, Any]:
    """The report of ``rows`` computed by hand (audit.md, read literally)."""
    by_queue: Counter[tuple[str, str]] = Counter()
    bytes_by_queue: Counter[tuple[str, str]] = Counter()
    reasons: Counter[tuple[Any, Any]] = Counter()
    dests: Counter[tuple[Any, Any]] = Counter()
    reason_dests: Counter[tuple[Any, Any]] = Counter()
    ages: Counter[str] = Counter()
    apps: Counter[Any] = Counter()
    backouts: Counter[Any] = Counter()
    ids: Counter[str] = Counter()
    id_queues: dict[str, set[str]] = defaultdict(set)
    extra: dict[str, Counter[Any]] = {p: Counter() for p in plugins}
    unparsed = total_bytes = 0
    timed = []
    for r in rows:
        by_queue[(r["qmgr"], r["queue"])] += 1
        bytes_by_queue[(r["qmgr"], r["queue"])] += r["length"] or 0
        total_bytes += r["length"] or 0
        unparsed += r["properties"] is None  # header columns null (columns.UNPARSED_SQL)
        reasons[(r["dlh_reason"], r["dlh_reason_name"])] += 1
        if r["dlh_reason"] is not None:
            dests[(r["dlh_dest_qmgr"], r["dlh_dest_q"])] += 1
            reason_dests[(r["dlh_reason"], r["dlh_dest_q"])] += 1
        b = bucket(arrival(r), as_of)
        if b is not None:
            ages[b] += 1
            timed.append(((arrival(r), r["qmgr"], r["queue"], r["position"], r["msg_id"]), r))
        apps[r["put_appl_name"]] += 1
        backouts[r["backout_count"]] += 1
        if r["msg_id"] is not None:
            ids[r["msg_id"]] += 1
            id_queues[r["msg_id"]].add(r["queue"])
        for p in plugins:
            extra[p][r.get(p)] += 1
    queue_rows = _order(by_queue, ("qmgr", "queue"))
    for row in queue_rows:
        row["bytes"] = bytes_by_queue[(row["qmgr"], row["queue"])]
    timed.sort(key=lambda pair: pair[0])

    def extreme(pair: Any) -> dict[str, Any] | None:
        if pair is None:
            return None
        (when, qmgr, queue, _pos, msg_id), _ = pair
        return {"qmgr": qmgr, "queue": queue, "msg_id": msg_id, "put_time": _iso(when)}

    dups = sorted(({"msg_id": m, "count": c, "queues": sorted(id_queues[m])}
                   for m, c in ids.items() if c > 1), key=lambda d: (-d["count"], d["msg_id"]))
    report = {
        "messages": len(rows), "bytes": total_bytes, "unparsed": unparsed,
        "as_of": _iso(as_of),
        "by_queue": queue_rows,
        "by_reason": _order(reasons, ("reason", "name")),
        "by_destination": _order(dests, ("qmgr", "queue")),
        "by_reason_destination": _order(reason_dests, ("reason", "queue")),
        "by_age": [{"bucket": b, "count": ages[b]} for b in ("after as-of", *BUCKETS)
                   if b != "after as-of" or ages[b]],
        "by_put_application": _order(apps, ("name",)),
        "backout_counts": _order(backouts, ("backout_count",)),
        "duplicate_msg_ids": dups,
        "oldest": extreme(timed[0] if timed else None),
        "youngest": extreme(timed[-1] if timed else None),
    }
    for p in plugins:
        report[f"by_{p}"] = _order(extra[p], ("value",))
    return report


def day(value: datetime | None) -> date | None:
    return value.date() if value else None

"""Browse once, decode in parallel (issue 25 item 4): raw rows decode to exactly the rows a
reader makes, a queue read by one task is decoded by several, and a saved file is read in
pieces; each checked against plain Python on mixed data (dead letters, 5 % RFH2
messages, plain ones, headers that do not parse)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.audit.columns import snapshot_columns
from mqconsole.audit.raw import RawBatchBuilder, decode_batch
from mqconsole.audit.rows import BatchBuilder
from mqconsole.backends.base import Context
from mqconsole.backends.open import open_embedded
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.mq.rfh2 import MQRFH2
from mqconsole.ops.dmpfile import DmpReader, dump_messages

from .scene import Scene, expected_rows

QUEUE = "MIXED.DLQ"


def mixed(n: int) -> list[Message]:
    """Dead letters, 5 % RFH2 messages, plain ones, a header that does not parse."""
    rfh = MQRFH2(folders=["<usr><tenant>eu</tenant><n>1</n></usr>"], format="MQSTR")
    out = []
    for i in range(n):
        md = MQMD(format="MQSTR", msg_id=i.to_bytes(24, "big"), put_date="20261120",
                  put_time=f"{i % 24:02d}000000", put_appl_name=f"app-{i % 7}")
        if i % 20 == 3:
            out.append(Message(md.copy(format="MQHRF2", ccsid=1208),
                               rfh.pack(big_endian=False, ccsid=1208) + b"{}"))
        elif i % 50 == 11:
            out.append(Message(md.copy(format="MQDEAD"), b"DLH \x09\x00\x00\x00broken"))
        elif i % 10 == 5:
            out.append(Message(md.copy(put_appl_name="caf\xe9"), b"plain %d" % i))
        else:
            dmd, body = add_dead_letter_header(md, b"body %d" % i, reason=(2053, 2085)[i % 2],
                                               dest_q_name=f"APP.{i % 3}", dest_qmgr_name="QM",
                                               put_date="20261121", put_time="10000000")
            out.append(Message(dmd, body))
    return out


def _row_by_row(messages: list[Message], **where) -> list[dict]:
    builder = BatchBuilder(snapshot_columns(with_payload=True), columnar=False, **where)
    for i, m in enumerate(messages, 1):
        builder.add(m, i)
    return builder.flush().to_pylist()


def test_raw_rows_decode_to_the_rows_a_reader_makes() -> None:
    """Messages of real MQ and of a saved file (no packed MD), one whose descriptor is not
    latin-1 (carried pickled), and messages of the embedded queue manager."""
    from mqconsole.backends.embedded.mdfast import pack819
    from mqconsole.backends.embedded.stored import StoredMessage

    messages = mixed(120)
    messages += [StoredMessage(pack819(m.md), m.body, 3, 42) for m in mixed(40)]
    messages.append(Message(MQMD(format="MQSTR", put_appl_name="\u20ac uro"), b"x"))
    where = {"qmgr": "QM1", "queue": "Q", "source": "queue"}
    raw = RawBatchBuilder(**where)
    for i, m in enumerate(messages, 1):
        raw.add(m, i)
    batch = raw.flush()
    assert batch.column("message").null_count == len(messages) - 1  # only the euro's
    decoded = decode_batch(batch, snapshot_columns(with_payload=True))
    assert decoded.to_pylist() == _row_by_row(messages, **where)


def _compare(rows: list[dict], want: list[dict]) -> None:
    keys = ("qmgr", "queue", "position", "source", "msg_id", "dlh_reason", "dlh_reason_name",
            "dlh_dest_q", "put_time", "put_appl_name", "backout_count", "length")
    got = sorted((*(r[k] for k in keys), r["payload_sha256"] is None) for r in rows)
    assert got == sorted((*(w[k] for k in keys), w["unparsed"]) for w in want)


def _snapshot_rows(folder: Path) -> list[dict]:
    import pyarrow.dataset as ds

    return ds.dataset(str(folder / "messages"), format="parquet", partitioning="hive",
                      ignore_prefixes=[".", "_"]).to_table().to_pylist()


@pytest.fixture
def task_column():
    """A plugin column holding the Spark partition that decoded the row."""
    from mqconsole.audit.datasource import PluginColumn

    def partition(message):
        from pyspark import TaskContext

        return TaskContext.get().partitionId()

    return PluginColumn("probe", "task", "int", partition, {})


def test_a_queue_read_by_one_task_is_decoded_by_several(spark, tmp_path, monkeypatch,
                                                        task_column) -> None:
    """As a queue of real MQ: one browse, one read partition; the decoding spread over the
    session's cores, and every row what plain Python reads."""
    from mqconsole.audit import export
    from mqconsole.audit.export import ExportRequest, plan_export, run_export
    from mqconsole.audit.sources import QueueSource

    qm_path = tmp_path / "qm.sqlite"
    qm = open_embedded(str(qm_path), create=True, name="QM1")
    messages = mixed(3000)
    try:
        qm.define_queue(QueueAttrs(name=QUEUE, max_depth=100000))
        for m in messages:
            qm.put(QUEUE, m, context=Context.SET_ALL, syncpoint=True)
        qm.commit()
    finally:
        qm.close()
    read: list[list[QueueSource]] = []

    def one_per_queue(plan, parts):  # what real MQ gives: a queue is one browse
        read.append([QueueSource(q.key, q.queue) for q in plan.queues])
        return read[-1]

    monkeypatch.setattr(export, "_partitions", one_per_queue)
    monkeypatch.setattr(export, "SPREAD_MIN_ROWS", 1000)
    plan = plan_export(ExportRequest(
        out=tmp_path / "snap", patterns=[QUEUE], plugin_columns=[task_column],
        connections={"dev": {"backend": "embedded", "path": str(qm_path)}}))
    summary = run_export(spark, plan)
    assert summary.rows == 3000 and len(read[0]) == 1
    rows = _snapshot_rows(tmp_path / "snap")
    assert len({r["probe_task"] for r in rows}) == spark.sparkContext.defaultParallelism > 1
    _compare(rows, expected_rows(Scene(qm_path, [], set()), [QUEUE]))
    by_position = {r["position"]: r for r in rows}
    with_rfh2 = by_position[4]  # mixed()'s message 3
    assert dict(with_rfh2["properties"]) == {"tenant": "eu", "n": "1"}


def test_a_saved_file_is_read_in_pieces_cut_at_messages(spark, tmp_path, monkeypatch,
                                                        task_column) -> None:
    from mqconsole.audit import datasource, export
    from mqconsole.audit.export import ExportRequest, plan_export, run_export
    from mqconsole.audit.sources import split_file

    path = tmp_path / "saved.dmp"
    dump_messages(path, mixed(2000), qmgr="QM9", queue="SAVED.DLQ")
    size = path.stat().st_size
    pieces = split_file(str(path), 3, size // 4)
    assert len(pieces) == 3 and sum(p.piece.count for p in pieces) == 2000  # type: ignore
    text = path.read_bytes()
    assert all(text[p.piece.start:].startswith(b"A VER ")  # type: ignore[union-attr]
               for p in pieces[1:])
    assert split_file(str(path), 3, size) == [pieces[0].__class__(str(path))]  # too small
    monkeypatch.setattr(datasource, "FILE_PIECE_BYTES", size // 4)
    planned: list = []
    file_sources = export._file_sources

    def seen(*args):
        planned.append(file_sources(*args))
        return planned[-1]

    monkeypatch.setattr(export, "_file_sources", seen)
    plan = plan_export(ExportRequest(out=tmp_path / "snap", files=[str(path)],
                                     plugin_columns=[task_column]))
    summary = run_export(spark, plan)
    assert summary.rows == 2000
    assert len(planned[0]) == spark.sparkContext.defaultParallelism > 1  # a task a piece
    rows = _snapshot_rows(tmp_path / "snap")
    assert len({r["probe_task"] for r in rows}) > 1
    assert sorted(r["position"] for r in rows) == list(range(1, 2001))
    open_embedded(str(tmp_path / "none.sqlite"), create=True, name="QM0").close()
    _compare(rows, expected_rows(Scene(tmp_path / "none.sqlite", [path], set()), []))
    with DmpReader(path) as reader:
        assert [r["msg_id"] for r in sorted(rows, key=lambda r: r["position"])] == [
            m.md.msg_id.hex().upper() for m in reader]

"""Messages to Arrow batches: the spec's columns, null header columns when headers do not
parse, unknown reasons without a name, put times exact."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.audit.columns import arrow_schema, snapshot_columns
from mqconsole.audit.rows import BatchBuilder, ComputedColumn, known_reason_name, put_micros
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.rfh2 import MQRFH2
from mqconsole.ops.timefmt import parse_put_datetime

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@given(st.text(alphabet="0123456789 \x00x", max_size=10),
       st.text(alphabet="0123456789 \x00x", max_size=10))
def test_put_micros_agrees_with_parse_put_datetime(put_date, put_time) -> None:
    expected = parse_put_datetime(put_date, put_time)
    micros, days = put_micros(put_date, put_time)
    if expected is None:
        assert (micros, days) == (None, None)
    else:
        delta = expected - EPOCH
        assert micros == delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + \
            delta.microseconds
        assert days == delta.days


def test_reason_names() -> None:
    assert known_reason_name(2053) == "MQRC_Q_FULL"
    assert known_reason_name(2085) == "MQRC_UNKNOWN_OBJECT_NAME"
    assert known_reason_name(4321) is None


def _batch(messages, *, computed=(), with_payload=False) -> pa.RecordBatch:
    cols = snapshot_columns(with_payload=with_payload,
                            plugin_columns=[(c.name, "bigint") for c in computed])
    builder = BatchBuilder(cols, qmgr="QM1", queue="Q.DLQ", source="queue", computed=computed)
    for i, m in enumerate(messages, 1):
        builder.add(m, i)
    batch = builder.flush()
    assert batch.schema == arrow_schema(cols)
    assert builder.rows == 0
    return batch


def test_a_dead_letter_row() -> None:
    md = MQMD(format="MQSTR", put_appl_name="app1", put_date="20261124", put_time="10000050",
              msg_id=b"\x01" * 24, user_identifier="alice")
    md, body = add_dead_letter_header(md, b"hello", reason=2053, dest_q_name="APP.Q",
                                      dest_qmgr_name="QM2", put_appl_name="QMGR",
                                      put_date="20261125", put_time="12000000")
    row = _batch([Message(md, body)]).to_pylist()[0]
    assert row["qmgr"] == "QM1" and row["queue"] == "Q.DLQ" and row["source"] == "queue"
    assert row["position"] == 1 and row["msg_id"] == "01" * 24
    assert row["correl_id"] == "0" * 48
    assert row["put_time"] == datetime(2026, 11, 24, 10, 0, 0, 500000, tzinfo=UTC)
    assert str(row["put_date"]) == "2026-11-24"
    assert row["put_appl_name"] == "app1" and row["user_id"] == "alice"
    assert row["format"] == "MQDEAD"
    assert (row["dlh_reason"], row["dlh_reason_name"], row["dlh_dest_q"],
            row["dlh_dest_qmgr"], row["dlh_format"], row["dlh_put_appl_name"]) == (
        2053, "MQRC_Q_FULL", "APP.Q", "QM2", "MQSTR", "QMGR")
    assert row["dlh_put_time"] == datetime(2026, 11, 25, 12, tzinfo=UTC)
    assert row["xqh_remote_q"] is None and row["properties"] == []
    assert row["length"] == len(body) and row["payload_length"] == 5
    assert row["payload_sha256"] == \
        "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"


def test_headers_that_do_not_parse_leave_header_columns_null() -> None:
    md = MQMD(format="MQDEAD", put_date="20261124", put_time="10000000")
    row = _batch([Message(md, b"DLH \x07\x00\x00\x00 not a header")]).to_pylist()[0]
    for column in ("dlh_reason", "dlh_reason_name", "dlh_dest_q", "dlh_put_time",
                   "xqh_remote_q", "properties", "payload_length", "payload_sha256"):
        assert row[column] is None, column
    assert row["length"] == 21 and row["format"] == "MQDEAD"


def test_unknown_reason_keeps_its_number_without_a_name() -> None:
    md, body = add_dead_letter_header(MQMD(format="MQSTR"), b"x", reason=4321,
                                      dest_q_name="Q")
    row = _batch([Message(md, body)]).to_pylist()[0]
    assert row["dlh_reason"] == 4321 and row["dlh_reason_name"] is None


def test_rfh2_usr_properties_become_the_map() -> None:
    rfh = MQRFH2(folders=["<usr><tenant>eu</tenant><n>1</n></usr>", "<mcd><Msd>jms</Msd></mcd>"],
                 format="MQSTR")
    body = rfh.pack(big_endian=False, ccsid=1208) + b"{}"
    row = _batch([Message(MQMD(format="MQHRF2", ccsid=1208), body)]).to_pylist()[0]
    assert dict(row["properties"]) == {"tenant": "eu", "n": "1"}
    assert row["payload_length"] == 2


def test_payload_and_plugin_columns() -> None:
    def size(message: Message) -> int:
        return len(message.body)

    def wrong(message: Message) -> str:
        return "not a number"

    batch = _batch([Message(MQMD(), b"abc")], with_payload=True,
                   computed=[ComputedColumn("p_size", size), ComputedColumn("p_wrong", wrong)])
    row = batch.to_pylist()[0]
    assert row["payload"] == b"abc" and row["p_size"] == 3 and row["p_wrong"] is None


def test_an_empty_batch_has_the_schema() -> None:
    assert _batch([]).num_rows == 0

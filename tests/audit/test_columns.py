"""The snapshot's columns are the spec's, with one Arrow type per Spark type."""

from __future__ import annotations

import pyarrow as pa
import pytest

from mqconsole.audit.columns import (
    COLUMNS,
    HEADER_COLUMNS,
    BadColumn,
    arrow_schema,
    snapshot_columns,
    spark_ddl,
)

SPEC = ["qmgr", "queue", "position", "source", "msg_id", "correl_id", "group_id", "put_time",
        "put_date", "put_appl_name", "user_id", "appl_identity_data", "put_appl_type",
        "msg_type", "feedback", "persistence", "priority", "backout_count", "ccsid",
        "encoding", "expiry", "format", "reply_to_q", "reply_to_qmgr", "dlh_reason",
        "dlh_reason_name", "dlh_dest_q", "dlh_dest_qmgr", "dlh_format", "dlh_put_appl_name",
        "dlh_put_time", "xqh_remote_q", "xqh_remote_qmgr", "properties", "length",
        "payload_length", "payload_sha256"]


def test_the_columns_are_the_specs() -> None:
    assert list(COLUMNS) == SPEC
    assert set(HEADER_COLUMNS) == {c for c in SPEC if c.startswith(("dlh_", "xqh_"))} | {
        "properties"}


def test_payload_and_plugin_columns_follow() -> None:
    cols = snapshot_columns(with_payload=True, plugin_columns=[("json_field_amount", "double")])
    assert [c.name for c in cols][-2:] == ["payload", "json_field_amount"]
    schema = arrow_schema(cols)
    assert schema.field("payload").type == pa.binary()
    assert schema.field("json_field_amount").type == pa.float64()
    assert schema.field("put_time").type == pa.timestamp("us", tz="UTC")
    assert "`json_field_amount` double" in spark_ddl(cols)


@pytest.mark.parametrize(("name", "kind"), [("queue", "string"), ("x y", "string"),
                                            ("ok", "array<string>")])
def test_bad_plugin_columns_are_refused(name, kind) -> None:
    with pytest.raises(BadColumn):
        snapshot_columns(plugin_columns=[(name, kind)])

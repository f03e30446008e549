"""json_field: audit columns named <plugin>_<path>, null when the payload is not JSON."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.plugins.testing import import_plugin

json_field = import_plugin(Path(__file__).resolve().parents[1] / "json_field.py")


def msg(body: bytes, *, dead_lettered: bool = False) -> Message:
    md = MQMD(format="MQSTR")
    if dead_lettered:
        md, body = add_dead_letter_header(md, body, reason=2053, dest_q_name="APP.IN")
    return Message(md=md, body=body)


@pytest.fixture
def columns(register_plugins):
    """The registered columns for these settings: {full name: compute}."""
    def make(**settings):
        host = register_plugins(json_field, settings={"json_field": settings})
        found = host.audit_columns()
        assert all(c.column.spark_type == "string" for c in found)
        return {c.full_name: c.column.compute for c in found}
    return make


def test_the_default_column_is_the_payloads_type(columns) -> None:
    cols = columns()
    assert list(cols) == ["json_field_type"]
    compute = cols["json_field_type"]
    assert compute(msg(b'{"type": "order", "id": 7}')) == "order"
    assert compute(msg(b'{"type": "refund"}', dead_lettered=True)) == "refund"  # after the DLH
    for not_json in (b"", b"plain text", b'["type"]', b'{"type": ', b"\xff\xfe{", b'{"id": 1}',
                     b'{"type": null}'):
        assert compute(msg(not_json)) is None


def test_dotted_paths_and_non_text_values(columns) -> None:
    cols = columns(fields=["order.id", "order.lines"])
    body = b'{"order": {"id": 42, "lines": [1, 2]}}'
    assert cols["json_field_order_id"](msg(body)) == "42"
    assert cols["json_field_order_lines"](msg(body)) == "[1,2]"


def test_payloads_above_max_bytes_are_not_parsed(columns) -> None:
    compute = columns(max_bytes=10)["json_field_type"]
    assert compute(msg(b'{"type": "a-long-type-name"}')) is None


def test_a_column_survives_pickling_for_spark_executors(columns, monkeypatch) -> None:
    import sys

    # pickle finds a function by its module's name: the module of this test's functions,
    # whatever another test's plugin discovery (in the same process) imported under it since
    monkeypatch.setitem(sys.modules, json_field.__name__, json_field)
    compute = pickle.loads(pickle.dumps(columns()["json_field_type"]))
    assert compute(msg(b'{"type": "order"}')) == "order"


@pytest.mark.parametrize(("settings", "said"), [
    ({"fields": ["order id"]}, "'order id' is not a field path like type or order.id"),
    ({"max_bytes": 0}, "max_bytes must be a whole number of bytes above 0, not 0"),
])
def test_bad_settings_are_reported_once_and_add_no_column(settings, said, register_plugins) -> None:
    host = register_plugins(json_field, settings={"json_field": settings})
    assert host.audit_columns() == [] and host.audit_columns() == []
    [problem] = host.problems
    assert problem.startswith("plugin json_field failed in mqconsole_audit_columns: "
                              "ValueError: ") and said in problem

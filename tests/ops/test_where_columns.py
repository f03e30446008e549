"""``arrival`` and ``dlh_put_time`` (the audit's age, as the browser's filter), and the site
plugins' audit columns as ``--where`` fields (``ops/where_columns.py``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.views import MessageView
from mqconsole.ops.where import WhereError, compile_where
from mqconsole.ops.where_columns import column_fields
from mqconsole.plugins import AuditColumn, hookimpl
from mqconsole.plugins.testing import plugin_host

NOW = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)


def _view(payload: bytes = b"x", *, dlh_time: str | None = None) -> MessageView:
    md = MQMD(format="MQSTR", put_date="20261120", put_time="08000000")
    if dlh_time is None:
        return MessageView(1, Message(md, payload), NOW)
    md, body = add_dead_letter_header(md, payload, reason=2053, dest_q_name="APP.A",
                                      put_date="20261125", put_time=dlh_time)
    return MessageView(1, Message(md, body), NOW)


def test_arrival_is_the_dead_letter_time_else_the_put_time() -> None:
    dead, plain = _view(dlh_time="09300000"), _view()
    assert dead.arrival_datetime == datetime(2026, 11, 25, 9, 30, tzinfo=UTC)
    assert plain.arrival_datetime == datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
    recent = compile_where("arrival > 2026-11-25T09:00:00Z")
    assert recent.matches(dead) and not recent.matches(plain)
    assert compile_where("put_time < 2026-11-21").matches(dead)  # the MQMD keeps the put
    assert compile_where("dlh_put_time = null").matches(plain)
    assert compile_where("dlh_time >= 2026-11-25T09:30:00Z").matches(dead)
    assert compile_where("arrived <= 2026-11-20T08:00:00Z").matches(plain)


class _Currency:
    @hookimpl
    def mqconsole_audit_columns(self):
        def currency(message):
            return json.loads(message.body).get("currency")

        def big(message):
            return json.loads(message.body)["amount"] > 100

        return [AuditColumn("currency", "string", currency),
                AuditColumn("big", "boolean", big),
                AuditColumn("amount_x", "double", lambda m: json.loads(m.body)["amount"] * 1.5),
                AuditColumn("day", "date", lambda m: None)]  # no --where kind: no field


def test_a_plugins_audit_column_is_a_field_of_its_snapshot_name() -> None:
    host = plugin_host(("site", _Currency()))
    fields = column_fields(host)
    assert [f.name for f in fields] == ["site_currency", "site_big", "site_amount_x"]
    eur = _view(b'{"currency": "EUR", "amount": 150}')
    usd = _view(b'{"currency": "USD", "amount": 50}')
    broken = _view(b"not json")
    where = compile_where("site_currency = 'EUR'", fields)
    assert where.matches(eur) and not where.matches(usd) and not where.matches(broken)
    assert compile_where("SITE_BIG = true", fields).matches(eur)
    assert compile_where("site_big = false", fields).matches(usd)
    assert compile_where("site_amount_x = 75.0", fields).matches(usd)
    assert compile_where("site_currency = null", fields).matches(broken)  # raised: missing
    assert compile_where("site_currency != 'EUR'", fields).needs_payload
    with pytest.raises(WhereError, match="unknown field 'site_currency'"):
        compile_where("site_currency = 'EUR'")  # without the plugins
    with pytest.raises(WhereError, match="not true or false"):
        compile_where("site_big = maybe", fields)
    assert column_fields(None) == ()

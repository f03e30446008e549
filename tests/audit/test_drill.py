"""Every row of the report opens exactly its messages: a row's ``--where`` filter, run by the
browser's own code on the queues, selects as many messages as the row counts, and the row's
SQL over the snapshot counts the same. Every list: queues, reasons (an unknown number, no
header, headers that do not parse), destinations, age buckets at a fixed ``as_of`` (arrival
ranges), put applications, backout counts, duplicate MsgIds, and a plugin's audit column
(the json_field example, as a ``--where`` field of the same name)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from mqconsole.audit.datasource import plugin_columns
from mqconsole.audit.drill import drill
from mqconsole.audit.export import ExportRequest, plan_export, run_export
from mqconsole.audit.report import build_report
from mqconsole.backends.open import open_embedded
from mqconsole.ops.browse import iter_views
from mqconsole.ops.where import compile_where
from mqconsole.ops.where_columns import column_fields
from mqconsole.plugins.testing import import_plugin, plugin_host

from .scene import DEMO_QUEUES, NOW, build_scene

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def host():
    return plugin_host(("json_field", import_plugin(REPO / "plugins" / "json_field"
                                                    / "json_field.py")),
                       settings={"json_field": {"fields": ["currency"]}})


@pytest.fixture(scope="module")
def audited(spark, host, tmp_path_factory):
    base = tmp_path_factory.mktemp("drill")
    scene = build_scene(base)
    request = ExportRequest(out=base / "snap", patterns=DEMO_QUEUES,
                            connections={"qm": {"backend": "embedded",
                                                "path": str(scene.qm_path)}},
                            plugin_columns=plugin_columns(host))
    run_export(spark, plan_export(request))
    report = build_report(spark, base / "snap", as_of=NOW)
    spark.read.parquet(str(base / "snap" / "messages")).createOrReplaceTempView("drilled")
    return scene, base / "snap", report


def _browsed(qm_path: Path, where: str, host) -> int:
    compiled = compile_where(where, column_fields(host))
    qm = open_embedded(str(qm_path))
    try:
        return sum(1 for q in DEMO_QUEUES for _ in iter_views(qm, q, where=compiled))
    finally:
        qm.close()


def test_every_row_of_every_list_opens_exactly_its_messages(spark, audited, host) -> None:
    scene, _snap, report = audited
    lists = [k for k, v in report.items() if isinstance(v, list)]
    assert "by_json_field_currency" in lists and "by_age" in lists
    rows = [(key, row, drill(key, row, as_of=NOW)) for key in lists for row in report[key]]
    assert all(found is not None for _k, _r, found in rows), rows
    counted = spark.sql("SELECT " + ", ".join(f"count_if({found.sql}) AS c{i}" for i, (
        _k, _r, found) in enumerate(rows)) + " FROM drilled").first()  # one pass for all
    checked = 0
    for i, (key, row, found) in enumerate(rows):
        assert counted[f"c{i}"] == row["count"], (key, row, found.sql)
        if key == "by_queue":
            assert found.queue == row["queue"]
            continue
        assert _browsed(scene.qm_path, found.where, host) == row["count"], (key, row,
                                                                            found.where)
        checked += 1
    kinds = {k for k in lists if report[k]}
    assert {"by_reason", "by_destination", "by_reason_destination", "by_age",
            "by_put_application", "backout_counts", "duplicate_msg_ids",
            "by_json_field_currency"} <= kinds
    assert checked >= 20
    assert any(r["value"] is not None for r in report["by_json_field_currency"])
    assert sum(1 for r in report["by_age"] if r["count"]) >= 2  # more than one bucket


def test_an_age_bucket_is_an_arrival_range_at_the_reports_time() -> None:
    """A message enters the next bucket exactly when the report's time passes its edge."""
    later = drill("by_age", {"bucket": "1h-24h", "count": 0}, as_of=NOW + timedelta(hours=1))
    now = drill("by_age", {"bucket": "1h-24h", "count": 0}, as_of=NOW)
    assert now.where == ("arrival > 2026-11-24T10:00:00.000Z and "
                         "arrival <= 2026-11-25T09:00:00.000Z")
    assert later.where == ("arrival > 2026-11-24T11:00:00.000Z and "
                           "arrival <= 2026-11-25T10:00:00.000Z")
    assert drill("by_age", {"bucket": "<1h", "count": 0}, as_of=NOW).where == \
        "arrival > 2026-11-25T09:00:00.000Z and arrival <= 2026-11-25T10:00:00.000Z"
    assert drill("by_age", {"bucket": "after as-of", "count": 0}, as_of=NOW).where == \
        "arrival > 2026-11-25T10:00:00.000Z"
    assert drill("by_age", {"bucket": ">30d", "count": 0}, as_of=NOW).where == \
        "arrival <= 2026-10-26T10:00:00.000Z"
    assert drill("by_age", {"bucket": "<1h", "count": 0}) is None  # no time: no range


def test_text_with_wildcards_is_matched_as_itself() -> None:
    found = drill("by_put_application", {"name": "batch*job's", "count": 1})
    where = compile_where(found.where)

    class View:
        def __init__(self, name):
            self.put_appl_name = name

    assert where.matches(View("batch*job's"))
    assert not where.matches(View("batch-X-job's"))
    assert not where.matches(View("batch*job's\n"))


def test_an_as_of_before_messages_puts_them_in_their_own_bucket(spark, audited, host) -> None:
    """--as-of before some messages arrived: they are "after as-of" (not "<1h"), listed
    first, and that row and every other age row open exactly their messages."""
    scene, snap, _report = audited
    early = NOW - timedelta(days=3)
    report = build_report(spark, snap, as_of=early)
    ages = report["by_age"]
    assert ages[0]["bucket"] == "after as-of" and ages[0]["count"] > 0
    assert [r["bucket"] for r in ages[1:]] == ["<1h", "1h-24h", "1d-7d", "7d-30d", ">30d"]
    assert sum(r["count"] for r in ages) == report["messages"]
    drills = [drill("by_age", row, as_of=early) for row in ages]
    assert all(found is not None for found in drills)
    counted = spark.sql("SELECT " + ", ".join(f"count_if({found.sql})" for found in drills)
                        + " FROM drilled").first()  # one pass for all, as the test above
    for i, (row, found) in enumerate(zip(ages, drills, strict=True)):
        assert counted[i] == row["count"], (row, found.sql)
        assert _browsed(scene.qm_path, found.where, host) == row["count"], (row, found.where)

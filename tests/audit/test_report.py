"""Every count of the report equals the same count computed in plain Python (the oracle)."""

from __future__ import annotations

from datetime import timedelta

from mqconsole.audit.report import build_report
from tests.audit.reportdata import AS_OF, make_rows, oracle, write_snapshot


def test_every_count_equals_the_oracle(spark, tmp_path):
    """On a snapshot laid out as exports before issue 25 wrote them (by queue and put date:
    ``put_date`` a folder name, read back as a date); the other tests' are by queue only."""
    rows = make_rows(600)
    folder = write_snapshot(tmp_path / "snap", rows, by_date=True)
    report = build_report(spark, folder, as_of=AS_OF, use_summary=False)
    assert report == oracle(rows)


def test_as_of_moves_the_age_buckets_only(spark, tmp_path):
    rows = make_rows(300, seed=5)
    folder = write_snapshot(tmp_path / "snap", rows)
    later = AS_OF + timedelta(days=3, microseconds=1)
    report = build_report(spark, folder, as_of=later, use_summary=False)
    assert report == oracle(rows, later)


def test_the_oldest_and_youngest_of_messages_that_arrived_at_once(spark, tmp_path):
    """Several messages share the first arrival time and several the last (a batch put in
    one hundredth of a second): the oldest and youngest are the first and last of them by
    (qmgr, queue, position), whatever MsgId they carry (here a duplicate one, and none), and
    the duplicates keep their exact counts (the extremes are found with them)."""
    from tests.audit.reportdata import arrival

    rows = make_rows(160, seed=11)
    timed = [arrival(r) for r in rows if arrival(r) is not None]
    first, last = min(timed) - timedelta(days=1), max(timed) + timedelta(seconds=1)
    for when, tied in ((first, rows[10:14]), (last, rows[20:23])):
        for r in tied:
            if r["dlh_put_time"] is not None:
                r["dlh_put_time"] = when
            else:
                r.update(put_time=when, put_date=when.date())
    order = lambda r: (r["qmgr"], r["queue"], r["position"])  # noqa: E731
    oldest, youngest = min(rows[10:14], key=order), max(rows[20:23], key=order)
    oldest["msg_id"] = rows[40]["msg_id"]
    youngest["msg_id"] = None
    folder = write_snapshot(tmp_path / "snap", rows)
    report = build_report(spark, folder, as_of=AS_OF, use_summary=False)
    assert report == oracle(rows)
    assert report["oldest"]["msg_id"] == rows[40]["msg_id"]
    assert report["oldest"]["queue"] == oldest["queue"]
    assert report["youngest"]["msg_id"] is None
    assert report["youngest"]["queue"] == youngest["queue"]
    assert rows[40]["msg_id"] in [d["msg_id"] for d in report["duplicate_msg_ids"]]


def test_stored_aggregates_give_the_same_report(spark, tmp_path):
    from mqconsole.audit.summary import summarize

    rows = make_rows(700, seed=3)
    folder = write_snapshot(tmp_path / "snap", rows)
    assert summarize(spark, folder / "messages", folder)["rows"] == 700
    for as_of in (AS_OF, AS_OF - timedelta(hours=1), AS_OF + timedelta(days=30)):
        said: list[str] = []
        assert build_report(spark, folder, as_of=as_of, progress=said.append) \
            == oracle(rows, as_of)
        assert "stored aggregates" in said[0]


def test_aggregates_and_reports_leave_other_jobs_views_alone(spark, tmp_path):
    """The summary's and the report's temporary views are each job's own: two exports or
    reports on one session (two threads) replaced and dropped each other's fixed names
    ([TABLE_OR_VIEW_NOT_FOUND] in the concurrent-exports test). Views another job holds
    under the old fixed names stay what they were, and none of ours is left behind."""
    from mqconsole.audit.summary import CANDIDATES_VIEW, SOURCE_VIEW, summarize

    rows = make_rows(300, seed=8)
    rows[5]["msg_id"] = rows[6]["msg_id"]  # a duplicate: the candidates' view is made
    folder = write_snapshot(tmp_path / "snap", rows)
    theirs = (SOURCE_VIEW, f"{SOURCE_VIEW}_lists", CANDIDATES_VIEW, "summary_arrivals")
    for name in theirs:
        spark.sql("SELECT 'theirs' AS owner").createOrReplaceTempView(name)
    before = {t.name for t in spark.catalog.listTables() if t.isTemporary}
    try:
        summarize(spark, folder / "messages", folder)
        assert build_report(spark, folder, as_of=AS_OF) == oracle(rows)
        for name in theirs:
            assert spark.table(name).collect()[0]["owner"] == "theirs"
        after = {t.name for t in spark.catalog.listTables() if t.isTemporary}
        assert after - {"messages"} == before - {"messages"}  # (audit sql's name for them)
    finally:
        for name in theirs:
            spark.catalog.dropTempView(name)


def test_plugin_columns_add_lists_on_both_paths(spark, tmp_path):
    import pyarrow as pa

    from mqconsole.audit.summary import summarize

    rows = make_rows(200, seed=8)
    for i, row in enumerate(rows):
        row["json_field_customer"] = None if i % 5 == 0 else f"C{i % 3}"
    folder = write_snapshot(tmp_path / "snap", rows, extra={"json_field_customer": pa.string()})
    expected = oracle(rows, plugins=("json_field_customer",))
    assert build_report(spark, folder, as_of=AS_OF, use_summary=False) == expected
    summarize(spark, folder / "messages", folder)
    assert build_report(spark, folder, as_of=AS_OF) == expected


def test_an_empty_snapshot_has_five_empty_buckets(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mqconsole.audit.summary import summarize
    from tests.audit.reportdata import SCHEMA

    folder = tmp_path / "snap"
    (folder / "messages").mkdir(parents=True)
    (folder / "manifest.json").write_text('{"format": "parquet"}')
    pq.write_table(pa.Table.from_pylist([], schema=SCHEMA),
                   str(folder / "messages" / "part-0.parquet"))
    expected = oracle([])
    assert build_report(spark, folder, as_of=AS_OF, use_summary=False) == expected
    summarize(spark, folder / "messages", folder)
    assert build_report(spark, folder, as_of=AS_OF) == expected


def test_a_folder_of_broken_parquet_is_one_sentence(spark, tmp_path):
    import pytest

    from mqconsole.audit.errors import AuditInputError

    folder = tmp_path / "snap"
    part = folder / "messages" / "queue=Q" / "put_date=2026-11-25"
    part.mkdir(parents=True)
    (folder / "manifest.json").write_text('{"format": "parquet"}')
    (part / "part-0.parquet").write_bytes(b"not parquet")
    with pytest.raises(AuditInputError, match="cannot be read as a snapshot"):
        build_report(spark, folder, as_of=AS_OF)


def test_a_failed_spark_job_is_exit_1_with_the_reason(spark, tmp_path, monkeypatch):
    """A job that fails (here a Python worker that dies mid-task) is SparkFailed, exit 1,
    with Spark's reason in one line; not "cannot be read as a snapshot" (exit 2) and not
    exit 3 (kept for a missing Java or pyspark)."""
    import pytest

    from mqconsole.audit import report as report_module
    from mqconsole.audit.errors import SparkFailed

    folder = write_snapshot(tmp_path / "snap", make_rows(20, seed=3))

    def dies(spark, *_args):
        def crash(batches):
            import os

            os._exit(7)
            yield from batches

        return spark.range(4).mapInArrow(crash, "id long").collect()

    monkeypatch.setattr(report_module, "_build", dies)
    with pytest.raises(SparkFailed) as failed:
        report_module.build_report(spark, folder, as_of=AS_OF)
    assert failed.value.code == 1
    sentence = str(failed.value)
    assert sentence.startswith("the report failed in Spark: ") and "\n" not in sentence
    assert "cannot be read" not in sentence and "at org.apache" not in sentence
    monkeypatch.undo()
    assert build_report(spark, folder, as_of=AS_OF)["messages"] == 20  # Spark lives on


def test_a_manifest_of_a_newer_schema_is_refused_in_one_sentence(tmp_path):
    import json

    import pytest

    from mqconsole.audit.columns import SCHEMA_VERSION
    from mqconsole.audit.errors import AuditInputError
    from mqconsole.audit.snapshot import locate

    folder = write_snapshot(tmp_path / "snap", make_rows(3, seed=4))
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({"schema_version": SCHEMA_VERSION, "format": "parquet"}))
    assert locate(folder).manifest["schema_version"] == SCHEMA_VERSION
    manifest.write_text(json.dumps({"schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(AuditInputError, match=f"schema version {SCHEMA_VERSION + 1}, written "
                                              "by a newer mqconsole"):
        locate(folder)
    for bad in ("2", None, 0, True):
        manifest.write_text(json.dumps({"schema_version": bad}))
        with pytest.raises(AuditInputError, match="not a snapshot schema version"):
            locate(folder)

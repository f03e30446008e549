"""Every count of the report equals the same count computed in plain Python (the oracle)."""

from __future__ import annotations

from datetime import timedelta

from mqconsole.audit.report import build_report
from tests.audit.reportdata import AS_OF, make_rows, oracle, write_snapshot


def test_every_count_equals_the_oracle(spark, tmp_path):
    rows = make_rows(600)
    folder = write_snapshot(tmp_path / "snap", rows)
    report = build_report(spark, folder, as_of=AS_OF, use_summary=False)
    assert report == oracle(rows)


def test_as_of_moves_the_age_buckets_only(spark, tmp_path):
    rows = make_rows(300, seed=5)
    folder = write_snapshot(tmp_path / "snap", rows)
    later = AS_OF + timedelta(days=3, microseconds=1)
    report = build_report(spark, folder, as_of=later, use_summary=False)
    assert report == oracle(rows, later)


def test_stored_aggregates_give_the_same_report(spark, tmp_path):
    from mqconsole.audit.summary import summarize

    rows = make_rows(700, seed=3)
    folder = write_snapshot(tmp_path / "snap", rows)
    assert summarize(folder)["rows"] == 700
    for as_of in (AS_OF, AS_OF - timedelta(hours=1), AS_OF + timedelta(days=30)):
        said: list[str] = []
        assert build_report(spark, folder, as_of=as_of, progress=said.append) \
            == oracle(rows, as_of)
        assert "stored aggregates" in said[0]


def test_plugin_columns_add_lists_on_both_paths(spark, tmp_path):
    import pyarrow as pa

    from mqconsole.audit.summary import summarize

    rows = make_rows(200, seed=8)
    for i, row in enumerate(rows):
        row["json_field_customer"] = None if i % 5 == 0 else f"C{i % 3}"
    folder = write_snapshot(tmp_path / "snap", rows, extra={"json_field_customer": pa.string()})
    expected = oracle(rows, plugins=("json_field_customer",))
    assert build_report(spark, folder, as_of=AS_OF, use_summary=False) == expected
    summarize(folder)
    assert build_report(spark, folder, as_of=AS_OF) == expected


def test_an_empty_snapshot_has_five_empty_buckets(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mqconsole.audit.summary import summarize
    from tests.audit.reportdata import SCHEMA

    folder = tmp_path / "snap"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist([], schema=SCHEMA), str(folder / "part-0.parquet"))
    expected = oracle([])
    assert build_report(spark, folder, as_of=AS_OF, use_summary=False) == expected
    summarize(folder)
    assert build_report(spark, folder, as_of=AS_OF) == expected


def test_a_folder_of_broken_parquet_is_one_sentence(spark, tmp_path):
    import pytest

    from mqconsole.audit.errors import AuditInputError

    folder = tmp_path / "snap"
    (folder / "queue=Q" / "put_date=2026-11-25").mkdir(parents=True)
    (folder / "queue=Q" / "put_date=2026-11-25" / "part-0.parquet").write_bytes(b"not parquet")
    with pytest.raises(AuditInputError, match="cannot be read as a snapshot"):
        build_report(spark, folder, as_of=AS_OF)

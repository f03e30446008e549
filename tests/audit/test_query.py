"""``audit sql`` (mqconsole/audit/query.py): read-only by Spark's own parser, bounded."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import pytest

from mqconsole.audit import query as query_module
from mqconsole.audit.errors import AuditInputError
from mqconsole.audit.query import check_out, prepare_query, run_query, write_result
from tests.audit.reportdata import make_rows, write_snapshot


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    rows = make_rows(60, seed=5)
    return write_snapshot(tmp_path_factory.mktemp("sql") / "snap", rows), rows


def _state(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file and folder under ``folder``: its bytes' hash and mode."""
    out = {}
    for path in sorted(folder.rglob("*")):
        data = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        out[str(path.relative_to(folder))] = (data, stat.S_IMODE(path.lstat().st_mode))
    return out


# every way a statement could write, change the session, run a program or read a file
def _forms(snap: Path, elsewhere: Path) -> list[str]:
    victim = next(snap.rglob("*.parquet"))
    partition = victim.parent
    return [
        f"FROM messages INSERT OVERWRITE DIRECTORY '{partition}' SELECT *",
        f"FROM messages INSERT OVERWRITE DIRECTORY '{elsewhere}/a' SELECT * "
        f"INSERT OVERWRITE DIRECTORY '{elsewhere}/b' SELECT *",
        f"INSERT OVERWRITE DIRECTORY '{elsewhere}/c' SELECT * FROM messages",
        f"WITH m AS (SELECT * FROM messages) INSERT OVERWRITE DIRECTORY '{elsewhere}/d' "
        "SELECT * FROM m",
        f"INSERT OVERWRITE DIRECTORY '{elsewhere}/e' USING parquet SELECT * FROM messages",
        "INSERT INTO messages SELECT * FROM messages",
        f"CREATE TABLE t USING parquet LOCATION '{elsewhere}/f' AS SELECT * FROM messages",
        "CREATE TABLE t AS SELECT * FROM messages",
        "CREATE OR REPLACE TEMPORARY VIEW messages AS SELECT 1 AS x",
        "DROP VIEW messages",
        "DROP TABLE messages",
        "ALTER VIEW messages AS SELECT 1 AS x",
        "SET spark.sql.runSQLOnFiles=true",
        "RESET",
        f"ADD JAR {elsewhere}/g.jar",
        "ADD FILE /etc/hostname",
        "CACHE TABLE messages",
        "DELETE FROM messages",
        "TRUNCATE TABLE messages",
        f"EXECUTE IMMEDIATE 'INSERT OVERWRITE DIRECTORY ''{elsewhere}/h'' SELECT 1'",
        f"BEGIN INSERT OVERWRITE DIRECTORY '{elsewhere}/i' SELECT 1; END",
        f"SELECT * FROM messages; INSERT OVERWRITE DIRECTORY '{elsewhere}/j' SELECT 1",
        f"SELECT 1) AS x; INSERT OVERWRITE DIRECTORY '{elsewhere}/k' SELECT * FROM (SELECT 1",
        f"SELECT TRANSFORM(queue) USING 'touch {elsewhere}/l' AS (x) FROM messages",
        "SELECT reflect('java.lang.System', 'getenv', 'HOME')",
        "SELECT java_method('java.lang.System', 'getProperty', 'user.home')",
        "SELECT try_reflect('java.lang.System', 'getenv', 'PATH')",
        f"SELECT reflect('org.apache.hadoop.fs.FileUtil', 'chmod', '{victim}', '777')",
        "SELECT queue FROM messages WHERE length > (SELECT max(length(java_method("
        "'java.lang.System', 'getenv', 'HOME'))))",
        "SELECT * FROM text.`/etc/passwd`",
        f"SELECT * FROM binaryFile.`{victim}`",
        f"SELECT * FROM parquet.`{snap}`",
        "SELECT * FROM IDENTIFIER('text.`/etc/hostname`')",
        "SELECT " + ", ".join(f"queue AS c{i}" for i in range(40))
        + ", reflect('java.lang.System', 'getenv', 'HOME') AS r FROM messages",
    ]


def test_spark_refuses_every_writing_form_and_nothing_is_touched(spark, snap, tmp_path,
                                                                   monkeypatch):
    """Spark's parser and analyser alone (the first-word look switched off) refuse every
    form: exit 2 sentences, the snapshot byte for byte and mode for mode as it was, nothing
    written anywhere."""
    folder, _ = snap
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    before = _state(folder)
    monkeypatch.setattr(query_module, "check_query", lambda text: text.strip().rstrip(";"))
    for text in _forms(folder, elsewhere):
        with pytest.raises(AuditInputError) as refused:
            list(query_module.stream_rows(prepare_query(spark, folder, text), 5))
        assert refused.value.code == 2, text
        assert "\n" not in str(refused.value) and "at org.apache" not in str(refused.value)
    assert _state(folder) == before
    assert list(elsewhere.iterdir()) == []
    assert spark.conf.get("spark.sql.runSQLOnFiles") == "false"
    # the messages view is still the snapshot
    assert run_query(spark, folder, "SELECT count(*) AS n FROM messages").rows == [[60]]


def test_the_first_look_refuses_statements_before_spark_with_a_sentence():
    for text in ("INSERT INTO messages SELECT 1", "DROP TABLE messages", "SET a=b",
                 "ADD JAR x.jar", "CREATE TABLE t AS SELECT 1", "EXPLAIN SELECT 1", ""):
        with pytest.raises(AuditInputError):
            query_module.check_query(text)
    assert query_module.check_query("  SELECT 1 ;; ") == "SELECT 1"


def test_refusals_name_what_was_refused(spark, snap):
    folder, _ = snap
    with pytest.raises(AuditInputError, match="reflection"):
        prepare_query(spark, folder, "SELECT reflect('java.lang.System', 'getenv', 'HOME')")
    with pytest.raises(AuditInputError, match="runs a program"):
        prepare_query(spark, folder, "SELECT TRANSFORM(queue) USING 'cat' FROM messages")
    with pytest.raises(AuditInputError, match="runs one query"):
        prepare_query(spark, folder, "FROM messages INSERT OVERWRITE DIRECTORY '/x' SELECT *")
    with pytest.raises(AuditInputError, match="TABLE_OR_VIEW_NOT_FOUND"):
        prepare_query(spark, folder, "SELECT * FROM text.`/etc/passwd`")
    # a value Spark refuses as the rows stream is the query's fault (exit 2), not the job's
    with pytest.raises(AuditInputError, match="CAST_INVALID_INPUT"):
        run_query(spark, folder, "SELECT CAST(queue AS INT) FROM messages")


def test_queries_of_every_shape_still_run(spark, snap):
    folder, rows = snap
    queues = sorted({r["queue"] for r in rows})
    assert run_query(spark, folder, "SELECT DISTINCT queue FROM messages ORDER BY queue DESC"
                     ).rows == [[q] for q in reversed(queues)]
    assert run_query(spark, folder, "WITH q AS (SELECT queue FROM messages) "
                     "SELECT count(*) FROM q").rows == [[60]]
    assert run_query(spark, folder, "FROM messages SELECT count(*)").rows == [[60]]
    assert run_query(spark, folder, "VALUES (1, 'a')").rows == [[1, "a"]]
    assert len(run_query(spark, folder, "TABLE messages", limit=0).rows) == 60
    assert run_query(spark, folder, "SELECT 1 AS one -- a comment;").rows == [[1]]
    described = run_query(spark, folder, "DESCRIBE messages")
    assert described.columns == ["col_name", "data_type"]
    assert ["msg_id", "string"] in described.rows and ["queue", "string"] in described.rows


def test_rows_are_bounded_and_say_when_there_are_more(spark, snap):
    folder, _ = snap
    text = "SELECT position FROM messages"
    for limit, shown, more in ((10, 10, True), (60, 60, False), (0, 60, False)):
        got = run_query(spark, folder, text, limit=limit)  # one query each: rows and more
        assert (len(got.rows), got.more) == (shown, more), limit
    assert query_module.DEFAULT_LIMIT == 1000


def test_out_writes_every_row_privately_through_spark(spark, snap, tmp_path):
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from mqconsole.audit.store import to_uri

    folder, _ = snap
    text = "SELECT queue, msg_id, properties, put_time FROM messages"
    out = check_out(str(tmp_path / "result"), folder)
    assert out == to_uri(tmp_path / "result")  # an absolute URI, for Spark
    assert write_result(prepare_query(spark, folder, text), out, "parquet") == 60
    written = tmp_path / "result"
    assert pq.read_table(written).num_rows == 60
    for path in [written, *written.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600)
    csv_out = check_out(str(tmp_path / "result-csv"), folder)
    assert write_result(prepare_query(spark, folder, text), csv_out, "csv") == 60
    table = pacsv.read_csv(next((tmp_path / "result-csv").glob("*.csv")))
    assert table.column_names == ["queue", "msg_id", "properties", "put_time"]
    with pytest.raises(AuditInputError, match="exists"):
        check_out(str(written), folder)
    with pytest.raises(AuditInputError, match="inside the snapshot"):
        check_out(str(folder / "queue=X"), folder)
    with pytest.raises(AuditInputError, match="does not exist"):
        check_out(str(tmp_path / "no" / "such"), folder)

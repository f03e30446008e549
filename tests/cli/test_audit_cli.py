"""``mqconsole audit report | sql``: real invocations. The test process's SparkSession
(the ``spark`` fixture) runs them in process (tests/cli's ``run_cli``), as the console runs
its audits, a failing query too (its JVM's words in that session's log); what only a
process of its own shows runs the executable: a Java or pyspark missing, a sitecustomize
(none of them starts a JVM). Where a fresh process's own Spark writes (the state folder's
log, never the terminal) is the CLI export's check (test_audit_export_cli.py)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.audit.reportdata import AS_OF, make_rows, oracle, write_snapshot
from tests.cli.conftest import IN_PROCESS, run_cli

AS_OF_TEXT = "2026-11-25T10:00:00Z"


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    rows = make_rows(400, seed=21)
    return write_snapshot(tmp_path_factory.mktemp("audit") / "snap", rows), rows


def test_report_json_is_the_oracle_and_progress_goes_to_stderr(snapshot, tmp_path, spark):
    folder, rows = snapshot
    r = run_cli("audit", "report", "--in", str(folder), "--as-of", AS_OF_TEXT, "--json",
                "--master", "local[2]", home=tmp_path / "home")
    assert r.code == 0, r.err
    got = r.json
    assert got.pop("notes") == []  # the one key added to the fixed ones: nothing to say
    assert got == json.loads(json.dumps(oracle(rows, AS_OF)))
    assert "starting Spark" in r.err and "report done" in r.err
    assert "WARN" not in r.err and "at org.apache" not in r.err  # JVM output in the log


def test_report_html_is_one_page_with_tables_and_bars(snapshot, tmp_path, spark):
    folder, rows = snapshot
    page = tmp_path / "audit.html"
    victim = tmp_path / "victim.txt"  # a symbolic link at FILE is replaced, never followed
    victim.write_text("keep me")
    page.symlink_to(victim)
    r = run_cli("audit", "report", "--in", str(folder), "--as-of", AS_OF_TEXT, "--html",
                str(page), "--master", "local[2]", home=tmp_path / "home")
    assert r.code == 0, r.err
    assert r.out == ""
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html and "http" not in html  # self-contained
    from mqconsole.audit.present import TOP_ROWS

    assert html.count('<div class="bar"') == sum(  # the first rows of each list, "N more"
        min(len(v), TOP_ROWS) for k, v in oracle(rows, AS_OF).items()
        if k.startswith(("by_", "backout", "duplicate")))
    assert "By dead-letter reason" in html and "MQRC_Q_FULL" in html
    expected = oracle(rows, AS_OF)
    lists = [k for k, v in expected.items() if isinstance(v, list) and v]
    assert html.count("<table>") == len(lists)  # one table per list that has rows
    for row in expected["by_queue"]:  # the counts themselves, each with its bar
        share = f"{100 * row['count'] / len(rows):.1f}%"
        assert f'<td class="n">{row["count"]:,}</td><td class="n">{share}</td>' in html
    assert html.count('<tr class="total">') == len(lists)
    import stat

    assert stat.S_IMODE(page.stat().st_mode) == 0o600  # it may name queues and users
    assert not page.is_symlink() and victim.read_text() == "keep me"
    # nothing beside the page (no temporary file left; home is the command's own)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == [
        "audit.html", "victim.txt"]


def test_sql_json_and_bad_sql_in_one_sentence(snapshot, tmp_path, spark, spark_log):
    """The bad query is one sentence: the JVM's words and Spark's stack trace go to the
    session's log file, never the command's stderr. It runs in process on the test's
    session, whose log is ``spark_log`` (as a command's own session's is the state folder's
    spark.log); that a fresh process's own Spark puts nothing on the terminal and logs
    under its home is the CLI export's check (test_audit_export_cli.py,
    test_export_folder_manifest_and_permissions): a process here started one JVM more."""
    folder, rows = snapshot
    r = run_cli("audit", "sql", "--in", str(folder), "--json", "--master", "local[2]",
                "SELECT queue, count(*) AS n FROM messages GROUP BY queue ORDER BY queue",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["queue"]] = counts.get(row["queue"], 0) + 1
    assert r.json == [{"queue": q, "n": n} for q, n in sorted(counts.items())]
    logged = spark_log.stat().st_size if spark_log.exists() else 0
    bad = run_cli("audit", "sql", "--in", str(folder), "--master", "local[2]",
                  "SELECT no_such_column FROM messages", home=tmp_path / "home")
    assert bad.code == 2
    assert bad.err.strip().splitlines()[-1].startswith("mqconsole: the query failed:")
    assert "no_such_column" in bad.err and "Traceback" not in bad.err
    assert "at org.apache" not in bad.err
    assert len([line for line in bad.err.splitlines() if "mqconsole:" in line]) == 1
    # Spark's own words, stack trace included, are in the log file instead (what this
    # query added to it: the worker's other tests write there too); under
    # MQCONSOLE_TEST_CLI=subprocess the executable's own, under its home
    if IN_PROCESS:
        with spark_log.open("rb") as fp:
            fp.seek(logged)
            log = fp.read().decode(errors="replace")
    else:
        log = (tmp_path / "home" / "state" / "spark" / "spark.log").read_text(errors="replace")
    assert "no_such_column" in log and "at org.apache" in log


def test_sql_shows_the_first_rows_and_refuses_the_write_that_wiped_a_queue(snapshot,
                                                                            tmp_path, spark):
    """The default limit bounds what is shown (and says so); --limit 0 streams all; the
    issue's ``FROM messages INSERT OVERWRITE DIRECTORY <a partition>`` is exit 2 and the
    partition keeps every byte; --out writes every row through Spark."""
    import hashlib

    folder, rows = snapshot
    home = tmp_path / "home"
    r = run_cli("audit", "sql", "--in", str(folder), "--master", "local[2]", "--limit", "7",
                "SELECT queue, position FROM messages", home=home)
    assert r.code == 0, r.err
    assert len(r.out.splitlines()) == 1 + 7
    assert "7 rows shown, there are more: --limit 0" in r.err
    partition = next(folder.rglob("*.parquet")).parent
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in partition.iterdir()}
    r = run_cli("audit", "sql", "--in", str(folder), "--master", "local[2]",
                f"FROM messages INSERT OVERWRITE DIRECTORY '{partition}' SELECT *", home=home)
    assert r.code == 2 and "Traceback" not in r.err, r.err
    assert "runs one query" in r.err
    assert before == {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                      for p in partition.iterdir()}
    out = tmp_path / "result"
    r = run_cli("audit", "sql", "--in", str(folder), "--master", "local[2]", "--out", str(out),
                "--format", "csv", "SELECT msg_id FROM messages", home=home)
    assert r.code == 0, r.err
    assert f"wrote {len(rows):,} rows to {out} (csv)" in r.err
    written = "".join(p.read_text() for p in out.glob("*.csv")).split()
    assert sorted(w for w in written if w != "msg_id") == sorted(x["msg_id"] for x in rows)


def test_sql_limit_0_streams_every_row_as_one_json_list(snapshot, tmp_path, spark):
    folder, rows = snapshot
    r = run_cli("audit", "sql", "--in", str(folder), "--master", "local[2]", "--json",
                "--limit", "0", "SELECT msg_id FROM messages", home=tmp_path / "home")
    assert r.code == 0, r.err
    assert sorted(x["msg_id"] for x in r.json) == sorted(x["msg_id"] for x in rows)
    assert f"{len(rows):,} rows" in r.err and "more" not in r.err


def test_a_failed_spark_job_is_exit_1_with_spark_s_reason(snapshot, tmp_path, spark,
                                                          monkeypatch):
    """A report whose Spark job fails (a Python worker killed mid-task) exits 1 with one
    sentence holding Spark's reason: 3 is for no Java or pyspark."""
    import mqconsole.audit.report as report

    def dies(spark, *args):
        def crash(batches):
            import os

            os._exit(7)
            yield from batches

        return spark.range(4).mapInArrow(crash, "id long").collect()

    monkeypatch.setattr(report, "_build", dies)
    r = run_cli("audit", "report", "--in", str(snapshot[0]), "--master", "local[2]",
                home=tmp_path / "home")
    assert r.code == 1, r.err
    errors = [line for line in r.err.splitlines() if line.startswith("mqconsole:")]
    assert len(errors) == 1 and errors[0].startswith("mqconsole: the report failed in Spark:")
    assert "Traceback" not in r.err and "at org.apache" not in r.err


def test_not_a_query_missing_snapshot_and_bad_time_are_exit_2_before_spark(tmp_path):
    """In process (``before_spark``: starting Spark would fail the test)."""
    home = tmp_path / "home"

    def before_spark(*args: str):
        return run_cli(*args, home=home, before_spark=True)

    r = before_spark("audit", "sql", "--in", str(tmp_path), "DROP TABLE messages")
    assert r.code == 2 and "is not one" in r.err and "starting Spark" not in r.err
    r = before_spark("audit", "report", "--in", str(tmp_path / "nope"))
    assert r.code == 2 and "does not exist" in r.err and "starting Spark" not in r.err
    r = before_spark("audit", "report", "--in", str(tmp_path))
    assert r.code == 2 and "has no manifest.json: not a finished audit snapshot" in r.err
    (tmp_path / "manifest.json").write_text('{"format": "parquet"}')
    r = before_spark("audit", "report", "--in", str(tmp_path))
    assert r.code == 2 and "no Parquet files" in r.err
    (tmp_path / "manifest.json").write_bytes(b'\xff\xfe{"format": "parquet"}')
    for command in (["report"], ["sql", "SELECT 1"]):  # was exit 70, a UnicodeDecodeError
        r = before_spark("audit", command[0], "--in", str(tmp_path), *command[1:])
        assert r.code == 2, r.err
        assert f"cannot use {tmp_path / 'manifest.json'}: not UTF-8 text" in r.err
    (tmp_path / "manifest.json").unlink()
    r = before_spark("audit", "report", "--in", str(tmp_path), "--as-of", "yesterday")
    assert r.code == 2 and "ISO 8601" in r.err
    r = before_spark("audit", "report", "--in", str(tmp_path), "--master", "mars")
    assert r.code == 2 and "not a Spark master" in r.err
    site = tmp_path / "site"  # no --master: the site's spark-defaults.conf names it
    site.mkdir()
    (site / "spark-defaults.conf").write_text("spark.master mars\n")
    (tmp_path / "manifest.json").write_text('{"format": "parquet"}')
    (tmp_path / "messages" / "queue=A").mkdir(parents=True)
    (tmp_path / "messages" / "queue=A" / "part-0.parquet").write_bytes(b"PAR1")
    r = run_cli("audit", "report", "--in", str(tmp_path), home=home, before_spark=True,
                env={"SPARK_CONF_DIR": str(site)})
    assert r.code == 2 and "spark-defaults.conf names spark.master 'mars'" in r.err, r.err
    shutil.rmtree(tmp_path / "messages")
    (tmp_path / "manifest.json").unlink()
    r = before_spark("audit", "sql", "--in", str(tmp_path), "--conf", "executor.memory=4g",
                     "SELECT 1")
    assert r.code == 2 and "not a Spark setting" in r.err and "starting Spark" not in r.err


def test_conf_that_names_the_master_or_the_deploy_mode_is_exit_2_before_spark(tmp_path):
    """``--conf spark.master=…`` was taken and dropped (the report ran on local[*]); it and
    ``spark.submit.deployMode`` (mqconsole's process is the driver) are refused, on every
    audit command that takes --conf, in one sentence, before Spark starts (``before_spark``:
    starting it would fail the test) and before any prompt."""
    from mqconsole.audit.session import NOT_CONF

    home = tmp_path / "home"
    qm = tmp_path / "qm.sqlite"
    commands = [["audit", "report", "--in", str(tmp_path)],
                ["audit", "sql", "--in", str(tmp_path), "SELECT 1"],
                ["--embedded", str(qm), "audit", "export", "--out", str(tmp_path / "snap"),
                 "--queues", "APP.*"]]
    for key, value in (("spark.master", "yarn"), ("spark.submit.deployMode", "cluster")):
        for args in commands:
            r = run_cli(*args, "--conf", "spark.executor.memory=2g", "--conf",
                        f"{key}={value}", home=home, before_spark=True)
            assert r.code == 2, (args, r.err)
            said = [line for line in r.err.splitlines() if "is not taken" in line]
            assert len(said) == 1 and said[0].endswith(
                f"--conf {key} is not taken: {NOT_CONF[key]}"), r.err
            assert "starting Spark" not in r.err and "Traceback" not in r.err
    assert "--master" in NOT_CONF["spark.master"]
    assert not (tmp_path / "snap").exists() and not qm.exists()


def test_no_java_or_no_pyspark_is_exit_3_saying_how_to_get_them(snapshot, tmp_path):
    folder, _ = snapshot
    home = tmp_path / "home"
    r = run_cli("audit", "report", "--in", str(folder), home=home,
                env={"JAVA_HOME": str(tmp_path / "no-java")})
    assert r.code == 3, r.err
    assert "needs Java" in r.err and "openjdk-17" in r.err and "Traceback" not in r.err
    shadow = tmp_path / "shadow"  # a sitecustomize that makes pyspark not importable
    shadow.mkdir()
    (shadow / "sitecustomize.py").write_text("import sys\nsys.modules['pyspark'] = None\n")
    r = run_cli("audit", "sql", "--in", str(folder), "SELECT 1", home=home,
                env={"PYTHONPATH": str(tmp_path / "shadow")})
    assert r.code == 3, r.err
    assert "pip install 'mqconsole[spark]'" in r.err and "Traceback" not in r.err


def test_remote_without_spark_connect_libraries_is_exit_3_saying_how(snapshot, tmp_path):
    shadow = tmp_path / "shadow"  # a sitecustomize that makes grpc (Connect's) not importable
    shadow.mkdir()
    (shadow / "sitecustomize.py").write_text("import sys\nsys.modules['grpc'] = None\n")
    r = run_cli("audit", "report", "--in", str(snapshot[0]), "--remote", "sc://127.0.0.1:1",
                home=tmp_path / "home", env={"PYTHONPATH": str(shadow)})
    assert r.code == 3, r.err
    assert "pip install 'mqconsole[connect]'" in r.err and "Traceback" not in r.err
    assert "grpcio" in r.err


def test_remote_that_does_not_answer_is_exit_3_at_once(snapshot, tmp_path):
    r = run_cli("audit", "report", "--in", str(snapshot[0]), "--remote", "sc://127.0.0.1:1",
                home=tmp_path / "home")
    assert r.code == 3, r.err
    assert r.err.strip().splitlines()[-1].startswith(
        "mqconsole: cannot reach the Spark Connect server sc://127.0.0.1:1:")
    assert "Traceback" not in r.err
    r = run_cli("audit", "sql", "--in", str(snapshot[0]), "--remote", "http://x", "SELECT 1",
                home=tmp_path / "home", before_spark=True)
    assert r.code == 2 and "sc://HOST:PORT" in r.err
    r = run_cli("audit", "sql", "--in", str(snapshot[0]), "--remote", "sc://127.0.0.1:1",
                "--master", "local[2]", "SELECT 1", home=tmp_path / "home", before_spark=True)
    assert r.code == 2 and "alternatives" in r.err


@pytest.mark.parametrize("command", [
    ["audit", "report", "--in", "SNAP"],
    ["audit", "sql", "--in", "SNAP", "SELECT 1"],
    ["--embedded", "QM", "audit", "export", "--out", "OUT", "--queues", "APP.*"],
])
def test_no_pyspark_is_exit_3_in_one_sentence_for_every_command(snapshot, tmp_path, command):
    """Each audit command, pyspark missing: exit 3, one line saying how to get it."""
    from mqconsole.backends.open import open_embedded

    qm_path = tmp_path / "qm.sqlite"
    qm = open_embedded(str(qm_path), create=True, name="QM1")
    qm.close()
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "sitecustomize.py").write_text("import sys\nsys.modules['pyspark'] = None\n")
    args = [str(snapshot[0]) if a == "SNAP" else str(qm_path) if a == "QM"
            else str(tmp_path / "out") if a == "OUT" else a for a in command]
    r = run_cli(*args, home=tmp_path / "home", env={"PYTHONPATH": str(shadow)})
    assert r.code == 3, r.err
    errors = [line for line in r.err.splitlines() if line.startswith("mqconsole:")]
    assert len(errors) == 1 and "pip install 'mqconsole[spark]'" in errors[0]
    assert "Traceback" not in r.err and not (tmp_path / "out").exists()

"""Spark sessions that cannot be the test process's, in one process of their own (one JVM
for both: each started its own before):

* an operator's plain SparkSession (no mqconsole code run first): PySpark finds the
  ``mqconsole`` source through the installed pyspark_mqconsole module, and a profile of
  mqconsole's configuration is opened by name (no password inside the options);
* then, on that session, the stored aggregates are computed by Spark from the committed
  data: exact when a task fails and is retried (the readers folded nothing of their own: a
  retried task cannot count twice). Task retries are set when a context starts
  (``local[2,3]``: two cores, a task may fail three times) and the tests' session pins
  none, so this too needs a session of its own; mqconsole's SQL settings are set on it as
  ``start_session`` sets them on a session it starts (it gives this running one back).

The plain part runs first, so nothing of mqconsole is imported before it; each part's
answer is one line, and each test checks its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from mqconsole.audit.report import build_report

from .reportdata import AS_OF, make_rows, oracle, write_snapshot
from .scene import DEMO_QUEUES, Scene, build_scene, expected_rows

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from pyspark.sql import SparkSession

    files, qm = json.loads(sys.argv[1]), sys.argv[2]
    folder, marks = Path(sys.argv[3]), Path(sys.argv[4])
    spark = (SparkSession.builder.master("local[2,3]").config("spark.ui.enabled", "false")
             .config("spark.sql.session.timeZone", "UTC")
             # (a short-lived driver: quick JIT, serial GC, as mqconsole's own sessions start)
             .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
             .getOrCreate())

    # 1. the operator's own session: no mqconsole code run first
    assert not [m for m in sys.modules if m.startswith("mqconsole")], "mqconsole imported"
    out = {}
    try:
        out = {
            "files": spark.read.format("mqconsole").load(files).count(),
            "one_file": spark.read.format("mqconsole").load(files[0]).count(),
            "embedded": spark.read.format("mqconsole").option("embedded", qm)
                        .option("queues", "APP.*.BOQ").load().count(),
            "profile": spark.read.format("mqconsole").option("profile", "audited")
                       .option("queues", "SYSTEM.DEAD.LETTER.QUEUE").load()
                       .groupBy("queue").count().collect()[0].asDict(),
        }
        try:
            spark.read.format("mqconsole").option("profile", "nope").option("queues", "Q") \\
                .load().count()
        except Exception as e:
            out["unknown"] = str(e)
    except Exception as e:
        out["error"] = repr(e)
    print("PLAIN " + json.dumps(out), flush=True)

    # 2. the stored aggregates, when a task fails and is retried
    from mqconsole.audit.session import SparkSettings, spark_conf_pairs, start_session
    from mqconsole.audit.store import to_uri
    from mqconsole.audit.summary import SUMMARY_DIR, SUMMARY_FILE, store_aggregates

    settings = SparkSettings(master="local[2,3]", log_dir=marks / "log", shuffle_partitions=2)
    assert start_session(settings) is spark  # the running session, given back
    for key, value in spark_conf_pairs(settings, marks / "log4j2.properties").items():
        if key.startswith("spark.sql.") and key != "spark.sql.warehouse.dir":
            spark.conf.set(key, value)
    frame = spark.read.parquet(to_uri(folder / "messages"))
    frame = frame.withColumn("put_date", frame["put_date"].cast("date"))

    def first_attempt_fails(batches):
        from pyspark import TaskContext

        task = TaskContext.get()
        rows = 0
        for batch in batches:
            rows += batch.num_rows
            yield batch
        if task.attemptNumber() == 0 and task.partitionId() == 0 and rows:
            # its rows were yielded: a fold inside the reading would have counted them
            (marks / f"failed-{task.stageId()}").write_text(str(rows))
            raise RuntimeError("the first attempt of this task fails")

    frame = frame.mapInArrow(first_attempt_fails, frame.schema)
    info = store_aggregates(frame, to_uri(folder / SUMMARY_DIR))
    (folder / SUMMARY_DIR / SUMMARY_FILE).write_text(json.dumps(info))
    print("RETRY done", flush=True)
    spark.stop()
""")


@dataclass
class Ran:
    scene: Scene
    rows: list[dict]
    snapshot: Path
    marks: Path
    done: subprocess.CompletedProcess

    def said(self, word: str) -> str | None:
        line = next((x for x in self.done.stdout.splitlines() if x.startswith(word + " ")),
                    None)
        return None if line is None else line.removeprefix(word + " ")


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> Ran:
    base = tmp_path_factory.mktemp("own-session")
    scene = build_scene(base / "scene")
    rows = make_rows(700, seed=7)
    snapshot = write_snapshot(base / "snap", rows)
    marks = base / "marks"
    marks.mkdir()
    config = base / "config.yaml"
    config.write_text(f"profiles:\n  - name: audited\n    backend:\n      type: embedded\n"
                      f"      path: {scene.qm_path}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env.update(MQCONSOLE_CONFIG=str(config), MQCONSOLE_HOME=str(base / "home"),
               PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               # an installed (not editable) mqconsole is found on the path like this
               PYTHONPATH=str(REPO))
    cwd = base / "cwd"
    cwd.mkdir()
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps([str(p) for p in scene.files]),
                           str(scene.qm_path), str(snapshot), str(marks)],
                          capture_output=True, text=True, env=env, timeout=900, cwd=cwd)
    return Ran(scene, rows, snapshot, marks, done)


def test_a_plain_session_reads_the_source_with_no_register_call(ran) -> None:
    """A plain SparkSession of the operator's own (no mqconsole code run first): PySpark
    finds the source through the installed pyspark_mqconsole module, and a profile of
    mqconsole's configuration is opened by name (no password inside the options)."""
    said = ran.said("PLAIN")
    assert said is not None, ran.done.stderr[-3000:]
    got = json.loads(said)
    assert "error" not in got, got["error"]
    rows = expected_rows(ran.scene, DEMO_QUEUES)
    assert got["files"] == sum(1 for e in rows if e["source"] != "queue")
    assert got["one_file"] == sum(1 for e in rows if e["source"] == str(ran.scene.files[0]))
    assert got["embedded"] == sum(1 for e in rows if e["queue"].endswith(".BOQ"))
    assert got["profile"] == {"queue": "SYSTEM.DEAD.LETTER.QUEUE", "count": sum(
        1 for e in rows if e["queue"] == "SYSTEM.DEAD.LETTER.QUEUE")}
    assert "profile 'nope' is not known to the mqconsole data source" in got["unknown"]


def test_aggregates_are_exact_when_tasks_fail_and_are_retried(ran, spark) -> None:
    assert ran.done.returncode == 0 and ran.said("RETRY") == "done", ran.done.stderr[-3000:]
    failed = sorted(p.name for p in ran.marks.glob("failed-*"))
    assert failed, "no task failed: the retry was not tested"
    info = json.loads((ran.snapshot / "_summary" / "summary.json").read_text())
    assert info["rows"] == 700
    said: list[str] = []
    assert build_report(spark, ran.snapshot, as_of=AS_OF, progress=said.append) == \
        oracle(ran.rows)
    assert "stored aggregates" in said[0]

"""The stored aggregates are computed by Spark from the committed data: exact when a task
fails and is retried (the readers folded nothing of their own: a retried task cannot count
twice)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from mqconsole.audit.report import build_report

from .reportdata import AS_OF, make_rows, oracle, write_snapshot

# run in a process of its own: Spark's task retries are set when its context starts
# (local[2,3]: two cores, a task may fail three times), and the tests' session pins one
RETRYING = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from mqconsole.audit.session import SparkSettings, start_session
    from mqconsole.audit.store import to_uri
    from mqconsole.audit.summary import SUMMARY_DIR, SUMMARY_FILE, store_aggregates

    folder, marks = Path(sys.argv[1]), Path(sys.argv[2])
    spark = start_session(SparkSettings(master="local[2,3]", log_dir=marks / "log",
                                        shuffle_partitions=2))
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
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
    spark.stop()
""")


def test_aggregates_are_exact_when_tasks_fail_and_are_retried(spark, tmp_path) -> None:
    rows = make_rows(700, seed=7)
    folder = write_snapshot(tmp_path / "snap", rows)
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (os.getcwd(), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([sys.executable, "-c", RETRYING, str(folder), str(marks)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    failed = sorted(p.name for p in marks.glob("failed-*"))
    assert failed, "no task failed: the retry was not tested"
    info = json.loads((folder / "_summary" / "summary.json").read_text())
    assert info["rows"] == 700
    said: list[str] = []
    assert build_report(spark, folder, as_of=AS_OF, progress=said.append) == oracle(rows)
    assert "stored aggregates" in said[0]

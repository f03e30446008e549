"""``spark.read.format("mqconsole")`` on its own: schema, partitions, rows as plain Python
reads them, errors in one sentence."""

from __future__ import annotations

from collections import Counter

import pytest

from mqconsole.audit.columns import COLUMNS, snapshot_columns, spark_ddl
from mqconsole.audit.datasource import register

from .scene import DEMO_QUEUES, QUEUES, build_scene, expected_rows


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return build_scene(tmp_path_factory.mktemp("scene"))


def _load(spark, scene, **options):
    reader = spark.read.format("mqconsole")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader


def test_schema_and_partitions(spark, scene) -> None:
    register(spark, connections={"prod": {"backend": "embedded", "path": str(scene.qm_path)}})
    frame = _load(spark, scene, profile="prod", queues=QUEUES).load(
        [str(p) for p in scene.files])
    assert frame.columns == list(COLUMNS)
    from pyspark.sql.types import StructType

    assert frame.schema == StructType.fromDDL(spark_ddl(snapshot_columns()))
    # one partition per queue and one per file
    assert frame.rdd.getNumPartitions() == len(DEMO_QUEUES) + len(scene.files)
    payload = _load(spark, scene, embedded=str(scene.qm_path), queues="APP.ORDERS.BOQ",
                    with_payload="true").load()
    assert payload.columns == [*COLUMNS, "payload"]
    assert payload.schema["payload"].dataType.typeName() == "binary"


def test_rows_are_what_plain_python_reads(spark, scene) -> None:
    register(spark)
    frame = _load(spark, scene, embedded=str(scene.qm_path), queues=QUEUES).load(
        [str(p) for p in scene.files])
    got = sorted(
        (r.qmgr, r.queue, r.position, r.source, r.msg_id, r.dlh_reason,
         r.payload_length is None, r.length)
        for r in frame.select("qmgr", "queue", "position", "source", "msg_id", "dlh_reason",
                              "payload_length", "length").collect())
    want = sorted((e["qmgr"], e["queue"], e["position"], e["source"], e["msg_id"],
                   e["dlh_reason"], e["unparsed"], e["length"])
                  for e in expected_rows(scene, DEMO_QUEUES))
    assert got == want
    assert sum(1 for g in got if g[6]) == 4  # the headers that do not parse: still rows


def test_unknown_profile_and_memory_queue_managers_are_refused(spark, scene) -> None:
    from pyspark.errors import PySparkException

    register(spark, connections={"mem": {"backend": "embedded", "path": ":memory:"}})
    with pytest.raises(PySparkException, match="profile 'prod' is not known"):
        _load(spark, scene, profile="prod", queues="Q").load().count()
    with pytest.raises(PySparkException, match="in memory lives in one process"):
        _load(spark, scene, profile="mem", queues="Q").load().count()
    with pytest.raises(PySparkException, match="nothing to read"):
        _load(spark, scene).load().count()


def test_each_partition_is_one_queue_or_file_read_in_browse_order(spark, scene) -> None:
    """One partition per source: a queue is browsed forward from its start by one task, so
    its positions run 1..n inside one partition; batch_rows only sizes the Arrow batches."""
    from pyspark.sql import functions as F

    register(spark)
    frame = _load(spark, scene, embedded=str(scene.qm_path), queues=QUEUES,
                  batch_rows="7").load([str(p) for p in scene.files])
    parts = (frame.withColumn("part", F.spark_partition_id())
             .groupBy("part").agg(F.collect_set(F.struct("qmgr", "queue", "source")).alias("s"),
                                  F.count("*").alias("n"), F.min("position").alias("lo"),
                                  F.max("position").alias("hi"),
                                  F.countDistinct("position").alias("d"))
             .collect())
    want = Counter((e["qmgr"], e["queue"], e["source"])
                   for e in expected_rows(scene, DEMO_QUEUES))
    assert len(parts) == len(want) == len(DEMO_QUEUES) + len(scene.files)
    for p in parts:
        assert len(p.s) == 1  # one source per partition
        key = tuple(p.s[0])
        assert p.n == want[key] and (p.lo, p.hi, p.d) == (1, p.n, p.n)


SCRIPT = """
import json, sys
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.sql.session.timeZone", "UTC")
         # (a short-lived driver: quick JIT, serial GC, as mqconsole's own sessions start)
         .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
         .getOrCreate())
files, qm = json.loads(sys.argv[1]), sys.argv[2]
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
    spark.read.format("mqconsole").option("profile", "nope").option("queues", "Q").load().count()
except Exception as e:
    out["unknown"] = str(e)
print("RESULT " + json.dumps(out))
spark.stop()
"""


def test_on_its_own_with_no_register_call(scene, tmp_path) -> None:
    """A plain SparkSession of the operator's own (no mqconsole code run first): PySpark
    finds the source through the installed pyspark_mqconsole module, and a profile of
    mqconsole's configuration is opened by name (no password inside the options)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    config = tmp_path / "config.yaml"
    config.write_text(f"profiles:\n  - name: audited\n    backend:\n      type: embedded\n"
                      f"      path: {scene.qm_path}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env.update(MQCONSOLE_CONFIG=str(config), MQCONSOLE_HOME=str(tmp_path / "home"),
               PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               # an installed (not editable) mqconsole is found on the path like this
               PYTHONPATH=str(repo))
    files = [str(p) for p in scene.files]
    r = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(files), str(scene.qm_path)],
                       capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, r.stderr[-3000:]
    got = json.loads(line.removeprefix("RESULT "))
    rows = expected_rows(scene, DEMO_QUEUES)
    assert got["files"] == sum(1 for e in rows if e["source"] != "queue")
    assert got["one_file"] == sum(1 for e in rows if e["source"] == str(scene.files[0]))
    assert got["embedded"] == sum(1 for e in rows if e["queue"].endswith(".BOQ"))
    assert got["profile"] == {"queue": "SYSTEM.DEAD.LETTER.QUEUE", "count": sum(
        1 for e in rows if e["queue"] == "SYSTEM.DEAD.LETTER.QUEUE")}
    assert "profile 'nope' is not known to the mqconsole data source" in got["unknown"]


def test_a_queue_of_the_embedded_queue_manager_split_in_stretches(spark, scene) -> None:
    register(spark)
    frame = _load(spark, scene, embedded=str(scene.qm_path), queues=QUEUES, parts="3",
                  min_split_rows="2").load()
    assert frame.rdd.getNumPartitions() > len(DEMO_QUEUES)
    got = sorted((r.queue, r.position, r.msg_id) for r in frame.select(
        "queue", "position", "msg_id").collect())
    assert got == sorted((e["queue"], e["position"], e["msg_id"])
                         for e in expected_rows(scene, DEMO_QUEUES) if e["source"] == "queue")

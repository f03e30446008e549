"""``spark.read.format("mqconsole")`` on its own: schema, partitions, rows as plain Python
reads them, errors in one sentence. An operator's plain session (no register call, a
profile by name) runs in a process of its own: test_own_session.py."""

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


def test_a_queue_of_the_embedded_queue_manager_split_in_stretches(spark, scene) -> None:
    register(spark)
    frame = _load(spark, scene, embedded=str(scene.qm_path), queues=QUEUES, parts="3",
                  min_split_rows="2").load()
    assert frame.rdd.getNumPartitions() > len(DEMO_QUEUES)
    got = sorted((r.queue, r.position, r.msg_id) for r in frame.select(
        "queue", "position", "msg_id").collect())
    assert got == sorted((e["queue"], e["position"], e["msg_id"])
                         for e in expected_rows(scene, DEMO_QUEUES) if e["source"] == "queue")

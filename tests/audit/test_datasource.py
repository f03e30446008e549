"""``spark.read.format("mqconsole")`` on its own: schema, partitions, rows as plain Python
reads them, errors in one sentence."""

from __future__ import annotations

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

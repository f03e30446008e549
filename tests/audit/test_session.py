"""The test session is started the way an audit starts Spark: quiet, UTC, one try per task."""

from __future__ import annotations

import pytest

from mqconsole.audit.session import BadMaster, check_master


def test_session_settings(spark) -> None:
    conf = spark.sparkContext.getConf()
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    assert spark.conf.get("spark.sql.parquet.outputTimestampType") == "TIMESTAMP_MICROS"
    assert conf.get("spark.task.maxFailures") == "1"
    assert conf.get("spark.ui.enabled") == "false"
    assert spark.range(5).count() == 5


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]", "spark://127.0.0.1:7077",
                                    "yarn", "k8s://https://10.0.0.1:443"])
def test_masters_spark_knows(master) -> None:
    assert check_master(master) == master


@pytest.mark.parametrize("master", ["", "local[0]", "spark://host", "mesos://x:5050", "local[a]"])
def test_other_masters_are_refused(master) -> None:
    with pytest.raises(BadMaster, match="is not a Spark master"):
        check_master(master)

"""One SparkSession for the report's tests (until the audit conftest's lands on main)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    from mqconsole.audit.session import spark_session

    os.environ.setdefault("MQCONSOLE_HOME", str(tmp_path_factory.mktemp("spark-home")))
    return spark_session("local[2]", conf={"spark.sql.shuffle.partitions": "2"})

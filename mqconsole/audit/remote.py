"""``--remote sc://HOST:PORT``: the report and ``audit sql`` on a Spark Connect server.

Spark Connect needs pyspark's ``connect`` extra (grpcio, protobuf); without it, or when the
server does not answer, one sentence says so (exit 3). The snapshot folder must be one the
server can read (shared storage): the server, not this machine, reads the Parquet files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqconsole.audit.errors import first_line
from mqconsole.audit.java import SparkUnavailable

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def connect(url: str) -> SparkSession:
    """A Spark Connect session on ``url``."""
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies("pyspark.sql.connect")
    except ImportError as e:
        raise SparkUnavailable(f"--remote needs Spark Connect's client libraries ({e.name or e}"
                               "): pip install 'pyspark[connect]>=4.3,<4.4'") from None
    from pyspark.sql import SparkSession

    try:
        session = SparkSession.builder.remote(url).getOrCreate()
        session.sql("SELECT 1").collect()
    except Exception as e:
        raise SparkUnavailable(f"cannot reach the Spark Connect server {url}: "
                               f"{first_line(e)}") from None
    return session

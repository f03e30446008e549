"""One SparkSession per test process (per xdist worker), on whichever worker runs Spark.

``make test`` runs pytest with ``-n auto``: each xdist worker is its own process, and the
session-scoped ``spark`` fixture starts one JVM in each worker that runs a test using it
(``local[2]``: each a small Spark of its own). The Spark tests are in the ``spark`` tier
(tests/support/tiers.py): ``make quick`` leaves them out; they are no longer kept on one
worker, so they share the run's time between workers.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """``local[2]``, two shuffle partitions, its JVM output in a temporary log folder."""
    from mqconsole.audit.session import SparkSettings, start_session

    log_dir = tmp_path_factory.mktemp("spark-log")
    session = start_session(SparkSettings(master="local[2]", log_dir=log_dir,
                                          shuffle_partitions=2))
    yield session
    session.stop()

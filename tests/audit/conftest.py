"""One SparkSession for the whole test run, and every Spark test on one xdist worker.

``make test`` runs pytest with ``-n auto --dist loadgroup``: each xdist worker is its own
process, so a session-scoped fixture would start one JVM per worker. Every test in this
folder is put in the xdist group ``spark`` (tests elsewhere that start Spark, such as the
CLI's audit tests, carry ``pytest.mark.xdist_group("spark")`` themselves), so one worker
runs them all on one session while the other workers run the rest of the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks to group the tests
def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.xdist_group("spark"))


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """``local[2]``, two shuffle partitions, its JVM output in a temporary log folder."""
    from mqconsole.audit.session import SparkSettings, start_session

    log_dir = tmp_path_factory.mktemp("spark-log")
    session = start_session(SparkSettings(master="local[2]", log_dir=log_dir,
                                          shuffle_partitions=2))
    yield session
    session.stop()

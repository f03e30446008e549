"""``--remote sc://HOST:PORT``: the audit commands on a Spark Connect server.

Spark Connect needs pyspark's ``connect`` extra (grpcio, protobuf, zstandard: ``pip install
'mqconsole[connect]'``); without it, or when the server does not answer, one sentence says so
(exit 3). The server, not this machine, runs the jobs: it reads and writes the snapshot
folder (shared storage) and, for an export, runs the ``mqconsole`` data source in its own
Python workers (registered from here over Connect), which must import the same mqconsole
with the same Python version and reach the queue managers and saved files.

A Connect session has no ``SparkContext``: :func:`master_of` and :func:`cancel_all` are what
the export and the console use instead of ``sparkContext.master`` and ``cancelAllJobs``.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING, Any

from .errors import first_line
from .java import SparkUnavailable

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CONNECT_EXTRA = "pip install 'mqconsole[connect]'"
DEFAULT_PORT = 15002
# the session settings of session.py a Connect client may set (SQL settings of its session)
SESSION_CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
}


def connect(url: str) -> Any:  # a Connect session: shaped like SparkSession, not one
    """A Spark Connect session on ``url``: pyspark's error logging goes to the log file (a
    failing query would print the server's JVM stack trace on stderr otherwise)."""
    from mqconsole import paths

    from .java import check_pyspark
    from .session import SparkSettings, quiet_python_loggers

    check_pyspark()  # no Java needed here: the server has it
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies()
    except ImportError as e:
        params = getattr(e, "getMessageParameters", lambda: None)() or {}
        missing = params.get("package_name") or e.name or first_line(e)
        raise SparkUnavailable(f"--remote needs Spark Connect's client libraries ({missing}): "
                               f"{CONNECT_EXTRA}") from None
    # Connect's own builder: pyspark's generic one refuses while a classic SparkContext runs
    # in this process, and switches the whole process to Connect (SPARK_CONNECT_MODE_ENABLED);
    # so the audit code uses DataFrame methods and SQL text, never pyspark.sql.functions
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    _reachable(url)
    log_file = SparkSettings().log_file
    paths.ensure_dir(log_file.parent)
    quiet_python_loggers(log_file)
    try:
        session = ConnectSession.builder.remote(url).getOrCreate()
        for key, value in SESSION_CONF.items():
            session.conf.set(key, value)
        session.sql("SELECT 1").collect()
    except Exception as e:
        raise SparkUnavailable(f"cannot reach the Spark Connect server {url}: "
                               f"{first_line(e)}") from None
    return session


def set_conf(session: SparkSession, conf: dict[str, str]) -> None:
    """``--conf`` on a Connect session: settings of the session only (the server's own are
    set where it starts); one sentence (exit 2) for one it refuses."""
    from .errors import AuditInputError

    for key, value in conf.items():
        try:
            session.conf.set(key, value)
        except Exception as e:
            raise AuditInputError(f"--conf {key} cannot be set from a Spark Connect client "
                                  f"({first_line(e)}): set it where the server starts"
                                  ) from None


SPARK_DEFAULTS = {"spark.task.maxFailures": "4", "spark.speculation": "false"}
"""Spark's own values of :data:`session.PINNED`'s settings, where a server sets none."""


def second_copies(conf: Any) -> list[str]:
    """The settings of a Spark Connect server (``conf``: its session's ``spark.conf``, whose
    ``get(key, default)`` gives the server's values) that let Spark run a task of the
    export twice (a retry, a speculative copy), as ``key=value``; none when it runs each
    once, as :data:`session.PINNED` makes a classic session do."""
    bad: list[str] = []
    speculation = str(conf.get("spark.speculation", SPARK_DEFAULTS["spark.speculation"]))
    if speculation.strip().lower() != "false":
        bad.append(f"spark.speculation={speculation}")
    failures = str(conf.get("spark.task.maxFailures", SPARK_DEFAULTS["spark.task.maxFailures"]))
    master = str(conf.get("spark.master", "") or "").strip()
    local = re.fullmatch(r"local(?:\[(?:\d+|\*)(?:,\s*(\d+))?\])?", master)
    if local is not None:  # Spark's local mode retries only local[N,F]'s F - 1 times
        tries = local.group(1)
        if tries is not None and tries != "1":
            bad.append(f"spark.master={master}")
    elif failures.strip() != "1":
        bad.append(f"spark.task.maxFailures={failures}")
    return bad


def check_runs_tasks_once(spark: SparkSession) -> None:
    """Refuse an export over Connect (exit 2, one sentence, before anything is read or
    written) to a server that would run a task twice: a second copy would browse its queue
    again. A Connect client cannot set either (the server's own settings): the sentence
    says how to start the server."""
    from .errors import AuditInputError
    from .session import PINNED

    bad = second_copies(spark.conf)
    if bad:
        start = " ".join(f"--conf {key}={value}" for key, value in PINNED.items())
        raise AuditInputError(
            f"the Spark Connect server {master_of(spark)} runs with {' and '.join(bad)}, "
            "so a task could run twice and browse its queue again: start the server with "
            f"{start} (a Connect client cannot set them)")


def _reachable(url: str, timeout: float = 10.0) -> None:
    """Say at once when nothing listens at ``url`` (the Connect client would retry for
    minutes before giving up)."""
    import socket
    from urllib.parse import urlparse

    try:
        parsed = urlparse(url.replace("sc://", "http://", 1).split(";", 1)[0])
        host, port = parsed.hostname, parsed.port or DEFAULT_PORT
    except ValueError:
        host, port = None, None
    if not host:
        raise SparkUnavailable(f"{url} is not a Spark Connect address (sc://HOST:PORT)")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        raise SparkUnavailable(f"cannot reach the Spark Connect server {url}: "
                               f"{e.strerror or e} (is it started? sbin/start-connect-server.sh"
                               " in a Spark installation; docs/audit.md)") from None


def is_connect(spark: object) -> bool:
    """Whether ``spark`` is a Spark Connect session (no SparkContext)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def master_of(spark: SparkSession) -> str:
    """The session's master, or ``sc://…`` for a Connect session."""
    if is_connect(spark):
        builder = getattr(getattr(spark, "client", None), "_builder", None)
        host, port = getattr(builder, "_host", None), getattr(builder, "_port", None)
        return f"sc://{host}:{port}" if host else "sc://"
    return spark.sparkContext.master or ""


def cancel_all(spark: SparkSession) -> None:
    """Cancel the session's running jobs (Connect: interrupt its operations)."""
    if is_connect(spark):
        with contextlib.suppress(Exception):
            spark.interruptAll()
        return
    spark.sparkContext.cancelAllJobs()

"""Starting Spark for an audit: checked first, quiet, its output in a log file.

``start_session`` checks pyspark and Java (``java.require_spark``'s checks: one sentence, exit
3; Java only when no session runs already), then starts the JVM gateway itself with its
stdout and stderr going to ``<state folder>/spark/spark.log`` (the console draws on stderr,
which a JVM would inherit), with a log4j2 configuration that sends Spark's own logging there
too, and builds the
``SparkSession`` on that gateway. Settings (docs/audit.md): UTC session time
zone, microsecond Parquet timestamps, no UI or console progress bar, quick JIT and a serial
GC for the short-lived driver, ``spark.task.maxFailures=1`` (a retried task would browse a
queue again).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mqconsole import paths

from .errors import AuditInputError, SparkDidNotStart, first_line
from .java import SparkUnavailable, check_java, check_pyspark

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
APP_NAME = "mqconsole-audit"
LOG_DIR_NAME = "spark"
LOG_FILE_NAME = "spark.log"

_MASTER = re.compile(r"^(local(\[(\*|[1-9][0-9]*)(,[1-9][0-9]*)?\])?|spark://[^/\s]+:[0-9]+"
                     r"(,[^/\s]+:[0-9]+)*|yarn|k8s://\S+)$")

LOG4J2 = """\
# mqconsole: Spark's logging goes to the JVM's stderr, which mqconsole sends to spark.log
status = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yyyy-MM-dd'T'HH:mm:ss.SSS} %p %c{1}: %m%n%ex
rootLogger.level = warn
rootLogger.appenderRef.console.ref = console
logger.spark.name = org.apache.spark
logger.spark.level = warn
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = error
logger.parquet.name = org.apache.parquet
logger.parquet.level = error
"""


class BadMaster(AuditInputError):
    """A ``--master`` Spark does not know (exit 2)."""


def check_master(master: str) -> str:
    """``local``, ``local[N]``, ``local[*]``, ``spark://HOST:PORT``, ``yarn`` or ``k8s://…``."""
    if not _MASTER.match(master.strip()):
        raise BadMaster(f"--master {master!r} is not a Spark master: use local[N], local[*], "
                        "spark://HOST:PORT (a standalone cluster), yarn or k8s://URL")
    return master.strip()


def spark_log_dir() -> Path:
    return paths.user_state_dir() / LOG_DIR_NAME


@dataclass(frozen=True)
class SparkSettings:
    """How to start Spark: where, and anything a site adds (``spark.*`` settings)."""

    master: str = DEFAULT_MASTER
    app_name: str = APP_NAME
    log_dir: Path | None = None  # default: <state folder>/spark
    shuffle_partitions: int | None = None  # default: the master's cores (local), else 8
    conf: Mapping[str, str] = field(default_factory=dict)
    compile_hot: bool = False  # C2 for the per-row code (:data:`HOT_JIT`): a big export
    share_classes: bool = False  # the driver maps Spark's classes from an archive (classes.py)
    dump_classes: bool = False  # ... and writes one at its exit when there is none

    @property
    def log_file(self) -> Path:
        return (self.log_dir or spark_log_dir()) / LOG_FILE_NAME


def _cores(master: str) -> int:
    m = re.match(r"local\[(\*|\d+)", master)
    if master == "local":
        return 1
    if m is None:
        return 8
    return (os.cpu_count() or 2) if m.group(1) == "*" else int(m.group(1))


QUICK_JIT = "-XX:TieredStopAtLevel=1"
"""The driver's JIT for most of mqconsole's sessions: C1 only. A report, a query or a small
export is over before HotSpot's optimising compiler (C2) pays for what it compiles
(docs/benchmarks.md: C2 with its default thresholds cost as much CPU as it saved)."""

HOT_JIT = ("-XX:TieredStopAtLevel=4 -XX:Tier4InvocationThreshold=100000 "
           "-XX:Tier4MinInvocationThreshold=50000 -XX:Tier4CompileThreshold=120000 "
           "-XX:Tier4BackEdgeThreshold=400000")
"""C2 for the methods run about 10^5 times only: a big export's per-row and per-value code
(Arrow to rows, the sort, Parquet's writer), not the thousands of warm methods of Spark's
planning. Measured on 1M messages (docs/benchmarks.md, "C2 for the hot code only"): the
task threads 57.5 -> 22.4 CPU-s, the compilers +9.8, the whole export -18 %."""

HOT_ROWS = 500_000
"""From how many rows an export's session compiles its hot code with C2 (:data:`HOT_JIT`):
the compilers' cost is about fixed, the saving grows with the rows (at 1M, 35 CPU-s)."""

DAEMON_MODULE = "mqconsole.audit.daemon"
"""The daemon of a local session's Python workers (``daemon.py``: pyspark imported from the
installed package, not compiled again from Spark's zip in every daemon and worker)."""

# what mqconsole never leaves to a site: a retried or speculative copy of a task would
# browse a queue again (over Spark Connect they are the server's: remote.check_runs_tasks_once)
PINNED = {"spark.task.maxFailures": "1", "spark.speculation": "false"}
# Java options mqconsole adds to a site's (its logging settings must reach the JVM)
JAVA_OPTIONS = ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions")
SHIPPED_LOG4J = "mqconsole-log4j2.properties"  # the name executors find it under


def site_defaults(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The site's ``spark-defaults.conf`` (``$SPARK_CONF_DIR``, else ``$SPARK_HOME/conf``),
    as spark-submit reads it: ``key value`` or ``key=value`` lines, ``#`` comments."""
    env = os.environ if environ is None else environ
    folder = env.get("SPARK_CONF_DIR") or (
        os.path.join(env["SPARK_HOME"], "conf") if env.get("SPARK_HOME") else None)
    if not folder:
        return {}
    out: dict[str, str] = {}
    try:
        text = Path(folder, "spark-defaults.conf").read_text(encoding="utf-8")
    except OSError:
        return {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = re.match(r"(\S+?)(?:\s*=\s*|\s+)(.*)$", line)
        if match:
            out[match.group(1)] = match.group(2).strip()
    return out


def default_master(environ: Mapping[str, str] | None = None) -> str:
    """The master when none is named (no ``--master``, no ``tui.audit_master``): the site's
    ``spark.master`` in its ``spark-defaults.conf``, as spark-submit takes it, else
    :data:`DEFAULT_MASTER`; :class:`BadMaster` naming the file when it is not a master."""
    named = site_defaults(environ).get("spark.master")
    if not named:
        return DEFAULT_MASTER
    try:
        return check_master(named)
    except BadMaster:
        env = os.environ if environ is None else environ
        folder = env.get("SPARK_CONF_DIR") or os.path.join(env.get("SPARK_HOME", ""), "conf")
        raise BadMaster(f"{os.path.join(folder, 'spark-defaults.conf')} names spark.master "
                        f"{named!r}, not a Spark master: use local[N], local[*], "
                        "spark://HOST:PORT, yarn or k8s://URL there, or give --master") from None


NOT_CONF = {
    "spark.master": "name the master with --master (or a Spark Connect server with --remote)",
    "spark.submit.deployMode": "mqconsole's own process is the Spark driver (client mode); "
                               "in cluster mode the driver would run on the cluster, without "
                               "mqconsole",
}
"""Spark settings ``--conf`` does not take, and why (config/console.py says the same of
``tui.audit_conf``): the master is ``--master``'s (spark_conf_pairs would drop it, silently),
and mqconsole starts the driver itself."""


def parse_conf(pairs: Sequence[str]) -> dict[str, str]:
    """``--conf k=v`` values as a dict; :class:`AuditInputError` naming a bad one (not
    ``spark.KEY=VALUE``, or one of :data:`NOT_CONF`)."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not key.strip().startswith("spark."):
            raise AuditInputError(f"--conf {pair!r} is not a Spark setting: use "
                                  "--conf spark.KEY=VALUE")
        if key.strip() in NOT_CONF:
            raise AuditInputError(f"--conf {key.strip()} is not taken: "
                                  f"{NOT_CONF[key.strip()]}")
        out[key.strip()] = value.strip()
    return out


def spark_conf_pairs(settings: SparkSettings, log4j: Path,
                     site: Mapping[str, str] | None = None,
                     environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every setting given to spark-submit (a plain dict: tests read it): mqconsole's
    defaults, then the site's (``spark-defaults.conf``: ``site``) and ``settings.conf``
    (``--conf``) over them, the Java options joined, :data:`PINNED` last. The Python of the
    executors is the driver's only when the site names none (``spark.pyspark.python`` or
    ``PYSPARK_PYTHON``: a venv packed for YARN or Kubernetes); a local session whose workers
    run the driver's Python starts them with :data:`DAEMON_MODULE`. The executors' logging
    settings: on this machine, the driver's file; on YARN, shipped with the job
    (``spark.yarn.dist.files``, in each container's folder before its JVM starts); on
    another cluster, the cluster's own (a standalone worker's or the image's
    ``SPARK_CONF_DIR``): its executors start before any file of the job reaches them, and
    naming a file they do not have would only give log4j an error to print."""
    env = os.environ if environ is None else environ
    site = site_defaults(env) if site is None else site
    given = {**site, **settings.conf}
    local = on_this_machine(settings.master)
    yarn = settings.master.startswith("yarn")
    jit = HOT_JIT if settings.compile_hot else QUICK_JIT
    java_opts = f"-Dlog4j2.configurationFile=file:{log4j} {jit} -XX:+UseSerialGC"
    if settings.share_classes:
        from . import classes
        from .java import find_java

        shared = classes.java_options(log4j.parent, find_java(env), given,
                                      dump=settings.dump_classes, environ=env)
        java_opts = f"{java_opts} {shared}".rstrip()
    warehouse = Path(tempfile.gettempdir()) / f"mqconsole-spark-warehouse-{os.getuid()}"
    conf = {
        "spark.master": settings.master,
        "spark.app.name": settings.app_name,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        "spark.sql.shuffle.partitions": str(settings.shuffle_partitions
                                            or _cores(settings.master)),
        "spark.sql.warehouse.dir": str(warehouse),
        "spark.driver.extraJavaOptions": java_opts,
        "spark.pyspark.driver.python": sys.executable,
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        # partition columns read as the strings they are (a queue named 007 stays 007)
        "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
    }
    if "spark.pyspark.python" not in given and not env.get("PYSPARK_PYTHON"):
        conf["spark.pyspark.python"] = sys.executable
    python = given.get("spark.pyspark.python") or env.get("PYSPARK_PYTHON") or sys.executable
    if settings.master.startswith("local") and python == sys.executable:
        # the tasks' Python workers are this Python's: pyspark from its installed files
        conf["spark.python.daemon.module"] = DAEMON_MODULE
    if local:
        conf["spark.driver.host"] = "127.0.0.1"
        conf["spark.driver.bindAddress"] = "127.0.0.1"
        conf["spark.executor.extraJavaOptions"] = f"-Dlog4j2.configurationFile=file:{log4j}"
    elif yarn:  # localised in each container's folder before its JVM starts
        shipped = f"{log4j}#{SHIPPED_LOG4J}"
        conf["spark.yarn.dist.files"] = ",".join(
            f for f in (given.get("spark.yarn.dist.files"), shipped) if f)
        conf["spark.executor.extraJavaOptions"] = f"-Dlog4j2.configurationFile={SHIPPED_LOG4J}"
    # (a standalone cluster elsewhere, Kubernetes: an executor's JVM starts before any file
    # of the job reaches it, and spark.files takes no #name; its logging is the cluster's)
    for key in JAVA_OPTIONS:
        if given.get(key):
            conf[key] = f"{conf[key]} {given[key]}" if key in conf else given[key]
    # the site's settings and --conf win over mqconsole's defaults (--master names the master)
    conf.update({k: v for k, v in given.items() if k not in JAVA_OPTIONS
                 and k not in ("spark.yarn.dist.files", "spark.master")
                 and (k in conf or k in settings.conf)})
    conf.update(PINNED)  # whatever a site sets
    return conf


def on_this_machine(master: str) -> bool:
    """A local master, or a standalone master on the loopback address."""
    return master.startswith("local") or bool(
        re.match(r"spark://(127\.0\.0\.1|localhost)[:,]", master))


def _prepare_environment(settings: SparkSettings) -> None:
    """The environment pyspark reads: the Python the executors run is ``PYSPARK_PYTHON``
    (spark-submit sets it from ``spark.pyspark.python``; mqconsole starts the JVM itself,
    so it does the same): the site's when it names one, else mqconsole's own."""
    python = settings.conf.get("spark.pyspark.python") or site_defaults().get(
        "spark.pyspark.python")
    if python:
        os.environ["PYSPARK_PYTHON"] = python
    else:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if on_this_machine(settings.master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


_lock = threading.Lock()
_started: tuple[SparkContext, Path] | None = None  # the context _start made, its log file


def start_session(settings: SparkSettings | None = None) -> SparkSession:
    """A SparkSession as ``settings`` say, its JVM output in ``settings.log_file``; the
    running one when it is on the same master (the console and the tests keep one).

    Raises SparkUnavailable (exit 3) when pyspark or Java is missing, SparkDidNotStart (exit 3)
    when the JVM does not start (the log file holds its words), BadMaster (exit 2).
    """
    settings = settings or SparkSettings()
    check_master(settings.master)
    check_pyspark()
    with _lock:
        running = _running(settings.master)
        if running is not None:  # its JVM runs: no Java to look for (a JVM's start each)
            if _started is not None and _started[0] is running.sparkContext:
                # pyspark's error logging back to where this session's JVM writes: a
                # Connect session opened in this process since (remote.connect) sent it to
                # its own log
                quiet_python_loggers(_started[1])
            return running
        check_java()
        return _start(settings)


def _running(master: str) -> SparkSession | None:
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    context = SparkContext._active_spark_context
    if context is None:
        return None
    if context.master == master or (master == DEFAULT_MASTER
                                    and (context.master or "").startswith("local")):
        return SparkSession._instantiatedSession or SparkSession(context)
    SparkSession(context).stop()  # another master: start again there
    return None


def _start(settings: SparkSettings) -> SparkSession:
    global _started
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    log_dir = paths.ensure_dir(settings.log_file.parent)
    log4j = log_dir / "log4j2.properties"
    if not log4j.exists() or log4j.read_text() != LOG4J2:
        from mqconsole.ops.outputs import write_private

        write_private(log4j, LOG4J2, option="the Spark log settings")  # 0600, as all state
    pairs = spark_conf_pairs(settings, log4j)  # before the environment: it reads it
    _prepare_environment(settings)
    conf = SparkConf(loadDefaults=False)
    for key, value in pairs.items():
        conf.set(key, value)
    # private (0600): the JVM's words may quote message data; the JVM keeps it open
    fd = os.open(settings.log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "ab") as log:
        try:
            gateway = launch_gateway(conf, popen_kwargs={"stdout": log, "stderr": log})
            context = SparkContext(conf=conf, gateway=gateway)
        except Exception as e:  # [JAVA_GATEWAY_EXITED], an unreachable master: the log says
            raise SparkDidNotStart(f"Spark did not start on {settings.master} ({first_line(e)}); "
                              f"its output is in {settings.log_file}") from None
    quiet_python_loggers(settings.log_file)
    _started = context, settings.log_file
    return SparkSession(context)


def quiet_python_loggers(log_file: Path) -> None:
    """pyspark logs a failing query's error on stderr before raising it: send its two
    loggers to the log file instead (no JVM words on the terminal)."""
    import logging

    try:
        from pyspark.logger import PySparkLogger
    except ImportError:  # pragma: no cover - older pyspark
        return
    # made here, private (0600): logging's FileHandler would make it with the umask's mode
    os.close(os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600))
    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        logger = PySparkLogger.getLogger(name)
        if any(getattr(h, "baseFilename", None) == str(log_file) for h in logger.handlers):
            continue
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.addHandler(logging.FileHandler(log_file, delay=True))
        logger.propagate = False


def stop_session(spark: SparkSession | None = None) -> None:
    """Stop ``spark`` or the running session, if any (its JVM exits with it)."""
    if spark is not None:
        spark.stop()
        return
    try:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession
    except ImportError:
        return
    with _lock:
        context = SparkContext._active_spark_context
        if context is not None:
            (SparkSession._instantiatedSession or SparkSession(context)).stop()


def log_path() -> Path:
    """The file the JVM's output goes to by default (never the terminal)."""
    return SparkSettings().log_file


__all__ = ["DEFAULT_MASTER", "HOT_JIT", "HOT_ROWS", "PINNED", "QUICK_JIT", "BadMaster",
           "SparkSettings", "SparkUnavailable", "check_master", "default_master",
           "first_line", "log_path", "parse_conf", "site_defaults", "spark_conf_pairs",
           "spark_log_dir", "start_session", "stop_session"]

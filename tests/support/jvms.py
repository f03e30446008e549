"""The JVMs the suite starts (Spark's driver, a standalone master and worker, their executors,
a Connect server) compile less: every one of them lives for seconds to minutes, where
HotSpot's optimising compiler (C2) costs more CPU than it saves (issue 26 item 1).

``JAVA_TOOL_OPTIONS`` is read by every JVM that starts below the test process, whoever
starts it (pyspark's launcher, ``spark-class``, a worker starting an executor). Measured on
this project's 2-core machine: a ``local[2]`` session with two small jobs, 47-52 CPU-s of JVM
time as shipped, 25-26 with these options (docs/benchmarks.md). The product sets none of
this: a real audit runs long enough for C2 to pay. A developer's own ``JAVA_TOOL_OPTIONS``
is kept as it is.

They also load Spark's classes from a class-data sharing archive (Java's AppCDS) instead of
parsing and verifying some 14,000 classes from the jars at every start: a local session
with two small jobs 21.6-27.2 -> 14.5-16.0 CPU-s, a cluster with a Connect server 47.9 ->
30.0-30.9 (docs/benchmarks.md). :func:`share_classes` builds the archive once (a ``local[2]``
session running a few jobs of the audit's kinds, dumped at its exit with
``-XX:ArchiveClassesAtExit``) into pytest's cache folder, keyed to the java and the pyspark
install, under a file lock (two xdist workers, two runs: one builds, the others go on
without it this time), written under a temporary name and renamed once a JVM was seen
using it. Every Spark JVM has the same class path (``conf:slf4j-api…jar:jars/*``: driver,
master, worker, executor, Connect server), so one archive serves them all; a JVM of another
class path (``spark-class``'s launcher) does not use the archive's Spark classes and keeps
the JDK's own. ``-Xlog:cds*=off``: that mismatch, or a stale archive, says nothing (the
launcher's stdout is read by ``spark-class``). Only a finished archive is named
(:func:`is_usable`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, MutableMapping
from pathlib import Path

QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseSerialGC"
"""C1 only, one compiler thread, the serial collector (no GC threads to start)."""

QUIET_CDS = "-Xlog:cds*=off"
"""No class-data sharing message on any JVM's stdout (a mismatch falls back silently)."""

ARCHIVE_FORMAT = "1"
"""Part of the archive's key: bumped when :data:`DUMP_JOBS` changes."""

DYNAMIC_MAGIC = 0xF00BABA8
"""The first four bytes (little-endian) of a dynamic CDS archive (HotSpot's cdsConstants)."""

DUMP_JOBS = r'''
import sys, tempfile
from pyspark import SparkContext
from pyspark.sql import SparkSession, Window, functions as F
s = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
     .config("spark.sql.shuffle.partitions", "2").getOrCreate())
with tempfile.TemporaryDirectory() as d:
    df = s.createDataFrame([(i, f"Q{i % 5}", i * 1.5, b"x" * (i % 9)) for i in range(2000)],
                           "id long, q string, v double, b binary")
    df.write.partitionBy("q").parquet(d + "/p")
    r = s.read.parquet(d + "/p")
    r.groupBy("q").agg(F.count("*"), F.min("id"), F.max("v"), F.sum(F.length("b"))).collect()
    r.withColumn("n", F.row_number().over(Window.partitionBy("q").orderBy("id"))) \
        .filter("n < 3").toArrow()
    r.join(r.select("id", F.col("q").alias("q2")), "id").count()
    r.createOrReplaceTempView("t")
    s.sql("select q, sum(v), count(distinct id) from t group by rollup(q)").toPandas()
    r.select(F.input_file_name(), F.hex("b")).write.mode("overwrite").json(d + "/j")
proc = SparkContext._gateway.proc
s.stop()
proc.stdin.close()  # the JVM exits (and writes the archive) when its stdin closes
sys.exit(proc.wait(timeout=600))
'''
"""What the archive's JVM runs: a session, and the kinds of job the audit runs."""

def quick_start(environ: MutableMapping[str, str] | None = None) -> None:
    """Give the JVMs the tests start :data:`QUICK_JVM`, unless the environment says otherwise."""
    env = os.environ if environ is None else environ
    env.setdefault("JAVA_TOOL_OPTIONS", QUICK_JVM)


def java_command(environ: MutableMapping[str, str] | None = None) -> str | None:
    """The java Spark's scripts run (``$JAVA_HOME/bin/java``, else the PATH's), resolved."""
    env = os.environ if environ is None else environ
    java = (str(Path(env["JAVA_HOME"]) / "bin" / "java") if env.get("JAVA_HOME")
            else shutil.which("java", path=env.get("PATH")))
    return os.path.realpath(java) if java and os.path.exists(java) else None


def spark_home() -> Path | None:
    """pyspark's folder (its jars), without importing pyspark."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve().parent


def archive_key(java: str, home: Path) -> str:
    """What the archive depends on: the JVM (its path, release file and libjvm), pyspark's
    install (path, version, every jar's name, size and time), the options, the jobs."""
    import importlib.metadata

    h = hashlib.sha256()
    jdk = Path(java).parent.parent
    parts = [java, ARCHIVE_FORMAT, QUICK_JVM, DUMP_JOBS, str(home),
             importlib.metadata.version("pyspark")]
    with contextlib.suppress(OSError):
        parts.append((jdk / "release").read_text())
    for lib in (jdk / "lib" / "server" / "libjvm.so", jdk / "lib" / "modules"):
        with contextlib.suppress(OSError):
            st = lib.stat()
            parts.append(f"{lib}:{st.st_size}:{st.st_mtime_ns}")
    with contextlib.suppress(OSError), os.scandir(home / "jars") as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            st = entry.stat()
            parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    for part in parts:
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:16]


def is_dynamic_archive(path: Path) -> bool:
    """Whether ``path`` is a dynamic CDS archive (by its magic number)."""
    try:
        with path.open("rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return len(head) == 4 and int.from_bytes(head, "little") == DYNAMIC_MAGIC


def _size_file(archive: Path) -> Path:
    return archive.with_name(f"{archive.name}.size")


def is_usable(archive: Path) -> bool:
    """Whether ``archive`` is one :func:`build_archive` finished: a dynamic archive of the
    size written beside it once a JVM was seen using it (a JVM mapping a cut-off archive
    dies of SIGBUS, one given a file that is no archive loses the JDK's own sharing)."""
    try:
        size = int(_size_file(archive).read_text())
        return archive.stat().st_size == size and is_dynamic_archive(archive)
    except (OSError, ValueError):
        return False


def with_archive(options: str, archive: Path) -> str:
    """``options`` plus the archive and the silence (the archive named only if usable)."""
    if not is_usable(archive):
        return options
    return f"{options} -XX:SharedArchiveFile={archive} {QUIET_CDS}"


@contextlib.contextmanager
def _first(path: Path) -> Iterator[bool]:
    """An exclusive lock on ``path`` if no other process holds it (True), else False at
    once: the process that gets it builds, the others go on without the archive."""
    with path.open("a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _spark_env(java: str, home: Path, options: str) -> dict[str, str]:
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "PYSPARK_PYTHON": sys.executable, "JAVA_TOOL_OPTIONS": options}
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    env["JAVA_HOME"] = str(Path(java).parent.parent)
    return env


def loads_shared(java: str, home: Path, archive: Path, log: Path) -> bool:
    """Whether ``spark-submit --version`` (pyspark's launcher, then a JVM on the Spark
    class path, as every Spark JVM of the tests) loads SparkSubmit from ``archive``."""
    env = _spark_env(java, home, f"{QUICK_JVM} -XX:SharedArchiveFile={archive} {QUIET_CDS}")
    env["SPARK_SUBMIT_OPTS"] = f"{env.get('SPARK_SUBMIT_OPTS', '')} -Xlog:class+load:file={log}"
    done = subprocess.run([str(home / "bin" / "spark-submit"), "--version"], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return False
    return done.returncode == 0 and any(
        "org.apache.spark.deploy.SparkSubmit " in line and "shared objects file" in line
        for line in lines)


def build_archive(java: str, home: Path, archive: Path) -> bool:
    """Run :data:`DUMP_JOBS` in a JVM that writes its classes to a temporary archive at its
    exit; rename it to ``archive`` once a Spark JVM is seen loading its classes from it."""
    tmp = archive.with_name(f"{archive.name}.{os.getpid()}.tmp")
    log = archive.with_name(f"{archive.stem}.log")
    env = _spark_env(java, home, f"{QUICK_JVM} {QUIET_CDS}")
    env["SPARK_SUBMIT_OPTS"] = (f"{env.get('SPARK_SUBMIT_OPTS', '')} "
                                f"-XX:ArchiveClassesAtExit={tmp}")
    try:
        with log.open("wb") as out:
            done = subprocess.run([sys.executable, "-c", DUMP_JOBS], env=env,
                                  stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=subprocess.STDOUT, timeout=1200)
        check = archive.with_name(f"{archive.stem}.check.log")
        if done.returncode == 0 and is_dynamic_archive(tmp) and loads_shared(
                java, home, tmp, check):
            size = tmp.stat().st_size
            os.replace(tmp, archive)
            sized = archive.with_name(f"{archive.name}.size.{os.getpid()}.tmp")
            sized.write_text(f"{size}\n")
            os.replace(sized, _size_file(archive))
            check.unlink(missing_ok=True)
            return True
        return False
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        tmp.unlink(missing_ok=True)


def share_classes(cache: Path, environ: MutableMapping[str, str] | None = None
                  ) -> Path | None:
    """The JVMs the tests start load Spark's classes from an archive in ``cache`` (built
    now if it is not there): ``JAVA_TOOL_OPTIONS`` names it. Nothing when the options are
    not :func:`quick_start`'s (a developer's own), or there is no java or pyspark, or
    another process is building it, or building failed (remembered, not retried until the
    key changes or ``pytest --cache-clear``). Gives the archive used, or None."""
    env = os.environ if environ is None else environ
    if env.get("JAVA_TOOL_OPTIONS") != QUICK_JVM:
        return None
    java, home = java_command(env), spark_home()
    if java is None or home is None or not (home / "bin" / "spark-submit").exists():
        return None
    archive = cache / f"spark-{archive_key(java, home)}.jsa"
    failed = archive.with_suffix(".failed")
    try:
        if not is_usable(archive) and not failed.exists():
            cache.mkdir(parents=True, exist_ok=True)
            with _first(cache / "lock") as building:
                if building and not is_usable(archive) and not failed.exists():
                    for old in cache.glob("spark-*.jsa*"):  # another key's: java or pyspark
                        old.unlink(missing_ok=True)
                    if not build_archive(java, home, archive):
                        failed.touch()
    except OSError:  # a cache folder not writable: no archive, the run goes on
        return None
    if not is_usable(archive):
        return None
    env["JAVA_TOOL_OPTIONS"] = with_archive(QUICK_JVM, archive)
    return archive

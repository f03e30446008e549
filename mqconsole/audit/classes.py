"""The driver JVM's class-data sharing archive (Java's AppCDS): Spark's classes mapped from
one file at the JVM's start instead of read from Spark's jars, parsed and verified again.

A local Spark driver loads some 12,000-17,000 classes before and during an export's first
job; that is most of its start (docs/benchmarks.md). Java 17 can write the classes a JVM
loaded to an archive when it exits (``-XX:ArchiveClassesAtExit``) and map them at a later
start (``-XX:SharedArchiveFile``). mqconsole keeps one such archive in its state folder,
``<state folder>/spark/classes/driver-<key>.jsa``:

- **written** by the driver of a big export run from the command line (one of at least
  :data:`~mqconsole.audit.session.HOT_ROWS` rows, which loads every class an export and its
  aggregates need), when no archive of the same key is there or being written: its JVM
  dumps its classes to a temporary name as it exits, after mqconsole has printed its result
  and ended (the command does not wait for it; the JVM's log of the dump goes beside it);
- **published** by the next start: a temporary archive whose log says it was written whole
  is renamed to its final name (atomic), one that never finished (the JVM killed as it
  dumped) is removed after :data:`STALE_SECONDS`, and so are archives of other keys;
- **used** by every later driver JVM mqconsole's command line starts (``-XX:SharedArchiveFile``
  with ``-Xshare:auto``): a JVM that finds the archive does not fit (another Java, another
  class path) starts as it would without it. Only an archive published whole is named: a
  file cut short would kill the JVM (SIGBUS), and one that is missing or not an archive
  would make Java drop its own built-in archive too.

The **key** is a digest of what the archive depends on: the java binary (its path, the JDK's
``release`` file, ``libjvm.so`` and the ``modules`` image), Spark's home and every jar in it
(name, size, time), the driver's class path settings and ``JAVA_TOOL_OPTIONS``: a stale
archive is never named. The JVM's class-data sharing messages are switched off on its
output (``-Xlog:cds*=off``), so nothing reaches the log, the terminal or ``--json``.

Never in the tests' sessions (``tests/support/jvms.py``): their sessions are not started by
the command line's :func:`~mqconsole.cli.commands.audit_spark.open_spark`, and their
command-line exports are small. A site turns it off with
``--conf spark.mqconsole.classArchive=false``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Mapping
from pathlib import Path

FOLDER_NAME = "classes"
FORMAT = "1"
"""Part of the key: bumped when what the archive holds or how it is written changes."""
SETTING = "spark.mqconsole.classArchive"
"""``false``: no archive used or written (a site's choice, ``--conf``)."""
QUIET = "-Xlog:cds*=off"
"""No class-data sharing message on the JVM's output (a mismatch falls back silently)."""
WRITTEN = "Written dynamic archive"
"""What the JVM's ``cds+dynamic`` log says once the archive is written whole."""
DYNAMIC_MAGIC = 0xF00BABA8
"""The first four bytes (little-endian) of a dynamic archive, written last (HotSpot writes
the header once every region is written)."""
STALE_SECONDS = 3600
"""A temporary archive not written whole this long after its JVM started: removed (the JVM
died, or could not dump; an export longer than this does not leave an archive)."""
CLASS_PATH_SETTINGS = ("spark.driver.extraClassPath", "spark.driver.userClassPathFirst")
CLASS_PATH_ENVIRON = ("SPARK_HOME", "SPARK_CONF_DIR", "SPARK_DIST_CLASSPATH",
                      "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")


def folder(state: Path) -> Path:
    """Where the archives are (``state``: mqconsole's ``<state folder>/spark``)."""
    return state / FOLDER_NAME


def spark_home() -> Path | None:
    """The Spark pyspark starts (``SPARK_HOME``, else pyspark's own folder)."""
    home = os.environ.get("SPARK_HOME")
    if home:
        return Path(home)
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve().parent


def archive_key(java: Path, home: Path, conf: Mapping[str, str],
                environ: Mapping[str, str] | None = None) -> str:
    """The digest naming an archive: what the JVM would check and more (the java, the jars,
    the class path settings), so an archive of another install is never named."""
    env = os.environ if environ is None else environ
    h = hashlib.sha256()
    real = Path(os.path.realpath(java))
    jdk = real.parent.parent
    parts = [FORMAT, str(real), str(home.resolve())]
    with contextlib.suppress(OSError):
        parts.append((jdk / "release").read_text(errors="replace"))
    for lib in (jdk / "lib" / "server" / "libjvm.so", jdk / "lib" / "modules"):
        with contextlib.suppress(OSError):
            st = lib.stat()
            parts.append(f"{lib}:{st.st_size}:{st.st_mtime_ns}")
    with contextlib.suppress(OSError), os.scandir(home / "jars") as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            st = entry.stat()
            parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    parts += [f"{k}={conf.get(k, '')}" for k in CLASS_PATH_SETTINGS]
    parts += [f"{k}={env.get(k, '')}" for k in CLASS_PATH_ENVIRON]
    for part in parts:
        h.update(part.encode("utf-8", "replace") + b"\0")
    return h.hexdigest()[:20]


def is_archive(path: Path) -> bool:
    """Whether ``path`` starts as a dynamic archive does (written whole: the header is last)."""
    try:
        with path.open("rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return len(head) == 4 and int.from_bytes(head, "little") == DYNAMIC_MAGIC


def _written(log: Path) -> bool:
    try:
        return WRITTEN in log.read_text(errors="replace")
    except OSError:
        return False


def publish(where: Path, key: str, now: float | None = None) -> tuple[Path | None, bool]:
    """Tidy ``where`` for ``key``: a temporary archive of this key written whole becomes
    the archive (renamed: atomic); other keys' archives, and temporary ones not written
    whole within :data:`STALE_SECONDS` of their JVM's start (its log's time: the JVM died,
    or could not dump), are removed. Returns the archive (None when there is none whole)
    and whether a JVM may be writing one now (a younger log of this key)."""
    now = time.time() if now is None else now
    final = where / f"driver-{key}.jsa"
    writing = False
    try:
        names = sorted(os.listdir(where))
    except OSError:
        return None, False
    for name in names:
        path = where / name
        if not name.startswith("driver-"):
            continue
        if name.endswith(".tmp.log"):
            tmp = where / name[:-4]
            if name.startswith(f"driver-{key}.") and _written(path) and is_archive(tmp):
                with contextlib.suppress(OSError):
                    os.replace(tmp, final)
                with contextlib.suppress(OSError):
                    path.unlink()
                continue
            try:
                age = now - path.stat().st_mtime
            except OSError:
                continue
            if age < STALE_SECONDS:
                writing = writing or name.startswith(f"driver-{key}.")
                continue
            for gone in (tmp, path):
                with contextlib.suppress(OSError):
                    gone.unlink()
        elif name.endswith(".tmp") and not (where / f"{name}.log").exists():
            with contextlib.suppress(OSError):  # its log gone: never to be published
                path.unlink()
        elif name.endswith(".jsa") and path != final:
            with contextlib.suppress(OSError):
                path.unlink()
    return (final if is_archive(final) else None), writing


def java_options(state: Path, java: Path | None, conf: Mapping[str, str], dump: bool,
                 environ: Mapping[str, str] | None = None) -> str:
    """The driver's Java options for the archive: use it when there is one whole for this
    key; else, when ``dump``, write one at the JVM's exit (unless another JVM is writing
    one); else none. Any failure here (no java, a folder not writable): none."""
    if str(conf.get(SETTING, "true")).strip().lower() in ("false", "0", "no", "off"):
        return ""
    home = spark_home()
    if java is None or home is None:
        return ""
    try:
        key = archive_key(java, home, conf, environ)
        where = folder(state)
        archive, writing = publish(where, key)
        if archive is not None:
            return f"-XX:SharedArchiveFile={archive} -Xshare:auto {QUIET}"
        if not dump or writing:
            return ""
        from mqconsole import paths

        paths.ensure_dir(where)
        tmp = where / f"driver-{key}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
        return (f"-XX:ArchiveClassesAtExit={tmp} {QUIET} "
                f"-Xlog:cds+dynamic=info:file={tmp}.log")
    except OSError:
        return ""

"""mqconsole's Spark Connect plugin: the snapshot's file operations on the server's driver,
through Hadoop's ``FileSystem``, for a snapshot that is not a ``file:`` path.

Over Spark Connect the client has no JVM; :class:`~.serverstore.ServerStore` does a
``file:`` snapshot's operations in a Python task on an executor, which knows only its local
disk. Any other URI (``hdfs:``, ``s3a:``, ``abfss:``, ``gs:``, ``viewfs:``...) is reached by
the server's Hadoop, in Java: ``connect/StorePlugin.java`` (shipped in the package) is a
Spark Connect relation plugin doing HadoopStore's operations there. A site builds it with
``mqconsole audit connect-plugin OUT.jar`` (:func:`build_jar`: this machine's ``javac``
against the installed pyspark's jars, or the server's) and starts its server with
:func:`server_settings`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import AuditInputError
from .java import SparkUnavailable

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SOURCE = Path(__file__).resolve().parent / "connect" / "StorePlugin.java"
PLUGIN_CLASS = "mqconsole.audit.connect.StorePlugin"
TYPE_URL = "type.googleapis.com/mqconsole.audit.StoreOps"
"""The relation extension's type URL (StorePlugin.TYPE_URL): a ``google.protobuf.Any`` of
this type holds a ``StringValue``, the operations' JSON (:func:`.serverstore.ops_json`)."""
RELATION_CLASSES = "spark.connect.extensions.relation.classes"
JAR_NAME = "mqconsole-connect.jar"
JAVA_RELEASE = 17  # the oldest Java Spark 4 runs on: the jar runs on the server's 17 or 21
JDK_HOWTO = ("install a Java 17 or 21 JDK (for example 'apt install openjdk-17-jdk-headless' "
             "or 'brew install openjdk@17') or point JAVA_HOME at one")
_NO_HANDLER = ("NO_HANDLER_FOR_EXTENSION", "No handler found for extension")


def server_settings(jar: str | os.PathLike[str] = JAR_NAME) -> list[str]:
    """What the Connect server's ``spark-submit`` (or start-connect-server.sh) takes."""
    return ["--jars", os.fspath(jar), "--conf", f"{RELATION_CLASSES}={PLUGIN_CLASS}"]


def find_javac(env: Mapping[str, str] | None = None) -> Path:
    """``$JAVA_HOME/bin/javac`` when JAVA_HOME is set, else the first on PATH, of Java 17 or
    newer; :class:`SparkUnavailable` (exit 3) saying how to get one."""
    env = os.environ if env is None else env
    home = env.get("JAVA_HOME")
    javac: Path | None
    if home:
        javac = Path(home) / "bin" / "javac"
        where = f"JAVA_HOME ({home}) holds no bin/javac (a JRE, not a JDK?)"
        if not (javac.is_file() and os.access(javac, os.X_OK)):
            javac = None
    else:
        found = shutil.which("javac", path=env.get("PATH"))
        javac, where = (Path(found) if found else None), "there is no 'javac' on PATH"
    if javac is None:
        raise SparkUnavailable(f"building mqconsole's Spark Connect plugin needs a Java "
                               f"compiler (javac), and {where}: {JDK_HOWTO}")
    try:
        said = subprocess.run([str(javac), "-version"], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        said = None
    version = re.search(r"javac (\d+)", (said.stdout + said.stderr) if said else "")
    if version is None or int(version.group(1)) < JAVA_RELEASE:
        raise SparkUnavailable(f"{javac} is not the compiler of Java {JAVA_RELEASE} or newer "
                               f"({'no version' if version is None else version.group(0)}): "
                               f"{JDK_HOWTO}")
    return javac


def pyspark_jars() -> Path:
    """The installed pyspark's jars (its Spark, Hadoop and Jackson)."""
    from .java import check_pyspark

    check_pyspark()
    import pyspark

    return Path(pyspark.__file__).resolve().parent / "jars"


def build_jar(out: str | os.PathLike[str], jars: str | os.PathLike[str] | None = None,
              env: Mapping[str, str] | None = None) -> Path:
    """Compile :data:`SOURCE` against ``jars`` (a Spark's ``jars`` folder: the server's, or
    by default the installed pyspark's) into the jar ``out`` (replaced whole); its path.
    :class:`SparkUnavailable` (exit 3) without a JDK; :class:`AuditInputError` (exit 2) when
    ``jars`` is not a Spark 4 with Spark Connect (javac's first error said)."""
    javac = find_javac(env)
    folder = Path(jars) if jars is not None else pyspark_jars()
    if not any(folder.glob("spark-connect_*.jar")):
        raise AuditInputError(f"{folder} holds no spark-connect_*.jar: give the jars folder "
                              "of a Spark 4 with Spark Connect (its $SPARK_HOME/jars)")
    target = Path(out)
    if not target.parent.is_dir():
        raise AuditInputError(f"the folder of {target} does not exist")
    if target.is_dir():
        raise AuditInputError(f"{target} is a folder: name the jar file to write")
    with tempfile.TemporaryDirectory(prefix="mqconsole-plugin-") as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        done = subprocess.run(
            [str(javac), "--release", str(JAVA_RELEASE), "-nowarn", "-encoding", "UTF-8",
             "-cp", str(folder / "*"), "-d", str(classes), str(SOURCE)],
            capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            said = next((line for line in (done.stderr + done.stdout).splitlines()
                         if "error" in line), done.stderr.strip()[:300])
            raise AuditInputError(f"the plugin does not compile against {folder}: {said}")
        partial = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        try:
            with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as jar:
                jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n"
                             "Created-By: mqconsole audit connect-plugin\r\n\r\n")
                for path in sorted(classes.rglob("*.class")):
                    jar.write(path, path.relative_to(classes).as_posix())
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    return target


def missing_plugin(uri: str) -> AuditInputError:
    """The one sentence for a Connect server without the plugin, naming the file system of
    ``uri`` (``hdfs://namenode:8020``)."""
    from urllib.parse import urlparse

    parsed = urlparse(uri)
    where = f"{parsed.scheme}://{parsed.netloc}" if parsed.netloc else f"{parsed.scheme}:"
    return AuditInputError(
        f"{where}: over Spark Connect, a snapshot on a file system other than file: is "
        f"reached through mqconsole's plugin on the server, which this server lacks: build it "
        f"with 'mqconsole audit connect-plugin {JAR_NAME}' and start the server with "
        f"{' '.join(server_settings())}; or run with --master (the driver's Hadoop "
        "reaches it)")


def is_missing_plugin(error: BaseException) -> bool:
    """Whether the server refused the relation for want of a plugin of its type."""
    text = str(error)
    return TYPE_URL in text and any(words in text for words in _NO_HANDLER)


def plugin_rows(spark: SparkSession, ops_text: str) -> list[tuple[str, str]]:
    """The plugin's ``(status, value)`` rows for the operations' JSON ``ops_text``. The
    server does them as it plans the relation, once per request: each request is a
    relation of a plan id of its own, so the server's plan cache (keyed by the relation)
    never answers one with an earlier one's rows (test_connect's second export to one
    ``--out`` is refused). Nothing here asks for the relation's schema (that would plan it
    a second time)."""
    from pyspark.sql.connect.dataframe import DataFrame

    frame = DataFrame(_relation_class()(ops_text), spark)  # type: ignore[arg-type]
    return [(row["status"], row["value"]) for row in frame.collect()]


@cache
def _relation_class() -> Any:
    """A Connect ``LogicalPlan`` whose relation is the extension holding the operations.

    Private API of pyspark's Connect client (``pyspark.sql.connect.plan.LogicalPlan``, its
    ``_create_proto_relation`` and ``DataFrame(plan, session)``), read in pyspark 4.3;
    pyproject.toml pins ``pyspark>=4.3,<4.4``, which this must be checked against when that
    pin moves (tests/audit/test_connect.py runs it on a real server)."""
    from google.protobuf import wrappers_pb2
    from pyspark.sql.connect.plan import LogicalPlan

    class StoreOps(LogicalPlan):
        def __init__(self, text: str) -> None:
            super().__init__(None)
            self.text = text

        def plan(self, session: Any) -> Any:
            relation = self._create_proto_relation()
            relation.extension.type_url = TYPE_URL
            relation.extension.value = wrappers_pb2.StringValue(
                value=self.text).SerializeToString()
            return relation

    return StoreOps


__all__ = ["JAR_NAME", "PLUGIN_CLASS", "TYPE_URL", "build_jar", "find_javac",
           "is_missing_plugin", "missing_plugin", "plugin_rows", "server_settings"]

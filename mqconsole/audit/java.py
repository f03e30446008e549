"""Is Spark's runtime here? Java 17 or 21 and pyspark, checked before Spark is started.

Spark 4 starts its JVM with ``spark-submit``; without Java (or with a wrong ``JAVA_HOME``) it
fails with ``[JAVA_GATEWAY_EXITED]`` and a stack trace, so mqconsole looks first and says in
one sentence how to get what is missing (exit 3). Nothing here imports pyspark.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

SUPPORTED_JAVA = (17, 21)
JAVA_HOWTO = ("install Java 17 or 21 (for example 'apt install openjdk-17-jre-headless' or "
              "'brew install openjdk@17') or point JAVA_HOME at one")
PYSPARK_HOWTO = "install the audit extra: pip install 'mqconsole[spark]'"


class SparkUnavailable(Exception):
    """Java or pyspark is missing or unusable: one sentence saying how to get it (exit 3)."""


def find_java(env: Mapping[str, str] | None = None) -> Path | None:
    """The ``java`` Spark will run: ``$JAVA_HOME/bin/java`` when JAVA_HOME is set (as
    spark-submit does), else the first on PATH."""
    env = os.environ if env is None else env
    home = env.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / "java"
        return java if java.is_file() and os.access(java, os.X_OK) else None
    found = shutil.which("java", path=env.get("PATH"))
    return Path(found) if found else None


_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


def java_major(java: Path) -> int | None:
    """The major version ``java -version`` prints (``1.8`` is 8), or None when it will not say."""
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    m = _VERSION.search(out.stderr + out.stdout)
    if m is None:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def check_java(env: Mapping[str, str] | None = None) -> Path:
    """The java to use, or SparkUnavailable saying how to get one."""
    env = os.environ if env is None else env
    java = find_java(env)
    if java is None:
        where = (f"JAVA_HOME ({env['JAVA_HOME']}) holds no bin/java" if env.get("JAVA_HOME")
                 else "no 'java' on PATH")
        raise SparkUnavailable(f"audits run on Apache Spark, which needs Java, and there is "
                               f"{where}: {JAVA_HOWTO}")
    major = java_major(java)
    if major is None:
        raise SparkUnavailable(f"{java} does not run or will not tell its version: {JAVA_HOWTO}")
    if major < SUPPORTED_JAVA[0]:
        raise SparkUnavailable(f"{java} is Java {major} and Spark 4 needs Java 17 or newer: "
                               f"{JAVA_HOWTO}")
    return java


def check_pyspark() -> None:
    """SparkUnavailable when pyspark (or pyarrow, which the data source needs) is missing."""
    for module in ("pyspark", "pyarrow"):
        if importlib.util.find_spec(module) is None:
            raise SparkUnavailable(f"audits need {module}, which is not installed: "
                                   f"{PYSPARK_HOWTO}")


def require_spark(env: dict[str, str] | None = None) -> Path:
    """Both checks, pyspark first (no use looking for Java without it); returns java."""
    check_pyspark()
    return check_java(env)

"""The class-data sharing archive the suite's JVMs load Spark's classes from
(tests/support/jvms.py): used by a Spark JVM, never named unless finished, and a JVM it
does not fit (pyspark's launcher) starts anyway and says nothing on stdout."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support import jvms


def _archive() -> Path:
    """The archive this run's JVMs are given (see conftest's collection hook)."""
    found = re.search(r"-XX:SharedArchiveFile=(\S+)", os.environ.get("JAVA_TOOL_OPTIONS", ""))
    if found is None:
        pytest.skip("no archive in this run (a developer's JAVA_TOOL_OPTIONS, or another "
                    "process was building it)")
    return Path(found.group(1))


def _java_and_home() -> tuple[str, Path]:
    java, home = jvms.java_command(), jvms.spark_home()
    assert java is not None and home is not None
    return java, home


def test_a_spark_jvm_loads_its_classes_from_the_archive(tmp_path: Path) -> None:
    java, home = _java_and_home()
    archive = _archive()
    assert jvms.is_dynamic_archive(archive)
    assert jvms.loads_shared(java, home, archive, tmp_path / "class-load.log")


def test_only_a_finished_archive_is_named(tmp_path: Path) -> None:
    """A missing file, one that is no archive, an archive cut off (a JVM mapping it dies of
    SIGBUS) or one without its size written beside it: not named, the options as they were."""
    archive = _archive()
    assert jvms.is_usable(archive)
    not_one = tmp_path / "garbage.jsa"
    not_one.write_bytes(b"not an archive at all")
    cut = tmp_path / "cut.jsa"
    with archive.open("rb") as f:
        cut.write_bytes(f.read(4096))
    cut.with_name("cut.jsa.size").write_text(f"{archive.stat().st_size}\n")
    unsized = tmp_path / "unsized.jsa"
    unsized.write_bytes(cut.read_bytes())
    for path in (tmp_path / "missing.jsa", not_one, tmp_path, cut, unsized):
        assert not jvms.is_usable(path)
        assert jvms.with_archive(jvms.QUICK_JVM, path) == jvms.QUICK_JVM


def test_a_developers_own_options_are_kept(tmp_path: Path) -> None:
    env = {"JAVA_TOOL_OPTIONS": "-Xmx2g", "PATH": os.environ.get("PATH", "")}
    assert jvms.share_classes(tmp_path / "cache", env) is None
    assert env["JAVA_TOOL_OPTIONS"] == "-Xmx2g"
    assert not (tmp_path / "cache").exists()


def _launcher(java: str, home: Path, options: str) -> subprocess.CompletedProcess[bytes]:
    """pyspark's launcher (its class path is not the archive's), as ``spark-class`` runs it:
    its stdout is the command that script runs next."""
    return subprocess.run(
        [java, "-Xmx128m", "-cp", f"{home / 'jars'}/*", "org.apache.spark.launcher.Main",
         "org.apache.spark.deploy.SparkSubmit", "--version"],
        env={"SPARK_SCALA_VERSION": "2.13", **os.environ, "JAVA_TOOL_OPTIONS": options,
             "SPARK_HOME": str(home)},  # (what bin/load-spark-env.sh sets)
        stdin=subprocess.DEVNULL, capture_output=True, timeout=300)


def test_a_jvm_the_archive_does_not_fit_starts_and_says_nothing() -> None:
    java, home = _java_and_home()
    archive = _archive()
    done = _launcher(java, home, jvms.with_archive(jvms.QUICK_JVM, archive))
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"org.apache.spark.deploy.SparkSubmit" in done.stdout
    assert b"cds" not in done.stdout and b"warning" not in done.stdout

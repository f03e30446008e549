"""The driver JVM's class-data sharing archive (audit/classes.py): written by a big export's
JVM at its exit, published whole by the next start, used only when it fits, silent."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mqconsole.audit import classes
from mqconsole.audit.java import find_java
from mqconsole.audit.session import SparkSettings, spark_conf_pairs

MAGIC = classes.DYNAMIC_MAGIC.to_bytes(4, "little")


def _jdk(tmp_path: Path) -> tuple[Path, Path]:
    """A fake JDK (java, release, libjvm) and a fake Spark home with two jars."""
    jdk = tmp_path / "jdk"
    (jdk / "bin").mkdir(parents=True)
    (jdk / "lib" / "server").mkdir(parents=True)
    (jdk / "bin" / "java").write_text("")
    (jdk / "release").write_text('JAVA_VERSION="17.0.15"\n')
    (jdk / "lib" / "server" / "libjvm.so").write_bytes(b"x" * 10)
    home = tmp_path / "spark"
    (home / "jars").mkdir(parents=True)
    for name in ("spark-core.jar", "spark-sql.jar"):
        (home / "jars" / name).write_bytes(b"jar")
    return jdk / "bin" / "java", home


def test_the_key_changes_with_the_java_the_jars_and_the_class_path(tmp_path) -> None:
    java, home = _jdk(tmp_path)
    key = classes.archive_key(java, home, {}, environ={})
    assert key == classes.archive_key(java, home, {}, environ={})  # stable
    others = [classes.archive_key(java, home, {"spark.driver.extraClassPath": "/x.jar"},
                                  environ={}),
              classes.archive_key(java, home, {}, environ={"SPARK_CONF_DIR": "/etc/spark"}),
              classes.archive_key(java, home, {}, environ={"JAVA_TOOL_OPTIONS": "-Xmx1g"})]
    (tmp_path / "jdk" / "release").write_text('JAVA_VERSION="17.0.16"\n')  # java updated
    others.append(classes.archive_key(java, home, {}, environ={}))
    (home / "jars" / "spark-extra.jar").write_bytes(b"jar")  # another jar
    others.append(classes.archive_key(java, home, {}, environ={}))
    assert len({key, *others}) == len(others) + 1


def _dumped(where: Path, key: str, written: bool, magic: bool = True) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    tmp = where / f"driver-{key}.123-abcd.tmp"
    tmp.write_bytes((MAGIC if magic else b"\0\0\0\0") + b"rest")
    text = "[1.0s][info][cds,dynamic] Copying 10 klasses\n"
    if written:
        text += f"[2.0s][info][cds,dynamic] {classes.WRITTEN} 0x1 - 0x2 [984 bytes header]\n"
    (where / f"{tmp.name}.log").write_text(text)
    return tmp


def test_only_an_archive_written_whole_is_published_and_named(tmp_path) -> None:
    where = tmp_path / "classes"
    # the JVM still writing (its log started, no line saying written): not named, and no
    # second dump asked for
    tmp = _dumped(where, "k1", written=False)
    assert classes.publish(where, "k1") == (None, True)
    assert tmp.exists()
    # written whole: renamed to the archive (its log gone)
    _dumped(where, "k1", written=True)
    archive, writing = classes.publish(where, "k1")
    assert archive == where / "driver-k1.jsa" and not writing
    assert archive.read_bytes().startswith(MAGIC)
    assert sorted(p.name for p in where.iterdir()) == ["driver-k1.jsa"]
    # a log saying written over a file that is no archive: not published
    _dumped(where, "k2", written=True, magic=False)
    assert classes.publish(where, "k2")[0] is None


def test_stale_dumps_and_other_keys_archives_are_removed(tmp_path) -> None:
    where = tmp_path / "classes"
    where.mkdir()
    (where / "driver-old.jsa").write_bytes(MAGIC)  # another java or pyspark's
    tmp = _dumped(where, "k1", written=False)  # a JVM killed as it dumped
    later = os.stat(tmp).st_mtime + classes.STALE_SECONDS + 1
    assert classes.publish(where, "k1", now=later) == (None, False)
    assert list(where.iterdir()) == []


def test_the_options_use_an_archive_else_dump_one_else_none(tmp_path, monkeypatch) -> None:
    java, home = _jdk(tmp_path)
    monkeypatch.setattr(classes, "spark_home", lambda: home)
    state = tmp_path / "state"
    none = classes.java_options(state, java, {}, dump=False, environ={})
    assert none == ""  # no archive, no dump asked
    dump = classes.java_options(state, java, {}, dump=True, environ={})
    assert f"-XX:ArchiveClassesAtExit={state / 'classes'}/driver-" in dump
    assert classes.QUIET in dump and "-Xlog:cds+dynamic=info:file=" in dump
    # while that JVM runs (its log there), another big export does not dump too
    log = Path(dump.split("file=")[1])
    log.write_text("")
    assert classes.java_options(state, java, {}, dump=True, environ={}) == ""
    # it wrote the archive: published and named from now on, whatever the session
    tmp = Path(dump.split("ArchiveClassesAtExit=")[1].split()[0])
    tmp.write_bytes(MAGIC + b"rest")
    log.write_text(f"{classes.WRITTEN} 0x1\n")
    key = classes.archive_key(java, home, {}, environ={})
    used = classes.java_options(state, java, {}, dump=False, environ={})
    assert used == (f"-XX:SharedArchiveFile={state / 'classes' / f'driver-{key}.jsa'} "
                    f"-Xshare:auto {classes.QUIET}")
    # a stale archive is never named: another class path is another key
    assert classes.java_options(state, java, {"spark.driver.extraClassPath": "/x.jar"},
                                dump=False, environ={}) == ""
    # a site that says no
    assert classes.java_options(state, java, {classes.SETTING: "false"}, dump=True,
                                environ={}) == ""


def test_a_folder_that_cannot_be_written_means_no_archive_and_no_error(tmp_path,
                                                                    monkeypatch) -> None:
    java, home = _jdk(tmp_path)
    monkeypatch.setattr(classes, "spark_home", lambda: home)
    blocked = tmp_path / "state"
    blocked.write_text("a file where the folder would be")
    assert classes.java_options(blocked, java, {}, dump=True, environ={}) == ""
    assert classes.java_options(tmp_path, None, {}, dump=True, environ={}) == ""  # no java


def test_only_the_command_lines_sessions_name_the_archive(tmp_path, monkeypatch) -> None:
    """The tests' sessions (and the console's) are started without ``share_classes``: no
    class-data sharing option; the command line's: the archive's options with the others."""
    log4j = tmp_path / "spark" / "log4j2.properties"
    plain = spark_conf_pairs(SparkSettings(master="local[2]"), log4j, site={}, environ={})
    assert "SharedArchiveFile" not in plain["spark.driver.extraJavaOptions"]
    assert "ArchiveClassesAtExit" not in plain["spark.driver.extraJavaOptions"]
    monkeypatch.setattr(classes, "java_options",
                        lambda state, java, conf, dump, environ: f"-Dcds={state}:{dump}")
    shared = spark_conf_pairs(SparkSettings(master="local[2]", share_classes=True,
                                            dump_classes=True,
                                            conf={"spark.driver.extraJavaOptions": "-Dsite=1"}),
                              log4j, site={}, environ={})
    options = shared["spark.driver.extraJavaOptions"]
    assert f"-Dcds={log4j.parent}:True" in options and options.endswith(" -Dsite=1")


@pytest.mark.subprocess
def test_a_jvm_dumps_silently_and_the_next_maps_the_archive(tmp_path, monkeypatch) -> None:
    """The options with a real java: the JVM writes its classes at exit, says nothing on
    its output; the archive is published; the next JVM maps classes from it, silently; one
    whose archive does not fit starts as without it, silently too."""
    java = find_java()
    if java is None:  # pragma: no cover - the suite installs Java with pyspark
        pytest.skip("no java")
    _, home = _jdk(tmp_path)
    monkeypatch.setattr(classes, "spark_home", lambda: home)
    state = tmp_path / "state"
    dump = classes.java_options(state, java, {}, dump=True)
    ran = subprocess.run([str(java), *dump.split(), "-version"], capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0 and "cds" not in ran.stdout + ran.stderr
    used = classes.java_options(state, java, {}, dump=False)
    assert "-XX:SharedArchiveFile=" in used
    ran = subprocess.run([str(java), *used.split(), "-Xlog:class+load=info", "-version"],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and "shared objects file (top)" in ran.stdout
    assert "warning" not in ran.stdout + ran.stderr
    # a JVM whose class path the archive was not made for: no warning, Java's own sharing
    ran = subprocess.run([str(java), *used.split(), "-cp", str(tmp_path), "-version"],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and "warning" not in ran.stdout + ran.stderr
    assert "sharing" in ran.stderr

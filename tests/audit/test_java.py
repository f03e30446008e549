"""Java and pyspark are looked for before Spark starts: one sentence saying how to get them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mqconsole.audit.java import (
    SparkUnavailable,
    check_java,
    check_pyspark,
    find_java,
    java_major,
)


def _fake_java(folder: Path, version_line: str) -> Path:
    java = folder / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    return java


def test_no_java_on_path_says_how_to_get_it(tmp_path) -> None:
    env = {"PATH": str(tmp_path)}
    assert find_java(env) is None
    with pytest.raises(SparkUnavailable) as e:
        check_java(env)
    text = str(e.value)
    assert "no 'java' on PATH" in text and "Java 17 or 21" in text and "JAVA_HOME" in text
    assert "\n" not in text


def test_java_home_without_java_is_named(tmp_path) -> None:
    with pytest.raises(SparkUnavailable, match=r"JAVA_HOME \(.*\) holds no bin/java"):
        check_java({"JAVA_HOME": str(tmp_path), "PATH": os.environ["PATH"]})


def test_old_java_is_refused(tmp_path) -> None:
    _fake_java(tmp_path, 'java version "1.8.0_392"')
    assert java_major(tmp_path / "bin" / "java") == 8
    with pytest.raises(SparkUnavailable, match="is Java 8 and Spark 4 needs Java 17"):
        check_java({"JAVA_HOME": str(tmp_path)})


def test_java_17_is_taken(tmp_path) -> None:
    java = _fake_java(tmp_path, 'openjdk version "17.0.15" 2025-04-15')
    assert check_java({"JAVA_HOME": str(tmp_path)}) == java


def test_a_java_that_says_nothing_is_refused(tmp_path) -> None:
    _fake_java(tmp_path, "hello")
    with pytest.raises(SparkUnavailable, match="will not tell its version"):
        check_java({"JAVA_HOME": str(tmp_path)})


def test_pyspark_is_installed_here() -> None:
    check_pyspark()  # make test installs the [spark] extra

"""mqconsole's Spark Connect plugin (mqconsole/audit/connect/StorePlugin.java): built by
``mqconsole audit connect-plugin`` with this machine's javac, and doing the store's
operations as HadoopStore does them. Its operations run here in the test's own JVM (the
jar's class loaded beside Spark's, its entry point given the session's Hadoop settings),
against the same expectations as HadoopStore on a ``viewfs://`` mount standing for
``hdfs://``; tests/audit/test_connect.py runs it in a real Connect server."""

from __future__ import annotations

import errno
import json
import os
import stat
import time
import uuid
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mqconsole.audit.serverstore import ops_json, values_of
from mqconsole.audit.store import OPERATIONS, HadoopStore, Op, OutTaken, Store, op
from mqconsole.audit.storeplugin import PLUGIN_CLASS
from tests.cli.conftest import run_cli


class PluginHere(Store):
    """The plugin's operations in this process's JVM: its ``run`` entry point (what its
    ``transform`` calls on the server) given the session's Hadoop settings, its rows read
    as ServerStore reads the server's."""

    def __init__(self, spark: Any, jar: Path) -> None:
        jvm = spark._jvm
        gateway = spark.sparkContext._gateway
        urls = gateway.new_array(jvm.java.net.URL, 1)
        urls[0] = jvm.java.io.File(str(jar)).toURI().toURL()
        loader = jvm.java.net.URLClassLoader(urls, jvm.java.lang.Thread.currentThread()
                                             .getContextClassLoader())
        plugin = loader.loadClass(PLUGIN_CLASS)
        kinds = gateway.new_array(jvm.java.lang.Class, 2)
        kinds[0] = jvm.java.lang.Class.forName("java.lang.String")
        kinds[1] = jvm.java.lang.Class.forName("org.apache.hadoop.conf.Configuration")
        self.entry = plugin.getMethod("run", kinds)
        self.gateway = gateway
        self.conf = spark._jsc.hadoopConfiguration()

    def rows(self, text: str) -> list[tuple[str, str]]:
        args = self.gateway.new_array(self.gateway.jvm.java.lang.Object, 2)
        args[0], args[1] = text, self.conf
        return [(str(row[0]), str(row[1])) for row in self.entry.invoke(None, args)]

    def many(self, ops: Sequence[Op]) -> list[Any]:
        return values_of(self.rows(ops_json(ops)), len(ops))


for _name in OPERATIONS:  # each operation on its own: a list of one
    setattr(PluginHere, _name,
            lambda self, _name=_name, **args: self.many([op(_name, **args)])[0])


@pytest.fixture
def viewfs(spark, tmp_path) -> tuple[str, Path]:
    """``viewfs://NAME/audit`` mounted on ``tmp_path/fs`` in the session's Hadoop (NAME this
    test's own: Hadoop caches a file system by scheme and authority)."""
    root = tmp_path / "fs"
    root.mkdir()
    name = f"mq{uuid.uuid4().hex[:12]}"
    spark.sparkContext._jsc.hadoopConfiguration().set(
        f"fs.viewfs.mounttable.{name}.link./audit", f"file://{root}")
    return f"viewfs://{name}/audit", root


@pytest.fixture(params=["HadoopStore", "plugin"])
def store(request, spark) -> Store:
    if request.param == "HadoopStore":
        return HadoopStore(spark)
    return PluginHere(spark, request.getfixturevalue("store_plugin_jar"))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_operations_as_hadoopstore_does_them(store, viewfs) -> None:
    base, root = viewfs
    snap = f"{base}/snap"
    assert store.many([op("exists", uri=snap), op("is_dir", uri=snap),
                       op("read_text", uri=f"{snap}/manifest.json"),
                       op("children", uri=snap), op("sizes", uri=snap),
                       op("age", uri=snap)]) == [False, False, None, [], {}, None]
    store.mkdirs(uri=snap)
    assert store.is_dir(uri=snap) and store.exists(uri=snap) and _mode(root / "snap") == 0o700
    store.write_new(uri=f"{snap}/manifest.json", text="{\"é\": 1}\n")
    assert store.read_text(uri=f"{snap}/manifest.json") == "{\"é\": 1}\n"
    assert not store.is_dir(uri=f"{snap}/manifest.json")
    assert _mode(root / "snap" / "manifest.json") == 0o600
    with pytest.raises(FileExistsError):  # create-exclusive
        store.write_new(uri=f"{snap}/manifest.json", text="again")
    data = bytes(range(256))
    store.write_bytes(uri=f"{snap}/_summary/lists/part-0.parquet", data=data)
    assert (root / "snap" / "_summary" / "lists" / "part-0.parquet").read_bytes() == data
    with pytest.raises(FileExistsError):
        store.write_bytes(uri=f"{snap}/_summary/lists/part-0.parquet", data=b"x")
    (root / "snap" / "_summary" / "lists" / "loose").write_bytes(b"abc")
    os.chmod(root / "snap" / "_summary", 0o755)
    store.make_private(uri=snap)  # every folder 0700, file 0600
    # (the .crc files viewfs's checksummed local file system writes beside each file are
    # hidden from its own listing, so neither store sees them: on HDFS there are none)
    found = sorted(p.relative_to(root / "snap").as_posix() for p in (root / "snap").rglob("*")
                   if not p.name.endswith(".crc"))
    assert found == ["_summary", "_summary/lists", "_summary/lists/loose",
                     "_summary/lists/part-0.parquet", "manifest.json"]
    assert all(_mode(p) == (0o700 if p.is_dir() else 0o600)
               for p in [root / "snap", *(root / "snap").rglob("*")]
               if not p.name.endswith(".crc"))
    assert store.children(uri=snap) == ["_summary", "manifest.json"]
    assert store.sizes(uri=snap) == {"manifest.json": 10, "_summary/lists/loose": 3,
                                     "_summary/lists/part-0.parquet": 256}
    day_ago = time.time() - 25 * 3600
    os.utime(root / "snap" / "manifest.json", (day_ago, day_ago))
    age = store.age(uri=f"{snap}/manifest.json")
    assert 24 * 3600 < age < 26 * 3600
    # publish: onto a free name; refused onto a taken one (both left as they were);
    # --replace: the new one in place, the old one gone, nothing left beside
    store.mkdirs(uri=f"{base}/.out.tmp-1")
    store.write_new(uri=f"{base}/.out.tmp-1/first", text="1")
    store.publish(staged=f"{base}/.out.tmp-1", out=f"{base}/out", replace=False)
    assert (root / "out" / "first").read_text() == "1" and not (root / ".out.tmp-1").exists()
    store.mkdirs(uri=f"{base}/.out.tmp-2")
    store.write_new(uri=f"{base}/.out.tmp-2/second", text="2")
    with pytest.raises(OutTaken):
        store.publish(staged=f"{base}/.out.tmp-2", out=f"{base}/out", replace=False)
    assert (root / ".out.tmp-2" / "second").is_file() and (root / "out" / "first").is_file()
    assert not (root / "out" / ".out.tmp-2").exists()  # not moved inside it either
    store.publish(staged=f"{base}/.out.tmp-2", out=f"{base}/out", replace=True)
    assert sorted(p.name for p in (root / "out").iterdir() if not p.name.endswith(".crc")) == [
        "second"]
    assert sorted(p.name for p in root.iterdir()) == ["out", "snap"]
    store.remove(uri=f"{base}/out")
    store.remove(uri=f"{base}/no/such")
    assert sorted(p.name for p in root.iterdir()) == ["snap"]


def test_the_first_failure_stops_the_rest(store, viewfs) -> None:
    base, root = viewfs
    with pytest.raises(FileExistsError):
        store.many([op("write_new", uri=f"{base}/a", text="1"),
                    op("write_new", uri=f"{base}/a", text="2"),
                    op("write_new", uri=f"{base}/b", text="3")])
    assert (root / "a").read_text() == "1" and not (root / "b").exists()


def test_the_plugin_says_a_failure_as_python_would(spark, store_plugin_jar, viewfs) -> None:
    """A failure is a status the client raises as an OSError with its errno and the URI
    (HadoopStore raises py4j's errors there); an operation it does not know, a status too
    (the client's ValueError: a newer mqconsole than the plugin's)."""
    base, _root = viewfs
    plugin = PluginHere(spark, store_plugin_jar)
    with pytest.raises(FileNotFoundError) as missing:
        plugin.make_private(uri=f"{base}/no/such")
    assert missing.value.errno == errno.ENOENT and missing.value.filename == f"{base}/no/such"
    assert plugin.rows(json.dumps([["chmod", {"uri": base}], ["exists", {"uri": base}]])) == [
        ("unknown", '"chmod"')]
    # on the raw local file system (file:, no checksums of its own) it sees the checksum
    # litter another writer left, and removes it
    folder = viewfs[1] / "local"
    folder.mkdir()
    (folder / ".part-0.parquet.crc").write_bytes(b"crc")
    (folder / "part-0.parquet").write_bytes(b"data")
    plugin.make_private(uri=folder.as_uri())
    assert [p.name for p in folder.iterdir()] == ["part-0.parquet"]
    assert _mode(folder / "part-0.parquet") == 0o600 and _mode(folder) == 0o700
    with pytest.raises(ValueError, match="does not know the store operation chmod"):
        values_of(plugin.rows(json.dumps([["chmod", {"uri": base}]])), 1)


def test_connect_plugin_builds_the_jar_and_says_what_the_server_takes(store_plugin_jar,
                                                                        tmp_path) -> None:
    out = tmp_path / "plugin.jar"
    r = run_cli("audit", "connect-plugin", str(out), home=tmp_path / "home",
                before_spark=True)  # (javac, no Spark)
    assert r.code == 0, r.err
    assert (f"--jars {out} --conf spark.connect.extensions.relation.classes="
            "mqconsole.audit.connect.StorePlugin") in r.err
    with zipfile.ZipFile(out) as jar:
        names = jar.namelist()
    assert "mqconsole/audit/connect/StorePlugin.class" in names
    assert "META-INF/MANIFEST.MF" in names
    r = run_cli("audit", "connect-plugin", str(out), "--json", home=tmp_path / "home",
                before_spark=True)
    assert r.code == 0 and r.json == {"jar": str(out), "server": [
        "--jars", str(out), "--conf",
        "spark.connect.extensions.relation.classes=mqconsole.audit.connect.StorePlugin"]}


def test_connect_plugin_without_a_jdk_or_a_spark_is_one_sentence(tmp_path) -> None:
    jre = tmp_path / "jre"
    (jre / "bin").mkdir(parents=True)
    out = tmp_path / "plugin.jar"
    r = run_cli("audit", "connect-plugin", str(out), home=tmp_path / "home",
                env={"JAVA_HOME": str(jre)}, before_spark=True)
    assert r.code == 3, r.err
    assert r.err.strip() == (
        f"mqconsole: building mqconsole's Spark Connect plugin needs a Java compiler (javac), "
        f"and JAVA_HOME ({jre}) holds no bin/javac (a JRE, not a JDK?): install a Java "
        "17 or 21 JDK (for example 'apt install openjdk-17-jdk-headless' or 'brew install "
        "openjdk@17') or point JAVA_HOME at one")
    r = run_cli("audit", "connect-plugin", str(out), "--spark-jars", str(tmp_path),
                home=tmp_path / "home", before_spark=True)
    assert r.code == 2 and "holds no spark-connect_*.jar" in r.err, r.err
    assert not out.exists()
    r = run_cli("audit", "connect-plugin", str(tmp_path), home=tmp_path / "home",
                before_spark=True)
    assert r.code == 2 and r.err.strip() == \
        f"mqconsole: {tmp_path} is a folder: name the jar file to write", r.err


def test_a_listing_names_folders_as_they_are(spark, store, viewfs) -> None:
    """A folder ``a%20b`` holding Spark's partition folders of the queues ``A/B``, ``A%B``
    and ``A B``: every store (the driver's disk, Hadoop's, the plugin's) lists the same
    relative paths, literal, as the folders are named (Hadoop's file listing was decoded
    again: ``queue=A%2FB`` became ``queue=A/B``, a file no reader finds)."""
    from mqconsole.audit.store import LocalStore, to_uri

    base, root = viewfs
    names = ["queue=A%2FB/part-0.parquet", "queue=A%25B/part-1.parquet",
             "queue=A b/part-2.parquet", "_SUCCESS"]
    for i, name in enumerate(names):
        (root / "a%20b" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "a%20b" / name).write_bytes(b"x" * i)
    want = {name: i for i, name in enumerate(names)}
    folder = f"{base}/a%20b"
    assert store.sizes(uri=folder) == want
    assert LocalStore().sizes(to_uri(root / "a%20b")) == want
    assert HadoopStore(spark).sizes(to_uri(root / "a%20b")) == want
    assert store.exists(uri=f"{folder}/queue=A%2FB/part-0.parquet")
    assert not store.exists(uri=f"{base}/a b")
    assert store.children(uri=folder) == sorted(n.split("/")[0] for n in names)

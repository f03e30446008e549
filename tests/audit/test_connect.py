"""Spark Connect for real: a Connect server on 127.0.0.1 (pyspark's own ``spark-submit``
with ``SparkConnectServer``, its executors on a standalone cluster's worker: the run's
``spark_connect``, shared with the console's Connect test), then export + report + sql with
``--remote sc://…`` from a client in its own mount namespace, where the folder the server
and the worker share is hidden behind a private tmpfs: the export's data source is
registered over Connect and runs in the server's Python workers; the snapshot's files are
the server's to read and write. The server runs mqconsole's plugin and mounts a
``viewfs://`` only it knows (standing for ``hdfs://``): a snapshot there works the same way,
its small files through the plugin on the server's driver; a server without the plugin
says so in one sentence. The fixture stops the server by PID when the run ends.

The client is one process (tests/audit/connect_client.py) running the commands one after
another on one Connect session, as ``run_cli`` runs them in process: a client starts no JVM,
and each new Connect session starts its Python workers on the server. Where ``unshare`` is
refused, the same client runs without the namespace and the test that needs it is skipped.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.cli.conftest import Result, run_cli

from .connect_client import Client
from .reportdata import oracle
from .scene import DEMO_QUEUES, NOW, QUEUES, Scene, build_scene, expected_rows, run_mqconsole
from .taskmarks import failures, marks

pytestmark = pytest.mark.cluster

REPO = Path(__file__).resolve().parents[2]


def _own_mount_namespace() -> list[str] | None:
    """``unshare`` in a user and mount namespace of its own, or None when refused here."""
    try:
        done = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs none /mnt"],
                              capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return ["unshare", "-rm"] if done.returncode == 0 else None


@dataclass
class OverConnect:
    """What the client did, and what the test process saw of the shared folder."""

    scene: Scene
    snap: Path
    url: str
    hidden: bool
    export: Result
    report: Result
    sql: Result
    bad: Result
    writes: list[Result]
    seen: Result | None  # a report without --remote, where the folder is hidden
    on_hadoop: dict[str, Result] | None  # a viewfs:// snapshot (None: no plugin, no JDK)
    hadoop: tuple[str, Path] = ("", Path())  # that viewfs:// and the folder it mounts
    before: dict[Path, bytes] = field(default_factory=dict)
    after: dict[Path, bytes] = field(default_factory=dict)
    client_exit: int = 0
    guarded: list[str] = field(default_factory=list)
    """The processes that loaded the client's guard (its sitecustomize): the client's."""
    client_pid: int = 0
    read_there: dict[str, dict] = field(default_factory=dict)
    """The marks the server's executors wrote while the first export ran (taskmarks.py)."""
    probe_failed: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def plain_server(tmp_path_factory):
    """A Spark Connect server without mqconsole's plugin and with ``spark.speculation=true``
    (``local[1]``), for the test of what a client says to such a server. Its JVM is started
    and not waited for (:func:`over_connect` asks for it, so that it starts while that
    client runs); the test waits until it says it started. Stopped by PID when this
    module's tests end, and the run fails if it outlives that."""
    from .cluster import alive, connect_server

    folder = tmp_path_factory.mktemp("plain-server")
    with connect_server(folder, master="local[1]", wait=False,
                        settings=["--conf", "spark.speculation=true"]) as server:
        yield server
    assert not alive(server.process.pid), "the Connect server outlived its stop"


@pytest.fixture(scope="module")
def over_connect(spark_connect, plain_server, tmp_path_factory) -> OverConnect:
    """One client: the export, the report, sql, the bad query and three refused writes over
    Connect, in its own mount namespace where ``unshare`` allows (the folder the server and
    the worker share, hidden behind a private tmpfs: any file the client opened or wrote
    there would be missing or lost). The server's executors mark each partition they read
    (tests/audit/taskmarks.py) in a folder of the server's, hidden from the client too: the
    marks written while the export ran are what says where it was read. The client's own
    data source reader, and the reader's ``read``, raise (a sitecustomize the server's
    workers do not have): a guard against the client reading a queue or a file itself."""
    base = tmp_path_factory.mktemp("over-connect")
    scene = build_scene(base / "scene")
    shared, home = base / "shared", base / "home"
    shared.mkdir()
    snap = shared / "snap"
    shadow = base / "client-cannot-read"
    shadow.mkdir()
    (shadow / "sitecustomize.py").write_text(
        "import mqconsole.audit.datasource as ds\n"
        "def _refuse(*args, **kwargs):\n"
        "    raise RuntimeError('the client read the queues itself')\n"
        "ds.MqconsoleDataSource.reader = _refuse\n"
        "ds.MqconsoleReader.read = _refuse\n"
        "import os\n"  # the client's pid, so the test knows the guard was in the client
        "open(os.path.join(os.path.dirname(__file__), f'loaded-{os.getpid()}'), 'w').close()\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(shadow), str(REPO), os.environ.get("PYTHONPATH")) if p)
    assert spark_connect.viewfs is not None
    vbase, vroot = spark_connect.viewfs
    exports = vroot / "exports"  # what killed exports left there, for audit clean
    for name, age in ((".old.tmp-1-aaa", 25 * 3600), (".young.tmp-2-bbb", 0)):
        (exports / name).mkdir(parents=True)
        (exports / name / "part-0.parquet").write_bytes(b"x")
        os.utime(exports / name, (time.time() - age, time.time() - age))
    unshare = _own_mount_namespace()
    tasks = spark_connect.tasks
    assert tasks is not None
    # the shared folder, the one the server's viewfs:// mounts and the one its executors
    # mark their reads in, each behind a tmpfs
    wrap = [] if unshare is None else [
        *unshare, "sh", "-c",
        'for d in "$0" "$1" "$2"; do mount -t tmpfs none "$d" || exit 1; done; '
        'shift 2 && exec "$@"', str(shared), str(vroot), str(tasks)]
    url = spark_connect.url
    client = Client(wrap, env, home, base / "client.log")
    try:
        earlier = set(marks(tasks))  # (other tests' exports on this server)
        export = client("--embedded", str(scene.qm_path), "audit", "export", "--out",
                        str(snap), "--queues", QUEUES, *map(str, scene.files), "--remote",
                        url, "--json")
        read_there = {k: v for k, v in marks(tasks).items() if k not in earlier}
        report = client("audit", "report", "--in", str(snap), "--as-of",
                        "2026-11-25T10:00:00Z", "--json", "--remote", url)
        sql = client("audit", "sql", "--in", str(snap), "--json", "--remote", url,
                     "SELECT count(*) AS n FROM messages")
        # no --remote: the client's own classic Spark would read the folder, if it saw it
        seen = None if unshare is None else client("audit", "report", "--in", str(snap),
                                                   "--json")
        bad = client("audit", "sql", "--in", str(snap), "--remote", url,
                     "SELECT no_such_column FROM messages")
        # read-only over Connect too: Spark's parser and the analysed plan decide, there
        before = {p: p.read_bytes() for p in snap.rglob("*") if p.is_file()}
        partition = next((snap / "messages").glob("queue=*"), snap / "messages" / "none")
        writes = [client("audit", "sql", "--in", str(snap), "--remote", url, text) for text in (
            f"FROM messages INSERT OVERWRITE DIRECTORY '{partition}' SELECT *",
            "SELECT reflect('java.lang.System', 'getenv', 'HOME')",
            f"SELECT * FROM binaryFile.`{snap / 'manifest.json'}`")]
        after = {p: p.read_bytes() for p in snap.rglob("*") if p.is_file()}
        on_hadoop = None
        if spark_connect.plugin:  # a snapshot on a Hadoop URI only the server knows
            vsnap = f"{vbase}/snap"
            on_hadoop = {
                "export": client("--embedded", str(scene.qm_path), "audit", "export", "--out",
                                 vsnap, "--queues", QUEUES, *map(str, scene.files),
                                 "--remote", url, "--json"),
                "again": client("--embedded", str(scene.qm_path), "audit", "export", "--out",
                                vsnap, "--queues", QUEUES, "--remote", url),
                "report": client("audit", "report", "--in", vsnap, "--as-of",
                                 "2026-11-25T10:00:00Z", "--json", "--remote", url),
                "sql": client("audit", "sql", "--in", vsnap, "--json", "--remote", url,
                              "SELECT count(*) AS n FROM messages"),
                "clean": client("audit", "clean", f"{vbase}/exports", "--json", "--remote",
                                url)}
    finally:
        code = client.close()
    guarded = sorted(p.name for p in shadow.glob("loaded-*"))
    return OverConnect(scene, snap, url, unshare is not None, export, report, sql, bad,
                       writes, seen, on_hadoop, (vbase, vroot), before, after, code, guarded,
                       client.process.pid, read_there, failures(tasks))


def test_export_report_and_sql_over_spark_connect(over_connect) -> None:
    o = over_connect
    assert o.export.code == 0, o.export.err
    want = expected_rows(o.scene, DEMO_QUEUES)
    summary = json.loads(o.export.out)
    assert summary["rows"] == len(want)
    assert all(q["depth_start"] == q["depth_end"] == q["rows"] for q in summary["queues"])
    assert "starting Spark (sc://127.0.0.1:" in o.export.err
    manifest = json.loads((o.snap / "manifest.json").read_text())  # written by the server
    assert manifest["master"] == o.url and manifest["rows"] == len(want)
    assert (o.snap / "_SUCCESS").is_file()
    assert o.report.code == 0, o.report.err
    assert o.report.json == {**oracle(want, NOW), "notes": []}  # what local gives
    assert "from the stored aggregates" in o.report.err
    assert o.sql.code == 0, o.sql.err
    assert o.sql.json == [{"n": len(want)}]
    assert o.bad.code == 2 and "no_such_column" in o.bad.err
    assert "Traceback" not in o.bad.err and "at org.apache" not in o.bad.err
    assert [w.code for w in o.writes] == [2, 2, 2], [w.err for w in o.writes]
    assert all("Traceback" not in w.err for w in o.writes)
    assert o.after == o.before and o.before
    assert o.client_exit == 0
    # the guard was there: the client process loaded the sitecustomize that makes its own
    # reader raise (had its import failed, Python would have carried on without it)
    assert o.guarded, "the client's guard (sitecustomize) was not loaded"


def test_the_export_was_read_by_the_servers_executors(over_connect, spark_connect,
                                                      spark_cluster) -> None:
    """Every partition of the export (each queue, each saved file) was read by a Python
    worker that descends from an executor JVM of the Connect server's application on the
    standalone worker: each wrote its mark (tests/audit/taskmarks.py) in a folder of the
    server's, hidden from the client, with its process id and its ancestors' command lines
    as they were while it read. None of those processes is the client's."""
    o = over_connect
    assert o.export.code == 0, o.export.err
    assert not o.probe_failed, o.probe_failed  # the probe was installed in the executors
    assert o.read_there, "no task of the server's executors read a partition of the export"
    app = spark_connect.app_id
    assert app is not None and (spark_cluster.logs / "work" / app).is_dir()
    client = {o.client_pid, *(int(name.split("-")[1]) for name in o.guarded)}
    queues, files = set(), set()
    for mark in o.read_there.values():
        ancestors = {pid: argv for pid, argv in mark["ancestors"]}
        assert mark["pid"] in ancestors and not client & set(ancestors), mark
        [executor] = [argv for argv in ancestors.values()
                      if "org.apache.spark.executor.CoarseGrainedExecutorBackend" in argv]
        assert executor[executor.index("--app-id") + 1] == app, executor
        source = mark["source"]
        if len(source) > 1 and isinstance(source[1], str):
            queues.add((source[0], source[1]))
        else:
            files.add(source[0])
    summary = json.loads(o.export.out)
    assert queues == {(q["profile"], q["queue"]) for q in summary["queues"]}
    assert files == {str(f) for f in o.scene.files}


def test_the_client_never_sees_the_snapshot_folder(over_connect) -> None:
    """The Connect server and a standalone worker share one folder; the client ran in its
    own mount namespace with an empty private tmpfs over it, so any file the client opened
    or wrote there would be missing or lost. Export, report and sql all worked (the test
    above), and what the server wrote is a committed snapshot holding every row."""
    o = over_connect
    if not o.hidden:
        pytest.skip("unshare -rm (a user and mount namespace) is refused on this machine")
    assert o.export.code == 0 and o.report.code == 0 and o.sql.code == 0
    manifest = json.loads((o.snap / "manifest.json").read_text())
    assert manifest["rows"] == len(expected_rows(o.scene, DEMO_QUEUES))
    assert (o.snap / "_SUCCESS").is_file()
    # the proof that the folder was hidden: a classic session of the client cannot see it
    assert o.seen is not None
    assert o.seen.code == 2 and "does not exist" in o.seen.err, o.seen.err


def test_a_snapshot_on_a_hadoop_uri_only_the_server_knows(over_connect) -> None:
    """``viewfs://`` (standing for ``hdfs://``) is mounted in the Connect server's Hadoop
    only, on a folder hidden from the client like the shared one: the export writes its
    data there through Spark and commits it through mqconsole's plugin on the server's
    driver (a file: path's executor task could not reach it), the report and sql read it,
    a second export to it is refused, and audit clean removes a killed export's staging
    there by its age."""
    o = over_connect
    if o.on_hadoop is None:
        pytest.skip("no Java compiler (a JDK's javac) here to build the Connect plugin")
    done = o.on_hadoop
    vbase, vroot = o.hadoop
    want = expected_rows(o.scene, DEMO_QUEUES)
    assert done["export"].code == 0, done["export"].err
    assert json.loads(done["export"].out)["rows"] == len(want)
    manifest = json.loads((vroot / "snap" / "manifest.json").read_text())
    assert manifest["rows"] == len(want) and manifest["master"] == o.url
    assert (vroot / "snap" / "_SUCCESS").is_file()
    assert sorted(p.name for p in vroot.iterdir()) == ["exports", "snap"]  # published
    assert all(stat.S_IMODE(p.stat().st_mode) == (0o700 if p.is_dir() else 0o600)
               for p in [vroot / "snap", *(vroot / "snap").rglob("*")])
    assert done["again"].code == 2, done["again"].err
    assert f"{vbase}/snap exists: choose another --out" in done["again"].err
    assert done["report"].code == 0, done["report"].err
    assert done["report"].json == {**oracle(want, NOW), "notes": []}
    assert "from the stored aggregates" in done["report"].err
    assert done["sql"].code == 0 and done["sql"].json == [{"n": len(want)}], done["sql"].err
    assert done["clean"].code == 0, done["clean"].err
    assert done["clean"].json == {"removed": [f"{vbase}/exports/.old.tmp-1-aaa"],
                                  "kept": [f"{vbase}/exports/.young.tmp-2-bbb"]}
    assert [p.name for p in (vroot / "exports").iterdir()] == [".young.tmp-2-bbb"]


def test_a_server_without_the_plugin_or_with_speculation_is_one_sentence(plain_server,
                                                                          tmp_path) -> None:
    """A Connect server started without mqconsole's plugin: a snapshot that is not a
    file: path is refused in one sentence saying how to add the plugin (or use --master),
    exit 2 as for any other bad input. The same server runs with ``spark.speculation=true``
    (a Connect client cannot pin it off, as a classic session does): an export to a file:
    path there is refused in one sentence naming the setting and how to start the server,
    before anything is written."""
    from mqconsole.audit.storeplugin import missing_plugin

    scene = build_scene(tmp_path / "scene")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                        if p)
    out = "hdfs://namenode.invalid:8020/audit/snap"
    (tmp_path / "shared").mkdir()
    client = Client([], env, tmp_path / "home", tmp_path / "client.log")
    try:
        server = plain_server.started()  # (the client's Python has started meanwhile)
        export = client("--embedded", str(scene.qm_path), "audit", "export", "--out", out,
                        "--queues", QUEUES, "--remote", server.url)
        report = client("audit", "report", "--in", out, "--remote", server.url, "--json")
        twice = client("--embedded", str(scene.qm_path), "audit", "export", "--out",
                       str(tmp_path / "shared" / "snap"), "--queues", QUEUES,
                       "--remote", server.url)
    finally:
        assert client.close() == 0
    sentence = f"mqconsole: {missing_plugin(out)}"
    assert sentence.startswith("mqconsole: hdfs://namenode.invalid:8020: over Spark Connect")
    assert "connect-plugin" in sentence and "--master" in sentence
    for done in (export, report):
        assert done.code == 2, done.err
        assert done.err.strip().splitlines()[-1] == sentence
        assert "Traceback" not in done.err and "JVM stacktrace" not in done.err
    assert report.json == {"error": str(missing_plugin(out)), "exit": 2}
    assert twice.code == 2, twice.err
    assert twice.err.strip().splitlines()[-1] == (
        f"mqconsole: the Spark Connect server {server.url} runs with spark.speculation=true, "
        "so a task could run twice and browse its queue again: start the server with "
        "--conf spark.task.maxFailures=1 --conf spark.speculation=false (a Connect client "
        "cannot set them)")
    assert "Traceback" not in twice.err
    assert list((tmp_path / "shared").iterdir()) == []  # nothing staged, nothing written


def test_remote_export_to_a_server_that_does_not_answer_is_exit_3_in_one_sentence(
        tmp_path) -> None:
    scene = build_scene(tmp_path)
    r = run_mqconsole("--embedded", str(scene.qm_path), "audit", "export", "--out",
                      str(tmp_path / "snap"), "--queues", QUEUES, "--remote",
                      "sc://127.0.0.1:1", home=tmp_path / "home")
    assert r.returncode == 3, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("mqconsole: cannot reach the Spark Connect server sc://127.0.0.1:1")
    assert "Traceback" not in r.stderr and not (tmp_path / "snap").exists()
    # refused before Spark: in this process (starting Spark would fail the test)
    both = run_cli("--embedded", str(scene.qm_path), "audit", "export", "--out",
                   str(tmp_path / "snap"), "--queues", QUEUES, "--remote", "sc://127.0.0.1:1",
                   "--master", "local[2]", home=tmp_path / "home", before_spark=True)
    assert both.code == 2 and "alternatives" in both.err


def test_an_export_over_connect_reads_and_decodes_on_the_servers_cores(spark_connect) -> None:
    """A Connect client has no SparkContext to ask for the cores: the export asks the server
    (one small job), so a queue is read in stretches and a queue of real MQ (one browse, one
    task) decoded by every task, as under --master (it took 1: nothing split or spread)."""
    from mqconsole.audit.export import _parallelism, _spread
    from mqconsole.audit.remote import connect

    session = connect(spark_connect.url)
    try:
        parts = _parallelism(session)
    finally:
        session.stop()  # this worker's other tests run Spark in-process
    assert parts == 2  # the Connect application's cores on the run's cluster (conftest.py)
    assert _spread([1_000_000], parts)

"""Spark Connect for real: a Connect server on 127.0.0.1 (pyspark's own ``spark-submit``
with ``SparkConnectServer``, its executors on a standalone cluster's worker: the run's
``spark_connect``, shared with the console's Connect test), then export + report + sql with
``--remote sc://…`` from a client in its own mount namespace, where the folder the server
and the worker share is hidden behind a private tmpfs: the export's data source is
registered over Connect and runs in the server's Python workers; the snapshot's files are
the server's to read and write. The fixture stops the server by PID when the run ends.

The client is one process (tests/audit/connect_client.py) running the commands one after
another on one Connect session, as ``run_cli`` runs them in process: a client starts no JVM,
and each new Connect session starts its Python workers on the server. Where ``unshare`` is
refused, the same client runs without the namespace and the test that needs it is skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.cli.conftest import Result, run_cli

from .connect_client import Client
from .reportdata import oracle
from .scene import DEMO_QUEUES, NOW, QUEUES, Scene, build_scene, expected_rows, run_mqconsole

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
    before: dict[Path, bytes] = field(default_factory=dict)
    after: dict[Path, bytes] = field(default_factory=dict)
    client_exit: int = 0
    guarded: list[str] = field(default_factory=list)
    """The processes that loaded the client's guard (its sitecustomize): the client's."""


@pytest.fixture(scope="module")
def over_connect(spark_connect, tmp_path_factory) -> OverConnect:
    """One client: the export, the report, sql, the bad query and three refused writes over
    Connect, in its own mount namespace where ``unshare`` allows (the folder the server and
    the worker share, hidden behind a private tmpfs: any file the client opened or wrote
    there would be missing or lost). The client cannot read a queue or a file itself
    either: its data source's reader, and the reader's ``read``, raise (a sitecustomize; the
    server's Python workers import their own mqconsole, whose environment has no such
    sitecustomize), so an export that holds every row was read on the server, nowhere
    else."""
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
    unshare = _own_mount_namespace()
    wrap = [] if unshare is None else [*unshare, "sh", "-c",
                                       'mount -t tmpfs none "$0" && exec "$@"', str(shared)]
    url = spark_connect.url
    client = Client(wrap, env, home, base / "client.log")
    try:
        export = client("--embedded", str(scene.qm_path), "audit", "export", "--out",
                        str(snap), "--queues", QUEUES, *map(str, scene.files), "--remote",
                        url, "--json")
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
    finally:
        code = client.close()
    guarded = sorted(p.name for p in shadow.glob("loaded-*"))
    return OverConnect(scene, snap, url, unshare is not None, export, report, sql, bad,
                       writes, seen, before, after, code, guarded)


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
    assert o.report.json == oracle(want, NOW)  # what local gives (test_report)
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

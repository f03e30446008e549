"""Spark Connect for real: a Connect server on 127.0.0.1 (pyspark's own ``spark-submit``
with ``SparkConnectServer``, its executors on a standalone cluster's worker: the run's
``spark_connect``, shared with the console's Connect test), then export + report + sql with
``--remote sc://…``: the export's data source is registered over Connect and runs in the
server's Python workers; the report is plain Python's (as local's is). The fixture stops
the server by PID when the run ends. The export runs the executable (its own process, whose
data source cannot read); the report and the queries after it run in this process, on one
Connect session (a client starts no JVM; each new session starts its Python workers on the
server)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.cli.conftest import run_cli

from .reportdata import oracle
from .scene import DEMO_QUEUES, NOW, QUEUES, build_scene, expected_rows, run_mqconsole

pytestmark = pytest.mark.cluster


@pytest.fixture
def connect_here(spark_connect):
    """The server; the Connect session this process opens on it is stopped when the test
    ends, while the server is up (its client would retry against a stopped one), and
    pyspark's process-wide Connect switch stays off (later tests here run classic Spark)."""
    yield spark_connect
    from mqconsole.audit.remote import connect

    connect(spark_connect.url).stop()
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ


def test_export_report_and_sql_over_spark_connect(tmp_path, connect_here) -> None:
    scene = build_scene(tmp_path)
    snap, home = tmp_path / "snap", tmp_path / "home"
    as_of = ["--as-of", "2026-11-25T10:00:00Z", "--json"]
    # the client cannot read a queue or a file itself: its data source's reader raises.
    # The server's Python workers import their own mqconsole (the server's environment has
    # no such sitecustomize), so an export that holds every row was read there, nowhere else
    shadow = tmp_path / "client-cannot-read"
    shadow.mkdir()
    (shadow / "sitecustomize.py").write_text(
        "import mqconsole.audit.datasource as ds\n"
        "def _refuse(*args, **kwargs):\n"
        "    raise RuntimeError('the client read the queues itself')\n"
        "ds.MqconsoleDataSource.reader = _refuse\n")
    client_env = {"PYTHONPATH": os.pathsep.join(
        p for p in (str(shadow), os.environ.get("PYTHONPATH")) if p)}
    server = connect_here
    export = run_mqconsole("--embedded", str(scene.qm_path), "audit", "export", "--out",
                           str(snap), "--queues", QUEUES, *map(str, scene.files),
                           "--remote", server.url, "--json", home=home, env=client_env)
    assert export.returncode == 0, export.stderr

    def here(*args: str):  # in this process, on one Connect session
        return run_cli(*args, home=home, connect_here=True)

    remote = here("audit", "report", "--in", str(snap), *as_of, "--remote", server.url)
    assert remote.code == 0, remote.err
    sql = here("audit", "sql", "--in", str(snap), "--json", "--remote", server.url,
               "SELECT count(*) AS n FROM messages")
    assert sql.code == 0, sql.err
    bad = here("audit", "sql", "--in", str(snap), "--remote", server.url,
               "SELECT no_such_column FROM messages")
    # read-only over Connect too: Spark's parser and the analysed plan decide, there
    before = {p: p.read_bytes() for p in snap.rglob("*") if p.is_file()}
    partition = next((snap / "messages").glob("queue=*"))
    writes = [here("audit", "sql", "--in", str(snap), "--remote", server.url, text)
              for text in (
        f"FROM messages INSERT OVERWRITE DIRECTORY '{partition}' SELECT *",
        "SELECT reflect('java.lang.System', 'getenv', 'HOME')",
        f"SELECT * FROM binaryFile.`{snap / 'manifest.json'}`")]
    after = {p: p.read_bytes() for p in snap.rglob("*") if p.is_file()}
    want = expected_rows(scene, DEMO_QUEUES)
    summary = json.loads(export.stdout)
    assert summary["rows"] == len(want)
    assert all(q["depth_start"] == q["depth_end"] == q["rows"] for q in summary["queues"])
    assert "starting Spark (sc://127.0.0.1:" in export.stderr
    manifest = json.loads((snap / "manifest.json").read_text())
    assert manifest["master"] == server.url and manifest["rows"] == len(want)
    assert sql.json == [{"n": len(want)}]
    assert bad.code == 2 and "no_such_column" in bad.err
    assert [w.code for w in writes] == [2, 2, 2], [w.err for w in writes]
    assert all("Traceback" not in w.err for w in writes)
    assert after == before
    assert "Traceback" not in bad.err and "at org.apache" not in bad.err
    assert remote.json == oracle(want, NOW)  # what local gives (test_report)


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
    both = run_mqconsole("--embedded", str(scene.qm_path), "audit", "export", "--out",
                         str(tmp_path / "snap"), "--queues", QUEUES, "--remote",
                         "sc://127.0.0.1:1", "--master", "local[2]", home=tmp_path / "home")
    assert both.returncode == 2 and "alternatives" in both.stderr


def _own_mount_namespace() -> list[str] | None:
    """``unshare`` in a user and mount namespace of its own, or None when refused here."""
    try:
        done = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs none /mnt"],
                              capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return ["unshare", "-rm"] if done.returncode == 0 else None


def test_the_client_never_sees_the_snapshot_folder(tmp_path, spark_connect) -> None:
    """The Connect server and a standalone worker share one folder; the client runs in its
    own mount namespace with an empty private tmpfs over it, so any file the client opened
    or wrote there would be missing or lost. Export, report and sql all work, and what the
    server wrote is a committed snapshot holding every row."""
    unshare = _own_mount_namespace()
    if unshare is None:
        pytest.skip("unshare -rm (a user and mount namespace) is refused on this machine")
    scene = build_scene(tmp_path / "scene")
    shared, home = tmp_path / "shared", tmp_path / "home"
    shared.mkdir()
    snap = shared / "snap"

    def hidden(*args: str):  # mqconsole with the shared folder hidden behind a tmpfs
        from .scene import run_mqconsole as run

        return run(*args, home=home, wrap=[*unshare, "sh", "-c",
                                           'mount -t tmpfs none "$0" && exec "$@"',
                                           str(shared)])

    server = spark_connect
    export = hidden("--embedded", str(scene.qm_path), "audit", "export", "--out",
                    str(snap), "--queues", QUEUES, *map(str, scene.files), "--remote",
                    server.url, "--json")
    report = hidden("audit", "report", "--in", str(snap), "--as-of",
                    "2026-11-25T10:00:00Z", "--json", "--remote", server.url)
    sql = hidden("audit", "sql", "--in", str(snap), "--json", "--remote", server.url,
                 "SELECT count(*) AS n FROM messages")
    seen = hidden("audit", "report", "--in", str(snap), "--json")  # no --remote: no way
    want = expected_rows(scene, DEMO_QUEUES)
    assert export.returncode == 0, export.stderr
    assert json.loads(export.stdout)["rows"] == len(want)
    manifest = json.loads((snap / "manifest.json").read_text())  # written by the server
    assert manifest["rows"] == len(want) and (snap / "_SUCCESS").is_file()
    assert manifest["master"] == server.url
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout) == oracle(want, NOW)
    assert "from the stored aggregates" in report.stderr
    assert sql.returncode == 0, sql.stderr
    assert json.loads(sql.stdout) == [{"n": len(want)}]
    # the proof that the folder was hidden: a classic session of the client cannot see it
    assert seen.returncode == 2 and "does not exist" in seen.stderr

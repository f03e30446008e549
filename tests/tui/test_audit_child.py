"""The audit screen's default runner: its jobs in the audit's own process (audit/child.py).

The console never imports pyspark, pandas, numpy or pyarrow (checked in a fresh interpreter:
tests/tui/audit_child_session.py, once with the cheap stand-in of the audit's process,
tests/tui/audit_fake_child.py, once with the real one and Spark); the stand-in also shows a
cancel, a child that dies, and the child ending when the screen closes. The other audit
screen tests run their jobs in process, on the test process's one Spark session.
"""

from __future__ import annotations

import base64
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Input

from mqconsole.audit.child import ChildRunner
from mqconsole.audit.drill import drill
from tests.audit.reportdata import make_rows, oracle

from .conftest import DLQ, audit_screen, settle, wait_for

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SESSION = HERE / "audit_child_session.py"
FAKE = HERE / "audit_fake_child.py"
pytestmark = pytest.mark.subprocess


def _report(tmp_path: Path) -> tuple[dict, Path]:
    """A report of several queues (so a reason's row asks which queues hold it), as JSON."""
    report = oracle(make_rows(30, seed=4))
    assert len(report["by_queue"]) > 1
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    return json.loads(path.read_text()), path


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _run_session(demo_file: Path, tmp_path: Path, *extra: str, timeout: float) -> dict:
    out = tmp_path / "seen.json"
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, str(SESSION), str(demo_file), str(home), str(out),
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def test_the_console_imports_no_spark_library_with_its_default_runner(demo_file, tmp_path):
    """Export, report and a drill-down through the default runner (with the stand-in as the
    audit's process): the console process has imported none of Spark's libraries, the
    export's connection and the plugin's audit column reach the child, and the child ends
    when the screen closes."""
    report, report_file = _report(tmp_path)
    log = tmp_path / "child.log"
    seen = _run_session(demo_file, tmp_path, "--fake", str(report_file), str(log), "--plugin",
                        timeout=600)
    assert seen["runner"] == "ChildRunner"
    assert seen["heavy_modules"] == []
    assert seen["messages"] == report["messages"]
    assert seen["status"] == f"251 messages exported to {tmp_path / 'home' / 'snap'}"
    assert 251 in seen["bar_totals"] and seen["bar_progress"] == 200 and seen["bar_hidden"]
    # the reason's row: the stand-in says APP.ORDERS.BOQ holds most of its messages
    assert seen["opened_queue"] == "APP.ORDERS.BOQ"
    assert seen["opened_where"] == drill("by_reason", seen["reason_row"]).where
    assert seen["child_exit"] == 0
    requests = _log(log)
    assert requests[0] == {"master": "local[2]"}
    export = next(r for r in requests if r.get("job") == "export")
    assert export["patterns"] == "SYSTEM.DEAD.LETTER.QUEUE,APP.*.BOQ"
    assert export["profile"] == "test"
    objects = pickle.loads(base64.b64decode(export["objects"]))
    assert objects["connection"] == {"backend": "embedded", "path": str(demo_file)}
    plugin_file = ROOT / "plugins" / "json_field" / "json_field.py"
    assert objects["plugins"] == [("json_field", "file", ("json_field", str(plugin_file)), {})]
    holding = next(r for r in requests if r.get("job") == "queues_holding")
    assert holding["drill"]["sql"] == drill("by_reason", seen["reason_row"]).sql


def _fake_runner(report_file: Path, log: Path):
    return lambda master, **_: ChildRunner(master, command=[sys.executable, str(FAKE),
                                                             str(report_file), str(log)])


def _notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_cancel_reaches_the_audits_process(make_app, tmp_path):
    _, report_file = _report(tmp_path)
    log = tmp_path / "child.log"
    app = make_app(audit_runner=_fake_runner(report_file, log))
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "slow")
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: "reading the messages" in
                       str(screen.query_one("#status").content), workers=False)
        await pilot.press("ctrl+x")
        await wait_for(app, pilot, lambda: screen.running is None, workers=False)
        assert any(n == "report cancelled" for n in _notes(app)), _notes(app)
        assert screen.report is None
        assert {"cancel": 1} in _log(log)
        process = screen.runner.process
        assert process.poll() is None  # kept for the next job while the screen is open
        await pilot.press("escape")
        await settle(app, pilot)
    assert process.wait(timeout=120) == 0  # the screen closed: its input ended


async def test_a_child_that_dies_is_one_sentence_and_the_next_job_starts_another(make_app,
                                                                                  tmp_path):
    report, report_file = _report(tmp_path)
    app = make_app(audit_runner=_fake_runner(report_file, tmp_path / "child.log"))
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "die")
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: screen.running is None and bool(_notes(app)),
                       workers=False)
        assert _notes(app) == ["the audit's process ended before answering (exit code 3): "
                               "java.lang.OutOfMemoryError: Java heap space"]
        first = screen.runner.process
        assert app.is_running and app.screen is screen
        screen.query_one("#folder", Input).value = str(tmp_path / "snap")
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: screen.report is not None, workers=False)
        assert screen.report == report
        assert screen.runner.process is not first
        second = screen.runner.process
    assert second.wait(timeout=120) == 0  # the console ended: so did its audit's process


async def test_a_note_of_the_audits_process_reaches_the_operator(make_app, tmp_path):
    """The audit's process notes what the operator must keep seeing (the snapshot's notes):
    the console notifies it and shows it under the report's headline."""
    report, report_file = _report(tmp_path)
    said = "APP.DLQ (QM1) changed during the export: 224 more rows than its depth"
    app = make_app(audit_runner=_fake_runner(report_file, tmp_path / "child.log"))
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "noted")
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: screen.report is not None, workers=False)
        await settle(app, pilot)
        assert screen.report == report
        assert [str(n.message) for n in app._notifications
                if n.severity == "warning"] == [f"Note: {said}"]
        assert [str(w.content) for w in screen.query("#tables .note")] == [f"note: {said}"]


@pytest.mark.parametrize("folder", ["hdfs://namenode:8020/audits/snap",
                                    "viewfs://cluster/audits/snap"])
async def test_a_hadoop_uri_reaches_the_audits_process_intact(make_app, demo_file, tmp_path,
                                                              folder):
    """A snapshot folder that is a Hadoop URI goes to the audit's process as typed, its
    host kept (``Path`` made hdfs://namenode:8020/a hdfs:/namenode:8020/a), for the export,
    the report and a row's drill-down; the console looks for no such folder on its own
    disk, and names it as typed."""
    from textual.widgets import DataTable

    from mqconsole.tui.screens.messages import MessagesScreen

    _, report_file = _report(tmp_path)
    log = tmp_path / "child.log"
    app = make_app(audit_runner=_fake_runner(report_file, log),
                   audit_connection={"backend": "embedded", "path": str(demo_file)})
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, folder)
        assert screen.query_one("#folder", Input).value == folder
        await pilot.press("ctrl+e")
        await wait_for(app, pilot, lambda: screen.report is not None and not screen.running,
                       workers=False)
        status = str(screen.query_one("#status").content)
        assert status == f"251 messages exported to {folder}"
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: not screen.running and str(
            screen.query_one("#status").content) == f"report of {folder}", workers=False)
        reasons = screen.query_one("#list-by_reason", DataTable)
        reasons.focus()
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, MessagesScreen))
        assert app.screen.queue == "APP.ORDERS.BOQ"  # the stand-in's answer
        assert not [n for n in app._notifications if n.severity == "error"], _notes(app)
    jobs = [r for r in _log(log) if "job" in r]
    assert [(r["job"], r["folder"]) for r in jobs] == [
        ("export", folder), ("report", folder), ("queues_holding", folder)]


async def test_a_drill_down_asks_the_snapshot_of_the_report_shown(make_app, demo_file,
                                                                    tmp_path):
    """The folder field edited after a report: a row's drill-down still asks the snapshot
    that report is of (it asked whatever the field held by then)."""
    from textual.widgets import DataTable

    from mqconsole.tui.screens.messages import MessagesScreen

    _, report_file = _report(tmp_path)
    log = tmp_path / "child.log"
    app = make_app(audit_runner=_fake_runner(report_file, log),
                   audit_connection={"backend": "embedded", "path": str(demo_file)})
    shown, other = "hdfs://namenode:8020/audits/shown", "hdfs://namenode:8020/audits/other"
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, shown)
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: screen.report is not None and not screen.running,
                       workers=False)
        screen.query_one("#folder", Input).value = other
        reasons = screen.query_one("#list-by_reason", DataTable)
        reasons.focus()
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, MessagesScreen))
    jobs = [(r["job"], r["folder"]) for r in _log(log) if "job" in r]
    assert jobs == [("report", shown), ("queues_holding", shown)]


async def test_a_path_is_made_absolute_and_connect_leaves_the_check_to_the_server(
        make_app, demo_file, tmp_path, monkeypatch):
    """A plain path stays a path of this machine, made absolute (a ``file:`` URI) before it
    leaves the console; an empty folder field is one sentence; under Spark Connect
    (``sc://``) the console's disk is not the server's: a folder that exists here is not
    refused here (the export's store checks it on the server)."""
    _, report_file = _report(tmp_path)
    log = tmp_path / "child.log"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").mkdir()
    connection = {"backend": "embedded", "path": str(demo_file)}
    app = make_app(audit_runner=_fake_runner(report_file, log), audit_connection=connection)
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, Path("rel") / "snap")
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: screen.report is not None and not screen.running,
                       workers=False)
        assert str(screen.query_one("#status").content) == \
            f"report of {tmp_path / 'rel' / 'snap'}"
        screen.query_one("#folder", Input).value = "  "
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert _notes(app) == ["Name the snapshot folder: a path, or a URI such as "
                               "hdfs://namenode:8020/audits/snap."]
        assert not screen.running
        app.clear_notifications()
        screen.query_one("#folder", Input).value = "taken"
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert _notes(app) == [f"{tmp_path / 'taken'} exists: give a new snapshot folder."]
        assert not screen.running
    remote = make_app(audit_runner=_fake_runner(report_file, log), audit_connection=connection,
                      audit_master="sc://spark.example:15002")
    async with remote.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(remote, pilot, "taken")
        await pilot.press("ctrl+e")
        await wait_for(remote, pilot, lambda: screen.report is not None and not screen.running,
                       workers=False)
        assert _notes(remote) == []
    jobs = [r for r in _log(log) if "job" in r]
    assert [(r["job"], r["folder"]) for r in jobs] == [
        ("report", f"file://{tmp_path / 'rel' / 'snap'}"),
        ("export", f"file://{tmp_path / 'taken'}")]


async def test_the_consoles_spark_settings_reach_the_audits_process(make_app, tmp_path):
    """tui.audit_conf reaches the audit's process as the audit commands' --conf lines
    (its Spark starts with them: audit/child.py's main through parse_arguments)."""
    from mqconsole.audit.runner import default_runner

    report, report_file = _report(tmp_path)
    log = tmp_path / "child.log"
    command = [sys.executable, str(FAKE), str(report_file), str(log)]
    conf = {"spark.executor.memory": "2g", "spark.speculation": "false"}
    runners = []

    def runner(master, **given):  # the console's default runner, the stand-in as its child
        made = default_runner(master, **given)
        made.command = command
        runners.append(made)
        return made

    app = make_app(audit_runner=runner, audit_master="local[2]", audit_conf=conf)
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "snap")
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: screen.report is not None, workers=False)
        assert screen.report == report
    assert isinstance(runners[0], ChildRunner)
    assert _log(log)[0] == {"master": "local[2]", "conf": ["spark.executor.memory=2g",
                                                           "spark.speculation=false"]}


def test_the_audits_process_reads_its_spark_settings_with_the_clis_parser(capsys):
    from mqconsole.audit.child import child_arguments, main, parse_arguments

    conf = {"spark.executor.memory": "2g", "spark.sql.shuffle.partitions": "3"}
    assert parse_arguments(child_arguments("yarn", conf)) == ("yarn", conf)
    assert parse_arguments(child_arguments(None, {})) == (None, {})
    # a bad one (never from the console, which checks tui.audit_conf first): one sentence
    assert main(["--master", "", "--conf", "executor.memory=2g"]) == 2
    assert capsys.readouterr().err == (
        "mqconsole audit child: --conf 'executor.memory=2g' is not a Spark setting: use "
        "--conf spark.KEY=VALUE\n")


def test_the_audits_process_relays_a_jobs_notes(monkeypatch):
    """audit/child.py's side: a job's note is a line of its own, before its result."""
    import io
    import threading

    from mqconsole.audit import child, jobs

    def report(start, master, folder, as_of, watch):
        watch.note("Q (QM1) changed during the export: 2 fewer rows than its depth")
        return {"messages": 0}

    monkeypatch.setattr(jobs, "report", report)
    out = io.StringIO()
    runner = child.Child(None, out, start=lambda master: None)
    runner._cancels[7] = threading.Event()
    runner.run(7, {"job": "report", "folder": "/snap", "as_of": "2026-11-22T12:00:00+00:00"})
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [
        {"id": 7, "note": "Q (QM1) changed during the export: 2 fewer rows than its depth"},
        {"id": 7, "result": {"messages": 0}}]


@pytest.mark.spark
def test_the_real_audit_process_exports_reports_and_drills_down(demo_file, qm, tmp_path):
    """The default runner end to end, in a fresh console process: Spark (local[2]) starts in
    the audit's process, the export of three queues with the json_field plugin's column
    shows its progress and its report, a reason's row asks that process which queue holds
    it; back at the queue list the process has ended, and the console has imported none of
    Spark's libraries."""
    import pyarrow.dataset as ds

    queues = [DLQ, "APP.ORDERS.BOQ", "APP.SHARED.BOQ"]
    depth = {q: qm.inquire_queue(q).depth for q in queues}
    seen = _run_session(demo_file, tmp_path, "--plugin", timeout=1500)
    assert seen["runner"] == "ChildRunner"
    total = sum(depth.values())
    assert seen["messages"] == total, seen
    assert {(q["queue"], q["count"]) for q in seen["by_queue"]} == set(depth.items())
    assert seen["bar_totals"][-1] == total and seen["bar_progress"] == total
    assert seen["bar_hidden"]
    assert seen["status"].startswith(f"{total:,} messages exported to ")
    assert seen["opened_queue"] in queues
    assert seen["opened_where"] == drill("by_reason", seen["reason_row"]).where
    assert seen["child_exit"] == 0
    assert seen["heavy_modules"] == []
    names = ds.dataset(tmp_path / "home" / "snap" / "messages", format="parquet",
                       partitioning="hive").schema.names
    assert "json_field_type" in names


# the console: a ChildRunner whose child is the real audit child (audit/child.py's main) with
# a Spark that never starts (it marks MARK first); the console asks it a drill-down and waits
_CHILD = ("import sys, threading; from pathlib import Path; from mqconsole.audit import child; "
          "mark = Path(sys.argv[1]); sys.exit(child.main(sys.argv[2:], grace=0.5, "
          "start=lambda m: (mark.touch(), threading.Event().wait())))")
_CONSOLE = """
import sys
from mqconsole.audit.child import ChildRunner
from mqconsole.audit.drill import Drill
from pathlib import Path
runner = ChildRunner(None, command=[sys.executable, "-c", sys.argv[1], sys.argv[2]])
runner.queues_holding(Path(sys.argv[3]), Drill(where="", sql=""))
"""


def test_a_killed_console_leaves_no_audit_process(tmp_path):
    """The console is killed (SIGKILL: nothing of it runs) while its audit's process is
    stuck starting Spark: the child sees its input end, cancels, and ends by itself after
    its grace (it waited for ever for the stuck job before)."""
    import signal
    import time

    mark = tmp_path / "spark-starting"
    console = subprocess.Popen([sys.executable, "-c", _CONSOLE, _CHILD, str(mark),
                                str(tmp_path)], cwd=ROOT)
    try:
        end = time.monotonic() + 120  # hang guards: each wait is for a thing that happens
        while not mark.exists():
            assert console.poll() is None and time.monotonic() < end, "the child never asked"
            time.sleep(0.05)
        task = Path("/proc") / str(console.pid) / "task" / str(console.pid)
        children = [int(p) for p in (task / "children").read_text().split()]
    finally:
        console.send_signal(signal.SIGKILL)
        console.wait()
    assert len(children) == 1
    child = children[0]

    def alive() -> bool:
        try:
            stat = (Path("/proc") / str(child) / "stat").read_text()
            state = stat.rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        return state != "Z"  # a zombie has ended (its new parent reaps it when it will)

    end = time.monotonic() + 120
    while alive() and time.monotonic() < end:
        time.sleep(0.05)
    assert not alive(), "the audit's process outlived its killed console"

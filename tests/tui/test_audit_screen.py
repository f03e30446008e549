"""The audit screen through ``run_test()``: queues → report tables → a row's messages.

Spark runs for real in a thread worker (the test process's session: the ``spark`` fixture,
which the console's ``start_session`` gives back; the Connect test on the run's server,
``spark_connect``); a fake slow start shows the console stays live and can cancel.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input

from mqconsole.tui.screens.audit import AuditScreen
from mqconsole.tui.screens.messages import MessagesScreen
from tests.audit.reportdata import AS_OF, make_rows, oracle, write_snapshot

from .conftest import DLQ, audit_done, audit_screen, settle, wait_for


def _rows(n: int = 120):
    rows = make_rows(n, seed=4)
    for row in rows:  # the demo's queue manager and dead-letter queue
        row["qmgr"], row["queue"] = "QM1", DLQ
    return rows


def _notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def test_audit_screen_snapshot(snap_compare, make_app):
    report = oracle(_rows(60))

    async def ready(pilot):
        await settle(pilot.app, pilot)
        await pilot.app.push_screen(AuditScreen(pilot.app.ctx, DLQ, folder=Path("/srv/snap"),
                                                report=report))
        # the picture is of the rows in focus (the screen focuses its first table after a
        # refresh, which scrolls it into view): taken before that on a busy machine, it was
        # the report's top, 8 lines up (1 in 4 runs)
        await wait_for(pilot.app, pilot, lambda: isinstance(pilot.app.focused, DataTable))
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    assert snap_compare(make_app(clock=lambda: AS_OF), terminal_size=(100, 34),
                        run_before=ready)


async def test_a_opens_the_audit_of_the_queue_under_the_cursor(make_app):
    app = make_app()
    async with app.run_test(size=(100, 34)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index(DLQ))
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, AuditScreen)
        assert app.screen.query_one("#patterns", Input).value == DLQ


async def test_report_in_a_worker_then_a_row_opens_its_messages(make_app, tmp_path, spark):
    rows = _rows()
    folder = write_snapshot(tmp_path / "snap", rows)
    expected = oracle(rows, AS_OF)
    app = make_app(clock=lambda: AS_OF, audit_master="local[2]")
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, folder)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert screen.running == "report"
        await audit_done(app, pilot, screen, timeout=240)
        assert screen.report == expected
        reasons = screen.query_one("#list-by_reason", DataTable)
        assert reasons.row_count == len(expected["by_reason"])
        first = expected["by_reason"][0]
        assert str(reasons.get_row_at(0)[-2]).strip() == f"{first['count']:,}"
        assert "█" in str(reasons.get_row_at(0)[-1])
        await pilot.pause()  # the report focuses its first table after a refresh: then ours
        reasons.focus()
        await pilot.pause()
        assert screen.focused is reasons
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, MessagesScreen))
        shown = app.screen
        assert shown.queue == DLQ
        reason = first["reason"]
        assert shown.model.where_text == f"reason = {'null' if reason is None else reason}"


async def test_spark_starting_never_freezes_the_console_and_can_be_cancelled(make_app,
                                                                               tmp_path):
    folder = write_snapshot(tmp_path / "snap", _rows(20))
    release = threading.Event()

    def slow_spark(_master):
        release.wait(30)
        raise RuntimeError("not reached: cancelled first")

    app = make_app()
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, folder, spark=slow_spark)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert screen.running == "report"
        patterns = screen.query_one("#patterns", Input)
        patterns.focus()
        await pilot.press("end", "comma", "A", "P", "P", "asterisk")
        assert patterns.value == DLQ + ",APP*"  # typed while Spark "starts"
        await pilot.press("ctrl+x")
        release.set()
        await wait_for(app, pilot, lambda: screen.running is None, workers=False)
        assert screen.report is None
        assert any("report cancelled" in n for n in _notes(app))


async def test_a_missing_snapshot_is_one_notification_before_spark(make_app, tmp_path):
    def no_spark(_master):
        raise AssertionError("Spark must not start for a missing folder")

    app = make_app()
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "nope", spark=no_spark)
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: screen.running is None, workers=False)
        notes = _notes(app)
        assert any("does not exist" in n for n in notes), notes
        assert not any("Traceback" in n for n in notes)



async def test_export_with_a_progress_bar_then_the_report(make_app, demo_file, qm, tmp_path,
                                                          spark):
    """The console's export shows its progress, then its report; and, as the CLI's export
    does, a site plugin's audit column (the json_field example, run in Spark's workers as
    its plugin) is a column of the console's snapshot (one export for both: each more was
    a whole export's Spark jobs)."""
    import pyarrow.dataset as ds

    from mqconsole.plugins.testing import import_plugin, plugin_host

    repo = Path(__file__).resolve().parents[2]
    host = plugin_host(("json_field", import_plugin(repo / "plugins" / "json_field"
                                                    / "json_field.py")))
    expected_rows = qm.inquire_queue(DLQ).depth
    app = make_app(clock=lambda: AS_OF, audit_master="local[2]", audit_dir=tmp_path,
                   audit_connection={"backend": "embedded", "path": str(demo_file)},
                   plugins=host)
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "snap")
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert screen.running == "export"
        bar = screen.query_one("#progress")
        assert not bar.has_class("-hidden")
        await audit_done(app, pilot, screen, timeout=300)
        assert screen.report["messages"] == expected_rows
        assert screen.report["by_queue"] == [
            {"qmgr": "QM1", "queue": DLQ, "count": expected_rows,
             "bytes": screen.report["bytes"]}]
        assert bar.total == expected_rows and bar.progress == expected_rows
        assert bar.has_class("-hidden")
        assert (tmp_path / "snap" / "manifest.json").exists()
        assert qm.inquire_queue(DLQ).depth == expected_rows  # an audit only browses
    names = ds.dataset(tmp_path / "snap" / "messages", format="parquet",
                       partitioning="hive").schema.names
    assert "json_field_type" in names


async def test_export_and_report_of_a_snapshot_on_a_hadoop_uri(make_app, demo_file, qm,
                                                                  tmp_path, spark):
    """The console's snapshot folder may be a Hadoop URI (viewfs:// mounted on a temporary
    folder in the session's Hadoop, standing for hdfs://namenode:8020/…): the export writes
    there through Spark, its report and a later report (ctrl+r) read it there, and the
    status names it as typed."""
    from tests.audit.viewfs import mount

    root = tmp_path / "fs"
    root.mkdir()
    folder = f"{mount(spark, root)}/snap"
    expected_rows = qm.inquire_queue(DLQ).depth
    app = make_app(clock=lambda: AS_OF, audit_master="local[2]",
                   audit_connection={"backend": "embedded", "path": str(demo_file)})
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, folder)
        await pilot.press("ctrl+e")
        exported = await audit_done(app, pilot, screen, timeout=300)
        assert exported["messages"] == expected_rows
        status = screen.query_one("#status")
        assert str(status.content) == f"{expected_rows} messages exported to {folder}"
        assert (root / "snap" / "manifest.json").is_file()  # through Hadoop, at its mount
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert screen.running == "report"
        reported = await audit_done(app, pilot, screen, timeout=240)
        assert str(status.content) == f"report of {folder}"
        assert reported == exported


def _warnings(app) -> list[str]:
    return [str(n.message) for n in app._notifications if n.severity == "warning"]


def _note_lines(screen) -> list[str]:
    return [str(w.content) for w in screen.query("#tables .note")]


async def test_a_queue_that_changes_during_the_consoles_export_is_said_and_kept(
        make_app, demo_file, qm, tmp_path, spark, monkeypatch):
    """Messages put on the queue once the console's export is under way (as
    tests/audit/test_export.py provokes it, through the real export): the operator is told
    the CLI's sentence (a warning) and it stays under the report's headline, past the
    status line's later words; the report of that snapshot (ctrl+r) shows the manifest's
    notes as the CLI's report prints them; and when its stored aggregates no longer match
    the manifest, the report's "disagree" sentence is kept there too, not overwritten by
    its progress."""
    import json

    from mqconsole.audit import export
    from mqconsole.audit.snapshot import locate, snapshot_notes
    from mqconsole.audit.summary import SUMMARY_DIR, SUMMARY_FILE
    from mqconsole.backends.open import open_embedded
    from mqconsole.cli.commands.audit_cmd import render_text
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message

    start = qm.inquire_queue(DLQ).depth
    planned = export._partitions

    def busy(plan, parts):  # the queue gets 3 more messages once the export is under way
        other = open_embedded(str(demo_file))
        try:
            for i in range(3):
                other.put(DLQ, Message(MQMD(format="MQSTR"), b"late %d" % i), syncpoint=True)
            other.commit()
        finally:
            other.close()
        return planned(plan, parts)

    monkeypatch.setattr(export, "_partitions", busy)
    sentence = (f"{DLQ} (QM1) changed during the export: {start + 3:,} rows read, its "
                f"depth {start:,} at the start and {start + 3:,} at the end")
    folder = tmp_path / "snap"
    app = make_app(clock=lambda: AS_OF, audit_master="local[2]", audit_dir=tmp_path,
                   audit_connection={"backend": "embedded", "path": str(demo_file)})
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, folder)
        await pilot.press("ctrl+e")
        await audit_done(app, pilot, screen, timeout=300)
        await settle(app, pilot)
        assert screen.report["messages"] == start + 3
        assert _warnings(app) == [f"Note: {sentence}"]
        assert _note_lines(screen) == [f"note: {sentence}"]
        assert str(screen.query_one("#status").content) == (
            f"{start + 3:,} messages exported to {folder} (1 note under the report's "
            "headline)")

        # the report of that snapshot: its notes as the CLI's report prints them
        notes = snapshot_notes(locate(folder))
        assert notes == [sentence]
        await pilot.press("ctrl+r")
        await audit_done(app, pilot, screen, timeout=240)
        await settle(app, pilot)
        cli_lines = [line for line in render_text(screen.report, notes=notes).splitlines()
                     if line.startswith("note: ")]
        assert _note_lines(screen) == cli_lines == [f"note: {sentence}"]
        assert _warnings(app) == [f"Note: {sentence}"] * 2  # once for each job

        # stored aggregates that are not the manifest's: the report says so, and keeps it
        summary = folder / SUMMARY_DIR / SUMMARY_FILE
        info = json.loads(summary.read_text())
        info["files_digest"] = "0" * 64
        summary.write_text(json.dumps(info))
        await pilot.press("ctrl+r")
        await audit_done(app, pilot, screen, timeout=240)
        await settle(app, pilot)
        doubt = ("the stored aggregates disagree with the manifest (not computed from the "
                 "files it commits): counting the messages instead")
        assert _note_lines(screen) == [f"note: {sentence}", f"note: {doubt}"]
        assert _warnings(app)[-1] == f"Note: {doubt}"
        assert str(screen.query_one("#status").content).endswith(
            "(2 notes under the report's headline)")
        assert screen.report["messages"] == start + 3  # counted from the messages


def _dlq_in_plain_python(qm):
    """(arrival, JSON currency) of each message of the demo's dead-letter queue, read here."""
    import json

    from mqconsole.mq.chain import dead_letter_header, parse_body_lenient
    from mqconsole.ops.timefmt import parse_put_datetime

    out = []
    with qm.browse(DLQ) as cursor:
        for m in cursor.next_batch(10**6):
            dlh = dead_letter_header(m.md, m.body)
            arrival = None if dlh is None else parse_put_datetime(dlh.put_date, dlh.put_time)
            arrival = arrival or parse_put_datetime(m.md.put_date, m.md.put_time)
            try:
                doc = json.loads(parse_body_lenient(m.md, m.body).payload)
            except ValueError:
                doc = None
            out.append((arrival, doc.get("currency") if isinstance(doc, dict) else None))
    return out


async def test_a_long_list_shows_its_top_rows_and_how_many_more(make_app):
    """As the CLI's report and the HTML page: a list longer than TOP_ROWS shows its first
    TOP_ROWS rows, then how many more (the report itself keeps every row); a list of
    exactly TOP_ROWS says nothing more; the last row shown still opens its messages."""
    from mqconsole.audit.present import TOP_ROWS

    report = oracle(_rows(60))
    apps = [{"name": f"app-{i:02d}", "count": 100 - i} for i in range(TOP_ROWS + 7)]
    report["by_put_application"] = apps
    report["backout_counts"] = [{"backout_count": i, "count": 50 - i} for i in range(TOP_ROWS)]
    app = make_app(clock=lambda: AS_OF)
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, Path("/srv/snap"), report=report)
        await pilot.pause()
        table = screen.query_one("#list-by_put_application", DataTable)
        assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == [
            a["name"] for a in apps[:TOP_ROWS]]
        box = list(screen.query_one("#tables").children)
        after = box[box.index(table) + 1]
        assert after.has_class("more")
        assert str(after.content) == \
            "  … 7 more ('mqconsole audit report --json' lists every row)"
        assert [str(w.content) for w in screen.query("#tables .more")] == [str(after.content)]
        backouts = screen.query_one("#list-backout_counts", DataTable)
        assert backouts.row_count == TOP_ROWS
        assert screen.report["by_put_application"] == apps  # all of them, as --json
        await pilot.pause()  # the report focuses its first table after a refresh: then ours
        table.focus()
        await pilot.pause()
        table.move_cursor(row=TOP_ROWS - 1)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, MessagesScreen))
        assert app.screen.model.where_text == f"put_appl_name = 'app-{TOP_ROWS - 1:02d}'"


async def _open_row(app, pilot, screen, key: str, value_of, want) -> Any:
    table = screen.query_one(f"#list-{key}", DataTable)
    source = screen._tables[key]
    await pilot.pause()  # the report focuses its first table after a refresh: then ours
    table.focus()
    await pilot.pause()
    assert screen.focused is table
    table.move_cursor(row=next(i for i, r in enumerate(source) if value_of(r) == want))
    await pilot.press("enter")
    await wait_for(app, pilot, lambda: isinstance(app.screen, MessagesScreen))
    shown = app.screen
    await wait_for(app, pilot, lambda: shown.model is not None and shown.model.count > 0)
    await pilot.press("end")  # read the queue to its end
    await wait_for(app, pilot, lambda: shown.model.done, timeout=120)
    return shown


async def test_an_age_row_opens_the_messages_that_age_at_the_reports_time(make_app, qm):
    """The bucket is an arrival range at the report's as_of (not the console's clock): the
    browser lists exactly the messages plain Python puts in that bucket."""
    from datetime import timedelta

    from mqconsole.audit.report import BUCKET_EDGES, BUCKETS

    def bucket(arrival):
        age = AS_OF - arrival
        return next((b for b, edge in zip(BUCKETS, BUCKET_EDGES, strict=False) if age < edge),
                    BUCKETS[-1])

    counts = Counter(bucket(a) for a, _ in _dlq_in_plain_python(qm) if a is not None)
    want = min((b for b in counts if counts[b]), key=lambda b: (counts[b], b))
    report = oracle(_rows(30))
    report["by_age"] = [{"bucket": b, "count": counts.get(b, 0)} for b in BUCKETS]
    app = make_app(clock=lambda: AS_OF + timedelta(days=3))  # the console's clock differs
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, Path("/srv/snap"), report=report)
        await pilot.pause()
        shown = await _open_row(app, pilot, screen, "by_age", lambda r: r["bucket"], want)
        assert shown.queue == DLQ
        assert shown.model.where_text.startswith("arrival ")
        assert shown.model.count == counts[want]


async def test_a_plugin_column_row_opens_the_messages_with_that_value(make_app, qm):
    """by_json_field_currency (the json_field example's audit column): the browser's filter
    is the column's own name, computed on each message by the plugin."""
    from mqconsole.plugins.testing import import_plugin, plugin_host

    repo = Path(__file__).resolve().parents[2]
    host = plugin_host(("json_field", import_plugin(repo / "plugins" / "json_field"
                                                    / "json_field.py")),
                       settings={"json_field": {"fields": ["currency"]}})
    types = Counter(t for _, t in _dlq_in_plain_python(qm))
    want = min((t for t in types if t is not None), key=lambda t: (types[t], t))
    report = oracle(_rows(30))
    report["by_json_field_currency"] = [{"value": t, "count": n} for t, n in types.most_common()]
    app = make_app(clock=lambda: AS_OF, plugins=host)
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, Path("/srv/snap"), report=report)
        await pilot.pause()
        shown = await _open_row(app, pilot, screen, "by_json_field_currency",
                                lambda r: r["value"], want)
        assert shown.model.where_text == f"json_field_currency = '{want}'"
        assert shown.model.count == types[want]


async def test_the_console_exports_and_reports_on_a_spark_connect_server(make_app, demo_file,
                                                                         qm, tmp_path,
                                                                         spark_connect):
    """tui.audit_master = sc://…: the console's export and report run on a Spark Connect
    server (the run's ``spark_connect``, started with pyspark's own launcher, stopped by
    PID: tests/conftest.py)."""
    server = spark_connect
    expected_rows = qm.inquire_queue(DLQ).depth
    app = make_app(clock=lambda: AS_OF, audit_master=server.url, audit_dir=tmp_path,
                   audit_connection={"backend": "embedded", "path": str(demo_file)})
    try:
        async with app.run_test(size=(100, 34)) as pilot:
            screen = await audit_screen(app, pilot, tmp_path / "snap")
            await pilot.press("ctrl+e")
            # a hang guard: over Connect each of the snapshot's file operations is a small
            # job on the server (the console opens no file there), slow on a loaded machine
            await audit_done(app, pilot, screen, timeout=900)
            assert screen.report["messages"] == expected_rows, _notes(app)
            manifest = (tmp_path / "snap" / "manifest.json").read_text()
            assert server.url in manifest  # the master it ran on
    finally:
        _forget_connect(server.url)  # this worker's other tests run Spark in-process


def _forget_connect(url: str) -> None:
    """Stop the Connect session while its server is up (its client would retry against a
    stopped one), and make sure pyspark's process-wide Connect switch is off (mqconsole
    uses Connect's own builder, which leaves it off: later tests here get classic Spark)."""
    import os

    from mqconsole.audit.remote import connect

    connect(url).stop()  # the console's session (getOrCreate gives it back)
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ


def test_the_audit_master_setting_reaches_the_console() -> None:
    from mqconsole.config.console import TuiConfig
    from mqconsole.tui.app import settings_from_config

    class Config:
        tui = TuiConfig(audit_master="sc://spark.example:15002")

    assert settings_from_config(Config()).audit_master == "sc://spark.example:15002"
    with pytest.raises(ValueError, match="is not a Spark master"):
        TuiConfig(audit_master="mesos://x:1")


def test_the_audit_conf_setting_reaches_the_console_through_the_clis_parser() -> None:
    """tui.audit_conf: YAML's values as Spark reads them, given to the console through the
    parser of the audit commands' --conf (a bad one is its sentence: exit 2 before the
    console starts, tests/tui/test_app.py's way for any config)."""
    from mqconsole.audit.errors import AuditInputError
    from mqconsole.config.console import TuiConfig
    from mqconsole.tui.app import settings_from_config

    class Config:
        tui = TuiConfig(audit_conf={"spark.executor.memory": "4g", "spark.speculation": False,
                                    "spark.executor.cores": 2})

    assert settings_from_config(Config()).audit_conf == {
        "spark.executor.memory": "4g", "spark.speculation": "false",
        "spark.executor.cores": "2"}
    assert settings_from_config(object()).audit_conf == {}
    with pytest.raises(ValueError, match="is not a Spark setting"):
        TuiConfig(audit_conf={"executor.memory": "4g"})

    class Unchecked:  # (a duck-typed config: the parser is the console's last word)
        class tui:
            audit_conf = {"executor.memory": "4g"}

    with pytest.raises(AuditInputError, match=r"'executor\.memory=4g' is not a Spark setting"):
        settings_from_config(Unchecked())


async def test_the_consoles_spark_settings_start_its_spark(make_app, tmp_path, spark,
                                                           monkeypatch):
    """The console's report starts Spark with tui.audit_conf (the settings the audit
    commands take as --conf): the session's settings, as audit.session gets them; over the
    console's default runner they travel to the audit's process as --conf lines
    (tests/tui/test_audit_child.py)."""
    import mqconsole.audit.session as session

    started: list[Any] = []

    def start_session(settings):
        started.append(settings)
        return spark

    monkeypatch.setattr(session, "start_session", start_session)
    folder = write_snapshot(tmp_path / "snap", _rows(20))
    conf = {"spark.sql.shuffle.partitions": "3", "spark.executor.memory": "2g"}
    app = make_app(clock=lambda: AS_OF, audit_master="local[2]", audit_conf=conf)
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, folder)
        await pilot.press("ctrl+r")
        await audit_done(app, pilot, screen, timeout=240)
        assert screen.report["messages"] == 20
    assert [(s.master, dict(s.conf)) for s in started] == [("local[2]", conf)]


async def test_a_failed_drill_down_is_one_notification_and_the_console_stays(make_app,
                                                                              monkeypatch):
    """A row of a snapshot of several queues asks Spark which queue holds its messages; when
    that fails (here: Spark refuses), the operator gets the sentence and the console goes on
    (the worker's error was once a WorkerFailed that ended the app)."""
    import mqconsole.audit.drill as drill_module

    def refuse(spark, path, found):
        raise RuntimeError("the snapshot cannot be read here")

    monkeypatch.setattr(drill_module, "queues_holding", refuse)
    report = oracle(_rows(30))
    report["by_queue"] = [{"qmgr": "QM1", "queue": DLQ, "count": 20},
                          {"qmgr": "QM1", "queue": "APP.OTHER", "count": 10}]
    app = make_app(clock=lambda: AS_OF)
    async with app.run_test(size=(100, 34)) as pilot:
        await settle(app, pilot)
        screen = AuditScreen(app.ctx, DLQ, folder=Path("/srv/snap"), report=report,
                             spark=lambda master: object())
        await app.push_screen(screen)
        await pilot.pause()
        table = screen.query_one("#list-by_reason", DataTable)
        await pilot.pause()
        table.focus()
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(app, pilot,
                       lambda: any("cannot be read here" in n for n in _notes(app)))
        assert app.is_running
        assert app.screen is screen

"""``mqconsole audit export`` as operators run it: a real process, a real Spark.

One export of the scene (tests/audit/scene.py: the demo queues, headers that do not parse,
an unknown reason, MsgIds repeated across queues and files, a dmpmqmsg file and an amqsbcg
listing) with a site plugin's audit column, as the executable (its own Spark: the state
folder's log, nothing of the JVM's on the terminal) under umask 022, checked against plain
Python and for private files (with a report and a query after it); one CSV export;
and every refusal, which happens before Spark starts. The report of the export and the CSV
export run in process on the test process's SparkSession (the ``spark`` fixture; tests/cli's
``run_cli``), and so do the refusals (``before_spark``: starting Spark fails the test); a
missing Java stays a process of its own (its PATH and JAVA_HOME).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections import Counter
from pathlib import Path

import pyarrow.dataset as ds
import pytest

from mqconsole.audit.columns import COLUMNS
from tests.audit.scene import (
    DEMO_QUEUES,
    NOW,
    QUEUES,
    UNKNOWN_REASON,
    build_scene,
    expected_rows,
)
from tests.audit.scene import run_mqconsole as run
from tests.cli.conftest import run_cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    return build_scene(tmp_path_factory.mktemp("scene"))


@pytest.fixture(scope="module")
def exported(scene, tmp_path_factory):
    """One export of every scene queue and file, with the json_field example plugin: the
executable (its own Spark, its log and settings under its home) under umask 022, in an
empty working folder (``home.parent / "cwd"``)."""
    base = tmp_path_factory.mktemp("export")
    plugin = base / "site" / "json_field"
    shutil.copytree(REPO / "plugins" / "json_field", plugin,
                    ignore=shutil.ignore_patterns("tests", "__pycache__"))
    os.chmod(plugin, 0o755)
    cfg = base / "config.yaml"
    cfg.write_text(f"plugins:\n  paths: [{plugin}]\n"  # its settings reach the executors
                   "  settings:\n    json_field:\n      fields: [currency]\n")
    out = base / "snap"
    (base / "cwd").mkdir()  # its working folder, empty: it must stay so (file-modes test)
    umask = os.umask(0o022)  # the usual one: what it is given, not what it uses
    try:
        r = run("--config", str(cfg), "--embedded", str(scene.qm_path), "audit", "export",
                "--out", str(out), "--queues", QUEUES, *map(str, scene.files), "--json",
                home=base / "home", cwd=base / "cwd")
    finally:
        os.umask(umask)
    return r, out, base / "home"


def test_export_writes_every_message_as_plain_python_reads_it(exported, scene) -> None:
    r, out, _ = exported
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    want = expected_rows(scene, DEMO_QUEUES)
    assert summary["rows"] == len(want)
    by_queue = Counter(e["queue"] for e in want if e["source"] == "queue")
    assert {q["queue"]: q["rows"] for q in summary["queues"]} == dict(by_queue)
    for q in summary["queues"]:  # browse only: nothing left the queues
        assert q["depth_start"] == q["depth_end"] == q["rows"]
    table = ds.dataset(out / "messages", format="parquet", partitioning="hive").to_table()
    assert set(table.column_names) == {*COLUMNS, "json_field_currency"}
    rows = table.to_pylist()
    got = sorted((r["qmgr"], str(r["queue"]), r["position"], r["source"], r["msg_id"],
                  r["dlh_reason"], r["payload_length"] is None, r["length"]) for r in rows)
    assert got == sorted((e["qmgr"], e["queue"], e["position"], e["source"], e["msg_id"],
                          e["dlh_reason"], e["unparsed"], e["length"]) for e in want)
    counts = Counter(r["msg_id"] for r in rows)
    assert {m for m, n in counts.items() if n > 1 and not m.startswith("0000")} == \
        scene.duplicate_ids
    odd = [r for r in rows if r["dlh_reason"] == UNKNOWN_REASON]
    assert len(odd) == 1 and odd[0]["dlh_reason_name"] is None
    currencies = Counter(r["json_field_currency"] for r in rows)
    assert currencies["EUR"] > 0 and set(currencies) == {"EUR", None}  # the demo's JSON orders


def test_report_of_the_export_equals_plain_python(exported, scene, spark) -> None:
    """Every count of the report, for queues and files: headers that do not parse, MsgIds
    repeated across queues and files, an unknown reason, age buckets at a fixed --as-of."""
    from tests.audit.reportdata import oracle

    r, out, home = exported
    assert r.returncode == 0, r.stderr
    report = run_cli("audit", "report", "--in", str(out), "--as-of", "2026-11-25T10:00:00Z",
                     "--json", home=home)
    assert report.code == 0, report.err
    got = report.json
    assert got.pop("notes") == []  # (the key added to the fixed ones) the queues kept still
    currencies = {c["value"]: c["count"] for c in got.pop("by_json_field_currency")}
    assert set(currencies) == {"EUR", None}  # the plugin's list (its values: test above)
    assert got == oracle(expected_rows(scene, DEMO_QUEUES), NOW)
    assert got["unparsed"] == 4 and len(got["duplicate_msg_ids"]) >= len(scene.duplicate_ids)
    assert {"reason": UNKNOWN_REASON, "name": None, "count": 1} in got["by_reason"]


def test_export_folder_manifest_and_permissions(exported, scene) -> None:
    r, out, home = exported
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["schema_version"] == 2 and manifest["format"] == "parquet"
    assert sum(f["rows"] for f in manifest["files"]) == manifest["rows"]
    assert (out / "_SUCCESS").is_file()  # the commit marker, written after the manifest
    assert manifest["partitioned_by"] == ["queue"]
    assert not list(out.rglob("*.crc"))  # no checksum litter beside the files
    assert [c["name"] for c in manifest["columns"]] == [*COLUMNS, "json_field_currency"]
    kinds = Counter(s["kind"] for s in manifest["sources"])
    assert kinds == {"queue": len(DEMO_QUEUES), "file": len(scene.files)}
    assert manifest["rows"] == sum(s["rows"] for s in manifest["sources"])
    for folder, _dirs, files in os.walk(out):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
        for name in files:
            assert stat.S_IMODE(os.stat(Path(folder, name)).st_mode) == 0o600, name
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".snap")]  # no leftovers
    # progress on stderr, and not a word of the JVM's: that went to the log file
    assert "SYSTEM.DEAD.LETTER.QUEUE (QM1): 240 messages read (done)" in r.stderr
    for noise in ("WARN", "Exception", "log4j", "at org.", "Traceback"):
        assert noise not in r.stderr
    assert (home / "state" / "spark" / "spark.log").exists()


def test_every_file_the_audit_commands_create_is_0600_in_0700_folders(exported, tmp_path,
                                                                     monkeypatch, spark):
    """Everything mqconsole creates is private (tests/cli/test_file_modes.py, issue 24 item
    8, issue 28 item 14): the export above, then the report and sql in process on the test
    process's Spark, all under umask 022 in one empty working folder: every file and folder
    under the home and the outputs is 0600 / 0700, and nothing is left in that folder."""
    from tests.cli.test_file_modes import everything, not_private

    r, snap, home = exported
    assert r.returncode == 0, r.stderr
    cwd, out = home.parent / "cwd", tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(cwd)
    umask = os.umask(0o022)
    try:
        for args in (["audit", "report", "--in", str(snap), "--html", str(out / "r.html")],
                     ["audit", "sql", "--in", str(snap), "SELECT queue, count(*) FROM "
                      "messages GROUP BY queue", "--out", str(out / "counts")]):
            done = run_cli(*args, "--master", "local[2]", home=home)
            assert done.code == 0, (args, done.err)
    finally:
        os.umask(umask)
    assert (home / "state" / "spark").is_dir()  # the export's JVM's log and its settings
    assert not_private(home, snap, out) == [], everything(home, snap, out)
    assert list(cwd.iterdir()) == []


def test_csv_export_with_payload_of_two_queue_managers(scene, tmp_path, spark) -> None:
    from mqconsole.backends.base import Context
    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message
    from mqconsole.mq.queue import QueueAttrs

    other = tmp_path / "qm2.sqlite"
    qm = open_embedded(str(other), create=True, name="QM2")
    qm.define_queue(QueueAttrs(name="APP.ORDERS.BOQ"))
    for i in range(2):
        qm.put("APP.ORDERS.BOQ", Message(MQMD(format="MQSTR", put_date="20261124",
                                              put_time="10000000"), b"qm2 %d" % i),
               context=Context.SET_ALL, syncpoint=False)
    qm.close()
    cfg = tmp_path / "config.yaml"
    cfg.write_text("profiles:\n"
                   f"  - name: one\n    backend:\n      type: embedded\n"
                   f"      path: {scene.qm_path}\n"
                   f"  - name: two\n    backend:\n      type: embedded\n      path: {other}\n")
    out = tmp_path / "csv"
    r = run_cli("--config", str(cfg), "--profile", "one", "audit", "export", "--out", str(out),
                "--queues", "APP.ORDERS.BOQ", "--also-profile", "two", "--format", "csv",
                "--with-payload", "--master", "local[2]", "--json", home=tmp_path / "home")
    assert r.code == 0, r.err
    summary = r.json
    assert {(q["profile"], q["qmgr"], q["rows"]) for q in summary["queues"]} == {
        ("one", "QM1", 5), ("two", "QM2", 2)}
    assert [q["changed"] for q in summary["queues"]] == [None, None]  # as their depths
    assert summary["notes"] == []
    files = list((out / "messages").rglob("*.csv.gz"))
    assert files and all("queue=APP.ORDERS.BOQ" in str(f) for f in files)
    import csv
    import gzip

    rows = []
    for f in files:
        with gzip.open(f, "rt", newline="") as fp:
            rows += list(csv.DictReader(fp))
    assert Counter(r["qmgr"] for r in rows) == {"QM1": 5, "QM2": 2}
    assert {bytes.fromhex(r["payload"]) for r in rows if r["qmgr"] == "QM2"} == {
        b"qm2 0", b"qm2 1"}
    assert all(r["properties"] == "{}" for r in rows)


@pytest.mark.parametrize(("args", "words"), [
    (["--queues", "NO.SUCH.QUEUE"], "NO.SUCH.QUEUE"),
    (["--queues", "APP.*", "--master", "mesos://x:1"], "is not a Spark master"),
    ([], "nothing to export"),
    (["/no/such/file.dmp"], "no such file"),
    (["--queues", "APP.*", "--format", "xml"], "xml"),
])
def test_bad_input_is_refused_before_spark(scene, tmp_path, args, words) -> None:
    """In process (``before_spark``: starting Spark would fail the test)."""
    r = run_cli("--embedded", str(scene.qm_path), "audit", "export", "--out",
                str(tmp_path / "snap"), *args, home=tmp_path / "home", before_spark=True)
    assert r.code == 2, r.err
    assert words in r.err and "Traceback" not in r.err and "starting Spark" not in r.err
    assert not (tmp_path / "home" / "state" / "spark").exists()  # Spark never started


def test_existing_out_and_replace_of_a_non_snapshot(scene, tmp_path) -> None:
    (tmp_path / "snap").mkdir()
    r = run_cli("--embedded", str(scene.qm_path), "audit", "export", "--out",
                str(tmp_path / "snap"), "--queues", "APP.*", home=tmp_path / "home",
                before_spark=True)
    assert r.code == 2 and "exists" in r.err and "--replace" in r.err
    r = run_cli("--embedded", str(scene.qm_path), "audit", "export", "--out",
                str(tmp_path / "snap"), "--queues", "APP.*", "--replace",
                home=tmp_path / "home", before_spark=True)
    assert r.code == 2 and "is not a snapshot" in r.err


def test_a_file_that_is_not_a_message_file(scene, tmp_path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    r = run_cli("audit", "export", "--out", str(tmp_path / "snap"), str(bad),
                home=tmp_path / "home", before_spark=True)
    assert r.code == 2 and "not a dmpmqmsg file" in r.err


def test_no_java_says_how_to_get_it(scene, tmp_path) -> None:
    r = run("--embedded", str(scene.qm_path), "audit", "export", "--out",
            str(tmp_path / "snap"), "--queues", "APP.*", home=tmp_path / "home",
            env={"PATH": str(tmp_path), "JAVA_HOME": ""}, timeout=120)
    assert r.returncode == 3, r.stderr
    assert "needs Java" in r.stderr and "Java 17 or 21" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 2  # the plan's line, then the sentence
    assert not (tmp_path / "snap").exists()

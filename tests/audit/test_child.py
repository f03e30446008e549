"""The audit's process (audit/child.py) without starting one: its jobs as JSON lines on the
test process's Spark session, and an export's plugins made again from what the console
sends (tests/tui/test_audit_child.py starts the real process)."""

from __future__ import annotations

import io
import json
import pickle
import threading
from pathlib import Path

from mqconsole.audit.child import Child, plugin_host, plugin_recipes
from mqconsole.audit.drill import drill, queues_holding
from mqconsole.plugins.types import AuditColumn
from tests.audit.reportdata import AS_OF, make_rows, oracle, write_snapshot

REPO = Path(__file__).resolve().parents[2]


class _Answers(io.StringIO):
    """The child's output; ``answered`` once ``jobs`` jobs have given their last word."""

    def __init__(self, jobs: int) -> None:
        super().__init__()
        self.left = jobs
        self.answered = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        self.left -= text.count('"result"') + text.count('"error"')
        if self.left <= 0:
            self.answered.set()
        return written


def test_report_and_drill_down_jobs_answer_in_json_lines(spark, tmp_path):
    rows = make_rows(60, seed=4)
    folder = write_snapshot(tmp_path / "snap", rows)
    report = oracle(rows, AS_OF)
    found = drill("by_reason", report["by_reason"][0])
    out = _Answers(jobs=3)
    child = Child("local[2]", out, start=lambda _master: spark)
    child.stop = lambda: None  # type: ignore[method-assign]  # the session is the suite's

    def requests():  # the console's side: open until every job has answered
        yield json.dumps({"id": 1, "job": "report", "folder": str(folder),
                          "as_of": AS_OF.isoformat()})
        yield json.dumps({"id": 2, "job": "queues_holding", "folder": str(folder),
                          "drill": {"where": found.where, "sql": found.sql, "queue": None,
                                    "qmgr": None}})
        yield json.dumps({"id": 3, "job": "nonsense", "folder": str(folder)})
        yield "not json"
        assert out.answered.wait(600)

    child.serve(requests())
    said: dict[int, list[dict]] = {}
    for line in out.getvalue().splitlines():
        message = json.loads(line)
        said.setdefault(message.pop("id"), []).append(message)
    assert said[1][-1] == {"result": report}
    assert any("status" in m for m in said[1][:-1])  # the report's steps, as it goes
    assert said[2] == [{"result": [list(q) for q in queues_holding(spark, folder, found)]}]
    assert said[3] == [{"error": "the audit's process has no job 'nonsense'",
                        "cancelled": False}]


def test_a_hadoop_uri_reaches_the_jobs_intact(spark, tmp_path):
    """The console sends a snapshot folder as a URI: a Hadoop one (viewfs:// standing for
    hdfs://) is reported from and drilled into as given (``Path`` once made viewfs://name/a
    viewfs:/name/a here, which no file system reads)."""
    from .viewfs import mount

    root = tmp_path / "fs"
    rows = make_rows(40, seed=5)  # several queues: the drill-down asks which hold the row
    write_snapshot(root / "snap", rows)
    folder = f"{mount(spark, root)}/snap"
    report = oracle(rows, AS_OF)
    found = drill("by_reason", report["by_reason"][0])
    out = _Answers(jobs=2)
    child = Child("local[2]", out, start=lambda _master: spark)
    child.stop = lambda: None  # type: ignore[method-assign]  # the session is the suite's

    def requests():
        yield json.dumps({"id": 1, "job": "report", "folder": folder,
                          "as_of": AS_OF.isoformat()})
        yield json.dumps({"id": 2, "job": "queues_holding", "folder": folder,
                          "drill": {"where": found.where, "sql": found.sql, "queue": None,
                                    "qmgr": None}})
        assert out.answered.wait(600)

    child.serve(requests())
    last = {json.loads(line)["id"]: json.loads(line) for line in out.getvalue().splitlines()}
    assert last[1] == {"id": 1, "result": report}
    # the same queues as the folder's own path gives
    assert last[2] == {"id": 2, "result": [list(q) for q in queues_holding(
        spark, root / "snap", found)]}
    assert last[2]["result"]


class ObjectPlugin:
    """A plugin registered as an object (an embedding application's)."""

    def mqconsole_audit_columns(self) -> list[AuditColumn]:
        return [AuditColumn("constant", "string", _constant)]


def _constant(_message) -> str:
    return "x"


def test_the_plugins_audit_columns_are_made_again_from_their_recipes():
    """A folder plugin from its file, an installed one by name, an object as itself: the
    same columns with the same settings, after a trip through pickle."""
    from mqconsole.audit.datasource import plugin_columns
    from mqconsole.plugins.testing import import_plugin
    from mqconsole.plugins.testing import plugin_host as host_of
    from tests.audit import child_plugin

    folder_plugin = import_plugin(REPO / "plugins" / "json_field" / "json_field.py")
    host = host_of(("json_field", folder_plugin), ("installed", child_plugin),
                   ("object", ObjectPlugin()),
                   settings={"json_field": {"fields": ["currency"]}})
    recipes = pickle.loads(pickle.dumps(plugin_recipes(host)))
    assert [(name, how) for name, how, _, _ in recipes] == [
        ("installed", "module"), ("json_field", "file"), ("object", "object")]
    again = plugin_host(recipes)
    assert again is not None

    def described(h):
        return sorted((c.plugin, c.name, c.spark_type, c.settings) for c in plugin_columns(h))

    assert described(again) == described(host)
    assert ("json_field", "currency", "string", {"fields": ["currency"]}) in described(again)
    assert plugin_host([]) is None


def test_the_end_of_the_input_ends_the_child_even_with_a_job_deaf_to_its_cancel(tmp_path):
    """The console is gone (its end of the pipe closed: it closed the screen, quit, or was
    killed) while a job is stuck where no cancel reaches it (here: Spark starting for
    ever). The child cancels, waits its grace, says which job it leaves on stderr and
    returns False (main then ends the process) — it waited for ever before."""
    import contextlib
    import io

    release = threading.Event()
    started = threading.Event()

    def stuck(_master):
        started.set()
        release.wait(600)  # (let go at the test's end)
        raise RuntimeError("not reached")

    out = io.StringIO()
    child = Child("local[2]", out, start=stuck, grace=0.1)
    stopped: list[bool] = []
    child.stop = lambda: stopped.append(True)  # type: ignore[method-assign]

    def requests():
        yield json.dumps({"id": 7, "job": "queues_holding", "folder": str(tmp_path),
                          "drill": {"where": "", "sql": "", "queue": None, "qmgr": None}})
        assert started.wait(600)
        yield "{\"cancel\": \"seven\"}"  # bad lines are said on stderr and skipped
        yield "[1, 2]"

    err = io.StringIO()
    ended: list[bool] = []
    with contextlib.redirect_stderr(err):
        server = threading.Thread(target=lambda: ended.append(child.serve(requests())))
        server.start()
        server.join(120)  # a hang guard: the grace is 0.1 s
    try:
        assert not server.is_alive(), "the child waited for a job deaf to its cancel"
        assert ended == [False]
        assert "audit-job-7 still running" in err.getvalue()
        assert err.getvalue().count("not a request") == 2
        assert stopped == []  # Spark is not stopped under a job using it: the process ends
    finally:
        release.set()

"""ops/child.py, the child's side: the end of its input (the console closed the screen,
quit, or was killed) ends the child even when a job does not hear its stop, and a line it
cannot read is said and skipped."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from mqconsole.ops import child as ch


class Stuck(ch.Child):
    """A job that waits for the test's ``release``, never for its cancel (as an MQPUT that
    hangs would), or, when asked for "quick", answers at once."""

    name = "test child"
    release = threading.Event()

    def prepare(self, request):
        return None

    def do(self, job, state, request, progress, cancel):
        if job == "quick":
            return "done"
        self.release.wait(60)
        return "late"


def _job(job_id: int, job: str) -> str:
    return json.dumps({"id": job_id, "job": job, "request": ch.encode(None)}) + "\n"


def test_a_job_no_stop_reaches_does_not_keep_the_child(capsys):
    out = io.StringIO()
    try:
        ended = Stuck(out, grace=0.1).serve([_job(7, "stuck")])
    finally:
        Stuck.release.set()
    assert ended is False
    assert "test child-job-7 had not stopped" in capsys.readouterr().err


def test_jobs_that_end_let_serve_end_cleanly():
    out = io.StringIO()
    assert Stuck(out, grace=30).serve([_job(1, "quick")]) is True
    [line] = out.getvalue().splitlines()
    assert json.loads(line)["id"] == 1 and ch.decode(json.loads(line)["result"]) == "done"


@pytest.mark.parametrize("bad", ['{"cancel": "seven"}', "[1, 2]", "not json", '{"job": "x"}',
                                 '{"id": null}'])
def test_a_line_it_cannot_read_is_said_and_skipped(bad, capsys):
    out = io.StringIO()
    assert Stuck(out, grace=30).serve([bad + "\n", _job(2, "quick")]) is True
    assert "not a request" in capsys.readouterr().err
    [line] = out.getvalue().splitlines()
    assert json.loads(line)["id"] == 2


@pytest.mark.subprocess
def test_a_child_whose_console_went_ends_by_itself(tmp_path: Path):
    """The console's end of the pipe closes (as when it is killed: nobody is left to
    terminate the child); a job stuck where no stop reaches it does not keep the process."""
    script = tmp_path / "stuck_child.py"
    script.write_text(textwrap.dedent(f"""
        import sys, threading
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from mqconsole.ops import child as ch

        class Stuck(ch.Child):
            name = "test child"
            def __init__(self, out):
                super().__init__(out, grace=0.2)
            def prepare(self, request):
                return None
            def do(self, job, state, request, progress, cancel):
                print("started", file=sys.stderr, flush=True)
                threading.Event().wait()  # never hears its cancel

        sys.exit(ch.serve(Stuck))
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(_job(3, "stuck"))
    proc.stdin.flush()
    assert proc.stderr.readline().strip() == "started"  # the job runs: now the console goes
    proc.stdin.close()
    try:
        code = proc.wait(timeout=120)  # a hang guard: the child ends 0.2 s after its input
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 1
    assert "test child-job-3 had not stopped" in proc.stderr.read()

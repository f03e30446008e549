"""The audit's own process: the console's audit jobs run here, not in the console.

:class:`ChildRunner` (the console's side) starts ``python -m mqconsole.audit.child
--master M`` on the first job and keeps it for the audit screen's life: Spark starts once
per screen, and pyspark, pandas, numpy and pyarrow are imported here, never by the console.
They speak JSON, one object a line:

- console → child: ``{"id": N, "job": "export" | "report" | "queues_holding", ...}``, and
  ``{"cancel": N}`` when the operator cancels job N; the end of the input (the screen
  closed, or the console ended however it did: killed too, its end of the pipe closes)
  cancels what runs, stops Spark and ends the child — without a job that has not ended
  :data:`STOP_SECONDS` later (one no cancel reaches: the child is nobody's then).
- child → console, for job N: ``{"id": N, "status": TEXT}``, ``{"id": N, "progress":
  [READ, TOTAL], "text": TEXT}``, ``{"id": N, "note": TEXT}`` (what the operator must keep
  seeing: the snapshot's notes, a report's doubts), then ``{"id": N, "result": ...}`` or ``{"id": N,
  "error": SENTENCE, "cancelled": BOOL}``.

The child's standard output is the console's channel only (whatever else prints goes to its
standard error, which the console keeps the last lines of, to say why when a child ends on
its own). An export's connection and plugin columns travel pickled (the same objects Spark
pickles to its executors): a folder plugin is imported again from its file here, an
installed one by name, with the plugin's settings.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import itertools
import json
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from mqconsole.ops import child as ch
from mqconsole.ops.child import Recipe

from . import jobs
from .errors import AuditError

if TYPE_CHECKING:
    from mqconsole.plugins.host import PluginHost

    from .drill import Drill
    from .jobs import ExportJob, Watch

#: how long a closed child has to cancel its job and stop Spark before it is terminated
#: (``ops.child.reap``, which ends the console's children, and the child's own grace)
STOP_SECONDS = ch.STOP_SECONDS
#: what the child says on its standard error that the console keeps (to say why it ended)
STDERR_LINES = 20

# the child's start: the mqconsole the console runs, wherever it was imported from
_BOOT = ("import sys; r = sys.argv[1]; r in sys.path or sys.path.insert(0, r); "
         "from mqconsole.audit.child import main; sys.exit(main(sys.argv[2:]))")


class ChildEnded(AuditError):
    """The audit's process ended before answering (killed, out of memory, a crash)."""

    code = 1


class JobFailed(AuditError):
    """A job failed in the audit's process: ``str(e)`` is its sentence."""

    code = 1


# -- the console's side ------------------------------------------------------------------------

def child_command() -> list[str]:
    """How the console starts the audit's process: this Python, this mqconsole."""
    root = str(Path(__file__).resolve().parents[2])
    return [sys.executable, "-c", _BOOT, root]


class ChildRunner:
    """An :class:`~mqconsole.audit.runner.AuditRunner` whose jobs run in a child process
    (started on the first job, ended by :meth:`close`); ``command`` starts another program
    speaking the same lines (the tests' cheap stand-in)."""

    def __init__(self, master: str | None, *, command: Sequence[str] | None = None,
                 conf: Mapping[str, str] | None = None) -> None:
        self.master = master
        self.conf = dict(conf or {})  # the console's Spark settings (tui.audit_conf)
        self.command = list(command) if command is not None else child_command()
        self.process: subprocess.Popen[str] | None = None  # the latest child (tests wait on it)
        self._lock = threading.Lock()
        self._write = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[subprocess.Popen[str], queue.Queue[dict[str, Any]]]] = {}
        self._stderr: dict[int, tuple[deque[str], threading.Thread]] = {}
        self._ended_output: set[int] = set()  # the children whose output has ended

    # the jobs
    def export(self, job: ExportJob, watch: Watch) -> dict[str, Any]:
        try:
            objects = pickle.dumps({"connection": job.connection,
                                    "plugins": plugin_recipes(job.plugins)})
        except (pickle.PicklingError, TypeError, AttributeError) as e:
            raise JobFailed(f"the export's connection or plugin columns cannot be given to "
                            f"the audit's process: {e}") from None
        return self._call("export", {
            "patterns": job.patterns, "folder": str(job.folder), "profile": job.profile,
            "as_of": None if job.as_of is None else job.as_of.isoformat(),
            "objects": base64.b64encode(objects).decode("ascii")}, watch)

    def report(self, folder: str, as_of: datetime, watch: Watch) -> dict[str, Any]:
        return self._call("report", {"folder": str(folder), "as_of": as_of.isoformat()}, watch)

    def queues_holding(self, folder: str, found: Drill) -> list[tuple[str, str, int]]:
        rows = self._call("queues_holding", {
            "folder": str(folder), "drill": {"where": found.where, "sql": found.sql,
                                             "queue": found.queue, "qmgr": found.qmgr}},
            jobs.Watch())
        return [(str(q), str(n), int(c)) for q, n, c in rows]

    def close(self) -> None:
        """End the child: its input closes (it cancels what runs, stops Spark and ends), and
        a thread makes sure it has ended (terminated after :data:`STOP_SECONDS`)."""
        with self._lock:
            proc = self.process
        if proc is None:
            return
        with self._write, contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()
        threading.Thread(target=ch.reap, args=(proc,), daemon=True,
                         name="audit-child-reap").start()

    # the channel
    def _child(self) -> subprocess.Popen[str]:
        """The running child (under ``_lock``), started when there is none."""
        proc = self.process
        if proc is not None and proc.poll() is None and proc.stdin is not None \
                and not proc.stdin.closed:
            return proc
        proc = subprocess.Popen(
            [*self.command, *child_arguments(self.master, self.conf)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8",
            errors="replace", bufsize=1, close_fds=True,
            start_new_session=True)  # the terminal's signals are the console's
        tail: deque[str] = deque(maxlen=STDERR_LINES)
        reader = threading.Thread(target=ch.keep_lines, args=(proc.stderr, tail), daemon=True,
                                  name="audit-child-stderr")
        reader.start()
        self._stderr[proc.pid] = (tail, reader)
        threading.Thread(target=self._dispatch, args=(proc,), daemon=True,
                         name="audit-child-out").start()
        self.process = proc
        return proc

    def _dispatch(self, proc: subprocess.Popen[str]) -> None:
        """The child's lines to the jobs waiting for them; at its end, "ended" to each."""
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                message = json.loads(line)
                pending = self._pending.get(int(message["id"]))
            except (ValueError, KeyError, TypeError):
                continue  # not the channel's (nothing else should print there)
            if pending is not None:
                pending[1].put(message)
        self._ended_output.add(proc.pid)
        for job_id, (owner, box) in list(self._pending.items()):
            if owner is proc:
                box.put({"id": job_id, "ended": True})

    def _send(self, proc: subprocess.Popen[str], message: dict[str, Any]) -> bool:
        with self._write:
            try:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps(message, ensure_ascii=True) + "\n")
                proc.stdin.flush()
            except (OSError, ValueError):  # it ended, or was closed: its end is said
                return False
        return True

    def _call(self, what: str, request: dict[str, Any], watch: Watch) -> Any:
        with self._lock:
            proc = self._child()
            job_id = next(self._ids)
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._pending[job_id] = (proc, box)
        try:
            if not self._send(proc, {"id": job_id, "job": what, **request}):
                box.put({"id": job_id, "ended": True})
            asked_to_cancel = False
            while True:
                try:
                    message = box.get(timeout=0.25)
                except queue.Empty:
                    if proc.pid in self._ended_output and box.empty():  # asked as it ended
                        box.put({"id": job_id, "ended": True})
                    elif watch.cancel.is_set() and not asked_to_cancel:
                        asked_to_cancel = True
                        self._send(proc, {"cancel": job_id})
                    continue
                if "status" in message:
                    watch.status(str(message["status"]))
                elif "progress" in message:
                    done, total = message["progress"]
                    watch.progress(int(done), None if total is None else int(total),
                                   str(message.get("text", "")))
                elif "note" in message:
                    watch.note(str(message["note"]))
                elif "result" in message:
                    return message["result"]
                elif "error" in message:
                    kind = jobs.Cancelled if message.get("cancelled") else JobFailed
                    raise kind(str(message["error"]))
                elif "ended" in message:
                    if watch.cancel.is_set():
                        raise jobs.Cancelled(f"{what.replace('_', ' ')} cancelled")
                    raise ChildEnded(self._ended(proc))
        finally:
            self._pending.pop(job_id, None)

    def _ended(self, proc: subprocess.Popen[str]) -> str:
        """Why the child ended: its exit code and the last line it wrote on stderr."""
        code: int | None = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = proc.wait(timeout=10)
        tail, reader = self._stderr.get(proc.pid, (deque(), None))
        if reader is not None:
            reader.join(timeout=5)
        last = next((line.strip() for line in reversed(tail) if line.strip()), "")
        how = f"exit code {code}" if code is not None and code >= 0 else \
            f"signal {-code}" if code is not None else "still running"
        return (f"the audit's process ended before answering ({how})"
                + (f": {last[:300]}" if last else ""))


def child_arguments(master: str | None, conf: Mapping[str, str]) -> list[str]:
    """The audit's process's command line: the master, and each Spark setting as the audit
    commands take it (``--conf spark.KEY=VALUE``)."""
    return ["--master", master or "",
            *(arg for key, value in conf.items() for arg in ("--conf", f"{key}={value}"))]


def parse_arguments(argv: Sequence[str] | None) -> tuple[str | None, dict[str, str]]:
    """The master and the Spark settings of :func:`child_arguments` (the settings through
    the audit commands' parser: :class:`AuditInputError` for a bad one)."""
    from .session import parse_conf

    parser = argparse.ArgumentParser(prog="python -m mqconsole.audit.child",
                                     description="The console's audit jobs (JSON lines).")
    parser.add_argument("--master", default="", help="the Spark master (tui.audit_master)")
    parser.add_argument("--conf", action="append", default=[], metavar="spark.KEY=VALUE",
                        help="a Spark setting (tui.audit_conf; repeatable)")
    args = parser.parse_args(argv)
    return args.master or None, parse_conf(args.conf)


def plugin_recipes(host: PluginHost | None) -> list[Recipe]:
    """How the child makes the plugins that offer audit columns again (``ops.child``'s
    recipes: a folder plugin from its file, an installed one by its module's name, any
    other object as itself, pickled)."""
    if host is None:
        return []
    return ch.plugin_recipes(host, sorted({r.plugin for r in host.audit_columns()}))


def plugin_host(recipes: Iterable[Recipe]) -> PluginHost | None:
    """The plugins of :func:`plugin_recipes`, made again here (None: none)."""
    return ch.plugin_host(recipes, what="the export", failed=AuditError)


# -- the child's side --------------------------------------------------------------------------

class Child:
    """Runs each job of its input in a thread of its own, on one Spark session."""

    def __init__(self, master: str | None, out: IO[str],
                 start: jobs.SparkStarter = jobs.start_spark, *,
                 grace: float = STOP_SECONDS) -> None:
        self.master = master
        self.out = out
        self._start = start
        self.grace = grace  # how long the jobs have to end once the input has ended
        self._spark: Any = None
        self._spark_lock = threading.Lock()
        self._out_lock = threading.Lock()
        self._cancels: dict[int, threading.Event] = {}
        self._threads: list[threading.Thread] = []

    def spark(self, master: str | None) -> Any:
        with self._spark_lock:
            if self._spark is None:
                self._spark = self._start(master)
            return self._spark

    def tell(self, job_id: int, **fields: Any) -> None:
        line = json.dumps({"id": job_id, **fields}, ensure_ascii=True, default=str)
        with self._out_lock, contextlib.suppress(OSError, ValueError):  # the console left
            self.out.write(line + "\n")
            self.out.flush()

    def serve(self, lines: Iterable[str]) -> bool:
        """Every job of ``lines``; at their end (the console closed the screen, quit, or was
        killed: its end of the pipe closed), cancel what runs, wait for it up to
        :attr:`grace`, stop Spark. False: a job had not ended by then (one that does not
        hear its cancel, such as Spark still starting or a connection being refused again
        and again) — the caller ends the process anyway, nobody is left to answer."""
        for line in lines:
            try:
                message = json.loads(line)
                if "cancel" in message:
                    event = self._cancels.get(int(message["cancel"]))
                    if event is not None:
                        event.set()
                    continue
                job_id = int(message["id"])
            except (ValueError, TypeError, KeyError, AttributeError):
                print(f"mqconsole audit child: not a request: {line[:80]!r}", file=sys.stderr)
                continue
            self._cancels[job_id] = threading.Event()
            thread = threading.Thread(target=self.run, args=(job_id, message), daemon=True,
                                      name=f"audit-job-{job_id}")
            self._threads.append(thread)
            thread.start()
        for event in list(self._cancels.values()):
            event.set()
        deadline = time.monotonic() + self.grace
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        stuck = [t.name for t in self._threads if t.is_alive()]
        if stuck:
            print(f"mqconsole audit child: {', '.join(stuck)} still running "
                  f"{self.grace:.0f} s after the console left: ending without them",
                  file=sys.stderr)
            return False
        self.stop()
        return True

    def run(self, job_id: int, message: dict[str, Any]) -> None:
        watch = jobs.Watch(
            self._cancels[job_id],
            status=lambda text: self.tell(job_id, status=text),
            progress=lambda done, total, text: self.tell(job_id, progress=[done, total],
                                                         text=text),
            note=lambda text: self.tell(job_id, note=text))
        try:
            result = self.do(str(message.get("job")), message, watch)
        except BaseException as e:  # every failure is one sentence for the console
            self.tell(job_id, error=jobs.sentence(e), cancelled=isinstance(e, jobs.Cancelled))
        else:
            self.tell(job_id, result=result)
        finally:
            self._cancels.pop(job_id, None)

    def do(self, what: str, message: dict[str, Any], watch: Watch) -> Any:
        folder = str(message["folder"])  # a URI: Path() would make hdfs://nn/a hdfs:/nn/a
        if what == "report":
            return jobs.report(self.spark, self.master, folder,
                               datetime.fromisoformat(message["as_of"]), watch)
        if what == "queues_holding":
            from .drill import Drill

            return jobs.queues_holding(self.spark, self.master, folder,
                                       Drill(**message["drill"]))
        if what == "export":
            objects = pickle.loads(base64.b64decode(message["objects"]))  # from our console
            job = jobs.ExportJob(patterns=message["patterns"], folder=folder,
                                 profile=message["profile"], connection=objects["connection"],
                                 as_of=None if message.get("as_of") is None
                                 else datetime.fromisoformat(message["as_of"]),
                                 plugins=plugin_host(objects["plugins"]))
            return jobs.export(self.spark, self.master, job, watch)
        raise ValueError(f"the audit's process has no job {what!r}")

    def stop(self) -> None:
        """Stop Spark (its JVM, for a local master, ends with this process)."""
        with self._spark_lock:
            spark, self._spark = self._spark, None
        if spark is not None:
            with contextlib.suppress(Exception):
                spark.stop()


def main(argv: Sequence[str] | None = None, *,
         start: Callable[[str | None], Any] = jobs.start_spark,
         grace: float = STOP_SECONDS) -> int:
    try:
        master, conf = parse_arguments(argv)
    except AuditError as e:  # (the console checked them first: tui.audit_conf)
        print(f"mqconsole audit child: {e}", file=sys.stderr)
        return 2
    # the channel is the standard output as it was; whatever else prints goes to stderr
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    ended = Child(master, out, jobs.starter(start, conf), grace=grace).serve(sys.stdin)
    if not ended:  # a job is stuck where no cancel reaches (its thread is a daemon's): go
        sys.stderr.flush()
        os._exit(1)  # (not Python's shutdown, which may wait on what the job holds)
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

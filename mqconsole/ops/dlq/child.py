"""The console's dead-letter handler in a process of its own: the plan and the run of a pass.

A plan or a run of 200,000 messages makes and drops millions of small Python objects. In
the console's process, Python's object arenas kept about 60 MB of them once every one was
freed (an arena goes back only when all its objects are freed, and the console's own few
survivors land among them: docs/benchmarks.md). Here they go when the process ends. The
work is the same code as in the console and the command line: an
:class:`~mqconsole.ops.operation.Operation` of a :class:`~mqconsole.ops.operation.DlqPass`
(its units of work, the plugins' checks, the journal's records, the durable attempt
counts), on a connection of this process's own to the same queue manager.

:class:`HandlerChild` (the console's side) starts ``python -c BOOT ROOT`` on the first job
and keeps it while the handler screen is open (:meth:`HandlerChild.close` when it closes).
They speak JSON, one object a line:

- console → child: ``{"id": N, "job": "plan" | "run", "request": PICKLE}`` (base64 of a
  pickled :class:`Request`: the pass, the journal, the profile, the plugins to load again,
  and the queue manager to open — with the password the operator gave, over this pipe,
  never on the command line or in the environment); ``{"cancel": N, "stopped_by": TEXT}``
  when the operator stops job N; the end of the input (the screen closed, or the console
  ended however it did) stops what runs at its next message (the open unit of work backed
  out, the journal's end record written) and ends the child.
- child → console: ``{"id": N, "progress": [DONE, TOTAL, MATCHED]}``, then ``{"id": N,
  "result": PICKLE}`` (the :class:`~mqconsole.ops.operation.Summary`) or ``{"id": N,
  "error": {...}}`` (what the console says as it says the same error in process).

A child killed mid-run leaves each message once: what its committed units moved is moved
(and journaled), its open unit is backed out — by SQLite for the embedded queue manager
(the next connection backs out the marks a dead process left), by MQ for a real one.

:class:`InProcess` runs the same in the console's process (the pilot tests; a queue
manager no other process can open, ``:memory:``).
"""

from __future__ import annotations

import base64
import contextlib
import importlib
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any, Protocol

from mqconsole.mq.errors import MQError

if TYPE_CHECKING:
    from mqconsole.backends.spec import BackendSpec
    from mqconsole.ops.journal import Rotation
    from mqconsole.ops.operation import Operation, Summary
    from mqconsole.plugins import PluginHost

#: how long a closed child has to stop its job (at its next message) before it is terminated
STOP_SECONDS = 60.0
STDERR_LINES = 20  # of what the child says on its standard error, kept to say why it ended
PROGRESS_EVERY = 0.1  # seconds between the child's progress lines

_BOOT = ("import sys; r = sys.argv[1]; r in sys.path or sys.path.insert(0, r); "
         "from mqconsole.ops.dlq.child import main; sys.exit(main(sys.argv[2:]))")

Progress = Callable[..., None]


class Connections(Protocol):
    """The console's connections (``tui.context.Connections``)."""

    def main(self) -> Any: ...

    def new(self) -> Any: ...

    def release(self, qm: Any) -> None: ...


class HandlerRunner(Protocol):
    """Plans and runs the handler screen's pass (the calls block: the screen makes them in
    a thread worker); an error raised is said as the same error in process is."""

    def plan(self, op: Operation, conns: Connections, progress: Progress,
             cancel: threading.Event) -> Summary: ...

    def run(self, op: Operation, conns: Connections, progress: Progress,
            cancel: threading.Event) -> Summary: ...

    def close(self) -> None: ...


class InProcess:
    """The pass in this process, on a connection of its own (as every console operation)."""

    def plan(self, op: Operation, conns: Connections, progress: Progress,
             cancel: threading.Event) -> Summary:
        qm = conns.new()
        try:
            op.validate(qm)
            return op.preview(qm, progress=progress, cancel=cancel)
        finally:
            conns.release(qm)

    def run(self, op: Operation, conns: Connections, progress: Progress,
            cancel: threading.Event) -> Summary:
        qm = conns.new()
        try:
            return op.run(qm, progress=progress, cancel=cancel)
        finally:
            conns.release(qm)

    def close(self) -> None:
        """Nothing to let go."""


class ChildEnded(Exception):
    """The handler's process ended before answering (killed, out of memory, a crash)."""


class HandlerFailed(Exception):
    """The pass failed in the handler's process: ``str(e)`` is its sentence."""


# -- what a job is -----------------------------------------------------------------------------

#: a plugin made again in the child: (name, how, what, settings) — ``how`` "file" (``what``:
#: (module name, file)), "module" (its module's name) or "object" (pickled)
Recipe = tuple[str, str, Any, dict[str, Any]]


@dataclass
class Request:
    """Everything the child needs to do what the console's ``Operation`` would."""

    kind: Any  # the DlqPass (plain values: its rules table, files, queue)
    connection: BackendSpec
    journal_path: str | None
    journal_fsync: bool = False
    journal_rotation: Rotation | None = None
    profile: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    plugins: list[Recipe] = field(default_factory=list)

    @classmethod
    def of(cls, op: Operation, connection: BackendSpec) -> Request:
        journal = op.journal
        return cls(kind=op.spec, connection=connection,
                   journal_path=None if journal is None else str(journal.path),
                   journal_fsync=bool(getattr(journal, "fsync", False)),
                   journal_rotation=getattr(journal, "rotation", None),
                   profile=op.profile, details=dict(op.face_details),
                   plugins=plugin_recipes(op.plugins))

    def operation(self) -> Operation:
        from mqconsole.ops.journal import Journal
        from mqconsole.ops.operation import Operation
        from mqconsole.plugins import NO_PLUGINS

        journal = None if self.journal_path is None else Journal(
            self.journal_path, fsync=self.journal_fsync, rotation=self.journal_rotation)
        return Operation(self.kind, journal=journal, profile=self.profile,
                         plugins=plugin_host(self.plugins) or NO_PLUGINS,
                         details=self.details)


def plugin_recipes(host: PluginHost | None) -> list[Recipe]:
    """How the child loads the console's plugins again (their checks see every put)."""
    if host is None:
        return []
    from mqconsole.plugins.discovery import FOLDER_MODULE_PREFIX

    out: list[Recipe] = []
    for name in host.names():
        plugin = host.pm.get_plugin(name)
        settings = host.settings_of(name)
        file = getattr(plugin, "__file__", None)
        if isinstance(plugin, ModuleType) and plugin.__name__.startswith(FOLDER_MODULE_PREFIX) \
                and file:
            out.append((name, "file",
                        (plugin.__name__.removeprefix(FOLDER_MODULE_PREFIX), file), settings))
        elif isinstance(plugin, ModuleType):
            out.append((name, "module", plugin.__name__, settings))
        elif plugin is not None:
            out.append((name, "object", plugin, settings))
    return out


def plugin_host(recipes: Iterable[Recipe]) -> PluginHost | None:
    """The plugins of :func:`plugin_recipes`, loaded here (None: none)."""
    recipes = list(recipes)
    if not recipes:
        return None
    from mqconsole.plugins.discovery import FOLDER_MODULE_PREFIX, import_file
    from mqconsole.plugins.host import PluginHost

    host = PluginHost(settings={name: settings for name, _, _, settings in recipes})
    for name, how, what, _ in recipes:
        if how == "file":
            module_name, file = what
            plugin = sys.modules.get(FOLDER_MODULE_PREFIX + module_name) \
                or import_file(module_name, Path(file))
        elif how == "module":
            plugin = importlib.import_module(what)
        else:
            plugin = what
        if not host.register(plugin, name):
            raise HandlerFailed(f"plugin {name} could not be loaded for the dead-letter "
                                "handler: " + " ".join(host.problems[-1:]))
    return host


def _encode(value: object) -> str:
    return base64.b64encode(pickle.dumps(value)).decode("ascii")


def _decode(text: str) -> Any:
    return pickle.loads(base64.b64decode(text))  # between this console and its own child


def error_fields(exc: BaseException) -> dict[str, Any]:
    """An error as the console says it again (:func:`error_of`): its class's name, text,
    MQ reason and detail, notes (what was committed before it) and exit code."""
    fields: dict[str, Any] = {"type": type(exc).__name__, "text": str(exc) or
                              type(exc).__name__,
                              "notes": [str(n) for n in getattr(exc, "__notes__", ())]}
    if isinstance(exc, MQError):
        fields.update(reason=exc.reason, detail=exc.detail)
    for name in ("code", "committed_before_error"):
        value = getattr(exc, name, None)
        if isinstance(value, int):
            fields[name] = int(value)
    return fields


def error_of(fields: dict[str, Any]) -> BaseException:
    """The error the child reported, made again so that the console says it as it says
    the same error raised in its own process (``tui.context.describe_error``)."""
    exc: BaseException
    if fields.get("reason") is not None:
        from mqconsole.mq.errors import CommitOutcomeUnknown

        kind = CommitOutcomeUnknown if fields.get("type") == "CommitOutcomeUnknown" else MQError
        exc = kind(int(fields["reason"]), str(fields.get("detail") or ""))
    elif fields.get("type") == "OperationError":
        from mqconsole.ops.exit_codes import ExitCode
        from mqconsole.ops.operation import OperationError

        exc = OperationError(str(fields["text"]), ExitCode(fields.get("code", 2)))
    else:
        exc = HandlerFailed(str(fields["text"]))
    if "committed_before_error" in fields:
        setattr(exc, "committed_before_error", fields["committed_before_error"])  # noqa: B010
    for note in fields.get("notes", ()):
        exc.add_note(str(note))
    return exc


# -- the console's side ------------------------------------------------------------------------

def child_command() -> list[str]:
    """How the console starts the handler's process: this Python, this mqconsole."""
    root = str(Path(__file__).resolve().parents[3])
    return [sys.executable, "-c", _BOOT, root]


class HandlerChild:
    """A :class:`HandlerRunner` whose plans and runs happen in a child process (started on
    the first, ended by :meth:`close`); a queue manager no other process can open is
    planned and run in this one (:class:`InProcess`). ``command``: another program speaking
    the same lines (a test's stand-in)."""

    def __init__(self, *, command: Sequence[str] | None = None) -> None:
        self.command = list(command) if command is not None else child_command()
        self.process: subprocess.Popen[str] | None = None  # the latest child (tests wait on it)
        self._lock = threading.Lock()
        self._write = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[subprocess.Popen[str], queue.Queue[dict[str, Any]]]] = {}
        self._stderr: dict[int, tuple[deque[str], threading.Thread]] = {}
        self._ended_output: set[int] = set()
        self._here = InProcess()

    def plan(self, op: Operation, conns: Connections, progress: Progress,
             cancel: threading.Event) -> Summary:
        spec = self._spec(conns)
        if spec is None:
            return self._here.plan(op, conns, progress, cancel)
        summary: Summary = self._call("plan", op, Request.of(op, spec), progress, cancel)
        queue_name = summary.extra.get("queue")
        if queue_name and getattr(op.spec, "queue", None) is None:
            # resolved there: the run goes to the planned queue, as in process
            setattr(op.spec, "queue", queue_name)  # noqa: B010
        return summary

    def run(self, op: Operation, conns: Connections, progress: Progress,
            cancel: threading.Event) -> Summary:
        spec = self._spec(conns)
        if spec is None:
            return self._here.run(op, conns, progress, cancel)
        return self._call("run", op, Request.of(op, spec), progress, cancel)

    @staticmethod
    def _spec(conns: Connections) -> BackendSpec | None:
        from mqconsole.backends.open import reopen_spec

        return reopen_spec(conns.main())

    def close(self) -> None:
        """End the child: its input closes (it stops what runs at the next message, backs
        the open unit of work out and ends), and a thread makes sure it has ended."""
        with self._lock:
            proc = self.process
        if proc is None:
            return
        with self._write, contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()
        threading.Thread(target=_reap, args=(proc,), daemon=True,
                         name="handler-child-reap").start()

    # the channel
    def _child(self) -> subprocess.Popen[str]:
        proc = self.process
        if proc is not None and proc.poll() is None and proc.stdin is not None \
                and not proc.stdin.closed:
            return proc
        proc = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, encoding="utf-8", errors="replace", bufsize=1,
            close_fds=True, start_new_session=True)  # the terminal's signals are the console's
        tail: deque[str] = deque(maxlen=STDERR_LINES)
        reader = threading.Thread(target=_keep_lines, args=(proc.stderr, tail), daemon=True,
                                  name="handler-child-stderr")
        reader.start()
        self._stderr[proc.pid] = (tail, reader)
        threading.Thread(target=self._dispatch, args=(proc,), daemon=True,
                         name="handler-child-out").start()
        self.process = proc
        return proc

    def _dispatch(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                message = json.loads(line)
                pending = self._pending.get(int(message["id"]))
            except (ValueError, KeyError, TypeError):
                continue
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
            except (OSError, ValueError):
                return False
        return True

    def _call(self, what: str, op: Operation, request: Request, progress: Progress,
              cancel: threading.Event) -> Any:
        with self._lock:
            proc = self._child()
            job_id = next(self._ids)
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._pending[job_id] = (proc, box)
        try:
            if not self._send(proc, {"id": job_id, "job": what, "request": _encode(request)}):
                box.put({"id": job_id, "ended": True})
            asked_to_stop = False
            wants_matched = getattr(progress, "wants_matched", False)
            while True:
                try:
                    message = box.get(timeout=0.25)
                except queue.Empty:
                    if proc.pid in self._ended_output and box.empty():
                        box.put({"id": job_id, "ended": True})
                    elif cancel.is_set() and not asked_to_stop:
                        asked_to_stop = True
                        self._send(proc, {"cancel": job_id, "stopped_by":
                                          op.face_details.get("stopped_by")})
                    continue
                if "progress" in message:
                    done, total, matched = message["progress"]
                    if matched is not None and wants_matched:
                        progress(done, total, matched)
                    else:
                        progress(done, total)
                elif "result" in message:
                    return _decode(message["result"])
                elif "error" in message:
                    raise error_of(message["error"])
                elif "ended" in message:
                    raise ChildEnded(self._ended(proc, what))
        finally:
            self._pending.pop(job_id, None)

    def _ended(self, proc: subprocess.Popen[str], what: str) -> str:
        code: int | None = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = proc.wait(timeout=10)
        tail, reader = self._stderr.get(proc.pid, (deque(), None))
        if reader is not None:
            reader.join(timeout=5)
        last = next((line.strip() for line in reversed(tail) if line.strip()), "")
        how = f"exit code {code}" if code is not None and code >= 0 else \
            f"signal {-code}" if code is not None else "still running"
        after = (": its open unit of work is backed out, what it committed stays done and "
                 "is in the journal") if what == "run" else ""
        return (f"the dead-letter handler's process ended before answering ({how})"
                + (f" ({last[:200]})" if last else "") + after)


def _keep_lines(stream: IO[str] | None, tail: deque[str]) -> None:
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        for line in stream:
            tail.append(line.rstrip("\n"))


def _reap(proc: subprocess.Popen[str]) -> None:
    """Wait for a closed child; terminate it when it outstays :data:`STOP_SECONDS`."""
    try:
        proc.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def default_runner() -> HandlerRunner:
    """The console's: the pass in the handler's own process."""
    return HandlerChild()


# -- the child's side --------------------------------------------------------------------------

class Child:
    """Runs each job of its input in a thread of its own."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._out_lock = threading.Lock()
        self._jobs: dict[int, tuple[threading.Event, Operation | None]] = {}
        self._threads: list[threading.Thread] = []

    def tell(self, job_id: int, **fields: Any) -> None:
        line = json.dumps({"id": job_id, **fields}, ensure_ascii=True, default=str)
        with self._out_lock, contextlib.suppress(OSError, ValueError):  # the console left
            self.out.write(line + "\n")
            self.out.flush()

    def serve(self, lines: Iterable[str]) -> None:
        """Every job of ``lines``; at their end, stop what runs and wait for it."""
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                print(f"mqconsole handler child: not a request: {line[:80]!r}",
                      file=sys.stderr)
                continue
            if "cancel" in message:
                self.stop(int(message["cancel"]), message.get("stopped_by"))
                continue
            job_id = int(message["id"])
            self._jobs[job_id] = (threading.Event(), None)
            thread = threading.Thread(target=self.run, args=(job_id, message),
                                      name=f"handler-job-{job_id}")
            self._threads.append(thread)
            thread.start()
        for job_id in list(self._jobs):
            self.stop(job_id, "the console closing")
        for thread in self._threads:
            thread.join()

    def stop(self, job_id: int, stopped_by: str | None) -> None:
        cancel, op = self._jobs.get(job_id, (None, None))
        if op is not None and stopped_by:
            op.face_details.setdefault("stopped_by", stopped_by)  # the end record says
        if cancel is not None:
            cancel.set()

    def run(self, job_id: int, message: dict[str, Any]) -> None:
        cancel = self._jobs[job_id][0]
        last = [0.0]

        def progress(done: int, total: int | None, matched: int | None = None) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                self.tell(job_id, progress=[done, total, matched])

        progress.wants_matched = True  # type: ignore[attr-defined]  # (Control.report)
        try:
            request: Request = _decode(message["request"])
            op = request.operation()
            self._jobs[job_id] = (cancel, op)
            result = _encode(self.do(str(message.get("job")), op, request, progress,
                                     cancel))
        except BaseException as e:  # every failure is said by the console as in process
            self.tell(job_id, error=error_fields(e))
        else:
            self.tell(job_id, result=result)
        finally:
            self._jobs.pop(job_id, None)

    @staticmethod
    def do(what: str, op: Operation, request: Request, progress: Progress,
           cancel: threading.Event) -> Summary:
        from mqconsole.backends.open import open_backend

        qm = open_backend(request.connection)
        try:
            if what == "plan":
                op.validate(qm)
                return op.preview(qm, progress=progress, cancel=cancel)
            if what == "run":
                return op.run(qm, progress=progress, cancel=cancel)
            raise ValueError(f"the dead-letter handler's process has no job {what!r}")
        finally:
            qm.close()


def main(argv: Sequence[str] | None = None) -> int:
    # the channel is the standard output as it was; whatever else prints goes to stderr
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    Child(out).serve(sys.stdin)
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["ChildEnded", "HandlerChild", "HandlerFailed", "HandlerRunner", "InProcess",
           "Request", "default_runner", "error_fields", "error_of", "plugin_host",
           "plugin_recipes"]

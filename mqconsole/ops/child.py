"""A console job in a process of its own: start it, speak to it over a pipe, stop it.

A long job (a dead-letter handler's pass, a replay of a queue) makes and drops millions of
small Python objects; in the console's process Python's object arenas keep much of that
memory once every object is freed (an arena goes back only when all its objects are freed,
and the console's own few survivors land among them: docs/benchmarks.md). In a child they go
when the process ends. What the job is stays with its module (``ops.dlq.child``,
``ops.replaychild``); this is the plumbing they share:

:class:`Channel` (the console's side) starts ``python -c BOOT ROOT`` on the first job and
keeps it until :meth:`Channel.close`. They speak JSON, one object a line:

- console → child: ``{"id": N, "job": NAME, "request": PICKLE}`` (base64 of a pickled
  request: plain values, the password the operator gave among them — over this pipe, never
  on the command line or in the environment); ``{"cancel": N, "stopped_by": TEXT}`` when the
  operator stops job N; the end of the input (the screen closed, or the console ended however
  it did) stops what runs and ends the child.
- child → console: ``{"id": N, "progress": [...]}`` (the job's progress call's arguments),
  then ``{"id": N, "result": PICKLE}`` or ``{"id": N, "error": {...}}`` (what the console says
  as it says the same error raised in its own process).

:class:`Child` (the child's side) runs each job in a thread of its own; a module's ``main``
is ``serve(ItsChild)``.
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any

from mqconsole.mq.errors import MQError

if TYPE_CHECKING:
    from mqconsole.plugins import PluginHost

#: how long a closed child has to stop its job (at its next message) before it is terminated
STOP_SECONDS = 60.0
STDERR_LINES = 20  # of what the child says on its standard error, kept to say why it ended
PROGRESS_EVERY = 0.1  # seconds between the child's progress lines


class ChildEnded(Exception):
    """The job's process ended before answering (killed, out of memory, a crash)."""


class ChildFailed(Exception):
    """The job failed in its process: ``str(e)`` is its sentence."""


def encode(value: object) -> str:
    return base64.b64encode(pickle.dumps(value)).decode("ascii")


def decode(text: str) -> Any:
    return pickle.loads(base64.b64decode(text))  # between this console and its own child


# -- errors ------------------------------------------------------------------------------------

def error_fields(exc: BaseException) -> dict[str, Any]:
    """An error as the console says it again (:func:`error_of`): its class's name, text,
    MQ reason and detail, notes (what was committed before it) and exit code."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:  # as the console says one (describe_error)
        text = f"{exc.filename or ''}: {exc.strerror}".lstrip(": ")
    fields: dict[str, Any] = {"type": type(exc).__name__, "text": text,
                              "notes": [str(n) for n in getattr(exc, "__notes__", ())]}
    if isinstance(exc, MQError):
        fields.update(reason=exc.reason, detail=exc.detail)
    for name in ("code", "committed_before_error"):
        value = getattr(exc, name, None)
        if isinstance(value, int):
            fields[name] = int(value)
    return fields


def error_of(fields: dict[str, Any], *, failed: Callable[[str], BaseException] = ChildFailed,
             kinds: Mapping[str, Callable[[str], BaseException]] | None = None
             ) -> BaseException:
    """The error the child reported, made again so that the console says it as it says the
    same error raised in its own process (``tui.context.describe_error``): an MQ error, an
    operation's error with its exit code, one of ``kinds`` (by class name), else ``failed``."""
    exc: BaseException
    kind = str(fields.get("type", ""))
    if fields.get("reason") is not None:
        from mqconsole.mq.errors import CommitOutcomeUnknown

        cls = CommitOutcomeUnknown if kind == "CommitOutcomeUnknown" else MQError
        exc = cls(int(fields["reason"]), str(fields.get("detail") or ""))
    elif kind == "OperationError":
        from mqconsole.ops.exit_codes import ExitCode
        from mqconsole.ops.operation import OperationError

        exc = OperationError(str(fields["text"]), ExitCode(fields.get("code", 2)))
    elif kinds and kind in kinds:
        exc = kinds[kind](str(fields["text"]))
    else:
        exc = failed(str(fields["text"]))
    if "committed_before_error" in fields:
        setattr(exc, "committed_before_error", fields["committed_before_error"])  # noqa: B010
    for note in fields.get("notes", ()):
        exc.add_note(str(note))
    return exc


# -- plugins -----------------------------------------------------------------------------------

#: a plugin made again in the child: (name, how, what, settings) — ``how`` "file" (``what``:
#: (module name, file)), "module" (its module's name) or "object" (pickled)
Recipe = tuple[str, str, Any, dict[str, Any]]


def plugin_recipes(host: PluginHost | None,
                   names: Iterable[str] | None = None) -> list[Recipe]:
    """How the child loads the console's plugins again: all of them, or those ``names``."""
    if host is None:
        return []
    from mqconsole.plugins.discovery import FOLDER_MODULE_PREFIX

    out: list[Recipe] = []
    for name in host.names() if names is None else names:
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


def plugin_host(recipes: Iterable[Recipe], *, what: str = "the console's process",
                failed: Callable[[str], BaseException] = ChildFailed) -> PluginHost | None:
    """The plugins of :func:`plugin_recipes`, loaded here (None: none)."""
    recipes = list(recipes)
    if not recipes:
        return None
    from mqconsole.plugins.discovery import FOLDER_MODULE_PREFIX, import_file
    from mqconsole.plugins.host import PluginHost

    host = PluginHost(settings={name: settings for name, _, _, settings in recipes})
    for name, how, target, _ in recipes:
        if how == "file":
            module_name, file = target
            plugin = sys.modules.get(FOLDER_MODULE_PREFIX + module_name) \
                or import_file(module_name, Path(file))
        elif how == "module":
            plugin = importlib.import_module(target)
        else:
            plugin = target
        if not host.register(plugin, name):
            raise failed(f"plugin {name} could not be loaded for {what}: "
                         + " ".join(host.problems[-1:]))
    return host


# -- the console's side ------------------------------------------------------------------------

def child_command(module: str) -> list[str]:
    """How the console starts ``module``'s process (its ``main``): this Python, this
    mqconsole."""
    root = str(Path(__file__).resolve().parents[2])
    boot = ("import sys; r = sys.argv[1]; r in sys.path or sys.path.insert(0, r); "
            f"from {module} import main; sys.exit(main(sys.argv[2:]))")
    return [sys.executable, "-c", boot, root]


class Channel:
    """The console's side of one kind of child: started on the first :meth:`call`, kept
    until :meth:`close` (a child that ended is started again by the next call)."""

    def __init__(self, command: Sequence[str], *, name: str) -> None:
        self.command = list(command)
        self.name = name  # threads' names
        self.process: subprocess.Popen[str] | None = None  # the latest child (tests wait on it)
        self._lock = threading.Lock()
        self._write = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[subprocess.Popen[str], queue.Queue[dict[str, Any]]]] = {}
        self._stderr: dict[int, tuple[deque[str], threading.Thread]] = {}
        self._ended_output: set[int] = set()

    def call(self, job: str, request: object, on_progress: Callable[[list[Any]], None],
             cancel: threading.Event, *, ended: Callable[[str], str],
             stopped_by: Callable[[], str | None] = lambda: None,
             error: Callable[[dict[str, Any]], BaseException] = error_of,
             start: bool = True) -> Any:
        """Job ``job`` of ``request`` in the child (blocks): its progress to
        ``on_progress``, ``cancel`` set asks it to stop; its result returned, its error
        raised (``error``), its process's end raised as :class:`ChildEnded` (``ended``
        makes the sentence of "(exit code 3) (its last line)"). ``start`` False: only of
        the child running (a question about what it keeps), never a new one."""
        with self._lock:
            if not start and not self._alive():
                raise ChildEnded(ended("(it has ended)"))
            proc = self._child()
            job_id = next(self._ids)
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._pending[job_id] = (proc, box)
        try:
            if not self._send(proc, {"id": job_id, "job": job, "request": encode(request)}):
                box.put({"id": job_id, "ended": True})
            asked_to_stop = False
            while True:
                try:
                    message = box.get(timeout=0.25)
                except queue.Empty:
                    if proc.pid in self._ended_output and box.empty():
                        box.put({"id": job_id, "ended": True})
                    elif cancel.is_set() and not asked_to_stop:
                        asked_to_stop = True
                        self._send(proc, {"cancel": job_id, "stopped_by": stopped_by()})
                    continue
                if "progress" in message:
                    on_progress(list(message["progress"]))
                elif "result" in message:
                    return decode(message["result"])
                elif "error" in message:
                    raise error(message["error"])
                elif "ended" in message:
                    raise ChildEnded(ended(self._how_it_ended(proc)))
        finally:
            self._pending.pop(job_id, None)

    def close(self) -> None:
        """End the child: its input closes (it stops what runs at its next safe point and
        ends), and a thread makes sure it has ended."""
        with self._lock:
            proc = self.process
        if proc is None:
            return
        with self._write, contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()
        threading.Thread(target=reap, args=(proc,), daemon=True,
                         name=f"{self.name}-reap").start()

    def _alive(self) -> bool:
        proc = self.process
        return proc is not None and proc.poll() is None and proc.stdin is not None \
            and not proc.stdin.closed

    def _child(self) -> subprocess.Popen[str]:
        proc = self.process
        if proc is not None and self._alive():
            return proc
        proc = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, encoding="utf-8", errors="replace", bufsize=1,
            close_fds=True, start_new_session=True)  # the terminal's signals are the console's
        tail: deque[str] = deque(maxlen=STDERR_LINES)
        reader = threading.Thread(target=keep_lines, args=(proc.stderr, tail), daemon=True,
                                  name=f"{self.name}-stderr")
        reader.start()
        self._stderr[proc.pid] = (tail, reader)
        threading.Thread(target=self._dispatch, args=(proc,), daemon=True,
                         name=f"{self.name}-out").start()
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

    def _how_it_ended(self, proc: subprocess.Popen[str]) -> str:
        code: int | None = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = proc.wait(timeout=10)
        tail, reader = self._stderr.get(proc.pid, (deque(), None))
        if reader is not None:
            reader.join(timeout=5)
        last = next((line.strip() for line in reversed(tail) if line.strip()), "")
        how = f"exit code {code}" if code is not None and code >= 0 else \
            f"signal {-code}" if code is not None else "still running"
        return f"({how})" + (f" ({last[:200]})" if last else "")


def keep_lines(stream: IO[str] | None, tail: deque[str]) -> None:
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        for line in stream:
            tail.append(line.rstrip("\n"))


def reap(proc: subprocess.Popen[str]) -> None:
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


# -- the child's side --------------------------------------------------------------------------

class Child:
    """Runs each job of its input in a thread of its own (a kind of job: a subclass with
    its own :meth:`do`)."""

    name = "child"

    def __init__(self, out: IO[str], *, grace: float = STOP_SECONDS) -> None:
        self.out = out
        self.grace = grace  # how long the jobs have to end once the input has ended
        self._out_lock = threading.Lock()
        self._jobs: dict[int, tuple[threading.Event, Any]] = {}
        self._threads: list[threading.Thread] = []

    def tell(self, job_id: int, **fields: Any) -> None:
        line = json.dumps({"id": job_id, **fields}, ensure_ascii=True, default=str)
        with self._out_lock, contextlib.suppress(OSError, ValueError):  # the console left
            self.out.write(line + "\n")
            self.out.flush()

    def serve(self, lines: Iterable[str]) -> bool:
        """Every job of ``lines``; at their end (the console closed the screen, quit, or was
        killed: its end of the pipe closed), stop what runs and wait for it up to
        :attr:`grace`. False: a job had not ended by then (one no stop reaches, such as an
        MQPUT that hangs): the caller ends the process anyway, as a kill would — its open
        unit of work is backed out (by SQLite or by MQ), what it committed is journaled."""
        for line in lines:
            try:
                message = json.loads(line)
                if "cancel" in message:
                    self.stop(int(message["cancel"]), message.get("stopped_by"))
                    continue
                job_id = int(message["id"])
            except (ValueError, TypeError, KeyError, AttributeError):
                print(f"mqconsole {self.name}: not a request: {line[:80]!r}", file=sys.stderr)
                continue
            self._jobs[job_id] = (threading.Event(), None)
            thread = threading.Thread(target=self.run, args=(job_id, message), daemon=True,
                                      name=f"{self.name}-job-{job_id}")
            self._threads.append(thread)
            thread.start()
        for job_id in list(self._jobs):
            self.stop(job_id, "the console closing")
        deadline = time.monotonic() + self.grace
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        stuck = [t.name for t in self._threads if t.is_alive()]
        if stuck:
            print(f"mqconsole {self.name}: {', '.join(stuck)} had not stopped "
                  f"{self.grace:g} s after the console left: ending without them",
                  file=sys.stderr)
        return not stuck

    def stop(self, job_id: int, stopped_by: str | None) -> None:
        cancel, state = self._jobs.get(job_id, (None, None))
        if state is not None and stopped_by:
            self.stopping(state, stopped_by)
        if cancel is not None:
            cancel.set()

    def run(self, job_id: int, message: dict[str, Any]) -> None:
        cancel = self._jobs[job_id][0]
        last = [0.0]

        def progress(*args: Any) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                self.tell(job_id, progress=list(args))

        try:
            request = decode(message["request"])
            state = self.prepare(request)
            self._jobs[job_id] = (cancel, state)
            result = encode(self.do(str(message.get("job")), state, request, progress,
                                    cancel))
        except BaseException as e:  # every failure is said by the console as in process
            self.tell(job_id, error=error_fields(e))
        else:
            self.tell(job_id, result=result)
        finally:
            self._jobs.pop(job_id, None)

    def prepare(self, request: Any) -> Any:
        """What a job keeps while it runs (given to :meth:`stopping` and :meth:`do`)."""
        return None

    def stopping(self, state: Any, stopped_by: str) -> None:
        """Job of ``state`` is being stopped by ``stopped_by`` (the console's words)."""

    def do(self, job: str, state: Any, request: Any, progress: Callable[..., None],
           cancel: threading.Event) -> Any:
        raise NotImplementedError


def serve(child: type[Child]) -> int:
    """A child's ``main``: its jobs from the standard input until it ends."""
    # the channel is the standard output as it was; whatever else prints goes to stderr
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    if not child(out).serve(sys.stdin):
        os._exit(1)  # a job no stop reaches: Python's shutdown would wait on it
    out.close()
    return 0


__all__ = ["Channel", "Child", "ChildEnded", "ChildFailed", "Recipe", "child_command",
           "decode", "encode", "error_fields", "error_of", "keep_lines", "plugin_host",
           "plugin_recipes", "reap", "serve"]

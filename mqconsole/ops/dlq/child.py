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
They speak JSON, one object a line (the plumbing, shared with the replay's process:
``ops.child``):

- console → child: ``{"id": N, "job": "plan" | "run", "request": PICKLE}`` (base64 of a
  pickled :class:`Request`: the pass, the journal, the profile, the plugins to load again,
  and the queue manager to open — with the password the operator gave, over this pipe,
  never on the command line or in the environment); ``{"cancel": N, "stopped_by": TEXT}``
  when the operator stops job N; the end of the input (the screen closed, or the console
  ended however it did) stops what runs at its next message (the open unit of work backed
  out, the journal's end record written) and ends the child.
- child → console: ``{"id": N, "progress": [DONE, TOTAL, MATCHED]}``, then ``{"id": N,
  "result": PICKLE}`` (the :class:`~mqconsole.ops.operation.Summary` as the console holds
  it: its listed messages kept here as rows, ``ops.dlq.rows.present``) or ``{"id": N,
  "error": {...}}`` (what the console says as it says the same error in process).
- job ``"rows"`` of ``(token, start, stop)``: those rows of the latest plan or run (None:
  a newer one replaced them), asked as they come into view.

A child killed mid-run leaves each message once: what its committed units moved is moved
(and journaled), its open unit is backed out — by SQLite for the embedded queue manager
(the next connection backs out the marks a dead process left), by MQ for a real one.

:class:`InProcess` runs the same in the console's process (the pilot tests; a queue
manager no other process can open, ``:memory:``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mqconsole.ops import child as ch
from mqconsole.ops.child import (
    ChildEnded,
    Recipe,
    error_fields,
    plugin_recipes,
)
from mqconsole.ops.child import decode as _decode  # noqa: F401  (tests)
from mqconsole.ops.child import encode as _encode  # noqa: F401  (tests)
from mqconsole.ops.dlq.rows import HeldRows, Row, present

if TYPE_CHECKING:
    from mqconsole.backends.spec import BackendSpec
    from mqconsole.ops.journal import Rotation
    from mqconsole.ops.operation import Operation, Summary
    from mqconsole.plugins import PluginHost

Progress = Callable[..., None]


class Connections(Protocol):
    """The console's connections (``tui.context.Connections``)."""

    def main(self) -> Any: ...

    def new(self) -> Any: ...

    def release(self, qm: Any) -> None: ...


class HandlerRunner(Protocol):
    """Plans and runs the handler screen's pass (the calls block: the screen makes them in
    a thread worker); an error raised is said as the same error in process is. The summary
    lists its messages as ``extra["listed"]`` (``ops.dlq.rows.Listed``), the rows kept by
    the runner: :meth:`rows` gives them (None: a newer plan or run replaced them)."""

    def plan(self, op: Operation, conns: Connections, progress: Progress,
             cancel: threading.Event) -> Summary: ...

    def run(self, op: Operation, conns: Connections, progress: Progress,
            cancel: threading.Event) -> Summary: ...

    def rows(self, token: int, start: int, stop: int) -> list[Row] | None: ...

    def close(self) -> None: ...


class InProcess:
    """The pass in this process, on a connection of its own (as every console operation);
    its listed messages kept here as rows."""

    def __init__(self) -> None:
        self.held = HeldRows()

    def plan(self, op: Operation, conns: Connections, progress: Progress,
             cancel: threading.Event) -> Summary:
        qm = conns.new()
        try:
            op.validate(qm)
            return present(op.preview(qm, progress=progress, cancel=cancel), self.held)
        finally:
            conns.release(qm)

    def run(self, op: Operation, conns: Connections, progress: Progress,
            cancel: threading.Event) -> Summary:
        qm = conns.new()
        try:
            return present(op.run(qm, progress=progress, cancel=cancel), self.held)
        finally:
            conns.release(qm)

    def rows(self, token: int, start: int, stop: int) -> list[Row] | None:
        return self.held.rows(token, start, stop)

    def close(self) -> None:
        """Nothing to let go."""


class HandlerFailed(ch.ChildFailed):
    """The pass failed in the handler's process: ``str(e)`` is its sentence."""


# -- what a job is -----------------------------------------------------------------------------

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


def plugin_host(recipes: Iterable[Recipe]) -> PluginHost | None:
    """The plugins of :func:`plugin_recipes`, loaded here (None: none)."""
    return ch.plugin_host(recipes, what="the dead-letter handler", failed=HandlerFailed)


def error_of(fields: dict[str, Any]) -> BaseException:
    """The error the child reported, made again (``ops.child.error_of``)."""
    return ch.error_of(fields, failed=HandlerFailed)


# -- the console's side ------------------------------------------------------------------------

def child_command() -> list[str]:
    """How the console starts the handler's process: this Python, this mqconsole."""
    return ch.child_command("mqconsole.ops.dlq.child")


class HandlerChild:
    """A :class:`HandlerRunner` whose plans and runs happen in a child process (started on
    the first, ended by :meth:`close`; ``ops.child.Channel``); a queue manager no other
    process can open is planned and run in this one (:class:`InProcess`). ``command``:
    another program speaking the same lines (a test's stand-in)."""

    def __init__(self, *, command: Sequence[str] | None = None) -> None:
        self.channel = ch.Channel(command if command is not None else child_command(),
                                  name="handler-child")
        self._here = InProcess()
        self._in_child = False  # the latest plan or run was the child's (its rows there)

    @property
    def process(self) -> Any:
        """The latest child (tests wait on it)."""
        return self.channel.process

    def plan(self, op: Operation, conns: Connections, progress: Progress,
             cancel: threading.Event) -> Summary:
        spec = self._spec(conns)
        self._in_child = spec is not None
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
        self._in_child = spec is not None
        if spec is None:
            return self._here.run(op, conns, progress, cancel)
        return self._call("run", op, Request.of(op, spec), progress, cancel)

    def rows(self, token: int, start: int, stop: int) -> list[Row] | None:
        if not self._in_child:
            return self._here.rows(token, start, stop)

        def ended(how: str) -> str:
            return f"the dead-letter handler's process ended {how}: plan again to list"

        out: list[Row] | None = self.channel.call(
            "rows", (token, start, stop), lambda _fields: None, threading.Event(),
            ended=ended, error=error_of, start=False)
        return out

    @staticmethod
    def _spec(conns: Connections) -> BackendSpec | None:
        from mqconsole.backends.open import reopen_spec

        return reopen_spec(conns.main())

    def close(self) -> None:
        """End the child: its input closes (it stops what runs at the next message, backs
        the open unit of work out and ends), and a thread makes sure it has ended."""
        self.channel.close()

    def _call(self, what: str, op: Operation, request: Request, progress: Progress,
              cancel: threading.Event) -> Any:
        wants_matched = getattr(progress, "wants_matched", False)

        def on_progress(fields: list[Any]) -> None:
            done, total, matched = [*fields, None][:3]  # (a plan's calls say no match)
            if matched is not None and wants_matched:
                progress(done, total, matched)
            else:
                progress(done, total)

        def ended(how: str) -> str:
            after = (": its open unit of work is backed out, what it committed stays done "
                     "and is in the journal") if what == "run" else ""
            return f"the dead-letter handler's process ended before answering {how}{after}"

        return self.channel.call(what, request, on_progress, cancel, ended=ended,
                                 stopped_by=lambda: op.face_details.get("stopped_by"),
                                 error=error_of)


def default_runner() -> HandlerRunner:
    """The console's: the pass in the handler's own process."""
    return HandlerChild()


# -- the child's side --------------------------------------------------------------------------

class Child(ch.Child):
    """Plans and runs each pass of its input in a thread of its own."""

    name = "handler child"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held = HeldRows()

    def prepare(self, request: Any) -> Operation | None:
        return request.operation() if isinstance(request, Request) else None

    def stopping(self, op: Operation | None, stopped_by: str) -> None:
        if op is not None:
            op.face_details.setdefault("stopped_by", stopped_by)  # the end record says

    def do(self, what: str, op: Operation | None, request: Any, progress: Progress,
           cancel: threading.Event) -> Any:
        if what == "rows":
            token, start, stop = request
            return self.held.rows(token, start, stop)
        assert op is not None
        return present(self.pass_of(what, op, request, progress, cancel), self.held)

    @staticmethod
    def pass_of(what: str, op: Operation, request: Request,
                progress: Progress, cancel: threading.Event) -> Summary:
        from mqconsole.backends.open import open_backend

        progress.wants_matched = True  # type: ignore[attr-defined]  # (Control.report)
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
    return ch.serve(Child)


if __name__ == "__main__":
    import sys

    sys.exit(main())


__all__ = ["ChildEnded", "HandlerChild", "HandlerFailed", "HandlerRunner", "InProcess",
           "Request", "default_runner", "error_fields", "error_of", "plugin_host",
           "plugin_recipes"]

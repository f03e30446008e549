"""The console's replay in a process of its own (issue 23 item 3).

Replaying a queue of thousands of messages makes and drops millions of small model objects;
in the console's process Python's arenas kept 9-12 MB of them after the replay screen closed
(docs/benchmarks.md). Here they go when the process ends. The result stays here too
(``ops.replayview.Held``: 9.3 MB of events and timeline for 10,000 messages): the console
gets what it shows at once (``Shown``: the summary, the first page of rows, the first step)
and asks for the rows that come into view and the step under the cursor (``RemoteView``),
until the screen closes and this process ends. The replay is the same code as
``mqconsole replay --queue`` (:func:`mqconsole.ops.replay.replay_queue`, its limits; issue
23 item 5) or ``mqconsole replay FILE`` for a scenario file: :func:`replay_for_console`,
in process and in the child alike, on a connection of the child's own to the same queue
manager (nothing on it changes: the replay only inquires and browses).

The plumbing (start, the pipe's protocol, stop) is ``ops.child``'s: job ``"replay"`` of a
pickled :class:`ReplayRequest`; progress ``[WHAT, DONE, TOTAL]``; the result a ``Shown``
(the result itself kept here, replacing the one kept before); a stop (the operator's ctrl+x,
or the screen closing) comes back as :class:`~mqconsole.ops.replay.ReplayStopped`. Jobs
``"rows"`` (``(token, start, stop)``), ``"step"`` (``(token, index)``) and ``"json"``
(``token``) ask about the result kept (None: a newer one replaced it). :class:`InProcess`
replays in the console's process and keeps the result there (the pilot tests; a queue
manager no other process can open, ``:memory:``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mqconsole.ops import child as ch
from mqconsole.ops.replayview import Held, LocalView, ReplayView, Shown, StepView

if TYPE_CHECKING:
    from mqconsole.backends.spec import BackendSpec
    from mqconsole.plugins import PluginHost

#: progress(what, done, total): "read" messages, then "replayed" events
Progress = Callable[[str, int, "int | None"], None]
SCENARIO_SUFFIXES = (".yaml", ".yml")


class Connections(Protocol):
    """The console's connections (``tui.context.Connections``)."""

    def main(self) -> Any: ...

    def call(self, fn: Callable[[Any], Any]) -> Any: ...


class ReplayRunner(Protocol):
    """Replays for the replay screen (the call blocks: the screen makes it in a thread
    worker): the view of its result, kept where it was made; a stop comes back as
    ``ReplayStopped``, an error is said as in process."""

    def replay(self, queue: str, endpoints: str, fails: Sequence[str], conns: Connections,
               plugins: PluginHost, progress: Progress,
               stop: threading.Event) -> ReplayView: ...

    def close(self) -> None: ...


def is_scenario(queue: str) -> bool:
    return queue.endswith(SCENARIO_SUFFIXES)


def replay_for_console(queue: str, endpoints: str, fails: Sequence[str], *,
                       call: Callable[[Callable[[Any], Any]], Any],
                       failure_rules: Callable[[bool], Mapping[str, Any]],
                       progress: Progress, stop: threading.Event) -> tuple[Any, str]:
    """The scenario file ``queue``, or the queue by ``mqconsole replay --queue``'s code
    (``replay_queue``, its default limits) on ``call(fn)``'s queue manager: ``(result,
    note)``. ``failure_rules(needed)``: the site plugins' rules when a rule asks for one."""
    from mqconsole.ops import replay as rp

    if is_scenario(queue):
        scenario = rp.load_scenario(queue)
        rules = failure_rules(any(r.plugin for r in scenario.failures))
        result = rp.run_scenario(scenario, timeline=True, plugins=dict(rules),
                                 progress=progress, stop=stop)
        return result, f"scenario {queue}"
    if endpoints:
        eps = rp.load_endpoints(endpoints)
    else:
        from mqconsole.model import EndpointsFile
        from mqconsole.ops.doctor import default_endpoint

        eps = EndpointsFile((default_endpoint(queue),))
    rules = failure_rules(any("plugin" in f.lower() for f in fails))
    run = call(lambda qm: rp.replay_queue(qm, queue, eps, list(fails), timeline=True,
                                          plugins=dict(rules), progress=progress, stop=stop))
    note = f"{queue} read by {', '.join(run.endpoints)}"
    if run.truncated:
        note += f" (only the first {run.max_messages:,} messages were modelled)"
    return run.result, note


def _rules_of(host: PluginHost | None) -> Callable[[bool], Mapping[str, Any]]:
    return lambda needed: dict(host.failure_rules()) if needed and host is not None else {}


class InProcess:
    """The replay in this process, on the console's main connection; its result kept here."""

    def replay(self, queue: str, endpoints: str, fails: Sequence[str], conns: Connections,
               plugins: PluginHost, progress: Progress,
               stop: threading.Event) -> ReplayView:
        result, note = replay_for_console(queue, endpoints, fails, call=conns.call,
                                          failure_rules=_rules_of(plugins),
                                          progress=progress, stop=stop)
        return LocalView(Held(result, note))

    def close(self) -> None:
        """Nothing to let go."""


@dataclass
class ReplayRequest:
    """What the child needs to replay as the console would."""

    queue: str  # or a scenario file (relative to the console's directory: the child's too)
    endpoints: str
    fails: list[str]
    connection: BackendSpec | None  # None: a scenario file (no queue manager)
    plugins: list[ch.Recipe] = field(default_factory=list)


def _error_of(fields: dict[str, Any]) -> BaseException:
    from mqconsole.ops.replay import ReplayStopped

    return ch.error_of(fields, kinds={"ReplayStopped": ReplayStopped})


class ReplayChild:
    """A :class:`ReplayRunner` whose replays happen in a child process (started on the
    first, ended by :meth:`close`); a queue manager no other process can open is replayed
    in this one (:class:`InProcess`). ``command``: another program speaking the same lines."""

    def __init__(self, *, command: Sequence[str] | None = None) -> None:
        self.channel = ch.Channel(command if command is not None else child_command(),
                                  name="replay-child")
        self._here = InProcess()

    @property
    def process(self) -> Any:
        """The latest child (tests wait on it)."""
        return self.channel.process

    def replay(self, queue: str, endpoints: str, fails: Sequence[str], conns: Connections,
               plugins: PluginHost, progress: Progress,
               stop: threading.Event) -> ReplayView:
        from mqconsole.backends.open import reopen_spec

        scenario = is_scenario(queue)
        spec = None if scenario else reopen_spec(conns.main())
        if spec is None and not scenario:
            return self._here.replay(queue, endpoints, fails, conns, plugins, progress, stop)
        # the site plugins go when a rule may ask for one (as ``mqconsole replay`` loads them)
        needed = scenario or any("plugin" in f.lower() for f in fails)
        request = ReplayRequest(queue, endpoints, list(fails), spec,
                                ch.plugin_recipes(plugins) if needed else [])

        def on_progress(fields: list[Any]) -> None:
            what, done, total = fields
            progress(str(what), int(done), None if total is None else int(total))

        def ended(how: str) -> str:
            return f"the replay's process ended before answering {how}"

        shown: Shown = self.channel.call("replay", request, on_progress, stop, ended=ended,
                                         error=_error_of)
        return RemoteView(self, shown)

    def ask(self, job: str, request: object) -> Any:
        """A question about the result the child keeps (blocks: a thread worker's)."""

        def ended(how: str) -> str:
            return f"the replay's process ended {how}: replay again to see its result"

        return self.channel.call(job, request, lambda _fields: None, threading.Event(),
                                 ended=ended, error=_error_of, start=False)

    def close(self) -> None:
        """End the child (a replay running stops at its next step)."""
        self.channel.close()


class RemoteView:
    """A result kept in the replay's process (``ReplayView``)."""

    def __init__(self, child: ReplayChild, shown: Shown) -> None:
        self._child = child
        self.shown = shown

    def rows(self, start: int, stop: int) -> list[Any] | None:
        out: list[Any] | None = self._child.ask("rows", (self.shown.token, start, stop))
        return out

    def step(self, index: int) -> StepView | None:
        out: StepView | None = self._child.ask("step", (self.shown.token, index))
        return out

    def to_json(self) -> dict[str, Any] | None:
        out: dict[str, Any] | None = self._child.ask("json", self.shown.token)
        return out


def child_command() -> list[str]:
    return ch.child_command("mqconsole.ops.replaychild")


def default_runner() -> ReplayRunner:
    """The console's: the replay in its own process."""
    return ReplayChild()


class Child(ch.Child):
    """Replays each request of its input in a thread of its own, and keeps the latest
    result to answer about it."""

    name = "replay child"
    held: Held | None = None

    def do(self, job: str, state: Any, request: Any, progress: Callable[..., None],
           cancel: threading.Event) -> Any:
        if job == "replay":
            result, note = self.replay(request, progress, cancel)
            token = (self.held.token if self.held is not None else 0) + 1
            made = Held(result, note, token=token)
            self.held = made  # the one before goes
            return made.shown()
        held = self.held
        if job == "rows":
            token, start, stop = request
            return held.rows(start, stop) if held is not None and held.token == token \
                else None
        if job == "step":
            token, index = request
            return held.step(index) if held is not None and held.token == token else None
        if job == "json":
            return held.to_json() if held is not None and held.token == request else None
        raise ValueError(f"the replay's process has no job {job!r}")

    @staticmethod
    def replay(request: ReplayRequest, progress: Callable[..., None],
               cancel: threading.Event) -> tuple[Any, str]:
        host = ch.plugin_host(request.plugins, what="the replay")

        def call(fn: Callable[[Any], Any]) -> Any:
            from mqconsole.backends.open import open_backend

            assert request.connection is not None
            qm = open_backend(request.connection)
            try:
                return fn(qm)
            finally:
                qm.close()

        return replay_for_console(request.queue, request.endpoints, request.fails, call=call,
                                  failure_rules=_rules_of(host), progress=progress,
                                  stop=cancel)


def main(argv: Sequence[str] | None = None) -> int:
    return ch.serve(Child)


if __name__ == "__main__":
    import sys

    sys.exit(main())


__all__ = ["InProcess", "RemoteView", "ReplayChild", "ReplayRequest", "ReplayRunner",
           "default_runner", "replay_for_console"]

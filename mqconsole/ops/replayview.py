"""A replay's result as the replay screen shows it, kept where it was made (issue 23 item 3).

The result of a replay of 10,000 messages is about 138,000 small Python objects (its events,
its timeline's steps and its starting state: 9.3 MB once unpickled); in the console's process
Python's arenas kept that memory after the screen closed (docs/benchmarks.md). So the result
stays in the replay's process (:class:`Held`) and the console holds a :class:`Shown` — the
summary, the endpoints' short names, where the notable events are, the first page of rows and
the first step — and asks for the rows that come into view (:meth:`Held.rows`) and the step
under the cursor (:meth:`Held.step`), a page or a step at a time. A :class:`ReplayView` is
the console's handle on one held result: :class:`LocalView` in the console's own process
(a queue manager no other process can open; the pilot tests), ``ops.replaychild``'s
``RemoteView`` in the replay's process; both give the same values.

The texts are the model's (``ops.replay.event_text``); the console makes them safe to show.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mqconsole.model.result import ReplayResult

NOTABLE = frozenset({"requeued", "dead_lettered", "to_exception_destination",
                     "to_module_destination", "lost", "endpoint_stopped", "endpoint_started",
                     "qmgr_restart"})
MAX_LISTED = 12  # messages given per queue at one step (the pane says how many more)
PAGE = 200  # rows the first answer carries (the console asks for pages of its own size)

#: one event as the list shows it: its number (1-based), T(ms), its line (endpoints' short
#: names) and whether it moves a message or stops an endpoint (drawn bold; ``n``/``p``)
EventRow = tuple[int, str, str, bool]
#: a message on a queue at one step: its label, backout count, the session holding it or None
Listed = tuple[str, int, "str | None"]


@dataclass(frozen=True)
class StepView:
    """Every queue and endpoint just after event ``index`` (-1: before the first)."""

    index: int
    event: str | None  # the event's whole line (endpoints' names whole); None: before it
    queues: tuple[tuple[str, int, tuple[Listed, ...]], ...]  # (queue, depth, its first)
    endpoints: tuple[tuple[str, str, int], ...]  # (name, state, rollback counter)


@dataclass(frozen=True)
class Shown:
    """What the console holds of a replay: small whatever the result's size."""

    count: int  # events
    summary: dict[str, Any]  # the result's summary (counts, stopped_by)
    counts: str  # ops.replay.summary_text
    note: str  # what was replayed (the queue and who read it, or the scenario file)
    names: dict[str, str]  # endpoints' names shortened in the list (only those that differ)
    notable: array[int]  # the notable events' indexes, in order
    timeline: bool  # steps can be shown
    first: tuple[EventRow, ...] = ()  # rows 0.. (the first page)
    step: StepView | None = None  # at event 0 (or -1 with no events)
    token: int = 0  # which held result (a newer replay replaces the held one)


class Held:
    """A replay's result where it was made: its rows and steps, asked for."""

    def __init__(self, result: ReplayResult, note: str, *, token: int = 0) -> None:
        from mqconsole.ops.replay import short_name

        self.result = result
        self.note = note
        self.token = token
        self._lock = threading.Lock()  # a step folds (and keeps) the timeline's checkpoints
        endpoints = {str(ev.get("endpoint", "")) for ev in result.events}
        names = {n: short_name(n) for n in endpoints if n}
        self.names = {n: s for n, s in names.items() if s != n}

    def shown(self, first: int = PAGE) -> Shown:
        from mqconsole.ops.replay import summary_text

        events = self.result.events
        notable = array("l", (n for n, ev in enumerate(events) if ev["type"] in NOTABLE))
        return Shown(count=len(events), summary=dict(self.result.summary),
                     counts=summary_text(self.result), note=self.note, names=self.names,
                     notable=notable, timeline=self.result.timeline is not None,
                     first=tuple(self.rows(0, first)),
                     step=self.step(0 if events else -1), token=self.token)

    def rows(self, start: int, stop: int) -> list[EventRow]:
        from mqconsole.ops.replay import event_text

        events = self.result.events
        return [(n + 1, str(ev.get("t_ms", "")), event_text(ev, names=self.names),
                 ev["type"] in NOTABLE)
                for n, ev in enumerate(events[max(0, start):max(0, stop)], max(0, start))]

    def step(self, index: int) -> StepView | None:
        from mqconsole.ops.replay import event_text

        timeline = self.result.timeline
        if timeline is None:
            return None
        events = self.result.events
        index = min(index, len(events) - 1)
        with self._lock:
            queues = timeline.queues_at(index)
            endpoints = timeline.endpoints_at(index)
        return StepView(
            index=index,
            event=event_text(events[index]) if index >= 0 else None,
            queues=tuple((q, len(items), tuple((m.message, m.backout_count, m.in_flight)
                                               for m in items[:MAX_LISTED]))
                         for q, items in queues.items()),
            endpoints=tuple((name, st.state, st.rollback_counter)
                            for name, st in endpoints.items()))

    def to_json(self) -> dict[str, Any]:
        """The document of ``mqconsole replay --json`` (the same result)."""
        return self.result.to_json()


class ReplayView(Protocol):
    """The console's handle on a held result: what it holds (:attr:`shown`) and what it
    asks for (the calls block: the screen makes them in thread workers). A call about a
    result no longer held (a newer replay replaced it) returns None."""

    shown: Shown

    def rows(self, start: int, stop: int) -> Sequence[EventRow] | None: ...

    def step(self, index: int) -> StepView | None: ...

    def to_json(self) -> dict[str, Any] | None: ...


@dataclass
class LocalView:
    """A result held in this process (a replay made in process)."""

    held: Held
    shown: Shown = field(init=False)

    def __post_init__(self) -> None:
        self.shown = self.held.shown()

    def rows(self, start: int, stop: int) -> list[EventRow]:
        return self.held.rows(start, stop)

    def step(self, index: int) -> StepView | None:
        return self.held.step(index)

    def to_json(self) -> dict[str, Any]:
        return self.held.to_json()


def next_notable(notable: Sequence[int], index: int, step: int) -> int | None:
    """The first notable event after ``index`` (``step`` 1) or before it (-1), or None."""
    from bisect import bisect_left, bisect_right

    if step > 0:
        at = bisect_right(notable, index)
        return notable[at] if at < len(notable) else None
    at = bisect_left(notable, index) - 1
    return notable[at] if at >= 0 else None


__all__ = ["MAX_LISTED", "NOTABLE", "PAGE", "EventRow", "Held", "Listed", "LocalView",
           "ReplayView", "Shown", "StepView", "next_notable"]

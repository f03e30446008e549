"""What a replay produces (replay-format.md "Result"), and a timeline a screen can step through.

:class:`ReplayResult` holds the event log (plain dicts, exactly as the JSON shows them), the
final state and the summary; :meth:`ReplayResult.to_json` is the document of
``mqconsole replay --json``. When the engine is asked to record one, ``timeline`` is a
:class:`Timeline`: for every event, the messages it changed and the state of every
endpoint, so ``timeline.queues_at(i)`` gives every queue's messages just after event
``i`` (``-1``: before the first event).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EVENT_TYPES = (
    "deliver", "success", "rollback", "transaction_timeout", "counter_reset",
    "endpoint_stopped", "endpoint_started", "requeued", "dead_lettered",
    "to_exception_destination", "blocked_retry_wait", "lost", "qmgr_restart",
    "attribute_changed", "to_module_destination",
)
SUMMARY_COUNTS = {  # summary key -> the event type it counts
    "deliveries": "deliver", "successes": "success", "rollbacks": "rollback",
    "requeued": "requeued", "dead_lettered": "dead_lettered",
    "to_exception_destination": "to_exception_destination", "lost": "lost",
    "endpoint_stops": "endpoint_stopped",
}
STOPPED_BY = ("idle", "all_endpoints_stopped", "limits")


@dataclass(frozen=True, slots=True)
class MessageState:
    """One message on a queue at one step."""

    message: str
    backout_count: int
    in_flight: str | None = None  # "ENDPOINT/session" while a session holds it

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "backout_count": self.backout_count}


QueueContents = tuple[MessageState, ...]


@dataclass(frozen=True, slots=True)
class EndpointState:
    state: str  # running | stopped
    rollback_counter: int

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "rollback_counter": self.rollback_counter}


Change = tuple[str, int, MessageState | None]  # (queue, place, the message there or None: gone)
Keyed = dict[str, dict[int, MessageState]]  # queue -> place -> message, in queue order


@dataclass(frozen=True, slots=True)
class Step:
    """One event and what it changed: only the messages it touched, not whole queues (a
    queue of 5,000 messages copied at each of 10,000 events took minutes)."""

    index: int  # 0-based position in the event log (event["seq"] - 1)
    event: dict[str, Any]
    changed: tuple[Change, ...]  # the messages this event put, changed or took away
    endpoints: dict[str, EndpointState]  # every endpoint after this event


def _copy(state: Keyed) -> Keyed:
    return {name: dict(items) for name, items in state.items()}


def _apply(state: Keyed, changes: tuple[Change, ...]) -> None:
    for queue, place, message in changes:
        items = state.setdefault(queue, {})
        if message is None:
            items.pop(place, None)
        else:  # a new place is larger than every other one: it goes at the end
            items[place] = message


@dataclass
class Timeline:
    """Steps through a replay: the event log with queue contents at each step.

    The state after an event is folded from the nearest checkpoint (one every ``_EVERY``
    events, made when first asked for, at most ``_KEPT`` of them kept)."""

    queue_names: tuple[str, ...]
    start: Keyed
    initial_endpoints: dict[str, EndpointState]
    steps: list[Step] = field(default_factory=list)
    _checkpoints: dict[int, Keyed] = field(default_factory=dict, repr=False)

    _EVERY = 256
    _KEPT = 16

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def initial(self) -> dict[str, QueueContents]:
        """Every queue's messages before the first event."""
        return _contents(self.start)

    def queues_at(self, index: int) -> dict[str, QueueContents]:
        """Every queue's messages just after event ``index`` (-1: the starting state)."""
        if index < 0 or not self.steps:
            return self.initial
        index = min(index, len(self.steps) - 1)
        base = (index // self._EVERY) * self._EVERY - 1  # a checkpoint is the state after it
        if base >= 0 and base not in self._checkpoints:
            self._checkpoint(base)
        state = _copy(self._checkpoints[base] if base >= 0 else self.start)
        self._fold(state, base + 1, index)
        return _contents(state)

    def _checkpoint(self, base: int) -> None:
        nearer = max((k for k in self._checkpoints if k < base), default=-1)
        state = _copy(self._checkpoints[nearer] if nearer >= 0 else self.start)
        self._fold(state, nearer + 1, base)
        while len(self._checkpoints) >= self._KEPT:
            del self._checkpoints[next(iter(self._checkpoints))]
        self._checkpoints[base] = state

    def _fold(self, state: Keyed, start: int, end: int) -> None:
        for step in self.steps[start:end + 1]:
            _apply(state, step.changed)

    def endpoints_at(self, index: int) -> dict[str, EndpointState]:
        if index < 0 or not self.steps:
            return dict(self.initial_endpoints)
        return dict(self.steps[min(index, len(self.steps) - 1)].endpoints)

    def times(self) -> list[int]:
        return [s.event["t_ms"] for s in self.steps]


def _contents(state: Keyed) -> dict[str, QueueContents]:
    return {name: tuple(items.values()) for name, items in state.items()}


@dataclass
class ReplayResult:
    events: list[dict[str, Any]]
    final: dict[str, Any]
    summary: dict[str, Any]
    timeline: Timeline | None = None

    def to_json(self) -> dict[str, Any]:
        """The document of ``mqconsole replay --json`` (replay-format.md)."""
        return {"events": self.events, "final": self.final, "summary": self.summary}

    @property
    def stopped_by(self) -> str:
        return self.summary["stopped_by"]

    def events_of(self, *types: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] in types]

    def where_is(self, message: str) -> str | None:
        """The queue a message ended on, ``"lost"``, or None when it is unknown."""
        for queue, items in self.final["queues"].items():
            if any(m["message"] == message for m in items):
                return queue
        if any(m["message"] == message for m in self.final["lost"]):
            return "lost"
        return None

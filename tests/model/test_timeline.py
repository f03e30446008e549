"""The timeline a screen steps through: queue contents and endpoint states at each event."""

from __future__ import annotations

import textwrap

from mqconsole.model import MessageState, parse_scenario, replay
from mqconsole.model.engine import Engine
from mqconsole.model.engine import _state as state_of
from mqconsole.model.result import EndpointState

from .conftest import run_yaml

SCENARIO = """
queues: [{name: Q, bothresh: 2, boqname: Q.BOQ}, {name: Q.BOQ}]
messages: [{id: p, queue: Q}, {id: m2, queue: Q}]
endpoints: [{name: E, queue: Q, provider: mq_activation_spec, max_server_sessions: 1,
             sequential_failures_before_suspend: 3}]
failures: [{messages: [p]}]
"""


def test_steps_follow_the_log_with_queue_contents():
    r = run_yaml(SCENARIO, record=True)
    tl = r.timeline
    assert len(tl) == len(r.events)
    assert [s.event for s in tl.steps] == r.events
    assert tl.queues_at(-1) == {"Q": (MessageState("p", 0), MessageState("m2", 0)),
                                "Q.BOQ": ()}
    # after the first deliver, p is held by session 1
    assert tl.queues_at(0)["Q"][0] == MessageState("p", 0, "E/1")
    # after the rollback it is back, count 1
    assert tl.queues_at(1)["Q"][0] == MessageState("p", 1, None)
    assert tl.endpoints_at(1) == {"E": EndpointState("running", 1)}
    last = len(tl) - 1
    assert tl.steps[last].event["type"] == "requeued"
    assert tl.queues_at(last) == {"Q": (), "Q.BOQ": (MessageState("p", 0),)}
    assert tl.times() == [e["t_ms"] for e in r.events]


class Snapshots(Engine):
    """The oracle: every queue's whole contents copied at each event (what the timeline
    once stored, and took minutes for on a 5,000-message queue)."""

    def __init__(self, *args, **kw) -> None:
        self.snapshots: list[dict] = []
        super().__init__(*args, record=True, **kw)

    def _emit(self, type_, **fields) -> None:
        super()._emit(type_, **fields)
        self.snapshots.append({name: tuple(state_of(m) for m in q)
                               for name, q in self.queues.items() if name in seen(self)})


def seen(engine: Snapshots) -> set[str]:
    """The queues the timeline knows at this point: those it started with and those a
    message has been put to since (a system exception destination made on the way)."""
    known = set(engine.timeline.start)
    for step in engine.timeline.steps:
        known.update(q for q, _, _ in step.changed)
    return known


def agrees_with_snapshots(scenario) -> int:
    engine = Snapshots(scenario)
    tl = engine.run().timeline
    for i, snapshot in enumerate(engine.snapshots):
        assert tl.queues_at(i) == snapshot, f"after event {i + 1}"
    return len(engine.snapshots)


def test_checkpoints_agree_with_whole_snapshots():
    scenario = parse_scenario(textwrap.dedent("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}, {id: a, queue: Q}, {id: b, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false, max_server_sessions: 2}]
        failures: [{messages: [p]}]
        limits: {max_events: 1000}
    """))
    assert agrees_with_snapshots(scenario) > 600  # past two checkpoints
    tl = replay(scenario, record=True).timeline
    assert tl.queues_at(10**6) == tl.queues_at(len(tl) - 1)  # past the end: the last state


def test_a_step_holds_the_messages_it_changed_not_whole_queues():
    queue = "queues: [{name: Q, bothresh: 2, boqname: Q.BOQ}, {name: Q.BOQ}]\n"
    messages = "messages: [" + ", ".join(f"{{id: m{i}, queue: Q}}" for i in range(300)) + "]\n"
    r = run_yaml(queue + messages + """
endpoints: [{name: E, queue: Q, provider: mq_activation_spec, max_server_sessions: 1,
             stop_endpoint_on_failure: false}]
failures: [{messages: [m0]}]
""", record=True)
    assert max(len(step.changed) for step in r.timeline.steps) <= 2  # off one queue, onto one


def test_without_recording_there_is_no_timeline():
    assert run_yaml(SCENARIO).timeline is None

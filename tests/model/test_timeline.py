"""The timeline a screen steps through: queue contents and endpoint states at each event."""

from __future__ import annotations

from mqconsole.model import MessageState
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


def test_checkpoints_agree_with_a_plain_fold():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}, {id: a, queue: Q}, {id: b, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false, max_server_sessions: 2}]
        failures: [{messages: [p]}]
        limits: {max_events: 1000}
    """, record=True)
    tl = r.timeline
    assert len(tl) > 600
    state = dict(tl.initial)
    for i, step in enumerate(tl.steps):
        state.update(step.changed)
        if i % 97 == 0 or i == len(tl) - 1:
            assert tl.queues_at(i) == state
    assert tl.queues_at(10**6) == state  # past the end: the last state


def test_without_recording_there_is_no_timeline():
    assert run_yaml(SCENARIO).timeline is None

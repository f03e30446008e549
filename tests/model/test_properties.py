"""Property tests: any valid scenario replays deterministically and conserves its messages."""

from __future__ import annotations

import itertools
import json
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from mqconsole.model import EVENT_TYPES, replay, scenario_from_data
from mqconsole.model.result import SUMMARY_COUNTS
from tests.support.examples import examples

INPUTS = ["Q1", "Q2"]
SETTINGS = examples(60)


@st.composite
def scenarios(draw) -> dict:
    queues = []
    for name in INPUTS:
        queues.append({
            "name": name,
            "bothresh": draw(st.integers(0, 3)),
            "boqname": draw(st.sampled_from(["", "BOQ", "MISSING", "DLQ"])),
            "hardenbo": draw(st.booleans()),
            "max_failed_deliveries": draw(st.integers(1, 3)),
            "exception_destination": draw(st.sampled_from(["system", "none", "PARK", "NOPE"])),
            "blocked_retry_timeout_ms": draw(st.sampled_from([-1, 0, 50])),
        })
    queues.append({"name": "BOQ", "put_inhibited": draw(st.booleans()),
                   "max_depth": draw(st.integers(0, 4))})
    queues += [{"name": "DLQ", "max_depth": draw(st.integers(0, 50))}, {"name": "PARK"}]
    n = draw(st.integers(0, 8))
    messages = [{"id": f"m{i}", "queue": draw(st.sampled_from([*INPUTS, "BOQ"])),
                 "backout_count": draw(st.integers(0, 3)), "persistent": draw(st.booleans())}
                for i in range(n)]
    endpoints = []
    for i in range(draw(st.integers(1, 3))):
        provider = draw(st.sampled_from(["sib", "mq_activation_spec", "mq_listener_port",
                                         "sca_export"]))
        ep = {"name": f"E{i}", "queue": draw(st.sampled_from(INPUTS)), "provider": provider,
              "run_as": draw(st.sampled_from(["app", "other"])),
              "transaction": draw(st.sampled_from(["required", "not_supported",
                                                   "bean_managed"])),
              "syncpoint": draw(st.booleans()),
              "stop_endpoint_on_failure": draw(st.booleans()),
              "sequential_failures_before_suspend": draw(st.integers(0, 3)),
              "max_server_sessions": draw(st.integers(1, 3)),
              "max_sessions": draw(st.integers(1, 2)),
              "max_retries": draw(st.integers(0, 2)),
              "processing_ms": draw(st.integers(1, 20)),
              "non_asf_receive_timeout_ms": draw(st.sampled_from([0, 30, 100])),
              "arrival_wait_ms": draw(st.integers(0, 60)),
              "total_transaction_lifetime_timeout_s": draw(st.integers(0, 1))}
        if provider == "sca_export":
            ep["binding"] = draw(st.sampled_from(["mq", "jms"]))
            ep["module_destination"] = f"MOD{i}"
        endpoints.append(ep)
    failures = []
    ids = [m["id"] for m in messages]
    for _ in range(draw(st.integers(0, 3))):
        rule: dict = {}
        if ids and draw(st.booleans()):
            rule["messages"] = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3,
                                             unique=True))
        if draw(st.booleans()):
            rule["first"] = draw(st.integers(1, 4))
        if draw(st.booleans()) or not rule:
            a = draw(st.integers(0, 200))
            rule["between_ms"] = [a, a + draw(st.integers(0, 300))]
        rule["kind"] = draw(st.sampled_from(["component", "export"]))
        rule["then"] = draw(st.sampled_from(["rollback", "rollback", "discard",
                                             {"move": "PARK"}]))
        failures.append(rule)
    actions = []
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, 300))
        kind = draw(st.sampled_from(["ep", "qm", "set"]))
        if kind == "ep":
            actions.append({"at_ms": at, "restart_endpoint": draw(
                st.sampled_from([e["name"] for e in endpoints]))})
        elif kind == "qm":
            actions.append({"at_ms": at, "restart_queue_manager": True})
        else:
            actions.append({"at_ms": at, "set_queue": {
                "name": draw(st.sampled_from(INPUTS)), "bothresh": draw(st.integers(0, 2))}})
    data = {
        "queue_manager": {"platform": draw(st.sampled_from(["distributed", "zos"])),
                          "dead_letter_queue": draw(st.sampled_from(["", "DLQ", "NODLQ"]))},
        "queues": queues, "messages": messages, "endpoints": endpoints,
        "failures": failures, "actions": actions,
        "limits": {"max_events": draw(st.integers(20, 400)),
                   "until_ms": draw(st.integers(50, 3000))},
    }
    if draw(st.booleans()):
        data["authorities"] = [{"principal": "app", "queue": "*", "grant": ["all"]},
                               {"principal": "other", "queue": "DLQ", "grant": ["put"]}]
    return data


@SETTINGS
@given(scenarios())
def test_same_scenario_same_result(data):
    sc = scenario_from_data(data)
    first = replay(sc).to_json()
    second = replay(scenario_from_data(data), record=True).to_json()
    assert first == second
    assert json.loads(json.dumps(first)) == first


@SETTINGS
@given(scenarios())
def test_the_timeline_agrees_with_whole_snapshots_at_every_event(data):
    from .test_timeline import agrees_with_snapshots

    agrees_with_snapshots(scenario_from_data(data))


@SETTINGS
@given(scenarios())
def test_every_message_ends_exactly_once_and_the_log_is_well_formed(data):
    sc = scenario_from_data(data)
    r = replay(sc, record=True)
    doc = r.to_json()
    final = doc["final"]
    # on a queue, lost, or consumed by a successful delivery: exactly one of them
    where = Counter(m["message"] for items in final["queues"].values() for m in items)
    where.update(m["message"] for m in final["lost"])
    where.update(e["message"] for e in doc["events"] if e["type"] == "success")
    assert where == Counter(m["id"] for m in data["messages"])
    assert all(c == 1 for c in where.values())
    in_flight = {(m["message"], m["queue"]) for m in final.get("in_flight", [])}
    for msg, queue in in_flight:
        assert any(m["message"] == msg for m in final["queues"][queue])
    assert in_flight == set() or doc["summary"]["stopped_by"] == "limits"
    events = doc["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert all(a["t_ms"] <= b["t_ms"] for a, b in itertools.pairwise(events))
    assert all(e["type"] in EVENT_TYPES for e in events)
    assert len(events) <= data["limits"]["max_events"]
    counts = Counter(e["type"] for e in events)
    for key, type_ in SUMMARY_COUNTS.items():
        assert doc["summary"][key] == counts[type_]
    assert set(final["endpoints"]) == {e["name"] for e in data["endpoints"]}
    # the timeline ends where the final state is
    last = r.timeline.queues_at(len(r.timeline) - 1)
    assert {q: [(m.message, m.backout_count) for m in items] for q, items in last.items()} == \
        {q: [(m["message"], m["backout_count"]) for m in items]
         for q, items in final["queues"].items()}

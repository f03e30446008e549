"""One test (at least) per rule of delivery-model.md, each asserting the exact log or state."""

from __future__ import annotations

import pytest

from .conftest import brief, queues, run_yaml

SIB_EXC = "_SYSTEM.Exception.Destination.ME1"


def ev(seq, t, type_, **fields):
    return {"seq": seq, "t_ms": t, "type": type_, **fields}


def d(seq, t, msg, ep, session, queue, count):
    return ev(seq, t, "deliver", message=msg, endpoint=ep, session=session, queue=queue,
              backout_count=count)


# -- §1 transaction modes -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["", "transaction: required", "transaction: not_supported",
                                  "transaction: bean_managed"])
def test_failure_under_syncpoint_rolls_back(mode):
    r = run_yaml(f"""
        queues: [{{name: Q}}]
        messages: [{{id: m1, queue: Q}}]
        endpoints:
          - {{name: E, queue: Q, provider: mq_activation_spec, stop_endpoint_on_failure: false,
              {mode}}}
        failures: [{{messages: [m1], first: 1}}]
    """.replace(",\n              }", "}"))
    assert r.events == [
        d(1, 0, "m1", "E", 1, "Q", 0),
        ev(2, 10, "rollback", message="m1", endpoint="E", session=1, queue="Q",
           backout_count=1, rollback_counter=0),
        d(3, 10, "m1", "E", 1, "Q", 1),
        ev(4, 20, "success", message="m1", endpoint="E", session=1, queue="Q",
           backout_count=1),
    ]
    assert queues(r) == {"Q": []}
    assert r.final["lost"] == []


@pytest.mark.parametrize("mode", ["not_supported", "bean_managed"])
def test_no_syncpoint_loses_the_message_and_counts_as_a_failure(mode):
    r = run_yaml(f"""
        queues: [{{name: Q}}]
        messages: [{{id: m1, queue: Q}}, {{id: m2, queue: Q}}]
        endpoints:
          - {{name: E, queue: Q, provider: mq_activation_spec, transaction: {mode},
              syncpoint: false, sequential_failures_before_suspend: 1, max_server_sessions: 1}}
        failures: [{{messages: [m1]}}]
    """)
    assert r.events == [
        d(1, 0, "m1", "E", 1, "Q", 0),
        ev(2, 10, "lost", message="m1", endpoint="E", session=1, queue="Q", backout_count=0),
        ev(3, 10, "endpoint_stopped", endpoint="E", queue="Q", rollback_counter=1),
    ]
    assert not r.events_of("rollback")
    assert r.final["lost"] == [{"message": "m1", "queue": "Q", "t_ms": 10}]
    assert queues(r) == {"Q": [("m2", 0)]}
    assert r.summary["lost"] == 1 and r.summary["rollbacks"] == 0


def test_no_syncpoint_loss_counts_for_max_retries():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: m1, queue: Q}, {id: m2, queue: Q}]
        endpoints:
          - {name: LP, queue: Q, provider: mq_listener_port, transaction: bean_managed,
             syncpoint: false}
        failures: [{messages: [m1]}]
    """)
    assert brief(r) == [(0, "deliver", "m1"), (10, "lost", "m1"), (10, "endpoint_stopped", "LP")]
    assert r.final["endpoints"]["LP"] == {"state": "stopped", "rollback_counter": 0}


def test_consumer_discards_a_message_itself():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: m1, queue: Q}, {id: m2, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec, max_server_sessions: 1}]
        failures: [{messages: [m1], then: discard}]
    """)
    assert brief(r) == [(0, "deliver", "m1"), (10, "lost", "m1"), (10, "deliver", "m2"),
                        (20, "success", "m2")]
    assert r.final["lost"] == [{"message": "m1", "queue": "Q", "t_ms": 10}]
    assert r.final["endpoints"]["E"] == {"state": "running", "rollback_counter": 0}


def test_consumer_moves_a_message_itself():
    r = run_yaml("""
        queues: [{name: Q}, {name: PARK}]
        messages: [{id: m1, queue: Q, backout_count: 2}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec}]
        failures: [{messages: [m1], then: {move: PARK}}]
    """)
    assert r.events[1] == ev(2, 10, "requeued", message="m1", endpoint="E", session=1,
                             queue="Q", backout_count=2, to="PARK")
    assert queues(r) == {"Q": [], "PARK": [("m1", 0)]}


def test_consumer_move_to_an_inhibited_queue_rolls_back_instead():
    r = run_yaml("""
        queues: [{name: Q}, {name: PARK, put_inhibited: true}]
        messages: [{id: m1, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec}]
        failures: [{messages: [m1], then: {move: PARK}}]
    """)
    assert brief(r) == [(0, "deliver", "m1"), (10, "rollback", "m1"),
                        (10, "endpoint_stopped", "E")]
    assert queues(r) == {"Q": [("m1", 1)], "PARK": []}


# -- §2 the service integration bus -----------------------------------------------------------


def test_sib_defaults_five_failures_then_the_system_exception_destination():
    r = run_yaml("""
        queues: [{name: SIB.Q}]
        messages: [{id: p, queue: SIB.Q}, {id: g, queue: SIB.Q}]
        endpoints: [{name: S, queue: SIB.Q, provider: sib, max_server_sessions: 1}]
        failures: [{messages: [p]}]
    """)
    assert brief(r, keep=("backout_count",)) == [
        (0, "deliver", "p", 0), (10, "rollback", "p", 1), (10, "deliver", "g", 0),
        (20, "success", "g", 0), (20, "deliver", "p", 1), (30, "rollback", "p", 2),
        (30, "deliver", "p", 2), (40, "rollback", "p", 3), (40, "deliver", "p", 3),
        (50, "rollback", "p", 4), (50, "deliver", "p", 4), (60, "rollback", "p", 5),
        (60, "to_exception_destination", "p", 5),
    ]
    assert r.events[-1] == ev(13, 60, "to_exception_destination", message="p", endpoint="S",
                              session=1, queue="SIB.Q", backout_count=5, to=SIB_EXC,
                              destination=SIB_EXC)
    assert queues(r) == {"SIB.Q": [], SIB_EXC: [("p", 0)]}
    assert r.final["endpoints"]["S"] == {"state": "running", "rollback_counter": 0}
    assert r.summary["endpoint_stops"] == 0 and r.stopped_by == "idle"


def test_sib_system_destination_uses_the_messaging_engine_name():
    r = run_yaml("""
        queue_manager: {messaging_engine: NODE1.server1-bus}
        queues: [{name: SIB.Q, max_failed_deliveries: 1}]
        messages: [{id: p, queue: SIB.Q}]
        endpoints: [{name: S, queue: SIB.Q, provider: sib}]
        failures: [{messages: [p]}]
    """.replace("NODE1.server1-bus", "NODE1.BUS"))
    assert queues(r)["_SYSTEM.Exception.Destination.NODE1.BUS"] == [("p", 0)]


def test_sib_named_exception_destination_and_missing_one_falls_back():
    r = run_yaml("""
        queues:
          - {name: A, max_failed_deliveries: 2, exception_destination: A.EXC}
          - {name: A.EXC}
          - {name: B, max_failed_deliveries: 2, exception_destination: NOT.THERE}
        messages: [{id: a, queue: A}, {id: b, queue: B}]
        endpoints:
          - {name: SA, queue: A, provider: sib}
          - {name: SB, queue: B, provider: sib}
        failures: [{messages: [a, b]}]
    """)
    moves = r.events_of("to_exception_destination")
    assert [(e["message"], e["to"], e["t_ms"]) for e in moves] == [
        ("a", "A.EXC", 20), ("b", SIB_EXC, 20)]
    assert queues(r) == {"A": [], "A.EXC": [("a", 0)], "B": [], SIB_EXC: [("b", 0)]}


def test_sib_none_blocks_for_the_engine_default_5000_ms_while_others_flow():
    r = run_yaml("""
        queues: [{name: Q, max_failed_deliveries: 1, exception_destination: none}]
        messages: [{id: p, queue: Q}, {id: g, queue: Q}]
        endpoints: [{name: S, queue: Q, provider: sib, max_server_sessions: 1}]
        failures: [{messages: [p]}]
        limits: {until_ms: 6000}
    """)
    assert brief(r, keep=("backout_count",)) == [
        (0, "deliver", "p", 0), (10, "rollback", "p", 1), (10, "blocked_retry_wait", "p", 1),
        (10, "deliver", "g", 0), (20, "success", "g", 0),
        (5010, "deliver", "p", 1), (5020, "rollback", "p", 2),
        (5020, "blocked_retry_wait", "p", 2),
    ]
    assert queues(r) == {"Q": [("p", 2)], SIB_EXC: []}
    assert r.stopped_by == "limits"  # the retry at 10020 is still to come


def test_sib_blocked_retry_timeout_overrides_and_engine_interval():
    r = run_yaml("""
        queue_manager: {blocked_retry_interval_ms: 300}
        queues:
          - {name: A, max_failed_deliveries: 1, exception_destination: none,
             blocked_retry_timeout_ms: 100}
          - {name: B, max_failed_deliveries: 1, exception_destination: none}
        messages: [{id: a, queue: A}, {id: b, queue: B}]
        endpoints:
          - {name: SA, queue: A, provider: sib}
          - {name: SB, queue: B, provider: sib}
        failures: [{messages: [a, b], first: 1}]
    """)
    assert [(e["t_ms"], e["message"]) for e in r.events_of("deliver")] == [
        (0, "a"), (0, "b"), (110, "a"), (310, "b")]
    assert r.stopped_by == "idle"


# -- §3 activation specifications ------------------------------------------------------------


def test_activation_spec_defaults_first_rollback_stops_in_flight_finish():
    msgs = ", ".join(f"{{id: m{i}, queue: Q}}" for i in range(2, 13))
    r = run_yaml(f"""
        queues: [{{name: Q}}]
        messages: [{{id: p, queue: Q}}, {msgs}]
        endpoints: [{{name: MDB, queue: Q, provider: mq_activation_spec}}]
        failures: [{{messages: [p]}}]
    """)
    expected = [d(1, 0, "p", "MDB", 1, "Q", 0)]
    expected += [d(i, 0, f"m{i}", "MDB", i, "Q", 0) for i in range(2, 11)]  # 10 sessions
    expected += [
        ev(11, 10, "rollback", message="p", endpoint="MDB", session=1, queue="Q",
           backout_count=1, rollback_counter=1),
        ev(12, 10, "endpoint_stopped", endpoint="MDB", queue="Q", rollback_counter=1),
        ev(13, 10, "success", message="m2", endpoint="MDB", session=2, queue="Q",
           backout_count=0),
        ev(14, 10, "counter_reset", endpoint="MDB", message="m2", session=2,
           rollback_counter=0),
    ]
    expected += [ev(12 + i, 10, "success", message=f"m{i}", endpoint="MDB", session=i,
                    queue="Q", backout_count=0) for i in range(3, 11)]
    assert r.events == expected
    assert queues(r) == {"Q": [("p", 1), ("m11", 0), ("m12", 0)]}
    assert r.final["endpoints"] == {"MDB": {"state": "stopped", "rollback_counter": 0}}
    assert r.summary == {"deliveries": 10, "successes": 9, "rollbacks": 1, "requeued": 0,
                         "dead_lettered": 0, "to_exception_destination": 0, "lost": 0,
                         "endpoint_stops": 1, "stopped_by": "all_endpoints_stopped"}


def test_rollback_counter_is_shared_by_sessions():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p1, queue: Q}, {id: p2, queue: Q}, {id: ok, queue: Q}]
        endpoints:
          - {name: E, queue: Q, provider: mq_activation_spec,
             sequential_failures_before_suspend: 2, max_server_sessions: 2}
        failures: [{messages: [p1, p2]}]
    """)
    assert r.events == [
        d(1, 0, "p1", "E", 1, "Q", 0), d(2, 0, "p2", "E", 2, "Q", 0),
        ev(3, 10, "rollback", message="p1", endpoint="E", session=1, queue="Q",
           backout_count=1, rollback_counter=1),
        ev(4, 10, "rollback", message="p2", endpoint="E", session=2, queue="Q",
           backout_count=1, rollback_counter=2),
        ev(5, 10, "endpoint_stopped", endpoint="E", queue="Q", rollback_counter=2),
    ]
    assert queues(r) == {"Q": [("p1", 1), ("p2", 1), ("ok", 0)]}


def test_endpoint_stopped_is_logged_once_and_in_flight_failures_still_count():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p1, queue: Q}, {id: p2, queue: Q}, {id: p3, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec}]
        failures: [{messages: [p1, p2, p3]}]
    """)
    assert brief(r, keep=("rollback_counter",)) == [
        (0, "deliver", "p1"), (0, "deliver", "p2"), (0, "deliver", "p3"),
        (10, "rollback", "p1", 1), (10, "endpoint_stopped", "E", 1),
        (10, "rollback", "p2", 2), (10, "rollback", "p3", 3),
    ]
    assert r.final["endpoints"]["E"] == {"state": "stopped", "rollback_counter": 3}


def test_a_success_resets_the_counter():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}, {id: ok, queue: Q}]
        endpoints:
          - {name: E, queue: Q, provider: mq_activation_spec,
             sequential_failures_before_suspend: 5, max_server_sessions: 1}
        failures: [{messages: [p], first: 1}]
    """)
    assert r.events == [
        d(1, 0, "p", "E", 1, "Q", 0),
        ev(2, 10, "rollback", message="p", endpoint="E", session=1, queue="Q",
           backout_count=1, rollback_counter=1),
        d(3, 10, "ok", "E", 1, "Q", 0),
        ev(4, 20, "success", message="ok", endpoint="E", session=1, queue="Q", backout_count=0),
        ev(5, 20, "counter_reset", endpoint="E", message="ok", session=1, rollback_counter=0),
        d(6, 20, "p", "E", 1, "Q", 1),
        ev(7, 30, "success", message="p", endpoint="E", session=1, queue="Q", backout_count=1),
    ]


def test_no_counter_without_stop_on_failure():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false}]
        failures: [{messages: [p], first: 3}]
    """)
    assert [e["rollback_counter"] for e in r.events_of("rollback")] == [0, 0, 0]
    assert not r.events_of("endpoint_stopped", "counter_reset")


def test_restart_keeps_the_counter_and_starts_from_the_head():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p1, queue: Q}, {id: p2, queue: Q}, {id: ok, queue: Q}]
        endpoints:
          - {name: E, queue: Q, provider: mq_activation_spec,
             sequential_failures_before_suspend: 2, max_server_sessions: 1}
        failures: [{messages: [p1, p2]}]
        actions: [{at_ms: 100, restart_endpoint: E}]
    """)
    assert brief(r, keep=("backout_count", "rollback_counter")) == [
        (0, "deliver", "p1", 0), (10, "rollback", "p1", 1, 1), (10, "deliver", "p2", 0),
        (20, "rollback", "p2", 1, 2), (20, "endpoint_stopped", "E", 2),
        (100, "endpoint_started", "E", 2),
        (100, "deliver", "p1", 1),  # from the head, not after the cursor
        (110, "rollback", "p1", 2, 3), (110, "endpoint_stopped", "E", 3),
    ]
    assert queues(r) == {"Q": [("p1", 2), ("p2", 1), ("ok", 0)]}  # ok is blocked


def test_rolled_back_message_is_found_again_only_after_the_cursor_wraps():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}, {id: m2, queue: Q}, {id: m3, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false, max_server_sessions: 1}]
        failures: [{messages: [p], first: 2}]
    """)
    assert brief(r) == [
        (0, "deliver", "p"), (10, "rollback", "p"), (10, "deliver", "m2"), (20, "success", "m2"),
        (20, "deliver", "m3"), (30, "success", "m3"), (30, "deliver", "p"), (40, "rollback", "p"),
        (40, "deliver", "p"), (50, "success", "p"),
    ]


def test_detection_time_requeue_to_the_backout_queue():
    r = run_yaml("""
        queues: [{name: Q, bothresh: 2, boqname: Q.BOQ}, {name: Q.BOQ}]
        messages: [{id: p, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false}]
        failures: [{messages: [p]}]
    """)
    assert r.events[-1] == ev(5, 20, "requeued", message="p", endpoint="E", queue="Q",
                              backout_count=2, to="Q.BOQ")
    assert brief(r) == [(0, "deliver", "p"), (10, "rollback", "p"), (10, "deliver", "p"),
                        (20, "rollback", "p"), (20, "requeued", "p")]
    assert queues(r) == {"Q": [], "Q.BOQ": [("p", 0)]}  # arrives with backout count 0


def test_a_message_already_over_the_threshold_is_never_delivered():
    r = run_yaml("""
        queues: [{name: Q, bothresh: 3, boqname: Q.BOQ}, {name: Q.BOQ}]
        messages: [{id: old, queue: Q, backout_count: 7}, {id: new, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec}]
    """)
    assert brief(r) == [(0, "requeued", "old"), (0, "deliver", "new"), (10, "success", "new")]
    assert r.stopped_by == "idle"


def test_consequence_bothresh_zero_blocks_the_queue_at_every_restart():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}, {id: m2, queue: Q}, {id: m3, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec, max_server_sessions: 1}]
        failures: [{messages: [p]}]
        actions: [{at_ms: 100, restart_endpoint: E}, {at_ms: 200, restart_endpoint: E}]
    """)
    assert [e["message"] for e in r.events_of("deliver")] == ["p", "p", "p"]
    assert r.summary["endpoint_stops"] == 3
    assert queues(r) == {"Q": [("p", 3), ("m2", 0), ("m3", 0)]}
    # the fix: BOTHRESH + BOQNAME and N above BOTHRESH
    fixed = run_yaml("""
        queues: [{name: Q, bothresh: 2, boqname: Q.BOQ}, {name: Q.BOQ}]
        messages: [{id: p, queue: Q}, {id: m2, queue: Q}, {id: m3, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec, max_server_sessions: 1,
                     sequential_failures_before_suspend: 3}]
        failures: [{messages: [p]}]
    """)
    assert queues(fixed) == {"Q": [], "Q.BOQ": [("p", 0)]}
    assert fixed.summary["endpoint_stops"] == 0


# -- §4 listener ports ----------------------------------------------------------------------


def test_listener_port_defaults_stop_at_the_first_failure_one_session():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}, {id: m2, queue: Q}]
        endpoints: [{name: LP, queue: Q, provider: mq_listener_port}]
        failures: [{messages: [p]}]
    """)
    assert r.events == [
        d(1, 0, "p", "LP", 1, "Q", 0),
        ev(2, 10, "rollback", message="p", endpoint="LP", session=1, queue="Q",
           backout_count=1, rollback_counter=0),
        ev(3, 10, "endpoint_stopped", endpoint="LP", queue="Q", rollback_counter=0),
    ]
    assert queues(r) == {"Q": [("p", 1), ("m2", 0)]}


def test_listener_port_retry_1_and_bothresh_1_moves_to_the_backout_queue():
    r = run_yaml("""
        queues: [{name: Q, bothresh: 1, boqname: Q.BOQ}, {name: Q.BOQ}]
        messages: [{id: p, queue: Q}, {id: m2, queue: Q}]
        endpoints: [{name: LP, queue: Q, provider: mq_listener_port, max_retries: 1}]
        failures: [{messages: [p]}]
    """)
    assert brief(r) == [(0, "deliver", "p"), (10, "rollback", "p"), (10, "deliver", "m2"),
                        (20, "success", "m2"), (20, "requeued", "p")]
    assert r.final["endpoints"]["LP"]["state"] == "running"
    assert queues(r) == {"Q": [], "Q.BOQ": [("p", 0)]}


def test_listener_port_stops_when_the_count_passes_max_retries():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}]
        endpoints: [{name: LP, queue: Q, provider: mq_listener_port, max_retries: 1}]
        failures: [{messages: [p]}]
    """)
    assert brief(r, keep=("backout_count",)) == [
        (0, "deliver", "p", 0), (10, "rollback", "p", 1), (10, "deliver", "p", 1),
        (20, "rollback", "p", 2), (20, "endpoint_stopped", "LP")]


def test_non_asf_transaction_timeout_rolls_back_a_success():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: m1, queue: Q}]
        endpoints:
          - {name: LP, queue: Q, provider: mq_listener_port, non_asf_receive_timeout_ms: 120000,
             arrival_wait_ms: 119995, total_transaction_lifetime_timeout_s: 120}
    """)
    assert r.events == [
        d(1, 0, "m1", "LP", 1, "Q", 0),
        ev(2, 120005, "transaction_timeout", message="m1", endpoint="LP", session=1, queue="Q"),
        ev(3, 120005, "rollback", message="m1", endpoint="LP", session=1, queue="Q",
           backout_count=1, rollback_counter=0),
        ev(4, 120005, "endpoint_stopped", endpoint="LP", queue="Q", rollback_counter=0),
    ]
    assert r.summary["rollbacks"] == 1 and r.summary["successes"] == 0


def test_non_asf_exactly_at_the_lifetime_commits_and_the_wait_is_capped():
    r = run_yaml("""
        queues: [{name: A}, {name: B}, {name: C}]
        messages: [{id: a, queue: A}, {id: b, queue: B}, {id: c, queue: C}]
        endpoints:
          - {name: LA, queue: A, provider: mq_listener_port, non_asf_receive_timeout_ms: 119990,
             arrival_wait_ms: 119990, total_transaction_lifetime_timeout_s: 120}
          - {name: LB, queue: B, provider: mq_listener_port, non_asf_receive_timeout_ms: 1000,
             arrival_wait_ms: 5000}
          - {name: LC, queue: C, provider: mq_listener_port, arrival_wait_ms: 5000}
    """)
    assert [(e["t_ms"], e["type"], e["message"]) for e in r.events
            if e["type"] != "deliver"] == [
        (10, "success", "c"),         # ASF mode: no wait
        (1010, "success", "b"),       # the wait is capped at the receive timeout
        (120000, "success", "a"),     # 119990 + 10 is not strictly greater than 120 s
    ]


# -- §5 where a backed-out message goes ------------------------------------------------------

DLQ_SCENARIO = """
queue_manager: {{dead_letter_queue: DLQ}}
queues:
  - {{name: Q, bothresh: 1, boqname: {boq}}}
  - {{name: Q.BOQ{boq_attrs}}}
  - {{name: DLQ}}
  - {{name: FILLER}}
messages: [{{id: p, queue: Q}}{extra}]
authorities: {auth}
endpoints: [{{name: E, queue: Q, provider: mq_activation_spec, run_as: app,
             stop_endpoint_on_failure: false}}]
failures: [{{messages: [p]}}]
"""
ALL = "[{principal: app, queue: '*', grant: [all]}]"


def dlq_run(boq="Q.BOQ", boq_attrs="", extra="", auth=ALL):
    return run_yaml(DLQ_SCENARIO.format(boq=boq, boq_attrs=boq_attrs, extra=extra, auth=auth))


def test_blank_boqname_goes_to_the_dead_letter_queue_without_cause():
    r = dlq_run(boq="''")
    assert r.events[-1] == ev(3, 10, "dead_lettered", message="p", endpoint="E", queue="Q",
                              backout_count=1, to="DLQ", reason_code=2362,
                              reason="MQRC_BACKOUT_THRESHOLD_REACHED")
    assert queues(r)["DLQ"] == [("p", 0)]


@pytest.mark.parametrize(("boq", "boq_attrs", "extra", "auth", "cause"), [
    ("NOT.DEFINED", "", "", ALL, 2085),
    ("Q.BOQ", ", put_inhibited: true", "", ALL, 2051),
    ("Q.BOQ", ", max_depth: 1", ", {id: f, queue: Q.BOQ}", ALL, 2053),
    ("Q.BOQ", "", "", "[{principal: app, queue: Q.BOQ, grant: [get, inq, put, setall]}, "
                      "{principal: app, queue: DLQ, grant: [put, setall]}]", 2035),
    # several hold: 2085, 2035, 2051, 2053 in that order
    ("Q.BOQ", ", put_inhibited: true, max_depth: 0", "",
     "[{principal: app, queue: DLQ, grant: [put, setall]}]", 2035),
    ("Q.BOQ", ", put_inhibited: true, max_depth: 0", "", ALL, 2051),
])
def test_each_dead_letter_fallback_names_its_cause(boq, boq_attrs, extra, auth, cause):
    r = dlq_run(boq, boq_attrs, extra, auth)
    last = r.events[-1]
    names = {2085: "MQRC_UNKNOWN_OBJECT_NAME", 2051: "MQRC_PUT_INHIBITED",
             2053: "MQRC_Q_FULL", 2035: "MQRC_NOT_AUTHORIZED"}
    assert last == ev(3, 10, "dead_lettered", message="p", endpoint="E", queue="Q",
                      backout_count=1, to="DLQ", reason_code=2362,
                      reason="MQRC_BACKOUT_THRESHOLD_REACHED", cause_code=cause,
                      cause=names[cause])
    assert queues(r)["DLQ"] == [("p", 0)]
    assert r.summary["dead_lettered"] == 1


def test_boqname_naming_the_dead_letter_queue_is_a_plain_requeue():
    r = dlq_run(boq="DLQ")
    assert r.events[-1] == ev(3, 10, "requeued", message="p", endpoint="E", queue="Q",
                              backout_count=1, to="DLQ")


@pytest.mark.parametrize("qm_line", [
    "queue_manager: {dead_letter_queue: ''}",
    "queue_manager: {dead_letter_queue: NO.SUCH.DLQ}",
    "queue_manager: {dead_letter_queue: DLQ}\nqueues_dlq: {put_inhibited: true}",
    "queue_manager: {dead_letter_queue: DLQ}\nqueues_dlq: {max_depth: 0}",
    "queue_manager: {dead_letter_queue: DLQ}\nauth: [{principal: app, queue: DLQ, "
    "grant: [get, put]}]",
])
def test_no_usable_dead_letter_queue_the_poison_loop_goes_on(qm_line):
    head, _, rest = qm_line.partition("\n")
    dlq_attrs = ""
    auth = ""
    if rest.startswith("queues_dlq:"):
        dlq_attrs = ", " + rest.split("{", 1)[1].rstrip("}")
    elif rest.startswith("auth:"):
        auth = "authorities: " + rest[len("auth:"):].strip()
    r = run_yaml(f"""
        {head}
        queues:
          - {{name: Q, bothresh: 1, boqname: MISSING.BOQ}}
          - {{name: DLQ{dlq_attrs}}}
        messages: [{{id: p, queue: Q}}]
        {auth}
        endpoints: [{{name: E, queue: Q, provider: mq_activation_spec, run_as: app,
                     stop_endpoint_on_failure: false}}]
        failures: [{{messages: [p]}}]
        limits: {{until_ms: 30}}
    """)
    assert brief(r, keep=("backout_count",))[:5] == [
        (0, "deliver", "p", 0), (10, "rollback", "p", 1), (10, "deliver", "p", 1),
        (20, "rollback", "p", 2), (20, "deliver", "p", 2)]
    assert not r.events_of("requeued", "dead_lettered")
    assert r.stopped_by == "limits"


# -- §6 z/OS and HARDENBO -------------------------------------------------------------------

ZOS = """
queue_manager: {{platform: {platform}}}
queues: [{{name: Z, bothresh: 2, boqname: Z.BOQ, hardenbo: {hardenbo}}}, {{name: Z.BOQ}}]
messages: [{{id: p, queue: Z}}]
endpoints: [{{name: E, queue: Z, provider: mq_activation_spec, stop_endpoint_on_failure: false,
             max_server_sessions: 1}}]
failures: [{{messages: [p]}}]
actions: [{{at_ms: 15, restart_queue_manager: true}}]
"""


def test_zos_restart_without_hardenbo_resets_backout_counts():
    r = run_yaml(ZOS.format(platform="zos", hardenbo="false"))
    assert brief(r, keep=("backout_count",)) == [
        (0, "deliver", "p", 0), (10, "rollback", "p", 1), (10, "deliver", "p", 1),
        (15, "rollback", "p", 2),  # in flight at the restart: rolled back first
        (15, "qmgr_restart", None),
        (15, "deliver", "p", 0),  # the count lived only in memory
        (25, "rollback", "p", 1), (25, "deliver", "p", 1), (35, "rollback", "p", 2),
        (35, "requeued", "p", 2),
    ]
    assert r.summary["deliveries"] == 4  # more than BOTHRESH allows
    assert r.events[4] == ev(5, 15, "qmgr_restart")


@pytest.mark.parametrize(("platform", "hardenbo"), [("zos", "true"), ("distributed", "false")])
def test_restart_with_hardenbo_or_on_distributed_keeps_counts(platform, hardenbo):
    r = run_yaml(ZOS.format(platform=platform, hardenbo=hardenbo))
    assert brief(r, keep=("backout_count",)) == [
        (0, "deliver", "p", 0), (10, "rollback", "p", 1), (10, "deliver", "p", 1),
        (15, "rollback", "p", 2), (15, "qmgr_restart", None), (15, "requeued", "p", 2)]
    assert queues(r) == {"Z": [], "Z.BOQ": [("p", 0)]}


def test_qmgr_restart_keeps_endpoint_state_and_counter():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}, {id: q, queue: Q}]
        endpoints:
          - {name: E, queue: Q, provider: mq_activation_spec,
             sequential_failures_before_suspend: 5, max_server_sessions: 1}
        failures: [{messages: [p]}]
        actions: [{at_ms: 5, restart_queue_manager: true}]
    """)
    assert brief(r, keep=("rollback_counter",))[:4] == [
        (0, "deliver", "p"), (5, "rollback", "p", 0), (5, "qmgr_restart", None),
        (5, "deliver", "p")]  # reconnected at the head; the restart is no failure


# -- §7 SCA exports -------------------------------------------------------------------------


def test_sca_export_component_failure_goes_through_the_module_destination():
    r = run_yaml("""
        queues: [{name: SCA.IN}]
        messages: [{id: o, queue: SCA.IN}]
        endpoints: [{name: X, queue: SCA.IN, provider: sca_export}]
        failures: [{messages: [o]}]
    """)
    assert r.events[:5] == [
        d(1, 0, "o", "X", 1, "SCA.IN", 0),
        ev(2, 10, "rollback", message="o", endpoint="X", session=1, queue="SCA.IN",
           backout_count=1, rollback_counter=0),
        ev(3, 10, "to_module_destination", message="o", endpoint="X", queue="SCA.IN",
           backout_count=1, to="SCA.IN.SCA"),
        d(4, 10, "o", "X", 1, "SCA.IN.SCA", 0),
        ev(5, 20, "rollback", message="o", endpoint="X", session=1, queue="SCA.IN.SCA",
           backout_count=1, rollback_counter=0),
    ]
    assert r.events[-1] == ev(14, 60, "to_exception_destination", message="o", endpoint="X",
                              session=1, queue="SCA.IN.SCA", backout_count=5,
                              to="FAILED.EVENTS", destination="FAILED.EVENTS")
    assert queues(r) == {"SCA.IN": [], SIB_EXC: [], "SCA.IN.SCA": [],
                         "FAILED.EVENTS": [("o", 0)]}
    assert r.final["endpoints"]["X"]["state"] == "running"


def test_module_destination_hop_comes_before_the_backout_threshold():
    r = run_yaml("""
        queues: [{name: SCA.IN, bothresh: 1, boqname: SCA.BOQ}, {name: SCA.BOQ}]
        messages: [{id: o, queue: SCA.IN}]
        endpoints: [{name: X, queue: SCA.IN, provider: sca_export,
                     module_destination: MOD.DEST, failed_event_queue: MY.FAILED}]
        failures: [{messages: [o], first: 1}]
    """)
    assert brief(r) == [(0, "deliver", "o"), (10, "rollback", "o"),
                        (10, "to_module_destination", "o"), (10, "deliver", "o"),
                        (20, "success", "o")]
    assert "MOD.DEST" in r.final["queues"] and "MY.FAILED" in r.final["queues"]


@pytest.mark.parametrize(("boq_line", "last"), [
    ("{name: SCA.BOQ}", ("requeued", "SCA.BOQ", None)),
    ("{name: OTHER}", ("dead_lettered", "DLQ", 2085)),
    ("{name: SCA.BOQ, put_inhibited: true}", ("dead_lettered", "DLQ", 2051)),
])
def test_sca_export_failures_with_bothresh_1(boq_line, last):
    r = run_yaml(f"""
        queue_manager: {{dead_letter_queue: DLQ}}
        queues: [{{name: SCA.IN, bothresh: 1, boqname: SCA.BOQ}}, {boq_line}, {{name: DLQ}}]
        messages: [{{id: o, queue: SCA.IN}}]
        endpoints: [{{name: X, queue: SCA.IN, provider: sca_export}}]
        failures: [{{messages: [o], kind: export}}]
    """)
    e = r.events[-1]
    assert brief(r)[:2] == [(0, "deliver", "o"), (10, "rollback", "o")]
    assert (e["type"], e["to"], e.get("cause_code")) == last
    assert not r.events_of("to_module_destination")
    assert r.final["endpoints"]["X"]["state"] == "running"


@pytest.mark.parametrize("bothresh", [0, 2, 3])
def test_sca_export_failure_with_other_bothresh_stops_the_listener_port(bothresh):
    r = run_yaml(f"""
        queues: [{{name: SCA.IN, bothresh: {bothresh}, boqname: SCA.BOQ}}, {{name: SCA.BOQ}}]
        messages: [{{id: o, queue: SCA.IN}}]
        endpoints: [{{name: X, queue: SCA.IN, provider: sca_export}}]
        failures: [{{messages: [o], kind: export}}]
    """)
    assert brief(r, keep=("backout_count",)) == [
        (0, "deliver", "o", 0), (10, "rollback", "o", 1), (10, "deliver", "o", 1),
        (20, "rollback", "o", 2), (20, "endpoint_stopped", "X")]
    assert queues(r)["SCA.IN"] == [("o", 2)]


def test_sca_export_jms_binding_is_a_generated_sib_destination():
    r = run_yaml("""
        queues: [{name: JMS.IN}]
        messages: [{id: o, queue: JMS.IN}]
        endpoints: [{name: X, queue: JMS.IN, provider: sca_export, binding: jms}]
        failures: [{messages: [o]}]
    """)
    assert [e["type"] for e in r.events].count("rollback") == 5
    assert not r.events_of("to_module_destination")
    assert r.events[-1]["to"] == "FAILED.EVENTS"
    assert queues(r) == {"JMS.IN": [], SIB_EXC: [], "FAILED.EVENTS": [("o", 0)]}


# -- §8 time ----------------------------------------------------------------------------------


def test_at_one_instant_completions_then_actions_then_new_deliveries():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}, {id: m2, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec, max_server_sessions: 1,
                     processing_ms: 25}]
        failures: [{messages: [p], first: 1}]
        actions:
          - {at_ms: 25, restart_endpoint: E}
          - {at_ms: 25, set_queue: {name: Q, max_depth: 10}}
    """)
    assert brief(r) == [(0, "deliver", "p"), (25, "rollback", "p"), (25, "endpoint_stopped", "E"),
                        (25, "endpoint_started", "E"), (25, "attribute_changed", None),
                        (25, "deliver", "p"), (50, "success", "p"), (50, "counter_reset", "p"),
                        (50, "deliver", "m2"), (75, "success", "m2")]
    assert r.events[4] == ev(5, 25, "attribute_changed", queue="Q", attribute="max_depth",
                             old=5000, new=10)


def test_set_queue_action_takes_effect():
    r = run_yaml("""
        queues: [{name: Q}, {name: Q.BOQ}]
        messages: [{id: p, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false}]
        failures: [{messages: [p]}]
        actions: [{at_ms: 15, set_queue: {name: Q, bothresh: 2, boqname: Q.BOQ}}]
    """)
    assert brief(r) == [(0, "deliver", "p"), (10, "rollback", "p"), (10, "deliver", "p"),
                        (15, "attribute_changed", None), (15, "attribute_changed", None),
                        (20, "rollback", "p"), (20, "requeued", "p")]


def test_between_ms_window_is_half_open_on_delivery_start():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: m1, queue: Q}, {id: m2, queue: Q}, {id: m3, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec, max_server_sessions: 1,
                     stop_endpoint_on_failure: false}]
        failures: [{between_ms: [10, 20]}]
    """)
    assert brief(r) == [(0, "deliver", "m1"), (10, "success", "m1"), (10, "deliver", "m2"),
                        (20, "rollback", "m2"), (20, "deliver", "m3"), (30, "success", "m3"),
                        (30, "deliver", "m2"), (40, "success", "m2")]


def test_first_k_used_up_falls_through_to_the_next_rule():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: m1, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false}]
        failures:
          - {messages: [m1], first: 2}
          - {messages: [m1], then: discard}
    """)
    assert brief(r) == [(0, "deliver", "m1"), (10, "rollback", "m1"), (10, "deliver", "m1"),
                        (20, "rollback", "m1"), (20, "deliver", "m1"), (30, "lost", "m1")]


def test_first_k_without_messages_counts_all_deliveries():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: a, queue: Q}, {id: b, queue: Q}, {id: c, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false}]
        failures: [{first: 2}]
    """)
    assert [(e["message"], e["t_ms"]) for e in r.events_of("rollback")] == [("a", 10), ("b", 10)]
    assert r.summary["successes"] == 3


def test_processing_time_and_endpoint_selector():
    r = run_yaml("""
        queues: [{name: A}, {name: B}]
        messages: [{id: a, queue: A}, {id: b, queue: B}]
        endpoints:
          - {name: EA, queue: A, provider: mq_activation_spec, processing_ms: 7}
          - {name: EB, queue: B, provider: mq_activation_spec, processing_ms: 3}
        failures: [{endpoints: [EA]}]
    """)
    assert brief(r) == [(0, "deliver", "a"), (0, "deliver", "b"), (3, "success", "b"),
                        (7, "rollback", "a"), (7, "endpoint_stopped", "EA")]
    assert r.stopped_by == "idle"  # EB is still running


def test_limits_max_events_and_in_flight():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: p, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false}]
        failures: [{messages: [p]}]
        limits: {max_events: 4}
    """)
    assert len(r.events) <= 4
    assert r.stopped_by == "limits"
    assert brief(r) == [(0, "deliver", "p"), (10, "rollback", "p"), (10, "deliver", "p")]
    assert r.final["in_flight"] == [{"message": "p", "endpoint": "E", "session": 1,
                                     "queue": "Q", "backout_count": 1}]
    assert queues(r) == {"Q": [("p", 1)]}


def test_limits_until_ms():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: a, queue: Q}, {id: b, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec, max_server_sessions: 1,
                     processing_ms: 100}]
        limits: {until_ms: 150}
    """)
    assert brief(r) == [(0, "deliver", "a"), (100, "success", "a"), (100, "deliver", "b")]
    assert r.stopped_by == "limits"
    assert r.final["in_flight"][0]["message"] == "b"


def test_an_action_still_to_come_keeps_the_replay_going():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: a, queue: Q}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec}]
        actions: [{at_ms: 5000, restart_endpoint: E}]
    """)
    assert brief(r) == [(0, "deliver", "a"), (10, "success", "a"),
                        (5000, "endpoint_started", "E")]
    assert r.stopped_by == "idle"


def test_no_endpoints_is_idle():
    r = run_yaml("queues: [{name: Q}]\nmessages: [{id: a, queue: Q}]\n")
    assert r.events == [] and r.stopped_by == "idle"
    assert queues(r) == {"Q": [("a", 0)]}


def test_failure_rule_plugin():
    r = run_yaml("""
        queues: [{name: Q}]
        messages: [{id: a, queue: Q, payload: "bad json"}, {id: b, queue: Q, payload: "{}"}]
        endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
                     stop_endpoint_on_failure: false}]
        failures: [{plugin: json_check, then: discard}]
    """, plugins={"json_check": lambda dl: not dl["payload"].startswith("{")})
    assert [x["message"] for x in r.final["lost"]] == ["a"]
    assert r.summary["successes"] == 1


def test_a_message_moved_to_a_queue_an_earlier_endpoint_reads_is_taken_at_once():
    r = run_yaml("""
        queues: [{name: BOQ.READER.IN}, {name: Q, bothresh: 1, boqname: BOQ.READER.IN}]
        messages: [{id: p, queue: Q, backout_count: 1}]
        endpoints:
          - {name: First, queue: BOQ.READER.IN, provider: mq_activation_spec}
          - {name: Second, queue: Q, provider: mq_activation_spec}
    """)
    assert brief(r) == [(0, "requeued", "p"), (0, "deliver", "p"), (10, "success", "p")]
    assert r.events[1]["endpoint"] == "First"

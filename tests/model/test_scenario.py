"""Scenario parsing: defaults, and errors that name the field and its line."""

from __future__ import annotations

import textwrap

import pytest

from mqconsole.model import ScenarioError, parse_endpoints, parse_scenario, replay


def err(text: str, file: str | None = None) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(textwrap.dedent(text).lstrip("\n"), file=file)
    return info.value


def test_defaults_of_the_format():
    sc = parse_scenario(textwrap.dedent("""
        queues: [{name: Q}]
        messages: [{id: m1, queue: Q}]
        endpoints:
          - {name: A, queue: Q, provider: mq_activation_spec}
          - {name: S, queue: Q, provider: sca_export}
    """))
    assert sc.queue_manager.name == "QM1" and sc.queue_manager.platform == "distributed"
    assert sc.queue_manager.dead_letter_queue == "" and sc.queue_manager.messaging_engine == "ME1"
    assert sc.queue_manager.blocked_retry_interval_ms == 5000
    q = sc.queues[0]
    assert (q.bothresh, q.boqname, q.hardenbo, q.put_inhibited, q.max_depth) == (0, "", False,
                                                                                 False, 5000)
    assert (q.max_failed_deliveries, q.exception_destination, q.blocked_retry_timeout_ms) == (
        5, "system", -1)
    m = sc.messages[0]
    assert (m.payload, m.backout_count, m.persistent) == ("", 0, True)
    a, s = sc.endpoints
    assert (a.transaction, a.syncpoint, a.stop_endpoint_on_failure,
            a.sequential_failures_before_suspend, a.max_server_sessions, a.max_retries,
            a.max_sessions, a.non_asf_receive_timeout_ms,
            a.total_transaction_lifetime_timeout_s, a.processing_ms, a.arrival_wait_ms,
            a.run_as) == ("required", True, True, 0, 10, 0, 1, 0, 120, 10, 0, None)
    assert (s.max_retries, s.binding, s.module_destination, s.failed_event_queue) == (
        1, "mq", "Q.SCA", "FAILED.EVENTS")
    assert sc.limits.max_events == 10000 and sc.limits.until_ms == 600000
    assert sc.authorities is None


def test_unknown_field_names_field_and_line():
    e = err("""
        queues:
          - name: Q
            bothrsh: 3
    """, file="s.yaml")
    assert str(e) == "s.yaml line 3: queues[0].bothrsh: unknown field (did you mean bothresh?)"
    assert (e.line, e.field) == (3, "queues[0].bothrsh")


def test_unknown_top_level_field():
    e = err("queues: []\nqueuez: []\n")
    assert str(e).startswith("line 2: queuez: unknown field (did you mean queues?)")


def test_wrong_type_names_field_and_line():
    e = err("""
        queues:
          - name: Q
          - name: R
            bothresh: three
    """)
    assert str(e) == "line 4: queues[1].bothresh: must be a whole number, not text ('three')"


@pytest.mark.parametrize(("text", "line", "field", "words"), [
    ("queues: [{name: Q}]\nmessages:\n  - id: m1\n    queue: NOPE\n", 4, "messages[0].queue",
     "queue NOPE is not defined"),
    ("queues: [{name: Q}]\nmessages: [{id: m1, queue: Q}]\nfailures:\n  - messages: [m1, m9]\n",
     4, "failures[0].messages[1]", "message m9 is not defined"),
    ("queues: [{name: Q}]\nactions:\n  - at_ms: 5\n    restart_endpoint: Nobody\n", 4,
     "actions[0].restart_endpoint", "endpoint Nobody is not defined"),
    ("queues: [{name: Q}]\nendpoints:\n  - name: E\n    queue: Q\n", 3, "endpoints[0]",
     "provider is required"),
    ("queues: [{name: Q}]\nendpoints:\n  - name: E\n    queue: Q\n    provider: ibm\n", 5,
     "endpoints[0].provider", "must be one of sib, mq_activation_spec"),
    ("queues: [{name: Q}]\nendpoints:\n  - {name: E, queue: Q, provider: sib,\n"
     "     processing_ms: 0}\n", 4, "endpoints[0].processing_ms", "must be 1 or more"),
    ("queues: [{name: Q}]\nfailures:\n  - kind: export\n", 3, "failures[0]",
     "needs a selector"),
    ("queues: [{name: Q}]\nfailures:\n  - {first: 2, then: {move: ELSEWHERE}}\n", 3,
     "failures[0].then.move", "queue ELSEWHERE is not defined"),
    ("queues: [{name: Q}]\nactions:\n  - restart_queue_manager: true\n", 3, "actions[0]",
     "at_ms is required"),
    ("queues: [{name: Q}]\nactions:\n  - {at_ms: 1, set_queue: {name: Q, bothresh: -1}}\n", 3,
     "actions[0].set_queue.bothresh", "must be from 0"),
    ("queues: [{name: Q}]\nactions:\n  - {at_ms: 1, set_queue: {name: NOPE, bothresh: 1}}\n", 3,
     "actions[0].set_queue.name", "queue NOPE is not defined"),
    ("queues: [{name: Q}]\nmessages: [{id: m, queue: Q, persistent: maybe}]\n", 2,
     "messages[0].persistent", "must be true or false"),
    ("queues:\n  - name: Q\n  - name: Q\n", 3, "queues[1].name", "defined twice"),
    ("queues: [{name: Q}]\nauthorities:\n  - {principal: u, queue: Q, grant: [fly]}\n", 3,
     "authorities[0].grant", "unknown authority 'fly'"),
    ("queue_manager: {platform: os2}\n", 1, "queue_manager.platform", "distributed, zos"),
    ("limits: {max_events: 0}\n", 1, "limits.max_events", "1 or more"),
    ("queues: [{name: 'bad name!'}]\n", 1, "queues[0].name", "not an MQ name"),
])
def test_errors_name_field_and_line(text, line, field, words):
    e = err(text)
    assert e.line == line, str(e)
    assert e.field == field, str(e)
    assert words in str(e)
    assert str(e).startswith(f"line {line}: {field}: ")


def test_queues_the_format_allows_to_be_missing():
    sc = parse_scenario(textwrap.dedent("""
        queue_manager: {dead_letter_queue: NO.DLQ}
        queues:
          - {name: Q, boqname: NO.BOQ, exception_destination: NO.EXC}
    """))
    assert sc.queues[0].boqname == "NO.BOQ"
    assert replay(sc).stopped_by == "idle"


def test_several_problems_are_counted():
    e = err("queues:\n  - {name: Q, bothresh: x, max_depth: y}\nmessages: 3\n")
    assert len(e.problems) == 3
    assert str(e).endswith("(and 2 more problems)")


def test_yaml_problems_have_lines():
    e = err("queues:\n  - name: Q\n    bothresh: [1\n")
    assert e.line is not None and "not valid YAML" in str(e)
    e = err("queues:\n  - name: Q\n    name: R\n")
    assert e.line == 3 and "twice" in str(e)
    e = err("- 1\n- 2\n")
    assert "must be a mapping" in str(e)
    e = err("queues: [{name: !!python/object:os.system x}]\n")
    assert "unsupported YAML tag" in str(e)


def test_empty_scenario_is_valid():
    assert replay(parse_scenario("")).to_json()["summary"]["stopped_by"] == "idle"


def test_message_ids_may_be_numbers_but_payload_must_be_text():
    sc = parse_scenario("queues: [{name: Q}]\nmessages: [{id: 1, queue: Q}]\n"
                        "failures: [{messages: [1]}]\n")
    assert sc.messages[0].id == "1" and sc.failures[0].messages == ("1",)
    e = err("queues: [{name: Q}]\nmessages: [{id: a, queue: Q, payload: 12}]\n")
    assert e.field == "messages[0].payload"


def test_unknown_plugin_is_a_scenario_error():
    sc = parse_scenario("failures:\n  - plugin: nope\n", file="p.yaml")
    with pytest.raises(ScenarioError) as info:
        replay(sc)
    assert str(info.value).startswith("p.yaml line 2: failures[0].plugin: no failure-rule "
                                      "plugin named 'nope'")


def test_endpoints_file_forms_and_errors():
    f = parse_endpoints("endpoints:\n  - {name: E, queue: Q, provider: sib}\n"
                        "authorities:\n  - {principal: u, queue: 'APP.*', grant: [all]}\n")
    assert f.endpoints[0].name == "E" and f.authorities[0].queue == "APP.*"
    bare = parse_endpoints("- {name: E, queue: Q, provider: mq_listener_port}\n")
    assert bare.endpoints[0].max_sessions == 1 and bare.authorities is None
    with pytest.raises(ScenarioError) as info:
        parse_endpoints("endpoints:\n  - name: E\n    queue: Q\n    provider: sib\n"
                        "    max_sesions: 2\n", file="e.yaml")
    assert str(info.value) == ("e.yaml line 5: endpoints[0].max_sesions: unknown field "
                               "(did you mean max_sessions?)")
    with pytest.raises(ScenarioError) as info:
        parse_endpoints("queues: []\n")
    assert "queues: unknown field" in str(info.value)


def test_problems_are_told_in_line_order():
    """The first problem told is the first in the file, whatever the section's place in the
    format (limits: is read after queue_manager:)."""
    e = err("limits: {max_events: 0}\nqueue_manager: {platform: os2}\n")
    assert (e.line, e.field) == (1, "limits.max_events"), str(e)
    assert str(e).endswith("(and 1 more problem)")


def test_references_are_checked_once_the_shape_holds():
    e = err("queues: [{name: Q}]\nmessages: [{id: m, queue: NOPE}]\n")
    assert (e.line, e.field) == (2, "messages[0].queue") and "NOPE is not defined" in str(e)
    e = err("queues: [{name: Q}]\nmessages: [{id: m, queue: NOPE, persistent: 3}]\n")
    assert e.field == "messages[0].persistent" and len(e.problems) == 1, str(e)

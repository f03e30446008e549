"""Replay from a live queue: real attributes and messages, read only; --fail short forms."""

from __future__ import annotations

import pytest

from mqconsole.backends.open import open_embedded
from mqconsole.model import parse_endpoints
from mqconsole.mq.errors import MQError
from mqconsole.ops import replay as rp
from mqconsole.ops.demo import build_demo

ORDERS_MDB = parse_endpoints("""
endpoints:
  - name: OrdersMDB
    queue: APP.ORDERS
    provider: mq_activation_spec
    sequential_failures_before_suspend: 4
    max_server_sessions: 2
""")


@pytest.fixture(scope="module")
def demo_qm():
    qm = open_embedded(":memory:")
    build_demo(qm)
    yield qm
    qm.close()


@pytest.fixture
def fresh_qm():
    qm = open_embedded(":memory:")
    build_demo(qm)
    yield qm
    qm.close()


def snapshot(qm, *queues):
    out = {}
    for q in queues:
        with qm.browse(q) as cur:
            out[q] = [(m.md.msg_id, m.md.backout_count) for m in cur.next_batch(10_000)]
        out[q + "#attrs"] = qm.inquire_queue(q)
    return out


def test_replay_of_a_live_queue_is_read_only_and_uses_real_state(demo_qm):
    before = snapshot(demo_qm, "APP.ORDERS", "APP.ORDERS.BOQ", "SYSTEM.DEAD.LETTER.QUEUE")
    run = rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, ["position=1"], timeline=True)
    assert snapshot(demo_qm, "APP.ORDERS", "APP.ORDERS.BOQ",
                    "SYSTEM.DEAD.LETTER.QUEUE") == before
    head = run.labels[0]
    assert head == before["APP.ORDERS"][0][0].hex().upper()
    assert len(run.labels) == 40 and not run.truncated
    assert run.result.where_is(head) == "APP.ORDERS.BOQ"  # BOTHRESH 3, dedicated BOQ
    assert run.result.summary["successes"] == 39
    assert run.result.final["endpoints"]["OrdersMDB"]["state"] == "running"
    assert run.result.timeline is not None and len(run.result.timeline) == len(run.result.events)
    sc = run.scenario
    assert sc.queue_manager.name == "QM1" and sc.queue_manager.platform == "distributed"
    assert sc.queue_manager.dead_letter_queue == "SYSTEM.DEAD.LETTER.QUEUE"
    orders = sc.queue("APP.ORDERS")
    assert (orders.bothresh, orders.boqname, orders.hardenbo, orders.max_depth) == (
        3, "APP.ORDERS.BOQ", True, 5000)
    # other queues are modelled empty with the room they have left
    assert sc.queue("APP.ORDERS.BOQ").max_depth == 5000 - 5


def test_backout_counts_come_from_the_messages(demo_qm):
    eps = parse_endpoints("- {name: B, queue: APP.ORDERS.BOQ, provider: mq_listener_port}\n")
    built = rp.scenario_from_queue(demo_qm, "APP.ORDERS.BOQ", eps)
    with demo_qm.browse("APP.ORDERS.BOQ") as cur:
        real = [m.md.backout_count for m in cur.next_batch(100)]
    assert [m.backout_count for m in built.scenario.messages] == real
    assert sorted(real) == [1, 1, 2, 3, 4]


def test_msgid_first_and_between_rules(demo_qm):
    with demo_qm.browse("APP.ORDERS") as cur:
        third = cur.next_batch(3)[2].md.msg_id.hex()
    run = rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, [f"msgid={third.lower()}"])
    label = run.labels[2]
    assert run.result.where_is(label) == "APP.ORDERS.BOQ"
    run = rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, ["first=2"])
    assert run.result.summary["rollbacks"] == 2 and run.result.summary["successes"] == 40
    run = rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, ["between=0:1"])
    assert run.result.summary["rollbacks"] == 2  # the two sessions' first deliveries


def test_max_messages_truncates(demo_qm):
    run = rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, [], max_messages=5)
    assert len(run.labels) == 5 and run.truncated
    assert run.result.summary["successes"] == 5


def test_live_backout_queue_state_decides_the_outcome(fresh_qm):
    fresh_qm.change_queue("APP.ORDERS.BOQ", put_inhibited=True)
    run = rp.replay_queue(fresh_qm, "APP.ORDERS", ORDERS_MDB, ["position=1"])
    moved = run.result.events_of("dead_lettered")[0]
    assert (moved["to"], moved["cause_code"]) == ("SYSTEM.DEAD.LETTER.QUEUE", 2051)
    fresh_qm.change_queue("APP.ORDERS", boqname="APP.ORDERS.GONE")
    run = rp.replay_queue(fresh_qm, "APP.ORDERS", ORDERS_MDB, ["position=1"])
    assert run.result.events_of("dead_lettered")[0]["cause_code"] == 2085


def test_setup_errors(demo_qm):
    with pytest.raises(rp.ReplaySetupError, match=r"no endpoint reads APP\.PAYMENTS"):
        rp.replay_queue(demo_qm, "APP.PAYMENTS", ORDERS_MDB)
    with pytest.raises(rp.ReplaySetupError, match="not a local application queue"):
        rp.replay_queue(demo_qm, "REMOTE.ORDERS", ORDERS_MDB)
    with pytest.raises(MQError) as info:
        rp.replay_queue(demo_qm, "NO.SUCH.QUEUE", ORDERS_MDB)
    assert info.value.reason == 2085
    with pytest.raises(rp.FailSpecError, match="no message with MsgId"):
        rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, ["msgid=ABCDEF"])
    with pytest.raises(rp.ReplaySetupError, match="no local queue NOPE"):
        rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, ["first=1,then=move:NOPE"])


def test_parse_fail_short_forms():
    labels = ["A", "B", "C"]
    r = rp.parse_fail("position=2,first=3,then=discard", labels=labels)
    assert (r.messages, r.first, r.then) == (("B",), 3, "discard")
    r = rp.parse_fail("between=1000:5000")
    assert r.between_ms == (1000, 5000) and r.messages is None
    r = rp.parse_fail("message=C, kind=export, endpoint=E1, then=move:PARK", labels=labels)
    assert (r.messages, r.kind, r.endpoints, r.then, r.move_to) == (
        ("C",), "export", ("E1",), "move", "PARK")
    ids = {"AB" + "00" * 23: ["L1", "L2"]}
    assert rp.parse_fail("msgid=ab", msgid_labels=ids).messages == ("L1", "L2")
    for bad, words in [("", "needs a rule"), ("first", "KEY=VALUE"), ("first=0", "1 or more"),
                       ("between=5:1", "ends before"), ("between=5", "FROM:TO"),
                       ("kind=db", "component or export"), ("then=retry", "then is"),
                       ("colour=red", "unknown key"), ("position=9", "only 3"),
                       ("msgid=XYZ", "not hexadecimal"), ("kind=export", "selects no"),
                       ("msgid=" + "00" * 25, "longer than 24")]:
        with pytest.raises(rp.FailSpecError, match=words):
            rp.parse_fail(bad, labels=labels, msgid_labels=ids)


def test_event_text_covers_every_event_type():
    from mqconsole.model import EVENT_TYPES

    for t in EVENT_TYPES:
        text = rp.event_text({"type": t, "message": "m1", "endpoint": "E", "session": 1,
                              "queue": "Q", "backout_count": 1, "rollback_counter": 1,
                              "to": "T", "reason": "MQRC_X", "reason_code": 2362,
                              "attribute": "bothresh", "old": 0, "new": 1})
        assert text and text != t


def test_plugin_failure_rules_in_a_live_queue_replay(demo_qm):
    """``--fail plugin=NAME`` uses a site plugin's failure rule (registered for this test);
    an unknown name is one sentence naming the rules that are loaded."""
    from mqconsole.plugins import hookimpl
    from mqconsole.plugins.testing import plugin_host

    seen: list[dict] = []

    class Site:
        @hookimpl
        def mqconsole_failure_rules(self):
            def first_of_each(facts):
                seen.append(dict(facts))
                return facts["backout_count"] == 0 and facts["t_ms"] == 0
            return {"first-deliveries": first_of_each}

    rules = plugin_host(Site()).failure_rules()
    run = rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB,
                          ["plugin=first-deliveries,then=discard"], plugins=rules)
    assert run.scenario.failures[0].plugin == "first-deliveries"
    lost = [m["message"] for m in run.result.final["lost"]]
    assert lost == run.labels[:2]  # two sessions: the two deliveries at t=0 fail
    assert set(seen[0]) == {"message", "payload", "queue", "endpoint", "t_ms",
                            "backout_count"}
    assert seen[0]["queue"] == "APP.ORDERS" and seen[0]["endpoint"] == "OrdersMDB"
    with pytest.raises(rp.FailSpecError) as info:
        rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, ["plugin=nope"], plugins=rules)
    assert str(info.value) == ("--fail 'plugin=nope': no failure-rule plugin named 'nope' is "
                               "loaded (loaded: first-deliveries)")
    with pytest.raises(rp.FailSpecError, match="no plugin offering failure rules"):
        rp.replay_queue(demo_qm, "APP.ORDERS", ORDERS_MDB, ["plugin=nope"])
    assert rp.parse_fail("plugin=x").plugin == "x"  # not checked without the names


def test_a_long_endpoint_name_is_shortened_at_a_word():
    """Issue 24 item 4: the console's event list names endpoints in a narrow column; a long
    name is never cut mid-word ("the model activation specifi")."""
    from mqconsole.ops.doctor import DEFAULT_ENDPOINT
    from mqconsole.ops.replay import event_text, short_name

    assert short_name(DEFAULT_ENDPOINT) == "model AS"
    assert short_name("OrdersMDB") == "OrdersMDB"
    assert short_name("OrdersPaymentsReconciliation") == "OrdersPayment…"
    ev = {"type": "deliver", "endpoint": DEFAULT_ENDPOINT, "session": 1, "message": "m1",
          "queue": "APP.ORDERS", "backout_count": 0}
    assert event_text(ev, names={DEFAULT_ENDPOINT: "model AS"}).startswith("model AS/1 gets")
    assert event_text(ev).startswith(f"{DEFAULT_ENDPOINT}/1 gets")  # the CLI: whole

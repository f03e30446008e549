"""The doctor on the demo queue manager and on the cases the issue lists."""

from __future__ import annotations

import dataclasses

import pytest

from mqconsole.model import parse_endpoints
from mqconsole.ops.doctor import diagnose


@pytest.fixture
def qm(make_qm):
    return make_qm(demo=True)


def by_queue(report):
    return {d.queue: d for d in report.diagnoses}


def eps(text):
    return parse_endpoints(text)


def test_demo_verdicts_without_endpoints(qm):
    r = by_queue(diagnose(qm))
    # judged: application queues only
    assert "SYSTEM.DEAD.LETTER.QUEUE" not in r and "APP.ORDERS.BOQ" not in r
    assert "APP.SHARED.BOQ" not in r and "QM2" not in r and "REMOTE.ORDERS" not in r
    assert not any(q.startswith("SYSTEM.") for q in r)
    pay = r["APP.PAYMENTS"]
    assert pay.verdict == "bad"
    assert "never moved off APP.PAYMENTS (BOTHRESH is 0)" in pay.finding
    assert "block the 25 messages behind it" in pay.finding
    assert [p.code for p in pay.problems] == ["bothresh_zero"]
    assert pay.commands == [
        "mqconsole queue define APP.PAYMENTS.BOQ --description 'Backout queue of APP.PAYMENTS'",
        "mqconsole queue set APP.PAYMENTS --bothresh 3 --boqname APP.PAYMENTS.BOQ"]
    assert pay.mqsc == ["DEFINE QLOCAL(APP.PAYMENTS.BOQ) DESCR('Backout queue of APP.PAYMENTS')",
                        "ALTER QLOCAL(APP.PAYMENTS) BOTHRESH(3) BOQNAME('APP.PAYMENTS.BOQ')"]
    assert pay.fixes == pay.commands + pay.mqsc
    for name in ("APP.INVOICES", "APP.SHIPPING"):
        d = r[name]
        assert d.verdict == "warn"
        assert [p.code for p in d.problems] == ["boq_shared"]
        assert "APP.SHARED.BOQ is also the backout queue of" in d.finding
        assert any(c.startswith("mqconsole queue set APP.SHIPPING --boqname APP.SHIPPING.BOQ")
                   for c in d.commands)
    assert r["APP.SHIPPING"].commands[0].startswith("mqconsole queue define APP.SHIPPING.BOQ")
    orders = r["APP.ORDERS"]
    assert (orders.verdict, orders.fixes, orders.problems) == ("ok", [], [])
    assert orders.finding == ("a poison message moves to its backout queue APP.ORDERS.BOQ "
                              "after 3 failed deliveries; the 40 messages behind it flow")
    assert orders.model["poison_ends_on"] == "APP.ORDERS.BOQ"
    doc = diagnose(qm).to_json()
    assert {"queue", "verdict", "finding", "fixes"} <= set(doc[0])


def test_doctor_changes_nothing(qm):
    before = [dataclasses.astuple(q) for q in qm.list_queues("*")]
    diagnose(qm)
    diagnose(qm, eps("- {name: E, queue: APP.ORDERS, provider: mq_activation_spec}\n"))
    assert [dataclasses.astuple(q) for q in qm.list_queues("*")] == before


def test_applying_the_fixes_makes_the_flagged_queues_pass(qm):
    report = diagnose(qm)
    flagged = {d.queue for d in report.diagnoses if d.verdict != "ok"}
    for d in report.diagnoses:
        for line in d.commands:
            words = line.split()
            if words[2] == "define" and words[3] not in {q.name for q in qm.list_queues()}:
                from mqconsole.mq.queue import QueueAttrs

                qm.define_queue(QueueAttrs(name=words[3]))
            elif words[2] == "set":
                changes = {}
                opts = words[4:]
                for i, w in enumerate(opts):
                    if w == "--bothresh":
                        changes["bothresh"] = int(opts[i + 1])
                    elif w == "--boqname":
                        changes["boqname"] = opts[i + 1]
                    elif w == "--hardenbo":
                        changes["hardenbo"] = True
                qm.change_queue(words[3], **changes)
    again = by_queue(diagnose(qm))
    assert all(again[q].verdict == "ok" for q in flagged), {
        q: again[q].finding for q in flagged if again[q].verdict != "ok"}


def test_with_endpoints_the_consequence_and_the_endpoint_advice(qm):
    r = by_queue(diagnose(qm, eps("""
        endpoints:
          - {name: PaymentsMDB, queue: APP.PAYMENTS, provider: mq_activation_spec}
          - {name: OrdersMDB, queue: APP.ORDERS, provider: mq_activation_spec,
             sequential_failures_before_suspend: 4}
    """.replace("\n        ", "\n"))))
    assert set(r) == {"APP.PAYMENTS", "APP.ORDERS"}
    pay = r["APP.PAYMENTS"]
    assert pay.verdict == "bad" and pay.endpoints == ["PaymentsMDB"]
    assert pay.finding == ("stops PaymentsMDB at every restart and blocks the 25 messages "
                           "behind it")
    assert any("sequential_failures_before_suspend above BOTHRESH" in a for a in pay.advice)
    assert r["APP.ORDERS"].verdict == "ok"


def test_suspend_not_above_bothresh_is_bad_and_the_fix_lowers_bothresh(qm):
    d = diagnose(qm, eps("- {name: O, queue: APP.ORDERS, provider: mq_activation_spec, "
                         "sequential_failures_before_suspend: 3}\n")).diagnoses[0]
    assert d.verdict == "bad"
    assert "suspend_not_above_bothresh" in [p.code for p in d.problems]
    assert d.finding == ("stops O once (each stop needs a restart, and meanwhile blocks the 40 "
                         "messages behind it) before the poison message moves to its backout "
                         "queue APP.ORDERS.BOQ after 3 failed deliveries")
    assert d.commands == ["mqconsole queue set APP.ORDERS --bothresh 2"]
    qm.change_queue("APP.ORDERS", bothresh=2)
    d = diagnose(qm, eps("- {name: O, queue: APP.ORDERS, provider: mq_activation_spec, "
                         "sequential_failures_before_suspend: 3}\n")).diagnoses[0]
    assert d.verdict == "ok", d.finding


def test_listener_port_retries_below_bothresh(qm):
    d = diagnose(qm, eps("- {name: L, queue: APP.ORDERS, provider: mq_listener_port, "
                         "max_retries: 1}\n")).diagnoses[0]
    assert d.verdict == "bad"
    assert "retries_below_bothresh" in [p.code for p in d.problems]
    assert d.commands == ["mqconsole queue set APP.ORDERS --bothresh 1"]


@pytest.mark.parametrize(("change", "code", "fix"), [
    ({"put_inhibited": True}, "boq_put_inhibited",
     "mqconsole queue set APP.ORDERS.BOQ --put-enabled"),
    ({"max_depth": 5}, "boq_full", "mqconsole queue set APP.ORDERS.BOQ --max-depth 5005"),
])
def test_unusable_backout_queue_goes_to_the_dlq(qm, change, code, fix):
    qm.change_queue("APP.ORDERS.BOQ", **change)
    d = by_queue(diagnose(qm))["APP.ORDERS"]
    assert d.verdict == "warn"
    assert d.finding.startswith("a poison message goes to the dead-letter queue "
                                "SYSTEM.DEAD.LETTER.QUEUE after 3 failed deliveries, because "
                                "its backout queue APP.ORDERS.BOQ")
    assert code in [p.code for p in d.problems]
    assert fix in d.commands


def test_missing_and_blank_backout_queue(qm):
    qm.change_queue("APP.ORDERS", boqname="APP.ORDERS.GONE")
    qm.change_queue("ZOS.INBOUND", boqname="")
    r = by_queue(diagnose(qm))
    gone = r["APP.ORDERS"]
    assert gone.verdict == "warn" and "APP.ORDERS.GONE does not exist" in gone.finding
    assert gone.commands[0].startswith("mqconsole queue define APP.ORDERS.GONE")
    blank = r["ZOS.INBOUND"]
    assert blank.verdict == "warn" and "because BOQNAME is blank" in blank.finding
    assert "mqconsole queue set ZOS.INBOUND --boqname ZOS.INBOUND.BOQ" in blank.commands


def test_no_dead_letter_queue_and_no_backout_queue_is_a_poison_loop(qm):
    qm.change_qmgr(dead_letter_queue="")
    qm.change_queue("APP.ORDERS", boqname="")
    d = by_queue(diagnose(qm))["APP.ORDERS"]
    assert d.verdict == "bad"
    assert "cannot take it" in d.finding


def test_missing_authority_on_the_backout_queue(qm):
    d = diagnose(qm, eps("""
endpoints:
  - {name: O, queue: APP.ORDERS, provider: mq_activation_spec, run_as: appsrv,
     stop_endpoint_on_failure: false}
authorities:
  - {principal: appsrv, queue: APP.ORDERS.BOQ, grant: [put, get]}
  - {principal: appsrv, queue: SYSTEM.DEAD.LETTER.QUEUE, grant: [put, setall]}
""")).diagnoses[0]
    assert d.verdict == "warn"
    assert "not authorized" in d.finding
    assert "boq_not_authorized" in [p.code for p in d.problems]
    assert any(a.startswith("setmqaut -m QM1 -n APP.ORDERS.BOQ -t queue -p appsrv")
               for a in d.advice)
    assert any(m.startswith("SET AUTHREC PROFILE(APP.ORDERS.BOQ)") for m in d.mqsc)


def test_no_syncpoint_and_non_asf_timeout(qm):
    r = by_queue(diagnose(qm, eps("""
endpoints:
  - {name: B, queue: APP.ORDERS, provider: mq_activation_spec, transaction: bean_managed,
     syncpoint: false}
  - {name: L, queue: ZOS.INBOUND, provider: mq_listener_port, max_retries: 4,
     non_asf_receive_timeout_ms: 119995, total_transaction_lifetime_timeout_s: 120}
""")))
    lost = r["APP.ORDERS"]
    assert lost.verdict == "bad" and "is lost" in lost.finding
    assert "no_syncpoint" in [p.code for p in lost.problems]
    slow = r["ZOS.INBOUND"]
    assert slow.verdict == "warn"
    assert "non_asf_timeout" in [p.code for p in slow.problems]
    assert any("non_asf_receive_timeout_ms" in a for a in slow.advice)


def test_endpoint_on_a_missing_queue(qm):
    d = diagnose(qm, eps("- {name: X, queue: NOT.HERE, provider: sib}\n")).diagnoses[0]
    assert (d.queue, d.verdict, d.fixes) == ("NOT.HERE", "bad", [])
    assert "does not exist" in d.finding


class _ZosView:
    """The demo queue manager seen as a z/OS one (the embedded backend reports UNIX)."""

    def __init__(self, qm):
        self._qm = qm

    def inquire_qmgr(self):
        return dataclasses.replace(self._qm.inquire_qmgr(), platform="ZOS")

    def __getattr__(self, name):
        return getattr(self._qm, name)


def test_hardenbo_off_on_zos(qm):
    r = by_queue(diagnose(_ZosView(qm)))
    zos = r["ZOS.INBOUND"]
    assert zos.verdict == "warn" and "HARDENBO is off on z/OS" in zos.finding
    assert zos.commands == ["mqconsole queue set ZOS.INBOUND --hardenbo"]
    assert zos.mqsc == ["ALTER QLOCAL(ZOS.INBOUND) HARDENBO"]
    assert r["APP.ORDERS"].verdict == "ok"  # HARDENBO set
    assert r["APP.PAYMENTS"].commands[-1] == (
        "mqconsole queue set APP.PAYMENTS --bothresh 3 --boqname APP.PAYMENTS.BOQ --hardenbo")


def test_sib_endpoint_is_judged_by_the_model(qm):
    d = diagnose(qm, eps("- {name: S, queue: APP.PAYMENTS, provider: sib}\n")).diagnoses[0]
    assert d.verdict == "ok"
    assert "exception destination _SYSTEM.Exception.Destination.ME1 after 5" in d.finding

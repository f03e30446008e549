"""The handler on the embedded queue manager: each action, the retry budget across passes
and restarts, messages without a header, batching under faults, stopping, waiting."""

from __future__ import annotations

import threading
import time

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.mq.chain import add_dead_letter_header, dead_letter_header
from mqconsole.mq.errors import MQError
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dlq.attempts import AttemptStore, message_key
from mqconsole.ops.dlq.handler import HandlerError, resolve_queue, run_handler, settings_for
from mqconsole.ops.dlq.rules import parse_table
from mqconsole.ops.result import Control
from tests.support.faulty import (
    KEPT,
    Faults,
    FaultyQueueManager,
    browse_all,
    fill,
    make_message,
)

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.fixture
def qm(make_qm, tmp_path):
    return make_qm("APP.IN", QueueAttrs("APP.FULL", max_depth=0), "CATCH", "OTHER", "REPLY.Q",
                   path=tmp_path / "qm.sqlite")


def dead(i: int, *, dest: str = "APP.IN", reason: int = 2053, dest_qm: str = "QM1",
         **md_fields) -> Message:
    m = make_message(i)
    # one priority: the queue's order is the order of the puts
    md = m.md.copy(priority=5, **md_fields)
    md, body = add_dead_letter_header(md, m.body, reason=reason, dest_q_name=dest,
                                      dest_qmgr_name=dest_qm, put_date="20261125",
                                      put_time=f"1000{i:04d}")
    return Message(md, body)


def plain(i: int) -> Message:
    """A message without a dead-letter header (the priority of ``dead``'s)."""
    m = make_message(i)
    return Message(m.md.copy(priority=5), m.body)


def run(qm, text: str, tmp_path, **kw):
    table = parse_table(text)
    queue = resolve_queue(qm, table, kw.pop("input_q", None))
    store = kw.pop("store", tmp_path / "attempts.sqlite")
    control = kw.pop("control", None)
    check = kw.pop("check", None)
    clock = kw.pop("clock", time.time)
    settings = settings_for(table, queue, **kw)
    return run_handler(qm, table, settings, store_path=None if store is None else str(store),
                       control=control,
                       check=check, clock=clock)


def original(m: Message) -> Message:
    """What RETRY and FWD HEADER(NO) must deliver: the message before it was dead-lettered."""
    return Message(m.md.copy(format="MQSTR   ", encoding=546, ccsid=1208), m.body[172:])


def same(a: Message, b: Message) -> bool:
    return a.body == b.body and all(getattr(a.md, f) == getattr(b.md, f) for f in KEPT)


# MQ's identity and origin context: what a put with default context sets anew
CONTEXT = ("user_identifier", "accounting_token", "appl_identity_data", "put_appl_type",
           "put_appl_name", "put_date", "put_time", "appl_origin_data")


def delivered(a: Message, b: Message) -> bool:
    """``a`` is ``b`` put by PUTAUT(DEF), the default: everything kept (MsgId, CorrelId,
    descriptor, body) but the context, which is the handler's own — a new message's
    (the embedded queue manager's put application, a new put time)."""
    return (a.body == b.body
            and all(getattr(a.md, f) == getattr(b.md, f) for f in KEPT if f not in CONTEXT)
            and a.md.put_appl_name.strip() == "mqconsole"
            and (a.md.put_date, a.md.put_time) != (b.md.put_date, b.md.put_time))


def test_each_action(qm, tmp_path) -> None:
    msgs = [dead(1, dest="APP.IN", reason=2053), dead(2, reason=2035),
            dead(3, reason=2087), dead(4, reason=2110), dead(5, reason=2051),
            dead(6, reason=2085)]
    fill(qm, DLQ, msgs)
    report = run(qm, """\
REASON(MQRC_Q_FULL) ACTION(RETRY)
REASON(MQRC_NOT_AUTHORIZED) ACTION(DISCARD)
REASON(MQRC_UNKNOWN_REMOTE_Q_MGR) ACTION(IGNORE)
REASON(MQRC_FORMAT_ERROR) ACTION(FWD) FWDQ(OTHER) HEADER(YES)
REASON(MQRC_PUT_INHIBITED) ACTION(FWD) FWDQ(CATCH) HEADER(NO)
REASON(MQRC_UNKNOWN_OBJECT_NAME) ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&DESTQM)
""", tmp_path, once=True)
    res = report.result
    assert res.done == 5 and not res.failed
    # RETRY: to the header's destination, header removed, Format/Encoding/CCSID restored
    [retried] = browse_all(qm, "APP.IN")
    assert delivered(retried, original(msgs[0]))
    # DISCARD: gone; IGNORE: still on the queue, untouched
    [left] = browse_all(qm, DLQ)
    assert same(left, msgs[2])
    # FWD HEADER(YES): the message as it was, header and all
    [kept] = browse_all(qm, "OTHER")
    assert delivered(kept, msgs[3]) and dead_letter_header(kept.md, kept.body) is not None
    # FWD HEADER(NO): header removed
    [stripped] = browse_all(qm, "CATCH")
    assert delivered(stripped, original(msgs[4]))
    # &REPLYQ and &DESTQM (QM1, the local queue manager)
    [replied] = browse_all(qm, "REPLY.Q")
    assert delivered(replied, msgs[5])
    assert [(m.rule, m.action, m.outcome) for m in report.messages] == [
        (1, "RETRY", "retried"), (2, "DISCARD", "discarded"), (3, "IGNORE", "ignored: left"),
        (4, "FWD", "forwarded"), (5, "FWD", "forwarded"), (6, "FWD", "forwarded")]
    assert report.rules_json()[0] == {"rule": 1, "matched": 1, "done": 1, "failed": 0}
    assert res.moved_to == {"APP.IN": 1, "OTHER": 1, "CATCH": 1, "REPLY.Q": 1}


def test_removing_the_header_restores_format_encoding_and_ccsid_from_it(qm, tmp_path) -> None:
    """A z/OS queue manager writes the header in 785/500 and the MQMD carries those: RETRY
    and FWD HEADER(NO) put the MQMD back to the header's Format, Encoding and CCSID (546 and
    1208 here: in test_each_action both are the same, so only Format could tell)."""
    msgs = []
    for i in (1, 2, 3):
        m = make_message(i)
        md, body = add_dead_letter_header(m.md.copy(priority=5), m.body, reason=2053,
                                          dest_q_name="APP.IN", dest_qmgr_name="QM1",
                                          header_encoding=785, header_ccsid=500)
        assert (md.encoding, md.ccsid) == (785, 500)
        msgs.append(Message(md, body))
    fill(qm, DLQ, msgs)
    report = run(qm, """\
APPLNAME(payments-batch) ACTION(FWD) FWDQ(CATCH) HEADER(NO)
APPLNAME(amqsput) ACTION(FWD) FWDQ(OTHER) HEADER(YES)
ACTION(RETRY)
""", tmp_path, once=True)
    assert report.result.done == 3
    [retried] = browse_all(qm, "APP.IN")
    [stripped] = browse_all(qm, "CATCH")
    [kept] = browse_all(qm, "OTHER")
    for got, i in ((retried, 2), (stripped, 0)):
        assert (got.md.format, got.md.encoding, got.md.ccsid) == ("MQSTR   ", 546, 1208)
        assert delivered(got, original(msgs[i]))
    assert (kept.md.format, kept.md.encoding, kept.md.ccsid) == ("MQDEAD  ", 785, 500)
    assert delivered(kept, msgs[1])


def test_wildcards_and_symbols_choose_the_rule(qm, tmp_path) -> None:
    fill(qm, DLQ, [dead(1, dest="APP.IN", user_identifier="alice"),
                   dead(2, dest="APP.IN", user_identifier="bob")])
    report = run(qm, "USERID(al?ce) DESTQ(APP.*) REASON(2053) ACTION(FWD) FWDQ(OTHER)\n"
                     "ACTION(FWD) FWDQ(CATCH)", tmp_path, once=True)
    assert [m.rule for m in report.messages] == [1, 2]
    assert len(browse_all(qm, "OTHER")) == 1 and len(browse_all(qm, "CATCH")) == 1


def test_retry_budget_falls_through_to_the_next_rule_across_passes(qm, tmp_path) -> None:
    fill(qm, DLQ, [dead(1, dest="APP.FULL")])
    report = run(qm, "RETRYINT(0) WAIT(NO)\n"
                     "DESTQ(APP.FULL) ACTION(RETRY) RETRY(3)\n"
                     "ACTION(FWD) FWDQ(CATCH) HEADER(NO)", tmp_path)
    assert [(m.rule, m.attempts, m.outcome) for m in report.messages] == [
        (1, 1, "failed"), (1, 2, "failed"), (1, 3, "failed"), (2, 4, "forwarded")]
    assert report.messages[0].reason.startswith("MQRC_Q_FULL")
    assert report.rules_json() == [{"rule": 1, "matched": 3, "done": 0, "failed": 3},
                                   {"rule": 2, "matched": 1, "done": 1, "failed": 0}]
    assert report.passes == 4 and not report.result.failed  # it ended done
    assert browse_all(qm, DLQ) == [] and len(browse_all(qm, "CATCH")) == 1
    # the count is forgotten once the message has left the queue
    assert len(AttemptStore(tmp_path / "attempts.sqlite", "QM1", DLQ)) == 0


def test_budget_used_up_leaves_the_message_and_reports_it(qm, tmp_path) -> None:
    fill(qm, DLQ, [dead(1, dest="APP.FULL")])
    report = run(qm, "RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(2)", tmp_path)
    # WAIT(NO) ends after the second failure: no rule applies any more, nothing is due
    assert [m.outcome for m in report.messages] == ["failed", "failed"]
    assert report.passes == 2 and report.next_due is None
    [f] = report.result.failed
    assert f.reason == 2053 and f.destination == "APP.FULL"
    assert len(browse_all(qm, DLQ)) == 1
    again = run(qm, "RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(2)", tmp_path)
    assert [(m.attempts, m.outcome) for m in again.messages] == [
        (2, "attempts used up: left")]
    assert again.messages[0].reason.startswith("MQRC_Q_FULL")
    # the same when the rule that applies next is IGNORE: nothing more will be tried
    fill(qm, DLQ, [dead(2, dest="APP.FULL")])
    store = tmp_path / "ignore.sqlite"
    report = run(qm, "RETRYINT(0) WAIT(NO)\nDESTQ(APP.FULL) ACTION(RETRY) RETRY(1)\n"
                     "ACTION(IGNORE)", tmp_path, store=store, input_q=DLQ)
    assert [m.outcome for m in report.messages] == ["failed", "failed"]  # (a fresh count)
    assert report.passes == 1 and report.next_due is None


def test_messages_without_a_valid_header_are_left_in_place(qm, tmp_path) -> None:
    no_header = plain(1)
    broken = Message(no_header.md.copy(format="MQDEAD  "), b"DLH garbage, not a header")
    fill(qm, DLQ, [no_header, broken, dead(3)])
    report = run(qm, "ACTION(DISCARD)", tmp_path, once=True)
    assert [m.outcome for m in report.messages] == [
        "no valid header: left", "no valid header: left", "discarded"]
    left = browse_all(qm, DLQ)
    assert len(left) == 2 and same(left[0], no_header) and same(left[1], broken)


def test_attempt_counts_survive_a_restart_and_honour_retryint(qm, tmp_path) -> None:
    m = dead(1, dest="APP.FULL")
    fill(qm, DLQ, [m])
    text = "RETRYINT(60)\nACTION(RETRY) RETRY(2)\nACTION(FWD) FWDQ(CATCH)"
    t = [1000.0]
    first = run(qm, text, tmp_path, once=True, clock=lambda: t[0])
    assert [(x.attempts, x.outcome) for x in first.messages] == [(1, "failed")]
    # a new handler (a restart): the count is read back from the file
    t[0] = 1030.0
    second = run(qm, text, tmp_path, once=True, clock=lambda: t[0])
    assert second.messages[0].outcome.startswith("waiting: tried again after RETRYINT(60)")
    assert second.messages[0].attempts == 1 and len(browse_all(qm, DLQ)) == 1
    t[0] = 1061.0
    third = run(qm, text, tmp_path, once=True, clock=lambda: t[0])
    assert [(x.rule, x.attempts, x.outcome) for x in third.messages] == [(1, 2, "failed")]
    t[0] = 1200.0
    fourth = run(qm, text, tmp_path, once=True, clock=lambda: t[0])
    assert [(x.rule, x.attempts, x.outcome) for x in fourth.messages] == [
        (2, 3, "forwarded")]  # tried three times: twice failed, then forwarded
    store = AttemptStore(tmp_path / "attempts.sqlite", "QM1", DLQ)
    assert len(store) == 0
    # runmqdlq's way (no file) starts again at every restart, and says so
    fill(qm, DLQ, [dead(2, dest="APP.FULL")])
    mem = run(qm, "ACTION(RETRY) RETRY(1)\nACTION(DISCARD)", tmp_path, once=True, store=None)
    assert mem.messages[0].outcome == "failed"
    assert any("in memory only" in w for w in mem.result.warnings)


def test_counts_are_forgotten_when_another_application_takes_the_message(qm, tmp_path) -> None:
    fill(qm, DLQ, [dead(1, dest="APP.FULL"), dead(2, dest="APP.FULL")])
    run(qm, "ACTION(RETRY) RETRY(5)", tmp_path, once=True)
    assert len(AttemptStore(tmp_path / "attempts.sqlite", "QM1", DLQ)) == 2
    qm.get(DLQ, syncpoint=False)
    run(qm, "RETRYINT(9999)\nACTION(RETRY) RETRY(5)", tmp_path, once=True)
    assert len(AttemptStore(tmp_path / "attempts.sqlite", "QM1", DLQ)) == 1


def test_messages_with_the_same_key_share_a_count_and_the_report_says_so(qm, tmp_path) -> None:
    a = dead(1, dest="APP.FULL")
    fill(qm, DLQ, [a, a])
    report = run(qm, "RETRYINT(0)\nACTION(RETRY) RETRY(3)", tmp_path, once=True)
    assert [m.attempts for m in report.messages] == [1, 2]
    assert report.shared_keys == 1
    assert any("1 message shares its attempt-count key" in w for w in report.result.warnings)
    assert message_key(a.md, dead_letter_header(a.md, a.body)) == message_key(
        a.md, dead_letter_header(a.md, a.body))


def test_same_msgid_and_correlid_dead_lettered_for_another_reason_count_apart(
        qm, tmp_path) -> None:
    """MsgIds (and CorrelIds) repeat: the header's reason, destination and put time are in
    the key, so these are two messages with a count each (tests/ops/dlq/test_attempts.py)."""
    a, b = dead(1, dest="APP.FULL"), dead(1, dest="APP.FULL", reason=2035)
    assert a.md.msg_id == b.md.msg_id and a.md.correl_id == b.md.correl_id
    fill(qm, DLQ, [a, b])
    report = run(qm, "RETRYINT(0)\nACTION(RETRY) RETRY(3)", tmp_path, once=True)
    assert [m.attempts for m in report.messages] == [1, 1]
    assert report.shared_keys == 0


@pytest.mark.parametrize("rule", ["ACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)",
                                  "ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM) HEADER(NO)",
                                  "ACTION(RETRY)"])
def test_a_put_back_onto_the_queue_being_processed_is_a_failed_attempt(qm, tmp_path,
                                                                       rule) -> None:
    """Forwarding (or retrying) a message to the queue the handler is processing would meet
    it again at the end of the queue once a unit is committed midway — a pass without end
    (found with --batch 1: thousands of puts of two messages). It is a failed attempt."""
    msgs = [dead(i, dest=DLQ) for i in range(3)]
    fill(qm, DLQ, msgs)
    guard = Control()
    timer = threading.Timer(20, guard.cancel.set)  # the old behaviour: never ends
    timer.start()
    try:
        report = run(qm, f"RETRYINT(0) WAIT(NO)\n{rule} RETRY(2)", tmp_path, batch=1,
                     control=guard)
    finally:
        timer.cancel()
    assert not report.result.cancelled and report.result.done == 0
    assert [(m.attempts, m.outcome) for m in report.messages] == [
        (1, "failed")] * 3 + [(2, "failed")] * 3
    assert report.messages[0].reason.startswith(
        "INPUT_QUEUE: " + rule.split("(")[1].split(")")[0] + " would put the message back "
        "on SYSTEM.DEAD.LETTER.QUEUE, the queue being processed")
    assert [m.md.msg_id for m in browse_all(qm, DLQ)] == [m.md.msg_id for m in msgs]
    plan = run(qm, f"{rule} RETRY(5)", tmp_path, dry_run=True, store=tmp_path / "new.sqlite")
    assert plan.messages[0].outcome.startswith("would fail: INPUT_QUEUE")


def test_a_plugin_refusal_is_a_failed_attempt(qm, tmp_path) -> None:
    fill(qm, DLQ, [dead(1), dead(2)])
    seen = []

    def check(message: Message, destination: str) -> str | None:
        seen.append((destination, message.md.format))
        return "refused by plugin site: no Tuesdays" if len(seen) == 1 else None

    report = run(qm, "ACTION(RETRY) RETRY(2)", tmp_path, once=True, check=check)
    assert seen == [("APP.IN", "MQSTR   "), ("APP.IN", "MQSTR   ")]
    assert [m.outcome for m in report.messages] == ["failed", "retried"]
    assert report.messages[0].reason == "REFUSED_BY_PLUGIN: refused by plugin site: no Tuesdays"
    assert len(browse_all(qm, DLQ)) == 1


def test_dry_run_lists_every_message_and_changes_nothing(qm, tmp_path) -> None:
    msgs = [dead(1), dead(2, dest="APP.FULL"), plain(3), dead(4, reason=2035)]
    fill(qm, DLQ, msgs)
    report = run(qm, "REASON(MQRC_Q_FULL) ACTION(RETRY)", tmp_path, dry_run=True)
    assert [m.outcome for m in report.messages] == [
        "would retry to APP.IN (header removed)",
        "would retry to APP.FULL (header removed) — would fail now: MQRC_Q_FULL",
        "no valid header: left", "no rule: left"]
    assert [m.rule for m in report.messages] == [1, 1, None, None]
    assert all(same(a, b) for a, b in zip(browse_all(qm, DLQ), msgs, strict=True))
    assert browse_all(qm, "APP.IN") == []
    assert len(AttemptStore(tmp_path / "attempts.sqlite", "QM1", DLQ)) == 0


@pytest.mark.parametrize("faults", [
    Faults(commit={2: 2003}), Faults(get={5: 2034}), Faults(get={5: 2009}, fast=False),
    Faults(wrong_get={3}), Faults(put={4: 2009}),
])
def test_unit_failures_back_out_and_the_next_pass_finishes(qm, tmp_path, faults) -> None:
    msgs = [dead(i) for i in range(30)]
    fill(qm, DLQ, msgs)
    report = run(FaultyQueueManager(qm, faults), "RETRYINT(0) WAIT(NO)\nACTION(RETRY)",
                 tmp_path, batch=7)
    assert faults.injected, "the fault was not hit"
    assert browse_all(qm, DLQ) == []
    got = browse_all(qm, "APP.IN")
    assert sorted(m.md.msg_id for m in got) == sorted(m.md.msg_id for m in msgs)
    assert all(delivered(g, original(o)) for g, o in zip(
        sorted(got, key=lambda m: m.md.msg_id), sorted(msgs, key=lambda m: m.md.msg_id),
        strict=True))
    assert report.passes >= 2 and not report.result.failed
    assert any(m.outcome.startswith("backed out") for m in report.messages)


def test_a_commit_of_unknown_outcome_stops_and_names_the_messages(qm, tmp_path) -> None:
    fill(qm, DLQ, [dead(i) for i in range(10)])
    report = run(FaultyQueueManager(qm, Faults(commit_after={1: 2549})), "ACTION(RETRY)",
                 tmp_path, batch=4, once=True)
    res = report.result
    assert res.outcome_unknown and res.stopped_early
    assert len(res.failed) == 4 and "the outcome of the commit is unknown" in res.warnings[0]
    # the messages after the unit in doubt were never tried (issue 24 item 2)
    assert res.not_tried == len(browse_all(qm, DLQ)) - 4 > 0


def test_stopping_backs_out_the_open_unit_nothing_lost_or_doubled(qm, tmp_path) -> None:
    msgs = [dead(i) for i in range(40)]
    fill(qm, DLQ, msgs)
    control = Control()
    calls = [0]

    def check(message: Message, destination: str) -> None:
        calls[0] += 1
        if calls[0] == 13:
            control.cancel.set()  # as SIGTERM does, in the middle of a unit of work

    report = run(qm, "ACTION(RETRY)", tmp_path, batch=5, control=control, check=check)
    res = report.result
    assert res.cancelled and res.done == 10
    left, moved = browse_all(qm, DLQ), browse_all(qm, "APP.IN")
    assert len(left) == 30 and len(moved) == 10
    assert {m.md.msg_id for m in left} | {m.md.msg_id for m in moved} == {
        m.md.msg_id for m in msgs}
    assert sum(m.outcome == "backed out: the handler was stopped" for m in report.messages) == 3
    # never tried: the 3 backed out and the 27 the pass never reached (issue 24 item 2)
    assert res.not_tried == 30
    assert res.not_tried_why() == f"cancelled; they stayed on {DLQ}"


def test_wait_yes_wakes_on_arrival_and_ends_on_stop(qm, tmp_path) -> None:
    control = Control()
    box = {}
    table = parse_table("WAIT(YES)\nACTION(FWD) FWDQ(CATCH)")
    settings = settings_for(table, DLQ)
    worker_qm = qm.new_connection()
    t = threading.Thread(target=lambda: box.setdefault("report", run_handler(
        worker_qm, table, settings, store_path=str(tmp_path / "a.sqlite"), control=control)))
    qm.put(DLQ, dead(1), context=Context.SET_ALL, syncpoint=False)
    t.start()
    try:
        for n in (1, 2):
            for _ in range(300):
                if len(browse_all(qm, "CATCH")) == n:
                    break
                time.sleep(0.05)
            assert len(browse_all(qm, "CATCH")) == n
            if n == 1:  # the second arrives while the handler waits: it wakes, handles it
                qm.put(DLQ, dead(2), context=Context.SET_ALL, syncpoint=False)
    finally:
        control.cancel.set()
        t.join(30)
    report = box["report"]
    assert report.passes >= 2 and report.result.cancelled and report.result.done == 2


def test_an_arrival_between_a_pass_and_the_wait_is_not_missed(qm, tmp_path,
                                                               monkeypatch) -> None:
    """The message lands after the pass has ended and before the idle wait looks at the
    queue (the race that left it unhandled until another came): the wait compares with
    the queue as the pass began, less what the pass took, so it makes another pass."""
    from mqconsole.ops.dlq import handler as handler_mod

    real = handler_mod.wait_for_work
    control = Control()
    calls: list[int] = []

    def wait_for_work(*args, **kw):
        calls.append(len(browse_all(qm, "CATCH")))
        if len(calls) == 1:
            qm.put(DLQ, dead(2), context=Context.SET_ALL, syncpoint=False)
        else:
            control.cancel.set()  # the second wait: the test is over
        return real(*args, **kw)

    monkeypatch.setattr(handler_mod, "wait_for_work", wait_for_work)
    fill(qm, DLQ, [dead(1)])
    guard = threading.Timer(20, control.cancel.set)  # the old race: it would wait forever
    guard.start()
    try:
        report = run(qm, "WAIT(YES)\nACTION(FWD) FWDQ(CATCH)", tmp_path, control=control)
    finally:
        guard.cancel()
    assert calls == [1, 2]
    assert report.result.done == 2 and report.passes == 2
    assert len(browse_all(qm, "CATCH")) == 2 and browse_all(qm, DLQ) == []


def test_the_wait_tells_its_own_work_from_an_arrival(qm) -> None:
    """What the pass took (and put back onto the queue itself) is not an arrival; anything
    else — a put, or a depth the pass does not explain — is."""
    from mqconsole.ops.dlq.waiting import IDLE, WORK, mark, wait_for_work

    stop = threading.Event()
    fill(qm, DLQ, [dead(1), dead(2)])
    before = mark(qm, DLQ)
    qm.get(DLQ, syncpoint=False)  # as a pass takes one
    assert wait_for_work(qm, DLQ, 1, None, stop, since=before.after(1, 0)) == IDLE
    assert wait_for_work(qm, DLQ, 1, None, stop, since=before) == WORK  # unexplained
    before = mark(qm, DLQ)
    back = qm.get(DLQ, syncpoint=False)  # a pass forwarding a message to the queue itself
    qm.put(DLQ, back, context=Context.SET_ALL, syncpoint=False)
    assert wait_for_work(qm, DLQ, 1, None, stop, since=before.after(1, 1)) == IDLE
    before = mark(qm, DLQ)
    qm.put(DLQ, dead(3), context=Context.SET_ALL, syncpoint=False)
    assert wait_for_work(qm, DLQ, None, None, stop, since=before) == WORK
    before = mark(qm, DLQ)
    # the pass takes one, another process one, and one arrives: the same depth
    qm.get(DLQ, syncpoint=False)
    qm.get(DLQ, syncpoint=False)
    qm.put(DLQ, dead(4), context=Context.SET_ALL, syncpoint=False)
    assert wait_for_work(qm, DLQ, None, None, stop, since=before.after(1, 0)) == WORK


class _FakeTime(threading.Event):
    """A clock and a stop switch whose waits advance the clock instead of sleeping."""

    def __init__(self, now: float) -> None:
        super().__init__()
        self.now = now
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def wait(self, timeout: float | None = None) -> bool:
        assert timeout is not None, "an endless wait"
        self.waits.append(round(timeout, 3))
        self.now += timeout
        return self.is_set()


def test_wait_no_waits_retryint_before_a_retry_then_ends_when_nothing_is_processable(
        qm, tmp_path) -> None:
    """WAIT(NO): a failed message with attempts left is waited for (RETRYINT after its last
    attempt), not tried again at once, and falls through to the next matching rule when
    its rule's budget is used up; once no rule applies any more nothing is due and the run
    ends at once (the clock and the waits are the handler's own, faked: no sleeping)."""
    fill(qm, DLQ, [dead(1, dest="APP.FULL"), dead(2, dest="APP.IN")])
    fake = _FakeTime(1000.0)
    report = run(qm, "RETRYINT(30) WAIT(NO)\nDESTQ(APP.FULL) ACTION(RETRY) RETRY(2)\n"
                     "ACTION(RETRY)", tmp_path, control=Control(cancel=fake), clock=fake)
    # after the first and the second attempt of rule 1; none after rule 2's one attempt,
    # which used up every budget
    assert fake.waits == [30.0, 30.0]
    full = [(m.rule, m.attempts, m.outcome) for m in report.messages
            if m.destination == "APP.FULL"]
    assert full == [(1, 1, "failed"), (1, 2, "failed"), (2, 3, "failed")]
    assert report.passes == 3 and not report.result.cancelled and report.next_due is None
    [failure] = report.result.failed
    assert failure.destination == "APP.FULL" and failure.reason == 2053
    assert len(browse_all(qm, "APP.IN")) == 1 and len(browse_all(qm, DLQ)) == 1
    # the next run says why it leaves the message
    again = run(qm, "RETRYINT(30) WAIT(NO)\nDESTQ(APP.FULL) ACTION(RETRY) RETRY(2)\n"
                    "ACTION(RETRY)", tmp_path, control=Control(cancel=_FakeTime(2000.0)),
                clock=lambda: 2000.0)
    assert [(m.attempts, m.outcome) for m in again.messages] == [
        (3, "attempts used up: left")]


def test_wait_n_ends_after_n_idle_seconds(qm, tmp_path) -> None:
    fill(qm, DLQ, [dead(1)])
    report = run(qm, "WAIT(1)\nACTION(DISCARD)", tmp_path)
    assert report.result.done == 1 and not report.result.cancelled


def test_input_queue_resolution(qm, tmp_path) -> None:
    assert resolve_queue(qm, parse_table("ACTION(IGNORE)"), None) == DLQ
    assert resolve_queue(qm, parse_table("INPUTQ(OTHER)\nACTION(IGNORE)"), None) == "OTHER"
    assert resolve_queue(qm, parse_table("INPUTQ(OTHER)\nACTION(IGNORE)"), "CATCH") == "CATCH"
    with pytest.raises(HandlerError, match=r"INPUTQM\(QM7\) is not the queue manager"):
        resolve_queue(qm, parse_table("INPUTQM(QM7)\nACTION(IGNORE)"), None)
    with pytest.raises(MQError) as e:
        resolve_queue(qm, parse_table("INPUTQ(NOPE)\nACTION(IGNORE)"), None)
    assert e.value.reason == 2085


def test_putaut_ctx_puts_with_the_messages_user_and_def_with_the_handlers(tmp_path) -> None:
    from mqconsole.backends.open import open_embedded

    path = tmp_path / "auth.sqlite"
    admin = create_queue_manager(path, principal="admin")
    for name in ("APP.IN", "CATCH"):
        admin.define_queue(QueueAttrs(name=name))
    admin.set_authority("admin", "*", "all")
    admin.set_authority("admin", "QM1", "all", object_type="qmgr")
    admin.set_authority("handler", "*", "+browse +get +put +inq +setall")
    admin.set_authority("handler", "QM1", "+connect +inq +setall +altusr",
                        object_type="qmgr")
    admin.set_authority("alice", "APP.IN", "+put +setall")
    admin.set_authority("alice", "QM1", "+setall", object_type="qmgr")
    msgs = [dead(1, user_identifier="alice"), dead(2, user_identifier="bob"),
            dead(3, user_identifier="bob", reason=2035),
            dead(4, user_identifier=" ")]
    fill(admin, DLQ, msgs)
    handler = open_embedded(path, principal="handler")
    table = ("REASON(MQRC_Q_FULL) ACTION(RETRY) PUTAUT(CTX)\n"
             "ACTION(FWD) FWDQ(CATCH) PUTAUT(DEF)")
    dry = run(handler, table, tmp_path, dry_run=True)
    assert [m.outcome for m in dry.messages][:3] == [
        "would retry to APP.IN (header removed) as alice",
        # the plan opens APP.IN as bob, as the run puts: he may not (2035 in both)
        "would retry to APP.IN (header removed) as bob — would fail now: "
        "MQRC_NOT_AUTHORIZED",
        "would forward to CATCH"]
    report = run(handler, table, tmp_path, once=True)
    assert [(m.rule, m.outcome) for m in report.messages] == [
        (1, "retried"), (1, "failed"), (2, "forwarded"), (1, "failed")]
    # alice may put to APP.IN: her message went with her authority
    [retried] = browse_all(admin, "APP.IN")
    assert same(retried, original(msgs[0]))
    # bob may not: the attempt failed (2035 naming him), counted, the message stayed
    bob = report.messages[1]
    assert bob.attempts == 1 and bob.reason.startswith("MQRC_NOT_AUTHORIZED")
    assert "'bob' lacks +put on queue 'APP.IN'" in bob.reason
    # PUTAUT(DEF): the handler's own authority
    assert len(browse_all(admin, "CATCH")) == 1
    assert "no UserIdentifier" in report.messages[3].reason
    assert [m.md.msg_id for m in browse_all(admin, DLQ)] == [msgs[1].md.msg_id,
                                                           msgs[3].md.msg_id]
    # without +altusr the handler cannot put as anyone else: refused, nothing lost
    admin.set_authority("handler", "QM1", "+connect +inq +setall", object_type="qmgr")
    again = run(handler, "RETRYINT(0)\n" + table.replace("RETRY) PUTAUT", "RETRY) RETRY(5) "
                                                           "PUTAUT"), tmp_path, once=True)
    assert "lacks +altusr on queue manager" in again.messages[0].reason
    assert len(browse_all(admin, DLQ)) == 2
    handler.close()
    admin.close()

"""Contract: the dead-letter handler (``ops.dlq``) on every backend, the real-MQ one (mqi on
the stand-in) included — each action, the header removed with Format, Encoding and CCSID
restored from it, ``&REPLYQ``, a refused put counted and falling through to the next rule,
a message without a header left, and PUTAUT(CTX) putting with the message's user (MQ's
alternate user authority: MQPUT1 with MQPMO_ALTERNATE_USER_AUTHORITY on real MQ)."""

from __future__ import annotations

import threading
from pathlib import Path

from contract_support import browse_all, msg

from mqconsole.backends.base import Context, QueueManager, put_resolution
from mqconsole.mq.chain import add_dead_letter_header, dead_letter_header
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueType
from mqconsole.ops.dlq.attempts import AttemptStore
from mqconsole.ops.dlq.handler import HandlerReport, run_handler, settings_for
from mqconsole.ops.dlq.rules import parse_table
from mqconsole.ops.result import Control

HANDLER = "ctdlq"  # the handler's principal in the PUTAUT test


def dead(qmgr: str, body: str, *, dest: str, reason: int, **md: object) -> Message:
    """A message as a z/OS queue manager dead-letters it: the header in 785/500, the
    descriptor carrying those, the original MQSTR/546/1208 inside the header."""
    md.setdefault("msg_id", b"CTDLQ " + body.encode().ljust(18, b".")[:18])
    m = msg(body, encoding=546, ccsid=1208, priority=5, **md)
    new_md, data = add_dead_letter_header(m.md, m.body, reason=reason, dest_q_name=dest,
                                          dest_qmgr_name=qmgr, header_encoding=785,
                                          header_ccsid=500)
    return Message(new_md, data)


def fill(qm: QueueManager, queue: str, messages: list[Message]) -> None:
    for m in messages:
        qm.put(queue, m, context=Context.SET_ALL, syncpoint=True)
    qm.commit()


def handle(qm: QueueManager, text: str, dlq: str, store: Path, **kw: object) -> HandlerReport:
    table = parse_table(text)
    return run_handler(qm, table, settings_for(table, dlq, **kw),  # type: ignore[arg-type]
                       store_path=str(store))


def test_each_action_and_the_header_removed(backend, qm: QueueManager, make_queue,
                                            tmp_path: Path) -> None:
    dlq, app, fwd, keep, reply, full = (make_queue("DLQ"), make_queue("APP"),
                                        make_queue("FWD"), make_queue("KEEP"),
                                        make_queue("REPLY"), make_queue("FULL", max_depth=0))
    name = qm.inquire_qmgr().name
    msgs = [dead(name, "retry me", dest=app, reason=2053),
            dead(name, "discard me", dest=app, reason=2035),
            dead(name, "ignore me", dest=app, reason=2087),
            dead(name, "keep the header", dest=app, reason=2110),
            dead(name, "strip the header", dest=app, reason=2051),
            dead(name, "to the reply queue", dest=app, reason=2085, reply_to_q=reply),
            dead(name, "full: falls through", dest=full, reason=2053),
            msg("no header at all", priority=5)]
    fill(qm, dlq, msgs)
    table = (f"RETRYINT(0) WAIT(NO)\n"
             f"DESTQ({full}) ACTION(RETRY) RETRY(2)\n"
             f"DESTQ({full}) ACTION(FWD) FWDQ({fwd}) HEADER(NO)\n"
             "REASON(MQRC_Q_FULL) ACTION(RETRY)\n"
             "REASON(MQRC_NOT_AUTHORIZED) ACTION(DISCARD)\n"
             "REASON(MQRC_UNKNOWN_REMOTE_Q_MGR) ACTION(IGNORE)\n"
             f"REASON(MQRC_FORMAT_ERROR) ACTION(FWD) FWDQ({keep}) HEADER(YES)\n"
             f"REASON(MQRC_PUT_INHIBITED) ACTION(FWD) FWDQ({fwd}) HEADER(NO) +\n"
             f"   FWDQM(&DESTQM)\n"
             "reason(mqrc_unknown_object_name) action(fwd) fwdq(&REPLYQ)\n")
    report = handle(qm, table, dlq, tmp_path / "attempts.sqlite")
    res = report.result
    assert res.done == 6 and not res.failed, res
    outcomes = {m.msg_id: m.outcome for m in report.messages}
    assert len(outcomes) == len(msgs)
    # RETRY: to the header's destination, the original message (Format/Encoding/CCSID back)
    [retried] = browse_all(qm, app)
    assert retried.body == b"retry me"
    assert (retried.md.format, retried.md.encoding, retried.md.ccsid) == ("MQSTR   ", 546, 1208)
    assert retried.md.msg_id == msgs[0].md.msg_id
    # FWD HEADER(YES): header and all; HEADER(NO) stripped (and the full one, after RETRY(2))
    [kept] = browse_all(qm, keep)
    assert kept.body == msgs[3].body and (kept.md.encoding, kept.md.ccsid) == (785, 500)
    assert dead_letter_header(kept.md, kept.body) is not None
    assert sorted(m.body for m in browse_all(qm, fwd)) == [b"full: falls through",
                                                           b"strip the header"]
    assert all((m.md.format, m.md.encoding, m.md.ccsid) == ("MQSTR   ", 546, 1208)
               for m in browse_all(qm, fwd))
    [replied] = browse_all(qm, reply)  # HEADER(YES) by default
    assert replied.body == msgs[5].body and dead_letter_header(replied.md, replied.body)
    # IGNORE and no header: left where they were; DISCARD: gone
    assert {m.body for m in browse_all(qm, dlq)} == {msgs[2].body, b"no header at all"}
    assert {m.outcome for m in report.messages if m.rule is None} == {"no valid header: left"}
    full_lines = [(m.rule, m.attempts, m.outcome) for m in report.messages
                  if m.destination == full]
    assert full_lines == [(1, 1, "failed"), (1, 2, "failed")]
    assert report.rules_json()[:2] == [{"rule": 1, "matched": 2, "done": 0, "failed": 2},
                                       {"rule": 2, "matched": 1, "done": 1, "failed": 0}]
    store = AttemptStore(tmp_path / "attempts.sqlite", name, dlq)
    assert len(store) == 0  # forgotten once the message left
    store.close()


def test_putaut_ctx_puts_with_the_messages_user(backend, connect, qm: QueueManager,
                                                make_queue, tmp_path: Path) -> None:
    dlq, app, other = make_queue("DLQ"), make_queue("APP"), make_queue("OTHER")
    name = qm.inquire_qmgr().name
    fill(qm, dlq, [dead(name, "alice may", dest=app, reason=2053, user_identifier="ctalice"),
                   dead(name, "bob may not", dest=app, reason=2053, user_identifier="ctbob"),
                   dead(name, "as the handler", dest=other, reason=2035,
                        user_identifier="ctbob")])
    backend.restrict()
    backend.grant(HANDLER, dlq, {"browse", "get", "inq"})
    backend.grant(HANDLER, app, {"put", "setall", "inq"})
    backend.grant(HANDLER, other, {"put", "setall", "inq"})
    backend.grant(HANDLER, "", {"connect", "inq", "setall", "altusr"}, object_type="qmgr")
    backend.grant("ctalice", app, {"put", "setall"})
    backend.grant("ctalice", "", {"setall"}, object_type="qmgr")
    handler = connect(HANDLER)
    table = ("REASON(MQRC_Q_FULL) ACTION(RETRY) PUTAUT(CTX) RETRY(3)\n"
             f"ACTION(FWD) FWDQ({other}) HEADER(NO)\n")
    report = handle(handler, table, dlq, tmp_path / "attempts.sqlite", once=True)
    assert [(m.rule, m.outcome) for m in report.messages] == [
        (1, "retried"), (1, "failed"), (2, "forwarded")]
    bob = report.messages[1]
    assert bob.attempts == 1 and bob.reason.startswith("MQRC_NOT_AUTHORIZED"), bob.reason
    [retried] = browse_all(qm, app)
    assert retried.body == b"alice may" and retried.md.user_identifier.strip() == "ctalice"
    [forwarded] = browse_all(qm, other)
    assert forwarded.body == b"as the handler"
    assert [m.body[-len(b"bob may not"):] for m in browse_all(qm, dlq)] == [b"bob may not"]
    # without +altusr the handler cannot put as anyone else: a failed attempt, nothing lost
    backend.grant(HANDLER, "", {"connect", "inq", "setall"}, object_type="qmgr")
    again = handle(handler, "RETRYINT(0)\n" + table, dlq, tmp_path / "attempts.sqlite",
                   once=True)
    [line] = again.messages
    assert (line.attempts, line.outcome) == (2, "failed") and "altusr" in line.reason
    assert len(browse_all(qm, dlq)) == 1


def test_a_put_back_onto_the_queue_being_processed_ends(qm: QueueManager, make_queue,
                                                        tmp_path: Path) -> None:
    """FWDQ naming the input queue itself, with a unit of work per message: a browse cursor
    meets each committed copy again at the end of the queue (real MQ's does), so the pass
    never ended; it is a failed attempt, and the messages stay as they were."""
    dlq = make_queue("DLQ")
    name = qm.inquire_qmgr().name
    msgs = [dead(name, f"loop {i}", dest="APP", reason=2053) for i in range(3)]
    fill(qm, dlq, msgs)
    report = handle(qm, f"WAIT(NO)\nACTION(FWD) FWDQ({dlq})\n", dlq,
                    tmp_path / "attempts.sqlite", batch=1)
    assert report.result.done == 0 and report.passes == 1
    assert [m.outcome for m in report.messages] == ["failed"] * 3
    assert [m.body for m in browse_all(qm, dlq)] == [m.body for m in msgs]


def test_wait_yes_wakes_on_an_arrival_and_ends_on_stop(qm: QueueManager, qm2: QueueManager,
                                                       make_queue, tmp_path: Path) -> None:
    """WAIT(YES) over the backend's own queue status (PCF on real MQ): a message arriving
    while the handler waits is handled; a stop ends the run cleanly."""
    import threading
    import time

    from mqconsole.ops.result import Control

    dlq, app = make_queue("DLQ"), make_queue("APP")
    name = qm.inquire_qmgr().name
    fill(qm, dlq, [dead(name, "first", dest=app, reason=2053)])
    control = Control()
    box: dict[str, HandlerReport] = {}
    table = parse_table("WAIT(YES)\nACTION(RETRY)\n")

    def handler() -> None:
        box["report"] = run_handler(qm2, table, settings_for(table, dlq),
                                    store_path=str(tmp_path / "attempts.sqlite"),
                                    control=control)

    worker = threading.Thread(target=handler)
    worker.start()
    try:
        for n, body in ((1, "second"), (2, None)):
            deadline = time.monotonic() + 60
            while len(browse_all(qm, app)) < n and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(browse_all(qm, app)) == n
            if body is not None:  # arrives while the handler waits
                fill(qm, dlq, [dead(name, body, dest=app, reason=2053)])
    finally:
        control.cancel.set()
        worker.join(60)
    report = box["report"]
    assert report.result.cancelled and report.result.done == 2 and report.passes >= 2
    assert sorted(m.body for m in browse_all(qm, app)) == [b"first", b"second"]
    assert browse_all(qm, dlq) == []


def guarded(qm: QueueManager, text: str, dlq: str, store: Path, **kw: object
            ) -> HandlerReport:
    """``handle`` stopped after 20 s: a pass without end fails the test, never hangs it."""
    guard = Control()
    timer = threading.Timer(20, guard.cancel.set)
    timer.start()
    try:
        table = parse_table(text)
        return run_handler(qm, table, settings_for(table, dlq, **kw),  # type: ignore[arg-type]
                           store_path=str(store), control=guard)
    finally:
        timer.cancel()


def test_a_name_resolving_to_the_queue_being_processed_ends(qm: QueueManager, make_queue,
                                                            tmp_path: Path) -> None:
    """An alias of the input queue, and a remote queue definition naming it on this queue
    manager, are the input queue: a failed attempt (INPUT_QUEUE), resolved by the backend
    (the embedded one's name resolution, the MQI one's inquiries of TARGET/RNAME/RQMNAME)."""
    dlq = make_queue("DLQ")
    name = qm.inquire_qmgr().name
    alias = make_queue("DLQALIAS", type=QueueType.ALIAS, target_q=dlq)
    back = make_queue("DLQBACK", type=QueueType.REMOTE, remote_q_name=dlq,
                      remote_qmgr_name=name)
    msgs = [dead(name, f"loop {i}", dest=back, reason=2053) for i in range(3)]
    fill(qm, dlq, msgs)
    report = guarded(qm, f"RETRYINT(0) WAIT(NO)\nACTION(FWD) FWDQ({alias}) RETRY(1)\n"
                     "ACTION(RETRY) RETRY(1)\n", dlq, tmp_path / "attempts.sqlite", batch=1)
    assert not report.result.cancelled, "the pass did not end"
    assert report.result.done == 0 and report.passes == 2
    assert [(m.rule, m.outcome) for m in report.messages] == [
        (1, "failed")] * 3 + [(2, "failed")] * 3
    assert all(m.reason.startswith("INPUT_QUEUE") for m in report.messages)
    again = guarded(qm, "WAIT(NO)\nACTION(FWD) FWDQ(&DESTQ) RETRY(1)\n", dlq,
                    tmp_path / "again.sqlite", batch=1)
    assert not again.result.cancelled, "the pass did not end"
    assert [m.outcome for m in again.messages] == ["failed"] * 3
    assert [m.body for m in browse_all(qm, dlq)] == [m.body for m in msgs]


def test_an_alias_the_handler_may_not_inquire_still_ends(backend, connect, qm: QueueManager,
                                                        make_queue, tmp_path: Path) -> None:
    """The handler may put to the alias but not inquire it (no +inq): where the backend
    cannot resolve the name without it (MQI), each message is forwarded once, met again
    at the end of the queue, and that teaches the run the alias loops; either way the run
    ends with every message on the queue exactly once."""
    dlq = make_queue("DLQ")
    alias = make_queue("DLQALIAS", type=QueueType.ALIAS, target_q=dlq)
    name = qm.inquire_qmgr().name
    msgs = [dead(name, f"loop {i}", dest="APP", reason=2053) for i in range(3)]
    fill(qm, dlq, msgs)
    backend.restrict()
    backend.grant(HANDLER, dlq, {"browse", "get", "inq", "put", "setall"})
    backend.grant(HANDLER, alias, {"put", "setall"})
    backend.grant(HANDLER, "", {"connect", "inq", "setall"}, object_type="qmgr")
    handler = connect(HANDLER)
    report = guarded(handler, f"RETRYINT(0) WAIT(NO)\nACTION(FWD) FWDQ({alias})"
                     " RETRY(2)\n", dlq, tmp_path / "attempts.sqlite", batch=1)
    assert not report.result.cancelled, "the pass did not end"
    learned = [] if put_resolution(handler) is not None else ["forwarded"] * 3
    assert [m.outcome for m in report.messages] == learned + ["failed"] * 6
    assert sorted(m.body for m in browse_all(qm, dlq)) == sorted(m.body for m in msgs)

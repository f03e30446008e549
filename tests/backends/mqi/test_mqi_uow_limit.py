"""Issue 14 item 5: a unit of work holds at most MAXUMSGS messages.

The stand-in refuses the put or get that would pass the queue manager's MAXUMSGS with 2024
(MQRC_SYNCPOINT_LIMIT_REACHED), counting the COA/COD reports a message asks for. The MQI
backend reads MAXUMSGS at connect; operations cap ``--batch`` to it, and a put refused with
2024 commits what is done and carries on (before: "destination refused" failures).
"""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.delete import delete_messages
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer

MQRO_COA = 0x100
IN_GROUP, LAST_IN_GROUP = 0x08, 0x10


def _msg(i: int, **md: object) -> Message:
    return Message(MQMD(format="MQSTR   ", msg_id=f"M{i:05d}".encode().ljust(24, b"\0"),
                        **md), f"m{i}".encode())  # type: ignore[arg-type]


def _fill(qm, queue: str, n: int, **md: object) -> None:
    for i in range(n):
        qm.put(queue, _msg(i, **md), context=Context.SET_ALL, syncpoint=False)


def test_the_standin_refuses_past_maxumsgs_and_counts_reports(make_qmgr) -> None:
    qmgr = make_qmgr(max_uncommitted=3)
    qm = qmgr.connect()
    q = qmgr.queue()
    qm.put(q, _msg(1), syncpoint=True)
    qm.put(q, _msg(2, report=MQRO_COA), syncpoint=True)  # the COA report counts: 3 held
    with pytest.raises(MQError) as info:
        qm.put(q, _msg(3), syncpoint=True)
    assert info.value.reason == 2024
    qm.put(q, _msg(4), syncpoint=False)  # outside syncpoint: no limit
    qm.commit()
    assert qm.inquire_queue(q).depth == 3
    qm.get(q, syncpoint=True)
    qm.get(q, syncpoint=True)
    qm.get(q, syncpoint=True)
    with pytest.raises(MQError) as info:
        qm.put(q, _msg(5), syncpoint=True)
    assert info.value.reason == 2024
    qm.backout()


def test_maxumsgs_is_read_at_connect(make_qmgr) -> None:
    assert make_qmgr(max_uncommitted=77).connect().max_uncommitted == 77


def test_a_move_caps_its_batch_to_maxumsgs(make_qmgr) -> None:
    qmgr = make_qmgr(max_uncommitted=10)
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src, 23)
    r = transfer(qm, src, dst, Selection.build(all_=True), batch=100)
    assert (r.done, r.failed) == (23, [])
    assert any("--batch 100 lowered to 5" in w and "MAXUMSGS" in w for w in r.warnings)
    assert (qm.inquire_queue(src).depth, qm.inquire_queue(dst).depth) == (0, 23)


def test_2024_on_a_put_commits_what_is_done_and_carries_on(make_qmgr) -> None:
    """Each message asks for a COA report: 3 uncommitted messages each, so the capped batch
    (5) still passes MAXUMSGS 10 at the fourth message's put."""
    qmgr = make_qmgr(max_uncommitted=10)
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src, 12, report=MQRO_COA)
    r = transfer(qm, src, dst, Selection.build(all_=True), batch=5)
    assert r.failed == [] and r.done == 12
    assert (qm.inquire_queue(src).depth, qm.inquire_queue(dst).depth) == (0, 12)


def test_a_copy_counts_one_per_message(make_qmgr) -> None:
    qmgr = make_qmgr(max_uncommitted=4)
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src, 9)
    r = transfer(qm, src, dst, Selection.build(all_=True), batch=50, copy=True)
    assert (r.done, r.failed) == (9, [])
    assert any("lowered to 4" in w for w in r.warnings)


def test_a_group_bigger_than_maxumsgs_stays_whole(make_qmgr) -> None:
    qmgr = make_qmgr(max_uncommitted=6)
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    gid = b"G" * 24
    for seq in range(1, 5):  # 4 messages: 8 uncommitted in one unit, more than 6
        qm.put(src, _msg(seq, group_id=gid, msg_seq_number=seq,
                         msg_flags=IN_GROUP | (LAST_IN_GROUP if seq == 4 else 0)),
               syncpoint=False)
    _fill(qm, src, 2)
    r = transfer(qm, src, dst, Selection.build(all_=True))
    assert r.done == 2
    assert any("MAXUMSGS (6)" in w for w in r.warnings)
    assert (qm.inquire_queue(src).depth, qm.inquire_queue(dst).depth) == (4, 2)


def test_a_delete_caps_its_batch(make_qmgr, tmp_path) -> None:
    qmgr = make_qmgr(max_uncommitted=3)
    qm = qmgr.connect()
    q = qmgr.queue()
    _fill(qm, q, 8)
    r = delete_messages(qm, q, Selection.build(all_=True), backup_dir=tmp_path, batch=50)
    assert (r.done, r.failed) == (8, [])
    assert any("lowered to 3" in w for w in r.warnings)
    assert qm.inquire_queue(q).depth == 0


# The reports a message asks for are made in the unit of work of its put (COA) or get
# (COD) and count in MAXUMSGS: every operation commits before the message that would not
# fit, or — a put answered 2024 — commits what is done and puts it again. Each of these
# failed before (2024 taken for the destination's refusal, or a unit failed twice).
MQRO_COD = 0x800


def test_a_load_of_messages_asking_for_coa_commits_and_carries_on(make_qmgr, tmp_path) -> None:
    from mqconsole.ops.savefile import load_to_queue, save_queue

    qmgr = make_qmgr(max_uncommitted=10)
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src, 12, report=MQRO_COA, reply_to_q=src)
    save_queue(qm, src, tmp_path / "f.dmp", Selection.build(all_=True))
    r = load_to_queue(qm, tmp_path / "f.dmp", dst, batch=50)
    assert (r.done, r.failed) == (12, [])
    assert qm.inquire_queue(dst).depth == 12


def test_a_move_of_messages_asking_for_cod_fits_its_units(make_qmgr) -> None:
    qmgr = make_qmgr(max_uncommitted=10)
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src, 12, report=MQRO_COD | MQRO_COA, reply_to_q=src)
    r = transfer(qm, src, dst, Selection.build(all_=True), batch=50)
    assert (r.done, r.failed) == (12, [])
    assert (qm.inquire_queue(src).depth, qm.inquire_queue(dst).depth) == (0, 12)


def test_a_delete_of_messages_asking_for_cod_fits_its_units(make_qmgr, tmp_path) -> None:
    qmgr = make_qmgr(max_uncommitted=10)
    qm = qmgr.connect()
    q = qmgr.queue()
    _fill(qm, q, 12, report=MQRO_COD, reply_to_q=q)
    r = delete_messages(qm, q, Selection.build(all_=True), backup_dir=tmp_path, batch=50)
    assert (r.done, r.failed) == (12, [])
    assert qm.inquire_queue(q).depth == 0


def test_the_dead_letter_handler_fits_its_units(make_qmgr, tmp_path) -> None:
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.ops.dlq.handler import run_handler, settings_for
    from mqconsole.ops.dlq.rules import parse_table

    qmgr = make_qmgr(max_uncommitted=10)
    qm = qmgr.connect()
    dlq, dst = qmgr.queue(), qmgr.queue()
    for i in range(12):
        m = _msg(i, report=MQRO_COA | MQRO_COD, reply_to_q=dst)
        md, body = add_dead_letter_header(m.md, m.body, reason=2053, dest_q_name=dst)
        qm.put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    table = parse_table("RETRYINT(0) WAIT(NO)\nACTION(RETRY)")
    report = run_handler(qm, table, settings_for(table, dlq, batch=50, once=True),
                         store_path=str(tmp_path / "attempts.sqlite"))
    assert (report.result.done, report.result.failed) == (12, [])
    assert (qm.inquire_queue(dlq).depth, qm.inquire_queue(dst).depth) == (0, 12)


def test_a_group_whose_reports_pass_maxumsgs_stays_whole(make_qmgr) -> None:
    """3 messages asking for COA and COD: 12 uncommitted in one unit, more than 10 (6
    without the reports). Before, the group was opened and its third put heard 2024."""
    qmgr = make_qmgr(max_uncommitted=10)
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    gid = b"R" * 24
    for seq in range(1, 4):
        qm.put(src, _msg(seq, group_id=gid, msg_seq_number=seq, report=MQRO_COA | MQRO_COD,
                         msg_flags=IN_GROUP | (LAST_IN_GROUP if seq == 3 else 0)),
               syncpoint=False)
    r = transfer(qm, src, dst, Selection.build(all_=True))
    assert r.done == 0 and all(f.reason != 2024 for f in r.failed)
    assert any("need 12 uncommitted" in w and "MAXUMSGS (10)" in w for w in r.warnings)
    assert (qm.inquire_queue(src).depth, qm.inquire_queue(dst).depth) == (3, 0)


def _without_inq_on_the_qmgr(qmgr):
    """A connection that cannot read MAXUMSGS (no +inq on the queue manager): it hears 2024
    from the queue manager instead of capping its batch."""
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("ops", "*", {"browse", "get", "put", "setall", "inq", "dsp"})
    admin.set_authority("ops", "", {"connect", "dsp", "setall"}, object_type="qmgr")
    qm = qmgr.connect(user="ops")
    assert qm.max_uncommitted is None
    return qm


def test_the_dead_letter_handler_commits_and_carries_on_at_2024(make_qmgr, tmp_path) -> None:
    """Before, the fourth put's 2024 was a failed attempt ('destination refused')."""
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.ops.dlq.handler import run_handler, settings_for
    from mqconsole.ops.dlq.rules import parse_table

    qmgr = make_qmgr(max_uncommitted=6)
    dlq, dst = qmgr.queue(), qmgr.queue()
    qm = _without_inq_on_the_qmgr(qmgr)
    for i in range(8):
        m = _msg(i)
        md, body = add_dead_letter_header(m.md, m.body, reason=2053, dest_q_name=dst)
        qmgr.admin().put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    table = parse_table("RETRYINT(0) WAIT(NO)\nACTION(RETRY)")
    report = run_handler(qm, table, settings_for(table, dlq, batch=50, once=True),
                         store_path=str(tmp_path / "attempts.sqlite"))
    assert (report.result.done, report.result.failed) == (8, [])
    assert (qm.inquire_queue(dlq).depth, qm.inquire_queue(dst).depth) == (0, 8)


def test_put_commits_and_carries_on_at_2024(make_qmgr) -> None:
    """``mqconsole put --count N`` commits every 500: a smaller MAXUMSGS it could not read
    answered 2024 and nothing was put."""
    from mqconsole.ops.messages import put_messages

    qmgr = make_qmgr(max_uncommitted=6)
    q = qmgr.queue()
    qm = _without_inq_on_the_qmgr(qmgr)
    r = put_messages(qm, q, MQMD(format="MQSTR   "), b"x", count=20)
    assert (r.done, r.failed) == (20, []) and qm.inquire_queue(q).depth == 20
    other = make_qmgr("QMCAP", max_uncommitted=6)  # MAXUMSGS read: units of 6
    r = put_messages(other.connect(), other.queue(), MQMD(format="MQSTR   "), b"y", count=20)
    assert r.done == 20 and any("lowered to 6" in w for w in r.warnings)


# A get refused with 2024 (issue 22 item 5). IBM MQ, MQGET reason codes: 2024
# MQRC_SYNCPOINT_LIMIT_REACHED — "the number of uncommitted messages … would exceed the
# limit defined for the queue manager (MAXUMSGS)"; the COD report a get makes is a message
# of the same unit of work, so it counts. With MAXUMSGS 7 and messages asking for COD, a move
# holds 3 a message (put, get, report) and the third message's get is refused after its put.
# Before: the unit was backed out and redone the same way, failed twice and moved nothing
# (BackoutCount 2); a delete removed nothing; the dead-letter handler's --once ended 0 with
# nothing done and BackoutCount raised.


def _cod_queue(qmgr, n: int, *, report: int = MQRO_COD):
    src, dst = qmgr.queue(), qmgr.queue()
    qm = _without_inq_on_the_qmgr(qmgr)
    _fill(qmgr.admin(), src, n, report=report, reply_to_q=src)
    return qm, src, dst


def _backout_counts(qmgr, queue: str) -> list[int]:
    with qmgr.admin().browse(queue) as cursor:
        return [m.md.backout_count for m in iter(cursor.next, None)]


def test_a_move_whose_get_hears_2024_commits_before_and_redoes_that_message_alone(
        make_qmgr) -> None:
    from mqconsole.ops.exit_codes import ExitCode, exit_code_of

    qmgr = make_qmgr(max_uncommitted=7)
    qm, src, dst = _cod_queue(qmgr, 8)
    r = transfer(qm, src, dst, Selection.build(all_=True), batch=50)
    assert (r.done, r.failed, r.stopped_early) == (8, [], None)
    assert exit_code_of(r) == ExitCode.OK
    assert any("MAXUMSGS" in w and "at 7 uncommitted" in w for w in r.warnings)
    assert (qm.inquire_queue(src).depth, qm.inquire_queue(dst).depth) == (0, 8)


def test_a_message_that_does_not_fit_alone_stays_and_the_rest_moves(make_qmgr) -> None:
    """MAXUMSGS 2: a message asking for COA and COD needs 4 in one unit, never possible;
    the others (no reports: 2 each) move. Its BackoutCount is never raised by redos."""
    from mqconsole.ops.exit_codes import ExitCode, exit_code_of

    qmgr = make_qmgr(max_uncommitted=2)
    src, dst = qmgr.queue(), qmgr.queue()
    qm = _without_inq_on_the_qmgr(qmgr)
    admin = qmgr.admin()
    admin.put(src, _msg(0), context=Context.SET_ALL, syncpoint=False)
    admin.put(src, _msg(1, report=MQRO_COA | MQRO_COD, reply_to_q=src),
              context=Context.SET_ALL, syncpoint=False)
    admin.put(src, _msg(2), context=Context.SET_ALL, syncpoint=False)
    r = transfer(qm, src, dst, Selection.build(all_=True), batch=50)
    assert r.done == 2 and [f.reason for f in r.failed] == [2024]
    assert "does not fit in a unit of work of its own" in r.failed[0].detail
    assert exit_code_of(r) == ExitCode.PARTIAL
    assert _backout_counts(qmgr, src) == [0]


def test_a_delete_whose_get_hears_2024_commits_before_and_goes_on(make_qmgr,
                                                                     tmp_path) -> None:
    qmgr = make_qmgr(max_uncommitted=7)
    qm, q, _ = _cod_queue(qmgr, 8)
    r = delete_messages(qm, q, Selection.build(all_=True), backup_dir=tmp_path, batch=50)
    assert (r.done, r.failed) == (8, [])
    assert qm.inquire_queue(q).depth == 0


def test_the_handler_once_whose_get_hears_2024_redoes_the_pass_in_smaller_units(
        make_qmgr, tmp_path) -> None:
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.ops.dlq.handler import run_handler, settings_for
    from mqconsole.ops.dlq.rules import parse_table
    from mqconsole.ops.exit_codes import ExitCode, exit_code_of

    qmgr = make_qmgr(max_uncommitted=7)
    dlq, dst = qmgr.queue(), qmgr.queue()
    qm = _without_inq_on_the_qmgr(qmgr)
    for i in range(8):
        m = _msg(i, report=MQRO_COD, reply_to_q=dst)
        md, body = add_dead_letter_header(m.md, m.body, reason=2053, dest_q_name=dst)
        qmgr.admin().put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    table = parse_table("RETRYINT(0) WAIT(NO)\nACTION(RETRY)")
    report = run_handler(qm, table, settings_for(table, dlq, batch=50, once=True),
                         store_path=str(tmp_path / "attempts.sqlite"))
    r = report.result
    assert (r.done, r.failed, r.stopped_early) == (8, [], None)
    assert r.selected == 8  # the pass made again is not counted twice
    assert exit_code_of(r, leaving_is_done=True) == ExitCode.OK
    assert (qm.inquire_queue(dlq).depth, qm.inquire_queue(dst).depth) == (0, 8)


def test_the_handler_once_that_backs_out_its_unit_never_exits_0(make_qmgr, tmp_path) -> None:
    """A unit of the handler's --once backed out for another reason (the get fails with
    2009 here) did nothing: the run stops early (exit 1), it does not end 0."""
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.ops.dlq.handler import run_handler, settings_for
    from mqconsole.ops.dlq.rules import parse_table
    from mqconsole.ops.exit_codes import ExitCode, exit_code_of
    from tests.support.faulty import Faults, FaultyQueueManager

    qmgr = make_qmgr()
    dlq, dst = qmgr.queue(), qmgr.queue()
    qm = qmgr.connect()
    for i in range(3):
        m = _msg(i)
        md, body = add_dead_letter_header(m.md, m.body, reason=2053, dest_q_name=dst)
        qm.put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    table = parse_table("RETRYINT(0) WAIT(NO)\nACTION(RETRY)")
    report = run_handler(FaultyQueueManager(qm, Faults(get={2: 2195})), table,
                         settings_for(table, dlq, batch=50, once=True),
                         store_path=str(tmp_path / "attempts.sqlite"))
    r = report.result
    assert r.done == 0 and r.stopped_early is not None and "backed out" in r.stopped_early
    assert exit_code_of(r, leaving_is_done=True) == ExitCode.PARTIAL
    assert qm.inquire_queue(dlq).depth == 3

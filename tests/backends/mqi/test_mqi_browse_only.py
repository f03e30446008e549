"""Issue 14 item 2: what only looks opens for browse only.

A real queue manager makes an input handle exclusive on a SHARE(NO) / DEFSOPT(EXCL) queue
(z/OS defaults: its consumer gets 2042 while the console has it open), counts it in IPPROCS
(TRIGTYPE FIRST/DEPTH wait for OpenInputCount 0) and needs +get for it. The stand-in does
all three; these tests failed while every browse opened MQOO_BROWSE | MQOO_INPUT_SHARED.
"""

from __future__ import annotations

import struct

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.browse import iter_views
from mqconsole.ops.savefile import save_queue
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer


def _put(qm, queue: str, *bodies: str) -> None:
    for b in bodies:
        qm.put(queue, Message(MQMD(format="MQSTR   "), b.encode()), context=Context.NEW,
               syncpoint=False)


def _input_opens(engine, queue: str) -> list[int]:
    C = engine.CMQC
    anyin = C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE | C.MQOO_INPUT_AS_Q_DEF
    return [c.info["options"] for c in engine.calls_named("MQOPEN")
            if c.info.get("name") == queue and c.info["options"] & anyin]


def test_the_console_browsing_leaves_a_noshare_queue_to_its_consumer(qmgr, qm) -> None:
    queue = qmgr.queue()
    qmgr.qdef.noshare.add(queue)
    _put(qm, queue, "a", "b")
    consumer = qmgr.connect()
    with qm.browse(queue) as cursor:
        assert cursor.next().body == b"a"
        assert consumer.get(queue, syncpoint=False).body == b"a"  # no 2042
        assert qm.queue_status(queue).open_input_count == 0


def test_looking_opens_no_input_handle(qmgr, qm, engine, tmp_path) -> None:
    """Browse, save, a copy and the dry run of a move: MQOO_BROWSE only."""
    queue, other = qmgr.queue(), qmgr.queue()
    _put(qm, queue, "a", "b")
    engine.clear_calls()
    assert [v.message.body for v in iter_views(qm, queue)] == [b"a", b"b"]
    save_queue(qm, queue, tmp_path / "saved.dmp", Selection.build(all_=True))
    transfer(qm, queue, other, Selection.build(all_=True), dry_run=True)
    transfer(qm, queue, other, Selection.build(all_=True), copy=True)
    assert engine.calls_named("MQOPEN")  # they did open the queue
    assert _input_opens(engine, queue) == []
    # a move gets: it opens for input
    transfer(qm, queue, other, Selection.build(all_=True))
    assert _input_opens(engine, queue)


def test_a_browse_only_principal_saves_and_plans(qmgr, qm, tmp_path) -> None:
    queue, other = qmgr.queue(), qmgr.queue()
    _put(qm, queue, "a")
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("viewer", queue, {"browse", "inq", "dsp"})
    admin.set_authority("viewer", "", {"connect", "inq"}, object_type="qmgr")
    viewer = qmgr.connect(user="viewer")
    assert save_queue(viewer, queue, tmp_path / "v.dmp", Selection.build(all_=True)).selected == 1
    with pytest.raises(MQError) as info:
        viewer.browse(queue, for_get=True)
    assert info.value.reason == 2035 and "+get" in str(info.value)
    assert other  # the destination exists


def test_a_trigger_first_fires_while_the_console_browses(qmgr, qm) -> None:
    queue, initq = qmgr.queue(), qmgr.queue("INITQ")
    qmgr.qdef.triggers[queue] = initq
    with qm.browse(queue) as cursor:
        assert cursor.next() is None
        _put(qm, queue, "wake up")  # depth 0 -> 1 with IPPROCS 0
    tm = qm.get(initq, syncpoint=False)
    assert tm.md.format.strip() == "MQTRIG"
    assert struct.unpack_from("4s", tm.body)[0] == b"TM  "
    assert tm.body[8:56].rstrip() == queue.encode()


def test_an_input_handle_holds_the_trigger_back(qmgr, qm) -> None:
    """The stand-in's trigger rule itself: no trigger message while a getter has it open."""
    queue, initq = qmgr.queue(), qmgr.queue("INITQ")
    qmgr.qdef.triggers[queue] = initq
    with qm.browse(queue, for_get=True):
        _put(qm, queue, "x")
    assert qm.inquire_queue(initq).depth == 0


def test_2042_names_who_holds_the_queue(qmgr, qm) -> None:
    queue, other = qmgr.queue(), qmgr.queue()
    qmgr.qdef.noshare.add(queue)
    _put(qm, queue, "a")
    consumer = qmgr.connect()
    # a consumer has it open for input; the move stops before changing anything
    with consumer.browse(queue, for_get=True), pytest.raises(MQError) as info:
        transfer(qm, queue, other, Selection.build(all_=True))
    text = str(info.value)
    assert info.value.reason == 2042
    assert "IPPROCS 1" in text and "user mqadmin" in text and "pid " in text
    assert qm.inquire_queue(queue).depth == 1 and qm.inquire_queue(other).depth == 0


def test_every_dry_run_and_scan_opens_no_input_handle(qmgr, qm, engine, tmp_path) -> None:
    """summary, and the dry runs of delete, resubmit, edit and the dead-letter handler."""
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.ops.delete import delete_messages
    from mqconsole.ops.dlq.handler import run_handler, settings_for
    from mqconsole.ops.dlq.rules import parse_table
    from mqconsole.ops.edit import edit_message
    from mqconsole.ops.resubmit import resubmit
    from mqconsole.ops.summary import summarize_queue

    queue, dlq = qmgr.queue(), qmgr.queue()
    _put(qm, queue, "a")
    md, body = add_dead_letter_header(MQMD(format="MQSTR   "), b"d", reason=2053,
                                      dest_q_name=queue)
    qm.put(dlq, Message(md, body), context=Context.NEW, syncpoint=False)
    first = next(iter_views(qm, queue)).message
    engine.clear_calls()
    everything = Selection.build(all_=True)
    summarize_queue(qm, queue)
    delete_messages(qm, queue, everything, backup_dir=tmp_path, dry_run=True)
    resubmit(qm, dlq, everything, dry_run=True)
    edit_message(qm, queue, first.md.msg_id, body=b"b", dry_run=True)
    table = parse_table("ACTION(RETRY)")
    run_handler(qm, table, settings_for(table, dlq, once=True, dry_run=True),
                store_path=str(tmp_path / "attempts.sqlite"))
    opened = {c.info.get("name") for c in engine.calls_named("MQOPEN")}
    assert {queue, dlq} <= opened  # they did look
    assert _input_opens(engine, queue) == [] and _input_opens(engine, dlq) == []
    assert qm.inquire_queue(queue).depth == 1 and qm.inquire_queue(dlq).depth == 1


def test_a_move_into_a_triggered_queue_triggers_at_its_commit(qmgr, qm) -> None:
    """mqconsole puts under syncpoint: the trigger message of a unit of work is made
    available when the unit ends (the stand-in learned it; it modelled puts outside
    syncpoint only, so a move onto a TRIGTYPE(FIRST) queue triggered nothing)."""
    src, dst, initq = qmgr.queue(), qmgr.queue(), qmgr.queue("INITQ")
    qmgr.qdef.triggers[dst] = initq
    _put(qm, src, "a", "b", "c")
    r = transfer(qm, src, dst, Selection.build(all_=True), batch=2)
    assert r.done == 3
    assert qm.inquire_queue(initq).depth == 1  # one event: depth 0 -> 1, then 2, 3
    tm = qm.get(initq, syncpoint=False)
    assert tm.md.format.strip() == "MQTRIG" and tm.body[8:56].rstrip() == dst.encode()


def test_a_trigger_of_a_backed_out_unit_is_still_delivered(qmgr, qm) -> None:
    queue, initq = qmgr.queue(), qmgr.queue("INITQ")
    qmgr.qdef.triggers[queue] = initq
    qm.put(queue, Message(MQMD(format="MQSTR   "), b"x"), context=Context.NEW,
           syncpoint=True)
    assert qm.inquire_queue(initq).depth == 0  # not before the unit of work ends
    qm.backout()
    assert qm.inquire_queue(initq).depth == 1 and qm.inquire_queue(queue).depth == 0

"""Issue 14 item 6: reconnection off, and 2003 after a break is the connection's trouble.

A client whose mqclient.ini (DefRecon=YES) or CCDT (DEFRECON) turns reconnection on is
reconnected after a network break without being told; its unit of work is backed out, and
its next put, get or commit under syncpoint answers 2003. The stand-in does this
(``QMgrDef.client_reconnect``, ``fail_next(call, 0, effect="break")``). mqconsole connects
with MQCNO_RECONNECT_DISABLED, and a put or get answered 2003 backs the unit of work out and
redoes it instead of calling the destination's refusal.
"""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.savefile import load_to_queue, save_queue
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer


def _msg(i: int) -> Message:
    return Message(MQMD(format="MQSTR   ", msg_id=f"R{i:05d}".encode().ljust(24, b"\0")),
                   f"r{i}".encode())


def _fill(qm, queue: str, n: int) -> None:
    for i in range(n):
        qm.put(queue, _msg(i), context=Context.SET_ALL, syncpoint=False)


def test_the_standin_reconnects_a_client_that_allows_it(make_qmgr, ibmmq_lib, engine) -> None:
    """The stand-in's behaviour, with ibmmq called directly (no MQCNO_RECONNECT_DISABLED)."""
    qmgr = make_qmgr(client_reconnect=True)
    q = qmgr.queue()
    raw = ibmmq_lib.module.QueueManager(None)
    cd = ibmmq_lib.module.CD(ChannelName=b"DEV.APP.SVRCONN", ConnectionName=b"mqhost(1414)")
    raw.connect_with_options(qmgr.name.encode(), cd=cd, user="mqadmin", password="s3cret-pw")
    queue = ibmmq_lib.module.Queue(raw, q.encode(), ibmmq_lib.CMQC.MQOO_OUTPUT)
    pmo = ibmmq_lib.module.PMO(Options=ibmmq_lib.CMQC.MQPMO_SYNCPOINT)
    queue.put(b"one", ibmmq_lib.module.MD(), pmo)
    engine.fail_next("MQPUT", 0, effect="break")
    with pytest.raises(ibmmq_lib.MQMIError) as info:
        queue.put(b"two", ibmmq_lib.module.MD(), pmo)
    assert info.value.reason == 2003  # reconnected; the unit of work (with "one") is gone
    with pytest.raises(ibmmq_lib.MQMIError) as info:
        raw.commit()
    assert info.value.reason == 2003
    queue.put(b"three", ibmmq_lib.module.MD(), pmo)  # a new unit of work
    raw.commit()
    assert [m.body for m in _bodies(qmgr, q)] == [b"three"]
    queue.close()
    raw.disconnect()


def _bodies(qmgr, q):
    out = []
    with qmgr.admin().browse(q) as cur:
        while (m := cur.next()) is not None:
            out.append(m)
    return out


def test_mqconsole_turns_reconnection_off(make_qmgr, engine) -> None:
    qmgr = make_qmgr(client_reconnect=True)
    qm = qmgr.connect()
    C = qmgr.lib.CMQC
    assert engine.calls_named("MQCONNX")[-1].info["options"] & C.MQCNO_RECONNECT_DISABLED
    q = qmgr.queue()
    qm.put(q, _msg(1), syncpoint=True)
    engine.fail_next("MQPUT1", 0, effect="break")
    with pytest.raises(MQError) as info:  # said as the broken connection it is
        qm.put(q, _msg(2), syncpoint=True)
    assert info.value.reason == 2009


def test_a_move_whose_put_hears_2003_redoes_the_unit(make_qmgr, engine) -> None:
    """2003 on a put is a lost unit of work, not the destination refusing the message."""
    qmgr = make_qmgr()
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src, 6)
    engine.fail_next("MQPUT1", 2003)
    r = transfer(qm, src, dst, Selection.build(all_=True), batch=4)
    assert (r.done, r.failed) == (6, [])
    assert (qm.inquire_queue(src).depth, qm.inquire_queue(dst).depth) == (0, 6)


def test_a_load_that_loses_its_unit_of_work_says_so(make_qmgr, engine, tmp_path) -> None:
    """The third put hears 2003: the two before it went with the unit of work, so none of
    the three is reported loaded (before: the two were counted done, the third refused)."""
    qmgr = make_qmgr()
    qm = qmgr.connect()
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src, 5)
    save_queue(qm, src, tmp_path / "f.dmp", Selection.build(all_=True))
    loader = qmgr.connect()
    calls = {"n": 0}
    real_put = loader.put

    def put(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            engine.fail_next("MQPUT1", 2003)
        return real_put(*a, **k)

    loader.put = put  # type: ignore[method-assign]
    r = load_to_queue(loader, tmp_path / "f.dmp", dst, batch=10)
    assert r.done == 0 and len(r.failed) == 3
    assert all(f.reason == 2003 for f in r.failed)
    assert qm.inquire_queue(dst).depth == 0


def _raw(qmgr, lib):
    raw = lib.module.QueueManager(None)
    cd = lib.module.CD(ChannelName=b"DEV.APP.SVRCONN", ConnectionName=b"mqhost(1414)")
    raw.connect_with_options(qmgr.name.encode(), cd=cd, user="mqadmin", password="s3cret-pw")
    return raw


def test_the_standin_interrupts_a_commit_of_a_reconnected_client(make_qmgr, ibmmq_lib,
                                                                 engine) -> None:
    """A break during MQCMIT: the commit completed, a reconnected client hears 2549 (the
    outcome MQ cannot tell it), while a break before MQCMIT loses the unit (2003)."""
    qmgr = make_qmgr(client_reconnect=True)
    q = qmgr.queue()
    raw = _raw(qmgr, ibmmq_lib)
    C = ibmmq_lib.CMQC
    queue = ibmmq_lib.module.Queue(raw, q.encode(), C.MQOO_OUTPUT)
    pmo = ibmmq_lib.module.PMO(Options=C.MQPMO_SYNCPOINT)
    queue.put(b"one", ibmmq_lib.module.MD(), pmo)
    engine.fail_next("MQCMIT", 0, effect="interrupt")
    with pytest.raises(ibmmq_lib.MQMIError) as info:
        raw.commit()
    assert info.value.reason == 2549
    queue.put(b"two", ibmmq_lib.module.MD(), pmo)  # reconnected: it goes on
    engine.fail_next("MQCMIT", 0, effect="break")
    with pytest.raises(ibmmq_lib.MQMIError) as info:
        raw.commit()
    assert info.value.reason == 2003
    assert [m.body for m in _bodies(qmgr, q)] == [b"one"]
    queue.close()
    raw.disconnect()


def test_an_interrupted_commit_is_unknown_never_redone(make_qmgr, engine) -> None:
    """mqconsole turns reconnection off, so the same break is a 2009: outcome unknown."""
    from mqconsole.mq.errors import CommitOutcomeUnknown

    qmgr = make_qmgr(client_reconnect=True)
    qm = qmgr.connect()
    q = qmgr.queue()
    qm.put(q, _msg(1), syncpoint=True)
    engine.fail_next("MQCMIT", 0, effect="interrupt")
    with pytest.raises(CommitOutcomeUnknown) as info:
        qm.commit()
    assert info.value.reason == 2009 and not qm.in_unit_of_work
    assert qmgr.admin().inquire_queue(q).depth == 1


def test_the_standin_keeps_the_unit_open_after_another_commit_failure(qmgr, ibmmq_lib,
                                                                      engine) -> None:
    """MQCMIT failing with anything but 2003/2009/... leaves the unit of work open: a later
    MQCMIT commits it, an MQBACK would undo it (the stand-in's rule, called directly)."""
    q = qmgr.queue()
    raw = _raw(qmgr, ibmmq_lib)
    C = ibmmq_lib.CMQC
    queue = ibmmq_lib.module.Queue(raw, q.encode(), C.MQOO_OUTPUT)
    queue.put(b"kept", ibmmq_lib.module.MD(), ibmmq_lib.module.PMO(Options=C.MQPMO_SYNCPOINT))
    engine.fail_next("MQCMIT", 2102)
    with pytest.raises(ibmmq_lib.MQMIError) as info:
        raw.commit()
    assert info.value.reason == 2102
    assert _bodies(qmgr, q) == []  # not committed ...
    raw.commit()  # ... but still open
    assert [m.body for m in _bodies(qmgr, q)] == [b"kept"]
    queue.close()
    raw.disconnect()

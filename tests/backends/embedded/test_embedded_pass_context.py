"""Pass-all context on the embedded queue manager (issue 22 item 7), as MQ does it: a put
with ``Context.PASS_ALL`` takes the context of the message last got through the cursor it
names — none given or one opened for browsing only: 2097 (MQRC_CONTEXT_HANDLE_ERROR);
nothing got yet or the last call a browse: 2098 (MQRC_CONTEXT_NOT_AVAILABLE) — and needs
+passall on the queue, not +setall (IBM, "Authorizations for context"). A move with
``pass_context`` keeps every message's context so."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.open import open_embedded
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.selection import Selection


def _msg(i: int) -> Message:
    return Message(MQMD(format="MQSTR   ", msg_id=b"E%023d" % i, user_identifier="alice",
                        put_appl_name="ORDERS.APP", put_date="20260101",
                        put_time=f"0900{i:04d}"), b"e%d" % i)


@pytest.fixture
def qm(make_qm, tmp_path: Path):
    qm = make_qm("SRC", "DST", path=tmp_path / "qm", principal="admin")
    for i in range(3):
        qm.put("SRC", _msg(i), context=Context.SET_ALL, syncpoint=False)
    return qm


def _reason(fn) -> int:
    with pytest.raises(MQError) as e:
        fn()
    return e.value.reason


def test_the_context_of_the_message_got_passes(qm) -> None:
    other = Message(MQMD(format="MQSTR   "), b"new")
    assert _reason(lambda: qm.put("DST", other, context=Context.PASS_ALL)) == 2097
    with qm.browse("SRC") as looking:
        looking.next()
        assert _reason(lambda: qm.put("DST", other, context=Context.PASS_ALL,
                                      pass_from=looking)) == 2097  # browse only
    with qm.browse("SRC", for_get=True) as cursor:
        cursor.next()
        assert _reason(lambda: qm.put("DST", other, context=Context.PASS_ALL,
                                      pass_from=cursor)) == 2098  # nothing got
        cursor.get_current(syncpoint=False)
        qm.put("DST", other, context=Context.PASS_ALL, syncpoint=False, pass_from=cursor)
        cursor.next()  # a browse: its context is gone
        assert _reason(lambda: qm.put("DST", other, context=Context.PASS_ALL,
                                      pass_from=cursor)) == 2098
    with qm.browse("DST") as c:
        [put] = list(iter(c.next, None))
    assert put.body == b"new" and (put.md.user_identifier.strip(), put.md.put_time) == \
        ("alice", "09000000")


def test_passall_alone_moves_with_the_context_kept(qm, tmp_path) -> None:
    qm.set_authority("admin", "*", "all")
    qm.set_authority("admin", "", "all", object_type="qmgr")
    qm.set_authority("ops", "*", "+browse +get +put +inq +passall")
    qm.set_authority("ops", "", "+connect +inq", object_type="qmgr")
    ops = open_embedded(tmp_path / "qm", principal="ops")
    try:
        run = Operation(Move("SRC", "DST", Selection(all=True), pass_context=True),
                        journal=None).run(ops)
        assert run.exit_code == ExitCode.OK and run.result.done == 3, run.result.failed
    finally:
        ops.close()
    with qm.browse("DST") as c:
        moved = list(iter(c.next, None))
    assert [(m.body, m.md.user_identifier.strip(), m.md.put_appl_name.strip(),
             m.md.put_time) for m in moved] == [
        (b"e%d" % i, "alice", "ORDERS.APP", f"0900{i:04d}") for i in range(3)]

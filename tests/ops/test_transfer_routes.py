"""A move through the embedded backend's fast steps (``move_next`` for the rest of each unit
of work after the one-call ``move_current_to``) ends exactly as the protocol's plain
put + ``get_current`` route: the same result (done, failed with their positions and
reasons, skipped, warnings), the same messages left on the source and the same messages,
in the same order, on the destination — on generated queues with hostile dead-letter
headers, groups whole or broken, expiring messages, raised BackoutCounts, MD versions 1
and 2, and a destination that fills up or refuses long messages."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP, Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer
from tests.support.examples import examples
from tests.support.faulty import KEPT, Faults, FaultyQueueManager, browse_all

# issue 22 item 12: once more with every optional capability off (tests/support/plain.py)
pytestmark = pytest.mark.capabilities_off_too

SRC, DST = "APP.SRC", "APP.DST"
NAMES = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ._0123456789 ", max_size=48)


@st.composite
def messages(draw: st.DrawFn, i: int = 0) -> Message:
    fmt = draw(st.sampled_from(["MQSTR   ", "MQHRF2  ", "        ", "MQDEAD  ",
                                "MQDEAD\x00\x00"]))
    md = MQMD(version=draw(st.sampled_from([1, 2])), format=fmt,
              encoding=draw(st.sampled_from([546, 273, 785, 0])),
              ccsid=draw(st.sampled_from([1208, 819, 500, 37, 0])),
              priority=draw(st.integers(0, 9)), persistence=draw(st.integers(0, 1)),
              report=draw(st.sampled_from([0, 0, 0x100])),  # 0x100: COA
              msg_id=b"M" + draw(st.sampled_from([b"SAME", b""]) | st.binary(max_size=23)),
              put_date=draw(st.sampled_from(["20261125", "        ", "2026XX25"])),
              expiry=-1 if draw(st.integers(0, 7)) else 10_000_000)
    if md.version == 2 and draw(st.integers(0, 7)) == 0:  # a member of a small group
        seq = draw(st.integers(1, 3))
        md = md.copy(group_id=draw(st.sampled_from([b"G1", b"G2"])).ljust(24, b"\x00"),
                     msg_seq_number=seq,
                     msg_flags=MQMF_LAST_MSG_IN_GROUP if draw(st.booleans())
                     else MQMF_MSG_IN_GROUP)
    body = draw(st.binary(max_size=200))
    if draw(st.booleans()):  # a well-formed dead-letter header, maybe in another byte order
        md, body = add_dead_letter_header(
            md, body, reason=draw(st.sampled_from([2053, 2085, 258, 65536, -1, 0])),
            dest_q_name=draw(NAMES), dest_qmgr_name="QM1",
            header_encoding=draw(st.sampled_from([None, 785, 273])))
    elif fmt.startswith("MQDEAD") and draw(st.booleans()):
        body = b"DLH " + body  # a header that does not parse
    return Message(md, body)


def _queue_manager(make_qm, batch: list[Message], backouts: dict[int, int], max_depth: int,
                   max_msg_length: int):
    qm = make_qm(SRC, max_depth=10_000)
    qm.define_queue(QueueAttrs(DST, max_depth=max_depth, max_msg_length=max_msg_length))
    for m in batch:
        qm.put(SRC, m, syncpoint=False)
    ids = [r[0] for r in qm._db.execute("SELECT id FROM messages ORDER BY id")]
    with qm._guard(), qm._write() as db:
        for i, n in backouts.items():
            if i < len(ids):
                db.execute("UPDATE messages SET backout_count = ? WHERE id = ?", (n, ids[i]))
    return qm


def _kept(m: Message) -> tuple:
    return (bytes(m.body), tuple(getattr(m.md, f) for f in KEPT), m.md.backout_count)


@examples(80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(messages(), max_size=60),
       backouts=st.dictionaries(st.integers(0, 40), st.integers(1, 3), max_size=4),
       max_depth=st.sampled_from([10_000, 30, 7]),
       max_msg_length=st.sampled_from([4_194_304, 150]),
       unit=st.sampled_from([1, 3, 10, 100]))
def test_the_fast_and_the_plain_route_end_alike(make_qm, batch, backouts, max_depth,
                                                max_msg_length, unit) -> None:
    fast_qm = _queue_manager(make_qm, batch, backouts, max_depth, max_msg_length)
    plain_qm = _queue_manager(make_qm, batch, backouts, max_depth, max_msg_length)
    everything = Selection.build(all_=True)
    fast = transfer(fast_qm, SRC, DST, everything, batch=unit)
    plain = transfer(FaultyQueueManager(plain_qm, Faults(fast=False)), SRC, DST, everything,
                     batch=unit)
    assert fast.to_json() == plain.to_json()
    assert fast.done_msgids == plain.done_msgids
    for queue in (SRC, DST):
        assert [_kept(m) for m in browse_all(fast_qm, queue)] == \
            [_kept(m) for m in browse_all(plain_qm, queue)]
    assert not fast_qm.in_unit_of_work

"""Contract: put and get (MQPUT/MQPUT1, MQGET), descriptors, context, order, limits, expiry."""

from __future__ import annotations

import time

import pytest
from contract_support import bodies, mq_error, msg, put_bodies

from mqconsole.backends.base import Context, QueueManager
from mqconsole.mq.md import BLANK_MSGID, MQMD

FULL_MD = dict(
    report=0x0100, msg_type=1, feedback=0, encoding=273, ccsid=500, format="MQSTR",
    priority=5, persistence=1, msg_id=bytes(range(24)), correl_id=b"\xab" * 24,
    reply_to_q="REPLY.Q", reply_to_qmgr="QMR", user_identifier="alice",
    accounting_token=bytes(range(32)), appl_identity_data="ident", put_appl_type=11,
    put_appl_name="original.app", put_date="20240102", put_time="03040506",
    appl_origin_data="orig", group_id=b"\x07" * 24, msg_seq_number=3, offset=0,
    msg_flags=0, original_length=-1,
)


def test_set_all_keeps_every_field_and_body(qm: QueueManager, queue: str) -> None:
    body = bytes(range(256)) * 3
    sent = MQMD(**FULL_MD)  # type: ignore[arg-type]
    qm.put(queue, msg(body, **FULL_MD), context=Context.SET_ALL)
    qm.commit()
    got = qm.get(queue, syncpoint=False)
    assert got.body == body
    assert got.md == sent


def test_version_1_descriptor_round_trips(qm: QueueManager, queue: str) -> None:
    qm.put(queue, msg("v1", version=1, msg_id=b"1" * 24), context=Context.SET_ALL,
           syncpoint=False)
    got = qm.get(queue, syncpoint=False)
    assert got.md.version in (1, 2)  # MQ may hand back a version-2 MD; the fields match
    assert got.md.msg_id == b"1" * 24 and got.body == b"v1"


def test_put_ignores_backout_count(qm: QueueManager, queue: str) -> None:
    put = qm.put(queue, msg("x", backout_count=7, msg_id=b"B" * 24), syncpoint=False)
    assert put.md.backout_count == 0
    assert qm.get(queue, syncpoint=False).md.backout_count == 0


def test_new_context_replaces_identity_and_origin(qm: QueueManager, queue: str) -> None:
    before = time.strftime("%Y%m%d", time.gmtime())
    qm.put(queue, msg("x", **FULL_MD), context=Context.NEW, syncpoint=False)
    md = qm.get(queue, syncpoint=False).md
    assert md.user_identifier.strip() not in ("", "alice")
    assert md.appl_identity_data.strip() == ""
    assert md.put_appl_name.strip() != "original.app"
    assert md.put_date >= before and md.put_date != "20240102"
    assert len(md.put_time.strip()) == 8 and md.put_time.isdigit()
    # the rest of the descriptor is the caller's
    assert (md.msg_id, md.correl_id, md.format, md.reply_to_q.strip()) == \
        (FULL_MD["msg_id"], FULL_MD["correl_id"], "MQSTR   ", "REPLY.Q")


def test_set_identity_keeps_identity_only(qm: QueueManager, queue: str) -> None:
    qm.put(queue, msg("x", **FULL_MD), context=Context.SET_IDENTITY, syncpoint=False)
    md = qm.get(queue, syncpoint=False).md
    assert md.user_identifier.strip() == "alice"
    assert md.accounting_token == FULL_MD["accounting_token"]
    assert md.appl_identity_data.strip() == "ident"
    assert md.put_date != "20240102" and md.put_appl_name.strip() != "original.app"


def test_blank_msgid_gets_a_new_one(qm: QueueManager, queue: str) -> None:
    a = qm.put(queue, msg("a"), syncpoint=False)
    b = qm.put(queue, msg("b"), syncpoint=False)
    c = qm.put(queue, msg("c", msg_id=b"C" * 24), syncpoint=False, new_msg_id=True)
    ids = {a.md.msg_id, b.md.msg_id, c.md.msg_id}
    assert len(ids) == 3 and BLANK_MSGID not in ids and b"C" * 24 not in ids
    assert [m.md.msg_id for m in (qm.get(queue, syncpoint=False) for _ in range(3))] == \
        [a.md.msg_id, b.md.msg_id, c.md.msg_id]


def test_priority_then_arrival(qm: QueueManager, queue: str) -> None:
    order = [("p0-a", 0), ("p5-a", 5), ("p9", 9), ("p5-b", 5), ("p0-b", 0), ("p5-c", 5)]
    for body, pri in order:
        qm.put(queue, msg(body, priority=pri), syncpoint=False)
    expected = [b"p9", b"p5-a", b"p5-b", b"p5-c", b"p0-a", b"p0-b"]
    assert bodies(qm, queue) == expected
    assert [qm.get(queue, syncpoint=False).body for _ in expected] == expected


def test_priority_and_persistence_as_queue_default(qm: QueueManager, make_queue) -> None:
    name = make_queue("DEF", default_priority=6, default_persistence=1)
    qm.put(name, msg("x", priority=-1, persistence=2), syncpoint=False)
    md = qm.get(name, syncpoint=False).md
    assert (md.priority, md.persistence) == (6, 1)


def test_invalid_priority_persistence_expiry(qm: QueueManager, queue: str) -> None:
    with mq_error(2050):
        qm.put(queue, msg("x", priority=-2))
    with mq_error(2047):
        qm.put(queue, msg("x", persistence=5))
    with mq_error(2013):
        qm.put(queue, msg("x", expiry=0))


def test_get_by_msgid_and_correlid(qm: QueueManager, queue: str) -> None:
    for body, mid, cid in [("a", b"M1", b"C1"), ("b", b"M2", b"C1"), ("c", b"M2", b"C2")]:
        qm.put(queue, msg(body, msg_id=mid.ljust(24, b"\0"), correl_id=cid.ljust(24, b"\0")),
               syncpoint=False)
    m2 = b"M2".ljust(24, b"\0")
    assert qm.get_by_msgid(queue, m2, b"C2".ljust(24, b"\0"), syncpoint=False).body == b"c"
    with mq_error(2033):
        qm.get_by_msgid(queue, m2, b"C9".ljust(24, b"\0"))
    assert qm.get_by_msgid(queue, m2, syncpoint=False).body == b"b"
    with mq_error(2033):
        qm.get_by_msgid(queue, m2)
    assert qm.get(queue, syncpoint=False).body == b"a"


def test_get_by_duplicate_msgid_takes_the_first(qm: QueueManager, queue: str) -> None:
    same = b"SAME".ljust(24, b"\0")
    for body in ("first", "second"):
        qm.put(queue, msg(body, msg_id=same), syncpoint=False)
    assert qm.get_by_msgid(queue, same, syncpoint=False).body == b"first"
    assert qm.get_by_msgid(queue, same, syncpoint=False).body == b"second"


def test_empty_queue_gives_2033(qm: QueueManager, queue: str) -> None:
    with mq_error(2033):
        qm.get(queue)
    assert not qm.in_unit_of_work


def test_max_depth_2053(qm: QueueManager, make_queue) -> None:
    name = make_queue("FULL", max_depth=2)
    put_bodies(qm, name, "a", "b")
    with mq_error(2053):
        qm.put(name, msg("c"), syncpoint=False)
    qm.get(name, syncpoint=False)
    qm.put(name, msg("c"), syncpoint=False)


def test_uncommitted_puts_count_toward_max_depth(qm: QueueManager, make_queue) -> None:
    name = make_queue("FULL2", max_depth=1)
    qm.put(name, msg("pending"))
    with mq_error(2053):
        qm.put(name, msg("more"), syncpoint=False)
    qm.backout()
    qm.put(name, msg("now fits"), syncpoint=False)


def test_max_msg_length_2030(qm: QueueManager, make_queue) -> None:
    name = make_queue("SMALL", max_msg_length=10)
    qm.put(name, msg(b"x" * 10), syncpoint=False)
    with mq_error(2030):
        qm.put(name, msg(b"x" * 11), syncpoint=False)


def test_put_inhibited_2051(qm: QueueManager, make_queue) -> None:
    name = make_queue("PI", put_inhibited=True)
    with mq_error(2051):
        qm.put(name, msg("x"))
    qm.change_queue(name, put_inhibited=False)
    qm.put(name, msg("x"), syncpoint=False)


def test_get_inhibited_2016(qm: QueueManager, make_queue) -> None:
    name = make_queue("GI")
    put_bodies(qm, name, "x")
    qm.change_queue(name, get_inhibited=True)
    with mq_error(2016):
        qm.get(name)
    with mq_error(2016):
        qm.get_by_msgid(name, b"x" * 24)
    with qm.browse(name) as cur, mq_error(2016):
        cur.next()
    qm.change_queue(name, get_inhibited=False)
    assert qm.get(name, syncpoint=False).body == b"x"


def test_expired_messages_are_never_returned(qm: QueueManager, queue: str) -> None:
    qm.put(queue, msg("short", expiry=2), syncpoint=False)  # 0.2 s
    qm.put(queue, msg("long", expiry=6000), syncpoint=False)
    qm.put(queue, msg("forever"), syncpoint=False)
    time.sleep(0.3)
    assert bodies(qm, queue) == [b"long", b"forever"]
    got = qm.get(queue, syncpoint=False)
    assert got.body == b"long" and 0 < got.md.expiry <= 6000
    assert qm.get(queue, syncpoint=False).md.expiry == -1
    with mq_error(2033):
        qm.get(queue)
    assert qm.inquire_queue(queue).depth == 0  # the expired one was discarded when met


def test_expired_message_skipped_by_get(qm: QueueManager, queue: str) -> None:
    qm.put(queue, msg("gone", expiry=1, priority=9), syncpoint=False)
    qm.put(queue, msg("here", priority=0), syncpoint=False)
    time.sleep(0.2)
    assert qm.get(queue, syncpoint=False).body == b"here"


def test_expiry_counts_down(qm: QueueManager, queue: str) -> None:
    qm.put(queue, msg("x", expiry=6000), syncpoint=False)  # 10 minutes: even a busy machine
    time.sleep(0.25)  # time passes (at least this much): not a synchronisation
    left = qm.get(queue, syncpoint=False).md.expiry
    assert 0 < left < 6000


@pytest.mark.parametrize("size", [0, 1, 70_000])
def test_body_sizes(qm: QueueManager, queue: str, size: int) -> None:
    body = bytes(i % 251 for i in range(size))
    qm.put(queue, msg(body), syncpoint=False)
    assert qm.get(queue, syncpoint=False).body == body

"""A message read from the embedded store answers from its packed MD exactly what the
unpacked MQMD would say, and behaves as any Message."""

from __future__ import annotations

import random

import pytest
from test_embedded_mdfast import random_md

from mqconsole.backends.embedded.mdfast import pack819
from mqconsole.backends.embedded.stored import (
    CORREL_ID_AT,
    MSG_ID_AT,
    PRIORITY_AT,
    StoredMessage,
    long_at,
    message_from_row,
)
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import GROUP_FLAGS, Message
from mqconsole.mq.queue import QueueAttrs


@pytest.mark.parametrize("seed", range(10))
def test_answers_from_the_bytes_as_the_unpacked_md(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        md = random_md(rng)
        if rng.random() < 0.5:
            md.msg_flags = rng.choice([0, 0x02, 0x08, 0x10, 0x1E, 0x01, 0x100, -1])
        blob = pack819(md)  # little- or big-endian as its Encoding says
        lazy = StoredMessage(blob, b"body", 3)
        assert lazy._md is None
        want = Message(MQMD.unpack(blob, ccsid=819), b"body")
        want.md.backout_count = 3
        assert lazy.in_group == (md.version >= 2 and bool(md.msg_flags & GROUP_FLAGS))
        assert lazy.msg_id_hex == want.msg_id_hex
        assert lazy.report == want.report == md.report
        assert long_at(blob, PRIORITY_AT) == want.md.priority
        assert blob[MSG_ID_AT:MSG_ID_AT + 24] == want.md.msg_id
        assert blob[CORREL_ID_AT:CORREL_ID_AT + 24] == want.md.correl_id
        assert lazy._md is None  # none of that unpacked it
        assert lazy == want and want == lazy  # (unpacks it)
        assert lazy.md.backout_count == 3 and lazy.in_group == want.in_group


def test_expiry_left_and_a_changed_md_are_what_it_says() -> None:
    blob = pack819(MQMD(expiry=500, msg_id=b"a" * 24))
    m = message_from_row(blob, b"x", 0, 1000.0, 990.0)  # 10 s left
    assert m.md.expiry == 100
    m.md.msg_id = b"b" * 24  # set on the unpacked MD: the bytes no longer speak for it
    assert m.msg_id_hex == (b"b" * 24).hex().upper()
    m.md = MQMD(version=2, msg_flags=0x08)
    assert m.in_group and m.md.msg_flags == 0x08
    assert message_from_row(blob, b"x", 1, None, 0.0).md.expiry == 500
    assert Message(MQMD(), b"x") != StoredMessage(pack819(MQMD()), b"y", 0)


def test_is_a_message_for_dataclass_helpers_and_pickle() -> None:
    import dataclasses
    import pickle

    m = StoredMessage(pack819(MQMD(msg_id=b"k" * 24, priority=4)), b"body", 2)
    other = dataclasses.replace(m, body=b"new")
    assert other.body == b"new" and other.md == m.md and other.msg_id_hex == m.msg_id_hex
    assert pickle.loads(pickle.dumps(m)) == m and m._md is not None
    fresh = StoredMessage(pack819(MQMD(msg_id=b"p" * 24)), b"x", 1)
    again = pickle.loads(pickle.dumps(fresh))
    assert again.md.backout_count == 1 and again == fresh and again.body == b"x"


def test_the_embedded_cursor_declares_the_one_call_move_step() -> None:
    """The move fast path is a capability of the protocol, found by isinstance."""
    from mqconsole.backends.base import MovesUnderCursor, move_step
    from mqconsole.backends.open import open_embedded
    with open_embedded(":memory:") as qm:
        qm.define_queue(QueueAttrs(name="A.Q"))
        with qm.browse("A.Q") as cur:
            assert isinstance(cur, MovesUnderCursor)
            assert move_step(cur) is cur

    class TwoCalls:  # a cursor without the capability, or with it switched off
        move_current_to = None

    assert move_step(TwoCalls()) is None  # type: ignore[arg-type]


def test_the_embedded_cursor_declares_many_move_steps() -> None:
    from mqconsole.backends.base import MovesManyUnderCursor, moves_many
    from mqconsole.backends.open import open_embedded
    with open_embedded(":memory:") as qm:
        qm.define_queue(QueueAttrs(name="A.Q"))
        with qm.browse("A.Q") as cur:
            assert isinstance(cur, MovesManyUnderCursor)
            assert moves_many(cur) is cur

    class OneAtATime:
        move_next = None

    assert moves_many(OneAtATime()) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(5))
def test_movable_and_moved_messages_as_their_plain_forms(seed: int) -> None:
    """``browsing.movable`` (its group check inlined) says what its definition says, and
    ``moved_messages`` makes what ``StoredMessage(...)`` makes, on random MDs of either
    byte order, versions, group flags, expiries and BackoutCounts."""
    from mqconsole.backends.embedded.browsing import movable
    from mqconsole.backends.embedded.stored import (
        BACKOUT_COUNT_AT,
        EXPIRY_AT,
        moved_messages,
        stored_in_group,
        token_of,
    )

    rng = random.Random(seed)
    rows = []
    for i in range(200):
        md = random_md(rng)
        md.version = rng.choice([1, 2, 2])
        md.msg_flags = rng.choice([0, 0x02, 0x08, 0x10, 0x1E, 0x01, 0x100, -1])
        md.expiry = rng.choice([-1, -1, 5, 0x7FFFFFFF])
        md.backout_count = rng.choice([0, 0, 1])
        blob = pack819(md)
        if rng.random() < 0.05:
            blob = blob[:300]  # not an MD a put stores
        body = bytes(rng.randrange(40))
        expires = rng.choice([None, None, 1e9])
        row = (i + 1, 4, rng.choice([0, 2]), expires, blob, body, 1.5)
        plain = (expires is None and len(blob) in (324, 364) and len(body) <= 20
                 and blob[BACKOUT_COUNT_AT:BACKOUT_COUNT_AT + 4] == bytes(4)
                 and blob[EXPIRY_AT:EXPIRY_AT + 4] == b"\xff" * 4
                 and not stored_in_group(blob))
        assert movable(row, 20) == plain
        rows.append(row)
    fast = moved_messages(rows)
    for row, m in zip(rows, fast, strict=True):
        want = StoredMessage(row[4], row[5], row[2], token=token_of(row[0]))
        assert [getattr(m, a) for a in ("_blob", "_backout_count", "_expiry", "_md", "body",
                                        "token", "truncated_from")] == \
               [getattr(want, a) for a in ("_blob", "_backout_count", "_expiry", "_md", "body",
                                           "token", "truncated_from")]
        if len(row[4]) in (324, 364):
            assert m.md == want.md and m.report == want.report

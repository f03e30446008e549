"""A mark names one message: by its token when there is one, else by its position with its
MsgId, CorrelId and put time checked (issue 15, trust 1)."""

from __future__ import annotations

from datetime import UTC, datetime

from mqconsole.mq.message import Message
from mqconsole.ops.selection import Mark, Selection
from mqconsole.ops.views import MessageView
from tests.support.faulty import make_message

NOW = datetime(2026, 11, 22, tzinfo=UTC)
SHARED = b"SAME" + bytes(20)


def view(position: int, body: bytes, token: bytes | None) -> MessageView:
    m = make_message(3, msg_id=SHARED, body=body)
    return MessageView(position, Message(m.md, m.body, token=token), NOW)


def test_a_token_mark_selects_only_its_message():
    views = [view(i, b"x", bytes([i]) * 16) for i in (1, 2, 3)]
    sel = Selection(marks=frozenset([Mark.of(views[1])]))
    assert [sel.matches(v) for v in views] == [False, True, False]
    assert sel.describe() == "1 marked message" and not sel.everything


def test_without_tokens_the_position_is_checked_with_msgid_correlid_and_put_time():
    views = [view(i, b"x", None) for i in (1, 2, 3)]
    mark = Mark.of(views[2])
    assert mark.token is None and mark.position == 3
    sel = Selection(marks=frozenset([mark]))
    assert [sel.matches(v) for v in views] == [False, False, True]
    moved = make_message(4, msg_id=SHARED)  # another message at that position now
    assert not sel.matches(MessageView(3, moved, NOW))


def test_a_token_never_names_a_message_with_another_msgid():
    v = view(1, b"x", b"T" * 16)
    other = MessageView(1, Message(make_message(9).md, b"x", token=b"T" * 16), NOW)
    sel = Selection(marks=frozenset([Mark.of(v)]))
    assert sel.matches(v) and not sel.matches(other)

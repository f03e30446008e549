"""Finding the messages a selection names, without browsing the queue from its start.

A selection of marked messages (or ``--msgid`` / ``--position`` / ``--msgids-from``) names
its messages exactly: a mark by its token (MQ's MsgToken, the embedded store's row
identity), a ``--msgid X --position P`` by its MsgId checked at its position, a ``--msgid``
by its MsgId. A backend that finds a message by what names it
(``backends.base.FindsMessages``: MQMO_MATCH_MSG_TOKEN, MQMO_MATCH_MSG_ID) is asked for
exactly those messages, so acting on k marked messages of a queue of a million costs what
k messages cost, not a browse of the million (issue 23 item 1). Where it cannot tell
(no such capability, a message in a group, a position it cannot count), :func:`pinpoint`
says so (None) and the caller browses as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from mqconsole.backends.base import BrowseCursor, FindsMessages, finds_messages
from mqconsole.mq.message import Message
from mqconsole.ops.selection import Mark, Selection
from mqconsole.ops.views import MessageView
from mqconsole.ops.words import agree


@dataclass(frozen=True, slots=True)
class Target:
    """One selected message: its token (to find it again), where it is, its MsgId."""

    token: bytes
    position: int
    msg_id: bytes


@dataclass(slots=True)
class Pinpointed:
    """The selected messages in browse order, and how many marks found no message."""

    targets: list[Target]
    missing: int


def pinpointable(selection: Selection) -> bool:
    """Does ``selection`` name its messages (marks or MsgIds), so they can be found?"""
    return bool(selection.marks or selection.msgids)


def pinpoint(cursor: BrowseCursor, selection: Selection, now: datetime) -> Pinpointed | None:
    """The messages of ``selection`` found on ``cursor``'s queue by what names them (the
    cursor is left on the last one found); None when they cannot be found that way: the
    caller browses the queue instead.

    A mark with a token is found by it and reported at the position it was marked at
    (nothing is counted) unless a ``--where`` needs its position; every other message's
    position is asked of the backend. Each candidate is tested against the whole
    selection (MsgIds, marks and ``--where`` combine with AND)."""
    finder = finds_messages(cursor)
    if finder is None or not pinpointable(selection):
        return None
    found: dict[bytes, Target] = {}
    missing = 0
    try:
        if selection.marks:
            for mark in selection.marks:
                got = _by_mark(finder, mark, selection, now)
                if got is None:
                    missing += 1
                else:
                    found.setdefault(got.token, got)
        else:
            for msg_id in selection.msgids:
                for view in _carrying(finder, msg_id, now):
                    if selection.matches(view):
                        target = _target(view)
                        found.setdefault(target.token, target)
    except _CannotTell:
        return None
    ordered = sorted(found.values(), key=lambda t: t.position)
    return Pinpointed(ordered, missing)


class _CannotTell(Exception):
    """The backend cannot find the message this way (a message in a group moves whole, a
    position it cannot count): the caller browses the queue instead."""


def _findable(m: Message) -> None:
    if m.in_group or m.token is None:
        raise _CannotTell


def _position(finder: FindsMessages) -> int:
    position = finder.position_of_current()
    if position is None:
        raise _CannotTell
    return position


def _carrying(finder: FindsMessages, msg_id: bytes, now: datetime) -> Iterator[MessageView]:
    """Each message carrying ``msg_id``, in queue order, as a view at its position (the
    cursor on it); :class:`_CannotTell` when the backend cannot say."""
    first = True
    while (m := finder.browse_msg_id(msg_id, first)) is not None:
        first = False
        _findable(m)
        yield MessageView(_position(finder), m, now)


def _target(view: MessageView) -> Target:
    m = view.message
    assert m.token is not None  # _findable
    return Target(m.token, view.position, bytes(m.md.msg_id))


def _by_mark(finder: FindsMessages, mark: Mark, selection: Selection, now: datetime
             ) -> Target | None:
    """The mark's message as a Target; None when no selected message answers to it."""
    if mark.token is not None:
        m = finder.browse_token(mark.token)
        if m is None:
            return None
        _findable(m)
        position = mark.position
        if position is None or selection.where is not None:
            position = _position(finder)
        view = MessageView(position, m, now)
        return _target(view) if selection.matches(view) else None
    if mark.msgid is None:
        raise _CannotTell
    # each message carrying the MsgId, the one at the mark's position taken
    for view in _carrying(finder, mark.msgid, now):
        if mark.matches(view):
            return _target(view) if selection.matches(view) else None
        if mark.position is not None and view.position > mark.position:
            return None  # past the position: it is not there
    return None


def missing_sentence(n: int) -> str:
    """What an operator is told before the question when marks found no message."""
    return (f"{n} of the marked messages {agree(n, 'is', 'are')} no longer there (moved, "
            "got or expired since they were marked)")

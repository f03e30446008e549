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

from dataclasses import dataclass
from datetime import datetime

from mqconsole.backends.base import BrowseCursor, FindsMessages, finds_messages
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
    needs_position = selection.where is not None
    if selection.marks:
        for mark in selection.marks:
            got = _by_mark(finder, mark, selection, now, needs_position)
            if got is None:
                return None
            if got is _MISSING:
                missing += 1
                continue
            assert isinstance(got, Target)
            found.setdefault(got.token, got)
    else:
        for msg_id in selection.msgids:
            targets = _by_msg_id(finder, msg_id, selection, now)
            if targets is None:
                return None
            for t in targets:
                found.setdefault(t.token, t)
    ordered = sorted(found.values(), key=lambda t: t.position)
    return Pinpointed(ordered, missing)


_MISSING = object()


def _by_mark(finder: FindsMessages, mark: Mark, selection: Selection, now: datetime,
             needs_position: bool) -> Target | object | None:
    """The mark's message as a Target, ``_MISSING`` when no message answers to it, None
    when the backend cannot tell."""
    if mark.token is not None:
        m = finder.browse_token(mark.token)
        if m is None:
            return _MISSING
        if m.in_group or m.token is None:
            return None  # a group moves whole: the caller's walk looks at it
        position = mark.position
        if position is None or needs_position:
            position = finder.position_of_current()
            if position is None:
                return None
        view = MessageView(position, m, now)
        if not selection.matches(view):
            return _MISSING
        return Target(m.token, position, bytes(m.md.msg_id))
    if mark.msgid is None:
        return None
    first = True
    while True:  # each message carrying the MsgId, the one at the mark's position taken
        m = finder.browse_msg_id(mark.msgid, first)
        first = False
        if m is None:
            return _MISSING
        if m.in_group or m.token is None:
            return None
        position = finder.position_of_current()
        if position is None:
            return None
        view = MessageView(position, m, now)
        if mark.matches(view):
            return Target(m.token, position, bytes(m.md.msg_id)) \
                if selection.matches(view) else _MISSING
        if mark.position is not None and position > mark.position:
            return _MISSING  # past the position: it is not there


def _by_msg_id(finder: FindsMessages, msg_id: bytes, selection: Selection, now: datetime
               ) -> list[Target] | None:
    out: list[Target] = []
    first = True
    while True:
        m = finder.browse_msg_id(msg_id, first)
        first = False
        if m is None:
            return out
        if m.in_group or m.token is None:
            return None
        position = finder.position_of_current()
        if position is None:
            return None
        if selection.matches(MessageView(position, m, now)):
            out.append(Target(m.token, position, bytes(m.md.msg_id)))


def missing_sentence(n: int) -> str:
    """What an operator is told before the question when marks found no message."""
    return (f"{n} of the marked messages {agree(n, 'is', 'are')} no longer there (moved, "
            "got or expired since they were marked)")

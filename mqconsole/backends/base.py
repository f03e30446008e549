"""The one protocol every backend implements, designed so each method is one MQI or PCF call.

See ``docs/backends.md`` for the method → MQI/PCF mapping table. Rules every backend keeps
(docs/real-mq.md, "Things that lose or confuse messages"):

* Browsing is forward only: a cursor starts before the first message and moves on; there is
  no random access and no offset.
* A put ignores the BackoutCount it is given; the message arrives with 0.
* MsgIds need not be unique: take a browsed message with ``BrowseCursor.get_current`` (the
  message under the cursor), keep ``get_by_msgid`` for single messages.
* Everything that changes a queue may run under syncpoint on the connection; ``backout``
  raises the backout count of every message got in the unit of work.
* Every failure is one ``MQError`` carrying the MQ reason code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple, Protocol, runtime_checkable

from mqconsole.mq.errors import MQError, commit_outcome_unknown
from mqconsole.mq.facts import FactTest
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QMgrInfo, QueueAttrs, QueueStatus
from mqconsole.mq.reasons import MQRC_BACKED_OUT


class Context(str, Enum):
    """Which context a put gives the message."""

    SET_ALL = "set_all"  # MQPMO_SET_ALL_CONTEXT: keep the MD's identity and origin context
    NEW = "new"  # MQPMO_NEW_MSG_ID-free default context: the putter's user, time, application
    SET_IDENTITY = "set_identity"  # MQPMO_SET_IDENTITY_CONTEXT
    # MQPMO_PASS_ALL_CONTEXT: the identity and origin context of the message last got (not
    # browsed) through the cursor ``put(pass_from=...)`` names; +passall on the queue only
    PASS_ALL = "pass_all"


@runtime_checkable
class BrowseCursor(Protocol):
    """A browse handle on one queue (MQOPEN browse, + input when opened ``for_get``; MQGET
    BROWSE_FIRST/NEXT)."""

    queue: str

    def next(self) -> Message | None:
        """The next message (BROWSE_FIRST, then BROWSE_NEXT), or None at the end (2033)."""

    def next_batch(self, n: int) -> list[Message]:
        """Up to ``n`` next messages; fewer means the end was reached."""

    def get_current(self, *, syncpoint: bool = True) -> Message:
        """Destructively get the message under the cursor (MQGMO_MSG_UNDER_CURSOR).

        Raises MQError 2034 (NO_MSG_UNDER_CURSOR) when another consumer took it, 2037
        (NOT_OPEN_FOR_INPUT) on a cursor not opened ``for_get``.
        """

    def close(self) -> None: ...

    def __enter__(self) -> BrowseCursor: ...

    def __exit__(self, *exc: object) -> None: ...


@runtime_checkable
class MovesUnderCursor(Protocol):
    """An optional capability of a ``BrowseCursor``: the step of a move in one call.

    ``move_current_to(queue, message, context, qmgr_name, as_browsed)`` does exactly
    ``put(queue, message, context=context, syncpoint=True, qmgr_name=qmgr_name)`` on the
    cursor's connection, then ``get_current(syncpoint=True)``, in that order. A failure of
    the put is raised as ``put`` raises it (nothing got, the message stays under the
    cursor); a failure of the get after the put went through is *returned* (the put stays
    in the unit of work, as after the two calls); None when both went through.
    ``as_browsed``: ``message`` is the very object the cursor's last ``next`` returned,
    unchanged, so the backend may store its descriptor as it holds it already.

    Check for it with ``isinstance(cursor, MovesUnderCursor)``; a backend without it is
    driven with the two calls. The embedded backend has it.
    """

    def move_current_to(self, queue: str, message: Message, context: Context = Context.SET_ALL,
                        qmgr_name: str = "", as_browsed: bool = False) -> MQError | None: ...


def move_step(cursor: BrowseCursor) -> MovesUnderCursor | None:
    """The cursor when it offers the one-call move step, else None."""
    return cursor if isinstance(cursor, MovesUnderCursor) else None


@runtime_checkable
class WaitsOnCursor(Protocol):
    """An optional capability of a ``BrowseCursor``: ``next_waiting(seconds)`` is ``next``
    with MQGMO_WAIT — MQGET BROWSE_NEXT (BROWSE_FIRST before any message) waiting up to
    ``seconds`` for a message to arrive past the cursor, None when none came (2033 after
    the wait) — as runmqdlq waits on its dead-letter queue. The real-MQ backend has it; a
    waiter without it browses again after each step of its own wait."""

    def next_waiting(self, seconds: float) -> Message | None: ...


@runtime_checkable
class FindsMessages(Protocol):
    """An optional capability of a ``BrowseCursor``: put the cursor on one message named by
    its identity, without browsing the messages before it (acting on a few marked messages
    of a deep queue costs what those few cost, not the queue's depth).

    ``browse_token(token)`` is MQGET with MQGMO_BROWSE_FIRST and MQMO_MATCH_MSG_TOKEN (a
    version 3 MQGMO): the message whose MsgToken is ``token``, now under the cursor
    (``get_current`` and ``move_current_to`` take it); None when no message on the queue
    has it (2033: it left). IBM documents the match as valid on every local queue whatever
    its INDXTYPE, and a token as never reused for another message (MQGMO MsgToken:
    https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q096770_.html).

    ``browse_msg_id(msg_id, first)`` is MQGET with MQGMO_BROWSE_FIRST (``first``) or
    MQGMO_BROWSE_NEXT and MQMO_MATCH_MSG_ID: the next message carrying ``msg_id`` after
    the cursor in browse order, now under the cursor; None when there is none (2033).

    ``position_of_current()``: the position of the message under the cursor in a browse of
    the whole queue now (1 = first; expired messages not counted, as a browse discards
    them); None when the backend cannot tell without browsing to it (real MQ: a caller
    that needs the position then browses).

    Check for it with :func:`finds_messages`; the embedded backend has it.
    """

    def browse_token(self, token: bytes) -> Message | None: ...

    def browse_msg_id(self, msg_id: bytes, first: bool) -> Message | None: ...

    def position_of_current(self) -> int | None: ...


def finds_messages(cursor: BrowseCursor) -> FindsMessages | None:
    """The cursor when it finds messages by identity (``FindsMessages``), else None."""
    return cursor if isinstance(cursor, FindsMessages) else None


@runtime_checkable
class BrowsesPacked(Protocol):
    """An optional capability of a ``BrowseCursor``: the next messages without a
    ``Message`` object each, for readers that only copy them out (a save to a file).

    ``next_packed(n)`` is ``next_batch(n)`` with each message as ``(md, body)``: ``md`` the
    descriptor packed as ``MQMD.pack(ccsid=819)`` lays it out (``mq.md`` LAYOUT, in the
    MD's own byte order; ``MQMD.unpack(md, ccsid=819)`` gives the ``md`` ``next_batch``
    would), ``body`` the whole body. The last one is under the cursor, as after
    ``next_batch``. Check for it with :func:`packed_browse`; the embedded backend has it.
    """

    def next_packed(self, n: int) -> list[tuple[bytes, bytes]]: ...


def packed_browse(cursor: BrowseCursor) -> BrowsesPacked | None:
    """The cursor when it reads messages packed (``BrowsesPacked``), else None."""
    return cursor if isinstance(cursor, BrowsesPacked) else None


@runtime_checkable
class MovesManyUnderCursor(Protocol):
    """An optional capability of a ``BrowseCursor``: many steps of a move in one call.

    ``move_next(queue, n)`` does what up to ``n`` rounds of ``m = next()`` then
    ``move_current_to(queue, m, Context.SET_ALL, "", as_browsed=True)`` do, all succeeding,
    and returns the messages moved (as ``next`` returned them, in order; they stay in the
    unit of work). It takes only messages whose move is known to go through without a
    check that could refuse it (the destination resolved, not put-inhibited, room under
    MAXDEPTH, within MAXMSGL; no message of a group, none with an expiry), and stops before
    the first other one: that one is then still the next for ``next`` (the caller moves it
    with the one-call step, where every check runs). It may return ``[]`` when it cannot
    tell (before the first move of a unit of work, say): the caller then steps.

    All or nothing: an error raises ``MQError`` with the cursor where it was before the
    call and nothing of the call left in the unit of work (the unit of work can then only
    be backed out: its transaction was rolled back). A backend may write the moves only at
    the commit (the embedded one moves the rows inside SQLite then): a failure there is the
    commit's, backed out (2003) as any other.

    Check for it with ``isinstance(cursor, MovesManyUnderCursor)``. The embedded backend
    has it; an engine may use it only where every message goes unchanged to one queue and
    nothing looks at a message before it goes (no selection, no plugin's put check).
    """

    def move_next(self, queue: str, n: int) -> list[Message]: ...


def moves_many(cursor: BrowseCursor) -> MovesManyUnderCursor | None:
    """The cursor when it offers many move steps in one call, else None."""
    return cursor if isinstance(cursor, MovesManyUnderCursor) else None


@runtime_checkable
class PutsPacked(Protocol):
    """An optional capability of a ``QueueManager``: set-all puts under syncpoint of
    messages given packed, many in one call (a load of a file, a unit of work at a time).

    ``put_packed(queue, messages)`` puts each ``(md, body)`` in order — ``md`` as
    ``MQMD.pack(ccsid=819)`` packs it — exactly as ``put(queue, Message(MQMD.unpack(md,
    ccsid=819), body), context=Context.SET_ALL, syncpoint=True)`` would, until one is
    refused, and returns how many went and that refusal (None when all went). What
    ``put`` would raise for another reason than the message (the connection) is raised.
    Check for it with ``isinstance``; the embedded backend has it.
    """

    def put_packed(self, queue: str, messages: Sequence[tuple[bytes, bytes]]
                   ) -> tuple[int, MQError | None]: ...


@dataclass(slots=True)
class FactGroup:
    """Messages alike in every fact a summary counts by (``mq.facts``), and their sums."""

    reason: int | None
    dest_q: str | None
    dest_qmgr: str | None  # the destination's queue manager ("": blank)
    format: str
    backout_count: int
    size_index: int  # which of the size edges the length is under (len(edges): none)
    age_index: int | None  # the same for the age; None: no put time
    count: int
    total_bytes: int
    smallest: int
    largest: int
    age_sum_us: int  # of the messages with a put time: sum of (now - put) in microseconds


@dataclass(slots=True)
class FactPoint:
    """One message: where a browse meets it (1 = first), its MsgId, its put time."""

    position: int
    msg_id: bytes
    put_us: int


@dataclass(slots=True)
class FactCounts:
    groups: list[FactGroup]
    oldest: FactPoint | None  # the first in browse order of those put earliest
    youngest: FactPoint | None  # the first in browse order of those put latest


@runtime_checkable
class CountsFacts(Protocol):
    """An optional capability of a ``QueueManager``: a queue's facts counted where the
    messages are, without reading them one by one (the embedded backend: in SQLite).

    The answer is what browsing the queue and counting each message's ``mq.facts.facts``
    would give at ``now_us`` (microseconds since 1970 UTC): ages are ``now_us - put``,
    sizes the body's length; ``*_edges`` are ascending upper bounds (a value is under
    the first edge greater than it). None when the backend cannot answer this time: the
    caller browses instead.
    """

    def fact_counts(self, queue: str, now_us: int, age_edges_us: Sequence[int],
                    size_edges: Sequence[int]) -> FactCounts | None: ...


@runtime_checkable
class SelectsByFacts(Protocol):
    """An optional capability of a ``QueueManager``: browse only the messages that may pass
    a test on their facts (``mq.facts.FactTest``), tested where the messages are.

    ``select_page(queue, test, after, n)`` reads on from ``after`` (None: the start; else
    what the last page returned) in browse order and returns ``(found, after)``: up to
    ``n`` of the messages for which ``test`` holds, each with its position in a browse of
    the whole queue (1 = first; expired messages are not counted, as a browse discards
    them), and where to go on from; ``after`` None when the queue's end was reached. A
    message whose facts are not known is returned as if the test held: callers test
    every message they get again.
    """

    def select_page(self, queue: str, test: FactTest, after: object | None, n: int
                    ) -> tuple[list[tuple[int, Message]], object | None]: ...


@dataclass(slots=True)
class PositionedPage:
    """Messages at consecutive positions of a queue, as ``ReadsByPosition.page_at`` read them."""

    total: int  # messages a browse of the whole queue meets, in the same snapshot
    first: int  # the position of messages[0] (1 = first)
    messages: list[Message]


@runtime_checkable
class ReadsByPosition(Protocol):
    """An optional capability of a ``QueueManager``: read the messages at a position of a
    queue without browsing to it (the embedded backend: an index walk in SQLite).

    ``page_at(queue, position, n)`` returns up to ``n`` messages from ``position`` on
    (1 = first; -k = the k-th from the end, so ``-n`` is the last ``n``), with the number
    of messages a browse of the whole queue would meet, both as one browse from the start
    would count them at that moment: in browse order (priority, then arrival), expired
    messages not counted (a browse discards them). A position past the end gives no
    messages. None when the backend cannot answer this time: the caller browses.

    Real MQ has no such call (a browse moves forward only); the console reads forward
    there, with progress, and can be stopped.
    """

    def page_at(self, queue: str, position: int, n: int) -> PositionedPage | None: ...


class ListedRow(NamedTuple):
    """What a list of messages shows of one message (``ListsByPosition``): no body.

    The message's token (MsgToken: this very message on its queue), its MsgId, and its
    facts as ``mq.facts.facts`` gives them (``put_us``: PutDate + PutTime in microseconds
    since 1970 UTC; the dead-letter header's reason, destination queue and queue manager,
    None without a readable header; the format it carries, else the MQMD Format), the
    BackoutCount and the body's length.
    """

    token: bytes
    msg_id: bytes
    put_us: int | None
    length: int
    backout_count: int
    reason: int | None
    dest_q: str | None
    dest_qmgr: str | None
    format: str


@dataclass(slots=True)
class ListedPage:
    """Rows at consecutive positions of a queue, as ``ListsByPosition.rows_at`` read them."""

    total: int  # messages a browse of the whole queue meets, in the same snapshot
    first: int  # the position of rows[0] (1 = first)
    rows: list[ListedRow]


@runtime_checkable
class ListsByPosition(Protocol):
    """An optional capability of a ``QueueManager`` that reads at positions
    (``ReadsByPosition``): what a list shows of the messages at a position, read from
    what the backend keeps beside each message, without the bodies (the embedded
    backend: its facts columns and the packed MD).

    ``rows_at(queue, position, n)`` answers as ``page_at(queue, position, n)`` does, with
    a ``ListedRow`` for each message instead of the message; the rows are those of the
    messages ``page_at`` would return, fact for fact. None when the backend cannot answer
    this time: the caller reads the messages instead.
    """

    def rows_at(self, queue: str, position: int, n: int) -> ListedPage | None: ...


@dataclass(frozen=True, slots=True)
class BrowseRange:
    """A stretch of a queue's browse order, to be read on its own (``BrowsesInRanges``).

    ``first_position``: the position a browse of the whole queue gives the stretch's first
    message (1 = the queue's first). ``after`` and ``until`` are the backend's keys (lists of
    ints, so a range travels as JSON): the stretch starts after ``after`` (None: at the
    queue's start) and ends with ``until`` (None: at the queue's end, wherever that is when
    it is read, as a browse ends). ``rows``: the messages it held when planned (None for
    the open last stretch).
    """

    first_position: int
    after: list[int] | None
    until: list[int] | None
    rows: int | None


@runtime_checkable
class BrowsesInRanges(Protocol):
    """An optional capability of a ``QueueManager`` whose queues can be read from any
    position (the embedded backend; real MQ browses forward only, so a queue is one read).

    ``browse_ranges(queue, parts, min_rows)`` plans up to ``parts`` consecutive stretches of
    at least ``min_rows`` messages (one when the queue is shorter), in one snapshot, so
    that reading each with ``browse_range`` and numbering its messages from its
    ``first_position`` gives what one browse of the whole queue gives — provided each
    stretch but the last still holds ``rows`` messages when read (a reader checks: the
    queue changed under it otherwise). The stretches of one plan may be read by other
    connections, in other processes, in any order.
    """

    def browse_ranges(self, queue: str, parts: int, min_rows: int) -> list[BrowseRange]: ...

    def browse_range(self, queue: str, part: BrowseRange) -> BrowseCursor: ...


@runtime_checkable
class ResolvesPuts(Protocol):
    """An optional capability of a ``QueueManager``: where a put would land, resolved as
    MQOPEN for output resolves it (alias queues, remote queue definitions, queue manager
    aliases), without putting and without needing +inq on the objects on the way.

    ``resolve_put(queue, qmgr_name)`` returns ``(queue, queue manager)``: the local queue
    and this queue manager's name, or the queue and queue manager a transmission queue
    takes the message to. It raises ``MQError`` as the put's MQOPEN would (2085, 2082,
    2087, ...). Check for it with :func:`put_resolution`; the embedded backend has it (an
    MQI connection is resolved by inquiring the objects: ``ops.landing``).
    """

    def resolve_put(self, queue: str, qmgr_name: str = "") -> tuple[str, str]: ...


def put_resolution(qm: object) -> ResolvesPuts | None:
    """The queue manager when it resolves put names itself (``ResolvesPuts``), else None."""
    return qm if isinstance(qm, ResolvesPuts) else None


@runtime_checkable
class ChecksPuts(Protocol):
    """An optional capability of a ``QueueManager`` that checks authority:
    ``open_for_put(queue, qmgr_name, context=, alt_user=)`` opens the queue for output as
    the put would (the context option the put sets, the alternate user it puts as) and
    closes it again, putting nothing, and raises ``MQError`` as the put's MQOPEN would —
    2035 without +put, or without the context authority (+setall on the queue and the queue
    manager for set-all, +setid for set-identity, +passall on the queue for pass-all), or
    for an alternate user without +altusr (MQ checks these when a queue is opened with
    MQOO_OUTPUT and the context and MQOO_ALTERNATE_USER_AUTHORITY options, and MQPUT1 as
    the MQOPEN with the matching options: IBM MQ, "MQOPEN - Open object", "Authority
    checking in the MQI", "Authorizations for context"), 2085, 2087, 2082. A plan asks it so
    that it can say a put would be refused for authority before the put, and so that a
    queue it may put to but not inquire (no +inq) is no predicted failure. Check for it with
    :func:`put_checks`."""

    def open_for_put(self, queue: str, qmgr_name: str = "", *,
                     context: Context = Context.NEW, alt_user: str = "") -> None: ...


def put_checks(qm: object) -> ChecksPuts | None:
    """The queue manager when it checks puts by opening for output (``ChecksPuts``)."""
    return qm if isinstance(qm, ChecksPuts) else None


@runtime_checkable
class QueueManager(Protocol):
    """A connection to one queue manager (MQCONNX). Units of work are per connection."""

    @property
    def name(self) -> str: ...

    def inquire_qmgr(self) -> QMgrInfo:
        """MQINQ on the queue manager: name, DEADQ, platform, command level."""

    def list_queues(self, pattern: str = "*") -> list[QueueAttrs]:
        """PCF MQCMD_INQUIRE_Q with a generic name; depth None on non-local queues."""

    def inquire_queue(self, name: str) -> QueueAttrs:
        """PCF MQCMD_INQUIRE_Q for one queue; 2085 when it does not exist."""

    def queue_status(self, name: str) -> QueueStatus:
        """PCF MQCMD_INQUIRE_Q_STATUS."""

    def define_queue(self, attrs: QueueAttrs, *, replace: bool = False) -> None:
        """PCF MQCMD_CREATE_Q (MQCMD_COPY_Q semantics not offered)."""

    def change_queue(self, name: str, **changes: object) -> QueueAttrs:
        """PCF MQCMD_CHANGE_Q with only the given attributes; returns the new attributes."""

    def delete_queue(self, name: str) -> None:
        """PCF MQCMD_DELETE_Q (refuses a queue holding messages: 2055)."""

    def browse(self, queue: str, *, for_get: bool = False) -> BrowseCursor:
        """MQOPEN with MQOO_BROWSE only; ``for_get`` adds MQOO_INPUT_SHARED for
        ``get_current`` (needs +get).

        Only what gets messages opens for input: an input handle counts in the queue's
        IPPROCS, so it stops FIRST/DEPTH triggers, and on a SHARE(NO) / DEFSOPT(EXCL)
        queue it is exclusive (consumers get 2042 while it is open; docs/real-mq.md,
        "Browse opens for browse only").
        """

    def get_by_msgid(self, queue: str, msg_id: bytes, correl_id: bytes | None = None, *,
                     syncpoint: bool = True) -> Message:
        """MQGET with MQMO_MATCH_MSG_ID (+CORREL_ID), GMO v2; 2033 when none matches."""

    def get(self, queue: str, *, syncpoint: bool = True) -> Message:
        """MQGET of the first message; 2033 when the queue is empty."""

    def put(self, queue: str, message: Message, *, context: Context = Context.SET_ALL,
            syncpoint: bool = True, qmgr_name: str = "", new_msg_id: bool = False,
            alt_user: str = "", pass_from: BrowseCursor | None = None) -> Message:
        """MQPUT1 (or MQPUT on a cached handle). Returns the message as put (MD filled in).

        ``qmgr_name`` sets ObjectQMgrName: the queue manager resolves it (transmission queue
        or queue manager alias). A message with a blank MsgId gets a new one. ``alt_user``:
        put with that user's authority (MQPMO_ALTERNATE_USER_AUTHORITY, AlternateUserId;
        the connection needs +altusr; 2035 when either is missing); "" the connection's.

        ``Context.PASS_ALL``: MQPMO_PASS_ALL_CONTEXT with PMO.Context naming ``pass_from``,
        a cursor of this connection opened ``for_get`` (MQOO_SAVE_ALL_CONTEXT): the message
        gets the context of the one last got through it. None, or a cursor of another
        connection: 2097 (MQRC_CONTEXT_HANDLE_ERROR); nothing got through it yet, or its
        last call a browse: 2098 (MQRC_CONTEXT_NOT_AVAILABLE) — IBM's reason codes 2097 and
        2098. Needs +put and +passall on the queue (not on the queue manager).
        """

    def commit(self) -> None:
        """MQCMIT. 2003 = backed out instead; 2009/2018/2548/2549 = outcome unknown (a
        backend raises ``CommitOutcomeUnknown``; never guessed, never redone); any other
        failure leaves the unit of work open until a backout succeeds
        (``settle_failed_commit``)."""

    def backout(self) -> None:
        """MQBACK: undo the unit of work; messages got in it get BackoutCount + 1."""

    @property
    def in_unit_of_work(self) -> bool: ...

    def new_connection(self) -> QueueManager:
        """Another MQCONNX to the same queue manager with the same credentials.

        Its units of work are its own (give browsing its own connection: docs/real-mq.md,
        portability rule 9).
        For the embedded ``:memory:`` queue manager it is the only way to reach the same
        queues from a second connection.
        """

    def close(self) -> None:
        """MQDISC (an open unit of work is backed out)."""


def settle_failed_commit(qm: QueueManager, err: MQError) -> bool:
    """After ``qm.commit()`` raised ``err``: is the unit of work certainly backed out?

    True: it is (2003, or a backout succeeded now), so redoing the work duplicates nothing.
    False: the outcome is unknown — the commit may have happened (2009, 2018, 2548, 2549,
    ``CommitOutcomeUnknown``), or the unit of work could not be backed out and is still
    open. Never redo then: report "outcome unknown" (exit 5).
    """
    if commit_outcome_unknown(err):
        return False
    try:
        qm.backout()  # harmless after 2003; needed after any other failure (MQ keeps it open)
    except MQError:
        return err.reason == MQRC_BACKED_OUT
    return True

"""Move and copy messages between queues — and the engine that resubmit shares.

One engine, used by the CLI and the TUI, that never loses a message (real-mq.md, "Order
inside a unit of work"):

* The source is browsed with a cursor. For each message the selection matches, the message
  is **put** to its destination under syncpoint and **only then got under the cursor**
  under syncpoint (a copy does no get). The message got is checked against the one browsed
  (same descriptor and body; only BackoutCount and the Expiry left may differ). The unit
  of work is committed every ``batch`` messages, or before it would hold more than
  ``batch_bytes`` bytes of bodies (the recovery log: ``ops.uowlimit``).
* A put that fails (2053 full, 2051 inhibited, 2035 not authorized, 2030 too big, …) leaves
  that message untouched on the source with nothing to back out: it is recorded as failed
  and the operation goes on. After a destination refused ``REFUSALS_BEFORE_STOP`` messages
  in a row it is not tried again: the rest of its messages are *not tried* (they stay), a
  count of their own with the reason (``OperationResult.given_up``); a move's or copy's one
  destination given up stops the operation (``stopped_early``).
* A failed get, or a commit certainly backed out (2003, or backed out after any other
  failure: ``backends.base.settle_failed_commit``), backs the unit of work out and redoes it
  once: the unit's messages
  are back on the source at their positions (BackoutCount + 1), found again with a fresh
  cursor — at the position they must have now (the messages passed before them that stayed)
  and checked by identity (MsgId, the whole descriptor but BackoutCount and Expiry, the
  body's hash), so duplicate MsgIds never make it take another message — and moved again.
  If the redo fails too, the operation stops and reports the unit's messages as failed
  (they are on the source).
* A commit answered 2009, 2018, 2548 or 2549 (or one that could not be backed out) has an
  unknown outcome (it may have committed; never redone): the operation stops at once,
  ``outcome_unknown`` is set and the unit's MsgIds are listed (as failures with that
  reason, and in a warning).
* Messages of a group or segmented message (MsgFlags ``MQMF_MSG_IN_GROUP``,
  ``MQMF_LAST_MSG_IN_GROUP``, ``MQMF_SEGMENT``, ``MQMF_LAST_SEGMENT``; GroupId) move together
  within one unit of work or not at all. A group is looked at once with a second cursor
  when its first message comes up: when not every message of it is on the queue (its last
  one included), or not every one is selected, or it would not fit in ``--limit``, it is
  skipped with a warning. When one member cannot be put, the members already in the unit
  of work are backed out and the whole group stays.
* Between two queue managers (``dest_qm``) nothing is atomic: each unit is committed on
  the destination first and then on the source, so a crash or a failed source commit in
  between leaves a duplicate on both queues, never a loss. A failed source commit after the
  destination committed is redone as gets only; if that fails as well the messages are
  reported as duplicates.
* Cancelling (``control.cancel``) stops at the next unit-of-work boundary; what is in the
  open unit of work is committed first.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from mqconsole.backends.base import (
    BrowseCursor,
    Context,
    FindsMessages,
    QueueManager,
    finds_messages,
    move_step,
    moves_many,
    put_checks,
    settle_failed_commit,
)
from mqconsole.mq.chain import format_key, strip_dead_letter_header
from mqconsole.mq.errors import HeaderError, MQError
from mqconsole.mq.md import LAYOUT
from mqconsole.mq.message import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
    Message,
)
from mqconsole.mq.names import reason_label, reason_name
from mqconsole.mq.reasons import (
    CONNECTION_REASONS,
    MQRC_DATA_LENGTH_ERROR,
    MQRC_HEADER_ERROR,
    MQRC_MSG_TOO_BIG_FOR_Q,
    MQRC_NO_MSG_UNDER_CURSOR,
    MQRC_PUT_INHIBITED,
    MQRC_Q_FULL,
    MQRC_SYNCPOINT_LIMIT_REACHED,
    MQRO_COA,
    MQRO_COD,
)
from mqconsole.ops.landing import lands_on
from mqconsole.ops.pinpoint import Pinpointed, missing_sentence, pinpoint, pinpointable
from mqconsole.ops.result import (
    NOT_RECORDED,
    Control,
    Failure,
    OperationResult,
    PutCheck,
    refused_by_plugin,
    would_fail_by_plugin,
)
from mqconsole.ops.selection import Selection
from mqconsole.ops.uowlimit import (
    DEFAULT_BATCH_BYTES,
    Room,
    UnitBytes,
    capped_batch,
    group_fits,
    units,
)
from mqconsole.ops.views import MessageView
from mqconsole.ops.words import agree, counted
from mqconsole.ops.words import note as fill_note

__all__ = [
    "REFUSALS_BEFORE_STOP", "Route", "TransferError", "Unroutable", "dlh_changes",
    "identity", "is_grouped", "local_prediction", "run_engine", "same_message",
    "stopped_early", "transfer",
]

REFUSALS_BEFORE_STOP = 10
REPORT_EVERY = 50  # messages between looks at the clock for a progress report
REPORT_SECONDS = 0.25  # the longest a walk goes without one (issue 23 item 6: <= 0.5 s)



_BROWSE_BATCH = 500
STOPPED_EARLY = "stopped early"


def stopped_early(result: OperationResult) -> bool:
    """Did the operation stop before examining every message (a failure, an unknown
    outcome, a cancel)? Then not everything selected was handled."""
    return result.cancelled or result.stopped_early is not None


_SAME_FIELDS = tuple(attr for attr, *_ in LAYOUT if attr not in ("backout_count", "expiry"))


class TransferError(ValueError):
    """An operation that cannot start (one sentence for the user); nothing was changed."""


class Unroutable(Exception):
    """The planner cannot send this message anywhere: it stays, with this MQ reason."""

    def __init__(self, reason: int, detail: str = "", destination: str | None = None) -> None:
        super().__init__(detail or reason_name(reason))
        self.reason = reason
        self.detail = detail
        self.destination = destination


@dataclass(slots=True)
class Route:
    """Where one message goes and as what.

    ``queue`` and ``qmgr_name`` are the put's object (``qmgr_name`` is ObjectQMgrName: the
    queue manager resolves it through a transmission queue or a queue manager alias);
    ``label`` names the destination in results (``QUEUE`` or ``QUEUE@QMGR``); ``message`` is
    what is put; ``changes`` says what differs from the browsed message (for plans) and
    ``notes`` are counted into warnings once the message is done.
    """

    queue: str
    label: str
    message: Message
    qmgr_name: str = ""
    changes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    alt_user: str = ""  # the put's alternate user (the handler's PUTAUT(CTX)), for plans


Planner = Callable[[Message], Route]


def identity(message: Message) -> bytes:
    """What makes a browsed message this one and no other: the MsgId, the whole descriptor
    except BackoutCount (a backout raises it) and Expiry (it counts down), and the body."""
    md = message.md.copy(backout_count=0, expiry=0)
    h = hashlib.blake2b(md.pack(big_endian=False, ccsid=819), digest_size=20)
    h.update(message.body)
    return h.digest()


def same_message(got: Message, browsed: Message) -> bool:
    """``got`` is ``browsed`` (only BackoutCount and the Expiry left may differ)."""
    if got.body != browsed.body:
        return False
    a, b = got.md, browsed.md
    if a.backout_count == b.backout_count and a.expiry == b.expiry:
        return a == b  # the usual case: one dataclass comparison
    return all(getattr(a, f) == getattr(b, f) for f in _SAME_FIELDS)


def is_grouped(message: Message) -> bool:
    return message.in_group


# -- the engine's private state -------------------------------------------------------------

@dataclass(slots=True)
class _Item:
    """A message put (and, for a move, got) in the open unit of work."""

    message: Message  # as browsed
    position: int
    passed_before: int  # messages the walk passed before this one
    route: Route
    group: bytes | None = None
    digest: bytes | None = None

    @property
    def msgid(self) -> str:
        return self.message.msg_id_hex

    def ident(self) -> bytes:
        if self.digest is None:
            self.digest = identity(self.message)
        return self.digest


@dataclass(slots=True)
class _GroupScan:
    members: list[tuple[int, int, int]] = field(default_factory=list)  # (seq, offset, flags)
    unselected: int = 0
    units: int = 0  # of MAXUMSGS, in the unit of work it would need (reports counted)


@dataclass(slots=True)
class _Group:
    gid: bytes
    size: int
    why_not: str | None  # None: the group can move
    units: int | None = None  # of MAXUMSGS, its unit of work's need (None: not known)
    state: str = "new"  # new | open | done | failed | skipped
    remaining: int = 0
    fail_reason: int = 0
    fail_detail: str = ""
    warned: bool = False
    dropped_for: str | None = None  # the given-up destination its members were not tried for

    @property
    def gid_hex(self) -> str:
        return self.gid.hex().upper()


class _UnitFailure(Exception):
    """The open unit of work cannot be committed as it is: back it out (and redo it)."""

    def __init__(self, error: MQError, *, exclude_groups: frozenset[bytes] = frozenset(),
                 source_only: bool = False) -> None:
        super().__init__(str(error))
        self.error = error
        self.exclude_groups = exclude_groups
        self.source_only = source_only  # cross-QM: the destination has committed


class _Stop(Exception):
    """The operation stops here (what happened is in the result)."""


def _group_problem(members: list[tuple[int, int, int]]) -> str | None:
    """Why these messages of one group are not the whole group (None: they are)."""
    logical: dict[int, list[tuple[int, int]]] = {}
    for seq, offset, flags in members:
        logical.setdefault(seq, []).append((offset, flags))
    in_group = any(f & (MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP) for _, _, f in members)
    if in_group:
        lasts = sorted({s for s, _, f in members if f & MQMF_LAST_MSG_IN_GROUP})
        if not lasts:
            return "its last message (MQMF_LAST_MSG_IN_GROUP) is not on the queue"
        if len(lasts) > 1:
            return f"it has more than one last message (sequence numbers {lasts})"
        n = lasts[0]
        missing = sorted(set(range(1, n + 1)) - set(logical))
        if missing:
            shown = ", ".join(str(s) for s in missing[:5]) + (" …" if len(missing) > 5 else "")
            return (f"{agree(len(missing), 'message', 'messages')} {shown} of its {n} "
                    f"{agree(len(missing), 'is', 'are')} not on the queue")
        if max(logical) > n:
            return f"it has messages after its last one ({n})"
    for seq, segs in sorted(logical.items()):
        segmented = any(f & (MQMF_SEGMENT | MQMF_LAST_SEGMENT) for _, f in segs)
        if not segmented:
            if len(segs) > 1:
                return f"message {seq} of the group is on the queue {len(segs)} times"
            continue
        segs.sort()
        offsets = [o for o, _ in segs]
        if len(set(offsets)) != len(offsets):
            return f"a segment of message {seq} is on the queue twice"
        if offsets[0] != 0:
            return f"the first segment (offset 0) of message {seq} is not on the queue"
        last = [o for o, f in segs if f & MQMF_LAST_SEGMENT]
        if not last:
            return f"the last segment of message {seq} is not on the queue"
        if last != [offsets[-1]]:
            return f"message {seq} has segments after its last one"
    return None


def _report_of(item: _Item) -> int:
    return item.message.report


def _size_of(item: _Item) -> int:
    return len(item.route.message.body)  # what is put (a stripped header not counted)


def _one_call_step(cursor: BrowseCursor) -> Callable[..., MQError | None] | None:
    """The cursor's one-call move step (``backends.base.MovesUnderCursor``), bound."""
    step = move_step(cursor)
    return None if step is None else step.move_current_to


class _Engine:
    def __init__(self, qm: QueueManager, source: str, selection: Selection, planner: Planner,
                 *, operation: str, destination: str | None, copy: bool, batch: int,
                 context: Context, dry_run: bool, control: Control | None,
                 dest_qm: QueueManager | None, note_texts: dict[str, str],
                 done_destinations: dict[str, str] | None,
                 predict: Callable[[Route], int | None] | None = None,
                 check: PutCheck | None = None, direct: bool = False,
                 batch_bytes: int = DEFAULT_BATCH_BYTES) -> None:
        if batch < 1:
            raise ValueError("batch must be at least 1")
        self.qm = qm
        self.source = source
        self.selection = selection
        self.planner = planner
        self.copy = copy
        self.batch = batch
        self.context = context
        self.dry_run = dry_run
        self.control = control or Control()
        self.put_qm = dest_qm if dest_qm is not None else qm
        self.cross = dest_qm is not None and dest_qm is not qm
        self.note_texts = {**note_texts, "coa": (
            "{messages} asked for a confirm-on-arrival report (COA): the queue manager "
            "sent one to the ReplyToQ on arrival"), "cod": (
            "{messages} asked for a confirm-on-delivery report (COD): the move's get "
            "made the queue manager send one to the ReplyToQ, as an application's get "
            "would")}  # filled in by ops.words.note
        self.done_destinations = done_destinations
        self.predict = predict
        self.only_destination = destination  # a move's or copy's one destination (None:
        # several, as a resubmit's): once it is given up, nothing more can go
        self.check = check
        # every message goes as it is to the one destination queue, and none is looked at
        # before it goes (no selection, no plugin's check): the backend may move many in
        # one call (backends.base.MovesManyUnderCursor)
        self.direct = (direct and not copy and not self.cross and not dry_run and check is None
                       and selection.everything and context is Context.SET_ALL
                       and destination is not None)
        self.move_many: Callable[[str, int], list[Message]] | None = None
        self.result = OperationResult(operation=operation, source=source,
                                      destination=destination, dry_run=dry_run)
        if context is Context.PASS_ALL and not dry_run:
            # pass-all context: the get comes first (MQ passes the context of a message
            # got), so a refused put must back its get out — a unit of work per message,
            # so that backing out touches that message alone (BackoutCount + 1)
            if copy or self.cross:
                raise TransferError("pass-all context needs the message got on the "
                                    "connection that puts it: a copy does not get, and "
                                    "between two queue managers no handle passes")
            batch = 1
        if not dry_run:  # a unit of work holds at most MAXUMSGS messages (ops/uowlimit.py)
            self.batch, lowered = capped_batch(
                qm, batch, per_message=1 if copy or self.cross else 2,
                also=self.put_qm if self.cross else None)
            if lowered:
                self.result.warnings.append(lowered)
        # ... and the reports its messages ask for count too (COA on a put, COD on a get)
        self.rooms = [r for r in (
            Room(qm, put=not self.cross, get=not copy),
            Room(self.put_qm, put=True, get=False) if self.cross else None)
            if r is not None and r.limit is not None and not dry_run]
        # ... and bytes: the recovery log holds a unit's messages (--batch-bytes)
        self.bytes = UnitBytes(None if dry_run else batch_bytes)
        self.now = datetime.now(UTC)
        self.limit = selection.limit
        # selecting everything needs no look at a message (the per-message path is hot)
        self.everything = selection.everything
        self.cancel = self.control.cancel
        self.cursor: BrowseCursor | None = None
        self.move_step: Callable[..., MQError | None] | None = None  # the cursor's one call
        self.passed = 0  # messages the main walk browsed
        self.matched = 0  # selected messages (a group counts all its members when opened)
        self.extra_selected = 0  # selected members of groups that were never opened
        self.removed = 0  # messages committed away from the source
        self.unit: list[_Item] = []
        self.redoing = False
        self.groups: dict[bytes, _Group] = {}
        self.open_groups: dict[bytes, _Group] = {}
        self.refusals: dict[str, int] = {}
        self.stopped: dict[str, MQError] = {}
        self.untried_for: dict[str, int] = {}  # a given-up destination's messages after
        self.stop_untried: int | None = 0  # past an early stop (None: not counted)
        self.unrecorded = 0  # the unit backed out because its record could not be written
        self.notes: dict[str, int] = {}
        self.duplicates: list[str] = []
        self.total: int | None = None
        self.stopped_early: str | None = None
        self.targets_left = 0  # found messages the walk over them never reached
        self.reported = time.monotonic()

    # -- the walk ---------------------------------------------------------------------------
    def run(self) -> OperationResult:
        if not self.dry_run and (self.qm.in_unit_of_work
                                 or (self.cross and self.put_qm.in_unit_of_work)):
            raise TransferError("the connection holds an open unit of work: commit or back "
                                "it out first (this operation commits its own)")
        with contextlib.suppress(MQError):
            self.total = self.qm.inquire_queue(self.source).depth
        # input only when messages are got (an input handle is exclusive on a SHARE(NO)
        # queue and stops its triggers): a copy or a dry run browses only
        self.cursor = self.qm.browse(self.source, for_get=not (self.copy or self.dry_run))
        # A backend may offer the put and the get under the cursor in one call (the
        # embedded one does): same order, same failures, the get's returned.
        self.move_step = _one_call_step(self.cursor)
        many = moves_many(self.cursor) if self.direct else None
        self.move_many = None if many is None else many.move_next
        found: Pinpointed | None = None
        try:
            found = self._pinpoint()
            if found is None:
                self._walk()
            else:
                self._walk_targets(found)
        except _Stop:
            pass
        finally:
            with contextlib.suppress(Exception):
                self.cursor.close()
            self._abandon_open_unit()
        if self.stopped_early:
            self.stop_untried = self._not_tried(found is not None)
        self._finish()
        return self.result

    def _not_tried(self, pinpointed: bool) -> int | None:
        """After an early stop: how many selected messages the walk never reached (they
        stayed on the source, untried) — the found ones left, the queue's depth past the
        stop for everything, else the rest of the queue browsed again and matched (not
        after a cancel: a stop is asked for at once). None: not counted."""
        room = None if self.limit is None else max(0, self.limit - self.matched)
        if room == 0:
            return 0
        stayed = self.passed - self.removed  # the source's messages up to the stop
        try:
            if pinpointed:
                n = self.targets_left
            elif self.everything:
                depth = self.qm.inquire_queue(self.source).depth
                if depth is None:
                    return None
                n = max(0, depth - stayed)
            elif self.result.cancelled:
                return None
            else:
                n = 0
                with self.qm.browse(self.source) as cursor:
                    position = 0
                    while (m := cursor.next()) is not None:
                        position += 1
                        if position > stayed and self.selection.matches(
                                MessageView(self.passed + position - stayed, m, self.now)):
                            n += 1
                            if room is not None and n >= room:
                                break
        except MQError:
            return None
        return n if room is None else min(n, room)

    def _gave_up(self) -> bool:
        """Every destination has given up (a move's one destination refused
        REFUSALS_BEFORE_STOP messages in a row): browsing further would only skip."""
        label = self.only_destination
        if label is None or label not in self.stopped or self.dry_run:
            return False
        self.stopped_early = f"{label} was given up"
        return True

    def _limit_full(self) -> bool:
        return self.limit is not None and self.matched >= self.limit

    def _stopped_at_unit_boundary(self) -> bool:
        """Between messages: commit a full unit; on a cancel commit what is done, say so and
        answer True (the walk stops)."""
        if len(self.unit) >= self.batch or self.bytes.full(self.unit, _size_of):
            self._commit_unit()
        if not self.cancel.is_set():
            return False
        self._commit_unit()
        self.result.cancelled = True
        self.stopped_early = "cancelled"
        return True

    def _walk(self) -> None:
        while True:
            try:
                if not self.open_groups:
                    if self._stopped_at_unit_boundary():
                        return
                    if self._limit_full():
                        break
                    if self._gave_up():
                        break
                    if self.move_many is not None and self.unit and self._move_many():
                        continue
                try:
                    m = self.cursor.next()  # type: ignore[union-attr]
                except MQError as e:
                    self._browse_failed(e)
                if m is None:
                    break
                self.passed += 1
                if self.passed % REPORT_EVERY == 0:
                    self._report_in_time()
                self._consider(m)
            except _UnitFailure as f:
                self._recover(f)
        while True:
            try:
                if self.open_groups:
                    self._groups_incomplete()
                self._commit_unit()
                break
            except _UnitFailure as f:
                self._recover(f)
        self._report()

    def _report(self) -> None:
        self.control.report(self.passed, self.total, self.matched)
        self.reported = time.monotonic()

    def _report_in_time(self) -> None:
        """Progress at least every ``REPORT_SECONDS`` while walking (a slow ``--where``
        takes long over a few messages) and every 1,000 messages."""
        if self.passed % 1000 == 0 or time.monotonic() - self.reported >= REPORT_SECONDS:
            self._report()

    # -- the selected messages found by what names them (ops.pinpoint) ----------------------
    def _pinpoint(self) -> Pinpointed | None:
        """The selection's messages found without browsing the queue, when the backend
        can (``backends.base.FindsMessages``); None: the walk browses."""
        if (self.everything or not pinpointable(self.selection)
                or finds_messages(self.cursor) is None):  # type: ignore[arg-type]
            return None
        try:  # found with a cursor of its own: the walk's starts at the queue's start
            with self.qm.browse(self.source) as cursor:
                found = pinpoint(cursor, self.selection, self.now)
        except MQError as e:
            self._browse_failed(e)
        if found is not None and found.missing:
            self.result.warnings.append(missing_sentence(found.missing))
        return found

    def _walk_targets(self, found: Pinpointed) -> None:
        """``_walk`` over the messages found (in browse order), each put under the cursor
        by its token; the messages between them are never browsed."""
        finder = cast("FindsMessages", self.cursor)
        gone = 0
        for n, target in enumerate(found.targets):
            self.targets_left = len(found.targets) - n
            try:
                if self._stopped_at_unit_boundary():
                    return
                if self._limit_full() or self._gave_up():
                    break
                try:
                    m = finder.browse_token(target.token)
                except MQError as e:
                    self._browse_failed(e)
                if m is None:  # it left since it was found
                    gone += 1
                    self.targets_left = len(found.targets) - n - 1
                    continue
                self.passed = target.position
                self.matched += 1
                self._handle(m, target.position, None)
                self.targets_left = len(found.targets) - n - 1
                self._report()
            except _UnitFailure as f:
                self._recover(f)
        if gone:
            self.result.warnings.append(missing_sentence(gone))
        while True:
            try:
                self._commit_unit()
                break
            except _UnitFailure as f:
                self._recover(f)
        self._report()

    def _move_many(self) -> bool:
        """The rest of the open unit of work moved in one call of the backend (``direct``
        only): the messages come next on the cursor, each is selected and goes unchanged to
        the one destination. False when the backend moved none (the walk then steps)."""
        n = self.batch - len(self.unit)
        if self.limit is not None:
            n = min(n, self.limit - self.matched)
        if n <= 0:
            return False
        label = cast("str", self.only_destination)
        try:
            moved = self.move_many(label, n)  # type: ignore[misc]
        except MQError as e:  # nothing of the call is left: the unit is backed out, redone
            raise _UnitFailure(e) from None
        if not moved:
            return False
        base = self.passed
        self.unit.extend([_Item(m, pos, pos - 1, Route(label, label, m))
                          for pos, m in enumerate(moved, base + 1)])
        self.passed = base + len(moved)
        self.matched += len(moved)
        self.refusals[label] = 0
        if self.passed // 1000 != base // 1000:
            self._report()
        return True

    def _browse_failed(self, e: MQError) -> None:
        """The cursor failed mid-walk: back out the open unit (its messages stay) and stop.
        Before anything happened it is the caller's error to report (nothing changed)."""
        self._backout()
        res = self.result
        if not (self.unit or res.done or res.failed or res.skipped or res.plan):
            raise e
        for it in self.unit:
            self._fail(it.message, it.position, e.reason, f"browsing the source failed: {e}",
                       it.route.label)
        self.unit = []
        self.stopped_early = f"browsing {self.source} failed: {e}"
        raise _Stop

    # -- one browsed message ----------------------------------------------------------------
    def _consider(self, m: Message) -> None:
        """The message the walk is at (position ``self.passed``)."""
        if m.in_group:
            self._consider_member(m, MessageView(self.passed, m, self.now))
            return
        if self.limit is not None and self.matched >= self.limit:
            return  # only members of open groups are taken now
        if not (self.everything
                or self.selection.matches(MessageView(self.passed, m, self.now))):
            return
        self.matched += 1
        self._handle(m, self.passed, None)

    def _consider_member(self, m: Message, view: MessageView) -> None:
        gid = m.md.group_id
        g = self.groups.get(gid)
        if g is None:
            try:
                self._scan_groups()
            except MQError as e:
                self._browse_failed(e)
            g = self.groups.get(gid)
            if g is None:  # arrived after the scan and gone again: leave it
                g = self.groups[gid] = _Group(gid, 0, "it changed while it was looked at")
        if g.state == "new":
            if g.why_not is None and self.limit is not None and self.matched + g.size > self.limit:
                g.why_not = f"its {g.size} messages do not fit in --limit {self.limit}"
            if g.why_not is None and not self.dry_run:
                g.why_not = group_fits(self.qm, g.size,
                                       per_message=1 if self.copy or self.cross else 2,
                                       units=g.units)
            if g.why_not is not None:
                g.state = "skipped"
            else:
                if not self.open_groups and self.unit and not self.dry_run:
                    try:  # the group gets a unit of work of its own
                        self._commit_unit()
                    except _UnitFailure as f:
                        self._recover(f)  # (the cursor stays on this message)
                g.state = "open"
                g.remaining = g.size
                self.open_groups[gid] = g
                self.matched += g.size
        if g.state in ("skipped", "done"):
            # never opened (or already moved): a selected member is counted and stays
            if not self.selection.matches(view):
                return
            self.extra_selected += 1
            self.result.skipped += 1
            if not g.warned:
                g.warned = True
                why = g.why_not if g.state == "skipped" else (
                    "a message of it arrived after the group was moved")
                self.result.warnings.append(f"group {g.gid_hex}: {why}; its selected "
                                            f"messages stayed on {self.source}")
            return
        if g.state == "failed":  # opened, then one member could not go: the rest stays
            self._fail(m, view.position, g.fail_reason,
                       f"its group was not moved: {g.fail_detail}", None)
            return
        if g.state == "dropped":  # opened, then its destination was no longer tried
            label = g.dropped_for or ""
            self.untried_for[label] = self.untried_for.get(label, 0) + 1
            return
        g.remaining -= 1
        if g.remaining <= 0:
            g.state = "done"
            del self.open_groups[gid]
        self._handle(m, view.position, gid)

    def _scan_groups(self) -> None:
        """Look at every group on the queue once, with a cursor of its own."""
        scans: dict[bytes, _GroupScan] = {}
        base = self.removed + (0 if self.copy else len(self.unit))
        with self.qm.browse(self.source) as cur:
            pos = 0
            while True:
                batch = cur.next_batch(_BROWSE_BATCH)
                for m in batch:
                    pos += 1
                    if not m.in_group:
                        continue
                    md = m.md
                    s = scans.setdefault(md.group_id, _GroupScan())
                    s.members.append((md.msg_seq_number, md.offset, md.msg_flags))
                    s.units += self._units(md.report)
                    if not self.selection.matches(MessageView(pos + base, m, self.now)):
                        s.unselected += 1
                if len(batch) < _BROWSE_BATCH:
                    break
        for gid, s in scans.items():
            if gid in self.groups:
                continue
            why = _group_problem(s.members)
            if why is None and s.unselected:
                why = (f"{s.unselected} of its {len(s.members)} messages "
                       f"{agree(s.unselected, 'is', 'are')} not selected "
                       "(a group moves whole or not at all)")
            self.groups[gid] = _Group(gid, len(s.members), why, units=s.units)

    def _handle(self, m: Message, position: int, gid: bytes | None) -> None:
        if m.truncated_from is not None:  # a preview over a channel whose MAXMSGL is smaller
            detail = (f"only the first {len(m.body)} of its {m.truncated_from} bytes come over "
                      "this channel (its MAXMSGL is smaller): it cannot be moved over it")
            if self.dry_run:
                self.result.plan.append({
                    "msgid": m.msg_id_hex, "position": position, "destination": None,
                    "changes": [], "would_fail": {"reason": MQRC_DATA_LENGTH_ERROR,
                                                  "reason_name": reason_name(
                                                      MQRC_DATA_LENGTH_ERROR)}})
                return
            self._fail(m, position, MQRC_DATA_LENGTH_ERROR, detail, None)
            if gid is not None:
                self._group_failed(gid, MQRC_DATA_LENGTH_ERROR, detail)
            return
        try:
            route = self.planner(m)
        except Unroutable as u:
            self._fail(m, position, u.reason, u.detail, u.destination)
            if gid is not None:
                self._group_failed(gid, u.reason, u.detail or reason_name(u.reason))
            return
        stopped = self.stopped.get(route.label)
        if stopped is not None:  # given up: not tried (they stay), a count of their own
            self.untried_for[route.label] = self.untried_for.get(route.label, 0) + 1
            if gid is not None:
                self.groups[gid].dropped_for = route.label
                self._group_failed(gid, stopped.reason,
                                   f"{route.label} is no longer tried", count_as_failed=False)
            return
        if self.check is not None:  # plugins' put checks, on the message as it would go
            refusal = self.check(route.message, route.queue)
            if refusal is not None:
                if self.dry_run:
                    self._plan(m, position, route, refusal)
                    return
                self.result.failed.append(refused_by_plugin(m.msg_id_hex, position, refusal,
                                                            route.label))
                if gid is not None:
                    self._group_failed(gid, 0, refusal)
                return
        if self.dry_run:
            self._plan(m, position, route)
            return
        item = _Item(m, position, self.passed - 1, route, gid)
        # (never inside a group: its last member is handled after the group was closed)
        if gid is None and not self.open_groups and (
                (self.rooms and self._no_room_for(item))
                or self.bytes.full_for(_size_of(item), self.unit, _size_of)):
            try:  # commit what is done rather than hear 2024 from the queue manager
                self._commit_unit()
            except _UnitFailure:
                self.unit.append(item)  # not put: redone with the unit
                raise
        self._process(item, self.cursor)  # type: ignore[arg-type]

    def _plan(self, m: Message, position: int, route: Route, refusal: str | None = None
              ) -> None:
        entry: dict[str, Any] = {"msgid": m.msg_id_hex, "position": position,
                                 "destination": route.label, "changes": list(route.changes)}
        reports = []
        if m.md.report & MQRO_COA:  # its arrival makes the queue manager send a report
            reports.append("COA")
        if m.md.report & MQRO_COD and not self.copy:  # ... and so does a move's get
            reports.append("COD")
        if reports:
            entry["reports"] = reports
        reason = self.predict(route) if self.predict is not None else None
        if refusal is not None:
            entry["would_fail"] = would_fail_by_plugin(refusal)
        elif reason:
            entry["would_fail"] = {"reason": reason, "reason_name": reason_name(reason)}
        self.result.plan.append(entry)

    def _process(self, item: _Item, cursor: BrowseCursor, *, put: bool = True) -> None:
        r = item.route
        if put and self.context is Context.PASS_ALL:
            self._pass(item, cursor)
            return
        if put and not self.copy and not self.cross:
            move = self.move_step if cursor is self.cursor else _one_call_step(cursor)
            if move is not None:
                try:
                    # the message as browsed (planners never change one in place): the
                    # backend may store its MD as it is stored already
                    # (positionally: keywords through the backend's call guard cost a
                    # dict a message)
                    err = move(r.queue, r.message, self.context, r.qmgr_name,
                               r.message is item.message)
                except MQError as e:  # the put failed: nothing was got
                    if e.reason in CONNECTION_REASONS:
                        self.unit.append(item)
                        raise _UnitFailure(e) from None
                    if self._unit_full(e, item):
                        self._process(item, cursor, put=put)
                        return
                    self._refused(item, e)
                    return
                self.refusals[r.label] = 0
                self.unit.append(item)
                if err is not None:  # put, but the get failed
                    raise _UnitFailure(err) from None
                return
        if put:
            try:
                self.put_qm.put(r.queue, r.message, context=self.context, syncpoint=True,
                                qmgr_name=r.qmgr_name)
            except MQError as e:
                if e.reason in CONNECTION_REASONS:
                    self.unit.append(item)  # not put, but redone with the unit
                    raise _UnitFailure(e) from None
                if self._unit_full(e, item):
                    self._process(item, cursor, put=put)
                    return
                self._refused(item, e)
                return
            self.refusals[r.label] = 0
        self.unit.append(item)
        if self.copy:
            return
        try:
            got = cursor.get_current(syncpoint=True)
        except MQError as e:
            raise _UnitFailure(e) from None
        if not same_message(got, item.message):
            raise _UnitFailure(MQError(
                MQRC_NO_MSG_UNDER_CURSOR,
                f"the message got under the cursor ({got.msg_id_hex}) is not the one browsed "
                f"({item.msgid})"))

    def _pass(self, item: _Item, cursor: BrowseCursor) -> None:
        """One message with pass-all context (``--context pass``): got under the cursor
        (opened for input, MQOO_SAVE_ALL_CONTEXT), checked to be the one browsed, then put
        with MQPMO_PASS_ALL_CONTEXT naming the cursor (PMO.Context), so it keeps its
        context with +passall and no +setall. The get must come first (MQ passes the
        context of a message got, not browsed: 2098 otherwise), so a refused put backs the
        get out: the message stays on the source with its BackoutCount raised by one (its
        unit holds it alone: the engine's batch is 1) and the operation goes on."""
        r = item.route
        try:
            got = cursor.get_current(syncpoint=True)
        except MQError as e:
            self.unit.append(item)  # redone with the unit (found again by its identity)
            raise _UnitFailure(e) from None
        if not same_message(got, item.message):
            self.unit.append(item)
            raise _UnitFailure(MQError(
                MQRC_NO_MSG_UNDER_CURSOR,
                f"the message got under the cursor ({got.msg_id_hex}) is not the one browsed "
                f"({item.msgid})"))
        try:
            self.put_qm.put(r.queue, r.message, context=Context.PASS_ALL, syncpoint=True,
                            qmgr_name=r.qmgr_name, pass_from=cursor)
        except MQError as e:
            if e.reason in CONNECTION_REASONS:
                self.unit.append(item)  # redone with the unit
                raise _UnitFailure(e) from None
            if self.unit:  # a group's members got before it are in the unit too
                self._refused(item, e)  # the group fails: it backs its unit out (raises)
                raise _UnitFailure(e) from None  # (others: backed out and redone)
            self._backout()  # its get goes back: the message stays where it was
            self._refused(item, e)
            return
        self.refusals[r.label] = 0
        self.unit.append(item)

    def _units(self, report: int) -> int:
        """Of MAXUMSGS, what a message takes in a unit of work (the busier connection's
        share when it moves between two)."""
        if self.cross:
            return max(units(report, put=False, get=not self.copy),
                       units(report, put=True, get=False))
        return units(report, put=True, get=not self.copy)

    def _no_room_for(self, item: _Item) -> bool:
        """Would ``item`` make the open unit of work pass MAXUMSGS (its reports counted)?"""
        report = item.message.report
        return any(room.full_for(report, self.unit, _report_of) for room in self.rooms)

    def _unit_full(self, e: MQError, item: _Item) -> bool:
        """A put refused with 2024: the unit of work holds MAXUMSGS messages (reports the
        queue manager makes count too). Not the destination's refusal: commit what is done
        and the caller puts the message again in a new unit (the cursor has not moved).
        False when that cannot help: nothing to commit, or a group half-way."""
        if e.reason != MQRC_SYNCPOINT_LIMIT_REACHED or not self.unit or self.open_groups \
                or item.group is not None:  # a group's last member: committing splits it
            return False
        try:
            self._commit_unit()
        except _UnitFailure:
            self.unit.append(item)  # not put: redone with the unit
            raise
        return True

    def _refused(self, item: _Item, e: MQError) -> None:
        label = item.route.label
        self._fail(item.message, item.position, e.reason, e.detail, label)
        n = self.refusals.get(label, 0) + 1
        self.refusals[label] = n
        if n >= REFUSALS_BEFORE_STOP and label not in self.stopped:
            self.stopped[label] = e
        if item.group is not None:
            self._group_failed(item.group, e.reason, f"{label} refused a message of it: "
                               f"{e.reason_name}")

    def _group_failed(self, gid: bytes, reason: int, detail: str, *,
                      count_as_failed: bool = True) -> None:
        """One member of an open group cannot go: the whole group stays."""
        g = self.groups[gid]
        g.state = "failed" if count_as_failed else "dropped"
        g.fail_reason, g.fail_detail = reason, detail
        self.open_groups.pop(gid, None)
        self.result.warnings.append(f"group {g.gid_hex}: not moved ({detail}); its messages "
                                    f"stayed on {self.source}")
        if any(it.group == gid for it in self.unit):
            raise _UnitFailure(MQError(reason, detail), exclude_groups=frozenset({gid}))

    def _fail(self, m: Message, position: int, reason: int, detail: str,
              destination: str | None, *, gone: bool = False) -> None:
        self.result.failed.append(Failure(msgid=m.msg_id_hex, position=position, reason=reason,
                                          detail=detail, destination=destination, gone=gone))

    # -- units of work ----------------------------------------------------------------------
    def _backout(self, *, source_only: bool = False) -> None:
        qms = [self.qm] if source_only or not self.cross else [self.put_qm, self.qm]
        for qm in qms:
            with contextlib.suppress(MQError):
                qm.backout()

    def _abandon_open_unit(self) -> None:
        """Leaving with an open unit (an unexpected error): back it out, nothing is lost."""
        if self.unit or self.qm.in_unit_of_work or (self.cross and self.put_qm.in_unit_of_work):
            self._backout()

    def _commit_unit(self) -> None:
        items = self.unit
        if not items:
            # only refused puts since the last commit: nothing is in the unit of work
            return
        ids = [it.message.msg_id_hex for it in items]
        labels = [it.route.label for it in items]
        if not self.control.before_commit(ids, cast("list[str | None]", labels)):
            # its record could not be written: never committed without one (they stay)
            self._backout()
            self.unrecorded = len(items)  # never tried: not tried, as delete and the handler
            self.unit = []
            self.stopped_early = NOT_RECORDED
            raise _Stop
        if self.cross:
            try:
                self.put_qm.commit()
            except MQError as e:
                if not settle_failed_commit(self.put_qm, e):
                    self._backout(source_only=True)
                    self._unknown(items, e, "the destination's commit")
                raise _UnitFailure(e) from None
            try:
                self.qm.commit()
            except MQError as e:
                if not settle_failed_commit(self.qm, e):
                    self._unknown(items, e, "the source's commit (the destination committed)")
                raise _UnitFailure(e, source_only=True) from None
        else:
            try:
                self.qm.commit()
            except MQError as e:
                if not settle_failed_commit(self.qm, e):
                    self._unknown(items, e, "the commit")
                raise _UnitFailure(e) from None
        self.control.after_commit()
        self._committed(items, ids, labels)

    def _committed(self, items: list[_Item], ids: list[str], labels: list[str]) -> None:
        self.result.record_done_many(ids, labels)
        if self.done_destinations is not None:
            self.done_destinations.update(zip(ids, labels, strict=True))
        notes = self.notes
        for it in items:
            for note in it.route.notes:
                notes[note] = notes.get(note, 0) + 1
            if it.message.report & MQRO_COA:  # its arrival made a report
                notes["coa"] = notes.get("coa", 0) + 1
            if it.message.report & MQRO_COD and not self.copy:  # so did the get
                notes["cod"] = notes.get("cod", 0) + 1
        if not self.copy:
            self.removed += len(items)
        self.unit = []
        self.redoing = False
        self._report()

    def _unknown(self, items: list[_Item], e: MQError, what: str) -> None:
        self.result.outcome_unknown = True
        ids = [it.msgid for it in items]
        for it in items:
            self._fail(it.message, it.position, e.reason, f"outcome unknown: {e}",
                       it.route.label)
        shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
        self.result.warnings.append(
            f"the outcome of {what} is unknown ({reason_label(e.reason)}): these "
            f"{counted(len(ids))} may be on {self.source} or on the destination — check "
            f"both before retrying: {shown}")
        self.unit = []
        self.stopped_early = "a commit's outcome is unknown"
        raise _Stop

    def _recover(self, f: _UnitFailure) -> None:
        """Back the unit out and redo it once (without the groups that cannot go)."""
        if self._split_at_limit(f):
            return
        self._backout(source_only=f.source_only)
        items, self.unit = self.unit, []
        keep: list[_Item] = []
        for it in items:
            if it.group is not None and it.group in f.exclude_groups:
                g = self.groups[it.group]
                self._fail(it.message, it.position, g.fail_reason,
                           f"its group was not moved: {g.fail_detail}", it.route.label)
            else:
                keep.append(it)
        if not keep:
            return
        if self.redoing:
            self._give_up(keep, f.error, f.source_only)
        self.redoing = True
        settled_from = len(self.result.failed)
        try:
            try:
                self._redo(keep, f.error, put=not f.source_only)
            except MQError as browse_error:  # the redo's cursor failed
                raise _UnitFailure(browse_error) from None
            if self.open_groups:
                return  # a group is half-way: its unit is committed when the group is whole
            self._commit_unit()
        except _UnitFailure as again:
            self._backout(source_only=f.source_only or again.source_only)
            self.unit = []
            settled = {x.position for x in self.result.failed[settled_from:]}
            self._give_up([it for it in keep if it.position not in settled], again.error,
                          f.source_only or again.source_only)
        self.redoing = False  # (also reset by every commit)

    def _split_at_limit(self, f: _UnitFailure) -> bool:
        """A get refused with 2024 (``ops.uowlimit``: the unit of work holds MAXUMSGS, the
        COD reports gets make counted) after its message was put: back the unit out once,
        learn the limit, then redo the messages before it as one unit and it in a unit of
        its own, each committed — never the same unit again (each redo would raise the
        BackoutCount of its messages once more). A message that does not fit alone fails
        (it stays) and the operation goes on. False when this is not that case."""
        if (f.error.reason != MQRC_SYNCPOINT_LIMIT_REACHED or f.source_only or self.cross
                or self.copy or self.open_groups or self.redoing or not self.unit
                or any(it.group is not None for it in self.unit)):
            return False
        items, self.unit = self.unit, []
        self._backout()
        *before, last = items
        held = sum(self._units(it.message.report) for it in before) + \
            units(last.message.report, put=True, get=False)
        if not self.rooms:
            self.rooms.append(Room(None, put=True, get=True))
        self.rooms[0].learn(held)
        said = (f"a unit of work reached the queue manager's limit (MAXUMSGS, "
                f"{f.error.reason_name}) at {held} uncommitted messages, the reports the "
                "messages ask for counted: units are committed before that from now on")
        if said not in self.result.warnings:
            self.result.warnings.append(said)
        for part in ([before] if before else []) + [[last]]:
            self.redoing = True
            try:
                try:
                    self._redo(part, f.error, put=True)
                except MQError as browse_error:  # the redo's cursor failed
                    raise _UnitFailure(browse_error) from None
                self._commit_unit()
            except _UnitFailure as again:
                self._backout()
                self.unit = []
                if part[0] is last and again.error.reason == MQRC_SYNCPOINT_LIMIT_REACHED:
                    self._fail(last.message, last.position, again.error.reason,
                               "it does not fit in a unit of work of its own (MAXUMSGS, "
                               f"its reports counted): it stayed on {self.source}",
                               last.route.label)
                    break
                settled = {x.position for x in self.result.failed}
                rest = [it for it in (part if part[0] is last else [*part, last])
                        if it.position not in settled]
                self._give_up(rest, again.error, False)
                break
        self.redoing = False
        return True

    def _give_up(self, items: list[_Item], e: MQError, duplicates: bool) -> None:
        for it in items:
            detail = f"backed out twice: {e}"
            if duplicates:
                detail += " (also on the destination: a duplicate)"
                self.duplicates.append(it.msgid)
            self._fail(it.message, it.position, e.reason, detail, it.route.label)
        self.stopped_early = f"a unit of work failed twice ({e.reason_name})"
        raise _Stop

    def _redo(self, items: list[_Item], e: MQError, *, put: bool) -> None:
        """Find the unit's messages again (a fresh cursor) and move them again."""
        # where each one must be now: after the messages passed before it that stayed
        expected = [it.passed_before - self.removed + 1 for it in items]
        found = self._locate(items, expected)
        if len(found) < len(items):  # the queue changed before them: by identity alone
            found = self._locate(items, [1] * len(items))
        missing = [it for j, it in enumerate(items) if j not in found]
        for it in missing:
            self._fail(it.message, it.position, MQRC_NO_MSG_UNDER_CURSOR,
                       f"gone from {self.source} (another process took it; found missing "
                       f"after the unit of work was backed out, {e.reason_name})",
                       it.route.label, gone=True)
        broken = {it.group for it in missing if it.group is not None}
        for gid in broken:  # a group missing a member stays whole where it is
            g = self.groups[gid]
            g.state, g.fail_reason = "failed", MQRC_NO_MSG_UNDER_CURSOR
            g.fail_detail = "one of its messages left the source during the operation"
            self.open_groups.pop(gid, None)
            self.result.warnings.append(f"group {g.gid_hex}: not moved ({g.fail_detail})")
            for j in [j for j in found if items[j].group == gid]:
                it = items[j]
                self._fail(it.message, it.position, g.fail_reason,
                           f"its group was not moved: {g.fail_detail}", it.route.label)
                del found[j]
        if not found:
            return
        by_ordinal = {o: items[j] for j, o in found.items()}
        last = max(by_ordinal)
        with self.qm.browse(self.source, for_get=not self.copy) as cur:
            ordinal = 0
            while ordinal < last:
                m = cur.next()
                if m is None:
                    raise _UnitFailure(MQError(MQRC_NO_MSG_UNDER_CURSOR,
                                               "messages of the unit of work vanished"))
                ordinal += 1
                old = by_ordinal.get(ordinal)
                if old is None:
                    continue
                if identity(m) != old.ident():
                    raise _UnitFailure(MQError(MQRC_NO_MSG_UNDER_CURSOR,
                                               "the source changed during the redo"))
                route = old.route
                if put:
                    try:
                        route = self.planner(m)
                    except Unroutable:
                        route = old.route
                item = _Item(m, old.position, old.passed_before, route, old.group, old.digest)
                self._process(item, cur, put=put)

    def _locate(self, items: list[_Item], expected: list[int]) -> dict[int, int]:
        """Index in ``items`` -> ordinal on the source, browsing with a cursor of its own.
        Each item is the first message with its identity at or after its expected ordinal
        and after the previous item."""
        found: dict[int, int] = {}
        with self.qm.browse(self.source) as cur:
            ordinal = 0
            i = 0
            while i < len(items):
                m = cur.next()
                if m is None:
                    break
                ordinal += 1
                if ordinal < expected[i]:
                    continue
                if identity(m) == items[i].ident():
                    found[i] = ordinal
                    i += 1
        return found

    def _groups_incomplete(self) -> None:
        """The walk ended with groups open: members vanished. Those groups stay."""
        gids = frozenset(self.open_groups)
        for gid in gids:
            g = self.groups[gid]
            g.state = "failed"
            g.fail_reason = MQRC_NO_MSG_UNDER_CURSOR
            g.fail_detail = "some of its messages left the source during the operation"
            self.result.warnings.append(f"group {g.gid_hex}: not moved ({g.fail_detail})")
        self.open_groups.clear()
        if any(it.group in gids for it in self.unit):
            raise _UnitFailure(MQError(MQRC_NO_MSG_UNDER_CURSOR, "incomplete group"),
                               exclude_groups=gids)

    # -- the end ----------------------------------------------------------------------------
    def _finish(self) -> None:
        res = self.result
        res.selected = self.matched + self.extra_selected + (self.stop_untried or 0)
        untried = sum(self.untried_for.values())
        if self.stop_untried is None:  # not counted: the unit backed out still is
            res.not_tried = None
            res.skipped += self.unrecorded
        else:
            res.not_tried = self.stop_untried + untried + self.unrecorded
        for label, e in self.stopped.items():
            refused = (f"{label} refused {REFUSALS_BEFORE_STOP} messages in a row (last: "
                       f"{reason_label(e.reason)})")
            if label == self.only_destination and self.stopped_early == f"{label} was given up":
                self.stopped_early = f"{refused}, so it was given up"  # said once, below
                continue
            n = self.untried_for.get(label, 0)
            if n:  # a count of their own: not tried, with why (not_tried_why)
                res.given_up.append(f"{refused}, so it was given up: {counted(n)} for it "
                                    f"{agree(n, 'was', 'were')} not tried")
            else:
                res.warnings.append(f"{refused}; it was not tried again")
        for key, n in self.notes.items():
            text = self.note_texts.get(key)
            if text:
                res.warnings.append(fill_note(text, n))
        coa = sum(1 for p in res.plan if "COA" in p.get("reports", ()))
        if coa:  # (said once: it was appended twice)
            res.warnings.append(f"{counted(coa)} {agree(coa, 'asks', 'ask')} for a "
                                "confirm-on-arrival report (COA): putting "
                                f"{agree(coa, 'it', 'them')} makes the queue manager send "
                                "one to the ReplyToQ, as if on a first arrival")
        cod = sum(1 for p in res.plan if "COD" in p.get("reports", ()))
        if cod:
            res.warnings.append(f"{counted(cod)} {agree(cod, 'asks', 'ask')} for a "
                                "confirm-on-delivery report (COD): getting "
                                f"{agree(cod, 'it', 'them')} off {self.source} makes the "
                                "queue manager send one to the ReplyToQ, as an "
                                "application's get would")
        if self.duplicates:
            ids = sorted(set(self.duplicates))
            res.warnings.append(
                f"{counted(len(ids))} {agree(len(ids), 'is', 'are')} now on both {self.source} "
                "and the destination "
                "(the source's commit failed after the destination's): remove the copies "
                f"you do not want: {', '.join(ids[:20])}" + (" …" if len(ids) > 20 else ""))
        if self.stopped_early:
            res.stopped_early = self.stopped_early
            res.warnings.append(f"{STOPPED_EARLY} ({self.stopped_early}): messages after "
                                f"position {self.passed} were not examined")


def run_engine(qm: QueueManager, source: str, selection: Selection, planner: Planner, *,
               operation: str, destination: str | None, copy: bool = False, batch: int = 100,
               context: Context = Context.SET_ALL, dry_run: bool = False,
               control: Control | None = None, dest_qm: QueueManager | None = None,
               note_texts: dict[str, str] | None = None,
               done_destinations: dict[str, str] | None = None,
               predict: Callable[[Route], int | None] | None = None,
               check: PutCheck | None = None, direct: bool = False,
               batch_bytes: int = DEFAULT_BATCH_BYTES) -> OperationResult:
    """Walk ``source`` and send every selected message where ``planner`` says (see the
    module docstring for the rules). Shared by :func:`transfer` and resubmit. ``check``:
    the plugins' put checks (None when there are none: then nothing is checked).
    ``direct``: ``planner`` sends every message unchanged to ``destination`` (a plain move):
    with no selection and no ``check`` the backend may then move many in one call."""
    engine = _Engine(qm, source, selection, planner, operation=operation,
                     destination=destination, copy=copy, batch=batch, context=context,
                     dry_run=dry_run, control=control, dest_qm=dest_qm,
                     note_texts=note_texts or {}, done_destinations=done_destinations,
                     predict=predict, check=check, direct=direct, batch_bytes=batch_bytes)
    return engine.run()


# -- move and copy ----------------------------------------------------------------------------

def dlh_changes(before: Message, after: Message) -> tuple[str, ...]:
    """What stripping a dead-letter header changes, in words (for plans)."""
    a, b = before.md, after.md
    out = [f"remove MQDLH ({len(before.body) - len(after.body)} bytes)"]
    if a.format != b.format:
        out.append(f"Format {format_key(a.format) or 'MQFMT_NONE'} -> "
                   f"{format_key(b.format) or 'MQFMT_NONE'}")
    if a.encoding != b.encoding:
        out.append(f"Encoding {a.encoding} -> {b.encoding}")
    if a.ccsid != b.ccsid:
        out.append(f"CodedCharSetId {a.ccsid} -> {b.ccsid}")
    return tuple(out)


def local_prediction(qm: QueueManager, context: Context = Context.NEW
                     ) -> Callable[[Route], int | None]:
    """For dry runs: the reason a put to a local queue would most likely fail with (queue
    unknown, not authorized, put-inhibited, full, message too long), counting the plan's
    own messages. On a queue manager that checks authority (``base.ChecksPuts``) each
    destination is opened for output once, nothing put, with the ``context`` the run puts
    with and as the route's alternate user: a refusal there (2035 without +put, without
    +setall for set-all context, without +altusr or the user's own authority for PUTAUT(CTX);
    2085, 2087 for a remote one too) is the prediction, and a queue that may be put to but
    not inquired (no +inq) is no predicted failure."""
    attrs: dict[str, Any] = {}
    planned: dict[str, int] = {}
    checks = put_checks(qm)
    opened: dict[tuple[str, str, str], int | None] = {}

    def predict(route: Route) -> int | None:
        if checks is not None:
            key = (route.queue, route.qmgr_name, route.alt_user)
            if key not in opened:
                try:
                    checks.open_for_put(route.queue, route.qmgr_name, context=context,
                                        alt_user=route.alt_user)
                    opened[key] = None
                except MQError as e:
                    opened[key] = e.reason
            if opened[key] is not None:
                return opened[key]
        if route.qmgr_name:
            return None
        name = route.queue
        if name not in attrs:
            try:
                attrs[name] = qm.inquire_queue(name)
            except MQError as e:
                # opened for output above: it may be put to, only not inquired (no +inq)
                attrs[name] = None if checks is not None else e.reason
        a = attrs[name]
        if a is None:
            return None
        if isinstance(a, int):
            return a
        if a.put_inhibited:
            return MQRC_PUT_INHIBITED
        if a.max_msg_length is not None and len(route.message.body) > a.max_msg_length:
            return MQRC_MSG_TOO_BIG_FOR_Q
        if (a.depth is not None and a.max_depth is not None
                and a.depth + planned.get(name, 0) >= a.max_depth):
            return MQRC_Q_FULL
        planned[name] = planned.get(name, 0) + 1
        return None

    return predict


def _name_of(qm: QueueManager | None) -> str | None:
    try:
        return None if qm is None else qm.name
    except MQError:
        return None


def _local_queue(qm: QueueManager, name: str) -> str:
    """The local queue a name resolves to on this queue manager (an alias's target, a
    remote definition or queue manager alias pointing back here, followed as MQOPEN
    does: ``ops.landing``); the name itself when it cannot tell."""
    return lands_on(qm, name, local=_name_of(qm) or "").queue or name


def transfer(qm: QueueManager, source: str, dest: str, selection: Selection, *,
             copy: bool = False, batch: int = 100, new_context: bool = False,
             pass_context: bool = False, strip_dlh: bool = False, dry_run: bool = False,
             control: Control | None = None,
             dest_qm: QueueManager | None = None, check: PutCheck | None = None,
             batch_bytes: int = DEFAULT_BATCH_BYTES) -> OperationResult:
    """Move (or ``copy``) the selected messages of ``source`` to ``dest``.

    ``dest_qm``: the destination is on another queue manager (another connection); the
    move is then not atomic — a crash between the destination's commit and the source's
    leaves a duplicate, never a loss. ``new_context``: the messages get the mover's context
    instead of keeping theirs (set-all). ``pass_context``: each is got first and put passing
    its context (pass-all: +passall, no +setall; a unit of work per message, a refused put
    backs its get out — BackoutCount + 1). ``strip_dlh``: remove a dead-letter header and
    restore Format, Encoding and CCSID from it (messages without one go unchanged; a
    warning counts them). ``check``: the plugins' put checks (a refusal fails that message,
    which stays; see :data:`~mqconsole.ops.result.PutCheck`).

    Raises :class:`TransferError` for an operation that cannot start (source and
    destination the same queue) and ``MQError`` when the source cannot be browsed at all;
    in both cases nothing changed. Everything else is in the result.
    """
    same_qm = dest_qm is None or dest_qm is qm
    if same_qm or _name_of(dest_qm) == _name_of(qm):
        src_local, dst_local = _local_queue(qm, source), _local_queue(dest_qm or qm, dest)
        if src_local == dst_local:
            also = "" if source == dest else f" ({source} and {dest} are both {src_local})"
            raise TransferError(f"{source} is both the source and the destination{also}")
    label = dest if same_qm else f"{dest}@{dest_qm.name}"  # type: ignore[union-attr]

    def planner(m: Message) -> Route:
        if not strip_dlh:
            return Route(dest, label, m)
        if format_key(m.md.format) != "MQDEAD":
            return Route(dest, label, m, notes=("no_dlh",))
        try:
            md, body = strip_dead_letter_header(m.md, m.body)
        except HeaderError as e:
            raise Unroutable(MQRC_HEADER_ERROR, f"its dead-letter header is not valid: {e}",
                             label) from None
        out = Message(md, body)
        return Route(dest, label, out, changes=dlh_changes(m, out))

    notes = {"no_dlh": "{messages} had no dead-letter header and {were} "
                       + ("copied" if copy else "moved") + " unchanged (--strip-dlh)"}
    context = (Context.PASS_ALL if pass_context else
               Context.NEW if new_context else Context.SET_ALL)
    return run_engine(qm, source, selection, planner, operation="copy" if copy else "move",
                      destination=label, copy=copy, batch=batch, context=context,
                      dry_run=dry_run, control=control, dest_qm=None if same_qm else dest_qm,
                      note_texts=notes, check=check, direct=not strip_dlh,
                      batch_bytes=batch_bytes,
                      predict=local_prediction(qm if same_qm else dest_qm,  # type: ignore[arg-type]
                                               context))


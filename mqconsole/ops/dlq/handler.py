"""The dead-letter queue handler: a runmqdlq rules table applied to a queue.

A *pass* browses the queue once. For each message: a message without a valid dead-letter
header is reported and left; otherwise the rule that applies (:func:`.match.applicable`,
with the message's durable attempt count) says what to do. IGNORE, no rule, and a message
whose last failed attempt is less than RETRYINT ago leave it where it is.

* RETRY puts the message to its header's destination, FWD to FWDQ/FWDQM (``&DESTQ`` and
  friends resolved); RETRY and FWD HEADER(NO) remove the header and restore Format,
  Encoding and CodedCharSetId from it (MsgId and CorrelId are kept; the context as
  PUTAUT says, below). A header over a transmission header (Format MQXMIT) is unwrapped for RETRY
  as resubmit does.
* A RETRY or FWD whose destination is the queue being processed (on the queue manager
  connected to), named or through ``&DESTQ``/``&REPLYQ``, or through a name that resolves
  to it (an alias queue, a remote queue definition or queue manager alias pointing back
  here: :mod:`mqconsole.ops.landing`), is refused as a failed attempt (``INPUT_QUEUE``):
  the message would come back, and a pass that commits midway would meet it again at the
  end of the queue, without end. Where the name cannot be resolved (+inq refused), a
  message put there that the run meets again (its attempt key, in that pass or the next)
  marks the destination as looping: every later attempt to it in the run is refused so.
* PUTAUT(CTX) puts with the authority of the message's UserIdentifier (MQ's alternate user
  authority: the handler's user needs +altusr, the message's user +put and +setall) and
  keeps the message's context (set-all); a refusal (2035) is a failed attempt like any
  other. PUTAUT(DEF): the handler's own authority and its own context — the put's default
  context, a new message's user, time and application (MsgId and CorrelId kept) — so it
  needs +put only, no +setall.
* Each message is put and **then** got under the browse cursor in the same unit of work
  (DISCARD: got only), as ``ops.transfer`` does; the unit is committed every ``batch``
  messages. A refused put (queue full, put-inhibited, unknown, not authorized, a plugin's
  check) is a failed attempt: counted durably (:mod:`.attempts`), the message stays, and
  the next attempt waits RETRYINT. A failed get under the cursor or commit backs the unit
  out (its messages stay, nothing counted) and ends the pass; the next pass finds them.
  A commit whose outcome MQ cannot tell (2009, 2018, 2548, 2549, or a failed backout after
  it: ``backends.base.settle_failed_commit``) stops the handler and says which messages.
* Stopping (``control.cancel``: SIGTERM, SIGINT, the console's cancel) backs the open unit
  of work out at the next message: those messages stay, never lost or doubled.

Passes repeat as the control data's WAIT says: WAIT(NO) ends when nothing is processable
(a retry due later is waited for first; none is due for a message no rule applies to any
more); WAIT(n) waits up to n seconds for an arrival or a
retry due and then ends; WAIT(YES) keeps going until stopped. ``once`` makes one pass.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, overload

from mqconsole.backends.base import (
    BrowseCursor,
    Context,
    QueueManager,
    move_step,
    settle_failed_commit,
)
from mqconsole.mq.chain import dead_letter_header, format_key
from mqconsole.mq.dlh import MQDLH, MQDLH_LENGTH, strip_pad
from mqconsole.mq.errors import HeaderError, MQError
from mqconsole.mq.message import Message
from mqconsole.mq.names import reason_label, reason_name
from mqconsole.mq.reasons import (
    CONNECTION_REASONS,
    MQRC_HEADER_ERROR,
    MQRC_NO_MSG_UNDER_CURSOR,
    MQRC_NOT_AUTHORIZED,
    MQRC_SYNCPOINT_LIMIT_REACHED,
    MQRC_UNKNOWN_OBJECT_NAME,
)
from mqconsole.ops.landing import Landing, lands_on
from mqconsole.ops.result import NOT_RECORDED, Control, Failure, OperationResult
from mqconsole.ops.transfer import same_message
from mqconsole.ops.uowlimit import DEFAULT_BATCH_BYTES, Room, capped_batch, units
from mqconsole.ops.words import agree, counted

from .attempts import AttemptStore, Key, message_key
from .match import Subject, applicable, resolve_target
from .rules import Rule, RulesTable
from .waiting import IDLE, STOPPED, WORK, Mark, mark, wait_for_work

REFUSED_BY_PLUGIN = "REFUSED_BY_PLUGIN"
# a RETRY or FWD that would put the message back on the queue being processed: refused (a
# failed attempt), or each pass that commits midway would meet it again, without end
INPUT_QUEUE = "INPUT_QUEUE"
PROGRESS_EVERY = 100  # messages of a pass between progress reports
UNIT_FAILURES_BEFORE_STOP = 3  # passes in a row whose unit of work failed, with no progress

PutCheck = Callable[[Message, str], "str | None"]

VERB = {"DISCARD": "discarded", "RETRY": "retried", "FWD": "forwarded"}


def first_the_failure(outcome: str) -> str:
    """"would retry to APP.IN (header removed) — would fail now: MQRC_Q_FULL" →
    "would fail now: MQRC_Q_FULL — would retry to APP.IN (header removed)": where a column
    ends before the line does (the console at 80 columns, the CLI's table on a terminal),
    what would fail must not be what is cut."""
    what, sep, failure = outcome.partition(" — would fail now: ")
    return f"would fail now: {failure} — {what}" if sep else outcome


class HandlerError(ValueError):
    """The handler cannot start as asked (one sentence); nothing was changed."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How a run goes: the table's control data with the command line's overrides."""

    queue: str
    retry_interval: int
    wait: int | None  # None: WAIT(YES); 0: WAIT(NO); n: seconds
    once: bool = False
    batch: int = 100
    dry_run: bool = False
    cycle: bool = False  # end after the first pass whose unit of work was not backed out
    listed: int | None = None  # messages the report lists (None: all; the rest counted)
    batch_bytes: int = DEFAULT_BATCH_BYTES  # a unit's bodies at most (the recovery log)


@dataclass(slots=True)
class MessageOutcome:
    """One message in one pass: the rule that applied and what happened."""

    msg_id: str
    position: int
    rule: int | None
    action: str | None
    # the times this message has been tried so far: its failed attempts, and this one when
    # it was tried in this pass (failed, or done: retried, forwarded, discarded)
    attempts: int
    outcome: str
    destination: str | None = None
    reason: str | None = None
    #: the format FORMAT rules matched (the data's, after any RFH2 of message properties)
    #: and the dead-letter header's Format (MQHRF2 when properties came as an RFH2)
    data_format: str | None = None
    header_format: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"msg_id": self.msg_id, "rule": self.rule, "action": self.action,
                "attempts": self.attempts, "outcome": self.outcome,
                "destination": self.destination, "reason": self.reason,
                "format": self.data_format, "header_format": self.header_format}


OPEN = "in the open unit of work"  # the one outcome that is not final yet


class Outcomes:
    """A run's messages with their outcomes: every one (``listed`` None: the CLI lists them
    all), or the first ``listed`` of them and, past those, only a count of each final
    outcome — the console's plan of 200,000 messages held them all (hundreds of MB) to list
    5,000. Iterating gives the listed ones and those not counted yet."""

    def __init__(self, listed: int | None = None) -> None:
        self.listed = listed
        self.kept: list[MessageOutcome] = []
        self._unsettled: list[MessageOutcome] = []  # past ``listed``, not counted yet
        self.counts: Counter[str] = Counter()  # final outcomes past ``listed``
        self.total = 0

    def append(self, outcome: MessageOutcome) -> None:
        self.total += 1
        if self.listed is None or len(self.kept) < self.listed:
            self.kept.append(outcome)
            return
        self._unsettled.append(outcome)
        if len(self._unsettled) >= 1_000:
            self.settle()

    def settle(self) -> None:
        """Count the final outcomes past ``listed`` and forget them."""
        still = []
        for m in self._unsettled:
            if m.outcome == OPEN:
                still.append(m)
            else:
                self.counts[m.outcome] += 1
        self._unsettled = still

    def mark(self) -> tuple[int, Counter[str], list[MessageOutcome], int]:
        """Where the log is now, to go :meth:`back_to` (a pass made again)."""
        return len(self.kept), Counter(self.counts), list(self._unsettled), self.total

    def back_to(self, mark: tuple[int, Counter[str], list[MessageOutcome], int]) -> None:
        """Forget what came after ``mark``."""
        kept, counts, unsettled, self.total = mark
        del self.kept[kept:]
        self.counts, self._unsettled = Counter(counts), list(unsettled)

    def __iter__(self) -> Iterator[MessageOutcome]:
        yield from self.kept
        yield from self._unsettled

    def __len__(self) -> int:
        return self.total

    @overload
    def __getitem__(self, i: int) -> MessageOutcome: ...
    @overload
    def __getitem__(self, i: slice) -> list[MessageOutcome]: ...
    def __getitem__(self, i: int | slice) -> MessageOutcome | list[MessageOutcome]:
        return [*self.kept, *self._unsettled][i]

    def by_outcome(self) -> Counter[str]:
        """Every message's outcome, counted."""
        out = Counter(m.outcome for m in self)
        out.update(self.counts)
        return out


@dataclass(slots=True)
class RuleCount:
    matched: int = 0  # messages this rule applied to (each pass counts)
    done: int = 0
    failed: int = 0


@dataclass
class HandlerReport:
    """What a run did: per message, per rule, and the operation's result."""

    table: RulesTable
    settings: Settings
    qmgr: str
    result: OperationResult
    messages: Outcomes = field(default_factory=Outcomes)
    rules: dict[int, RuleCount] = field(default_factory=dict)
    passes: int = 0
    durable: bool = True
    shared_keys: int = 0
    forgotten: int = 0
    next_due: float | None = None  # when a message that failed may be tried again

    def rules_json(self) -> list[dict[str, Any]]:
        return [{"rule": n, "matched": c.matched, "done": c.done, "failed": c.failed}
                for n, c in sorted(self.rules.items())]

    def to_json(self) -> dict[str, Any]:
        self.messages.settle()
        out = {"messages": [m.to_json() for m in self.messages], "rules": self.rules_json(),
               "queue": self.settings.queue, "qmgr": self.qmgr, "passes": self.passes,
               "dry_run": self.settings.dry_run, "attempts_durable": self.durable,
               "next_due": self.next_due}
        if self.messages.listed is not None:  # the rest counted, not listed
            out["message_count"] = len(self.messages)
            out["outcome_counts"] = dict(self.by_outcome())
        return out

    def by_outcome(self) -> dict[str, int]:
        return dict(self.messages.by_outcome())


def resolve_queue(qm: QueueManager, table: RulesTable, override: str | None) -> str:
    """The queue to process: ``--input``, else INPUTQ, else the queue manager's DEADQ.
    HandlerError when INPUTQM names another queue manager or there is no queue to use;
    MQError 2085 (from the inquiry) when the queue does not exist."""
    info = qm.inquire_qmgr()
    wanted_qm = table.control.input_qm.strip()
    if wanted_qm and wanted_qm != info.name:
        raise HandlerError(f"the table's INPUTQM({wanted_qm}) is not the queue manager "
                           f"connected to ({info.name}): connect to {wanted_qm} (--profile)")
    queue = (override or table.control.input_q or info.dead_letter_queue or "").strip()
    if not queue:
        raise HandlerError(f"no queue to process: {info.name} has no dead-letter queue "
                           "(DEADQ) and neither --input nor INPUTQ names one")
    qm.inquire_queue(queue)
    return queue


@dataclass(slots=True)
class _Pending:
    """A message put and got (or got) in the open unit of work."""

    outcome: MessageOutcome
    key: Key
    rule: Rule
    label: str | None
    dest: tuple[str, str] | None = None  # (queue, queue manager) put to


class _UnitFailed(Exception):
    def __init__(self, error: MQError) -> None:
        super().__init__(str(error))
        self.error = error


class _UnitFull(_UnitFailed):
    """A get refused with 2024 after the message was put, with messages before it in the
    unit (``ops.uowlimit``): the unit held ``held`` of MAXUMSGS, the put counted."""

    def __init__(self, error: MQError, held: int) -> None:
        super().__init__(error)
        self.held = held


class _Stop(Exception):
    """The run ends now (what happened is in the report)."""


@dataclass(slots=True)
class _PassEnd:
    next_due: float | None = None  # earliest time a waiting message may be tried again
    unit_failed: bool = False
    progress: bool = False  # something was committed or an attempt counted
    # a unit reached MAXUMSGS and was backed out once: the limit is learned, the pass is
    # made again at once in smaller units (never the same unit again)
    redo: bool = False
    failed_reason: str = ""


class Handler:
    def __init__(self, qm: QueueManager, table: RulesTable, settings: Settings, *,
                 store: AttemptStore, control: Control | None = None,
                 check: PutCheck | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        if settings.batch < 1:
            raise ValueError("batch must be at least 1")
        self.qm = qm
        self.table = table
        self.settings = settings
        self.store = store
        self.control = control or Control()
        self.stop = self.control.cancel
        self.check = check
        self.clock = clock
        self.local = qm.inquire_qmgr().name
        result = OperationResult(operation="dlq-handler", source=settings.queue,
                                 dry_run=settings.dry_run)
        self.report = HandlerReport(table, settings, self.local, result,
                                    messages=Outcomes(settings.listed),
                                    rules={r.number: RuleCount() for r in table.rules},
                                    durable=store.durable)
        # MAXUMSGS: a unit of work puts and gets each message (ops/uowlimit.py)
        self.batch, lowered = capped_batch(qm, settings.batch, per_message=2)
        self.room = Room(None if settings.dry_run else qm, put=True, get=True)
        self._unit: list[_Pending] = []  # the pass's open unit of work
        if lowered:
            result.warnings.append(lowered)
        self.failures: dict[Key, Failure] = {}  # the last failure of messages still there
        self.examined = 0
        # the last pass, for what a stop left untried: complete, messages browsed, removed
        # by its commits, and those of a unit backed out
        self._cut: tuple[bool, int, int, int] = (True, 0, 0, 0)
        self._held = 0  # of MAXUMSGS, what the open unit held before the message in hand
        self._predict: dict[Context, Callable[..., int | None]] = {}
        # where puts land, resolved once a pass (definitions may change between passes)
        self._landings: dict[tuple[str, str], Landing] = {}
        self._input = strip_pad(settings.queue)  # the local queue behind the input queue
        # destinations that could not be resolved, and the keys of messages committed to
        # them in this pass and the last: one met again came back, so its destination loops
        self._sent: dict[Key, tuple[str, str]] = {}
        self._sent_before: dict[Key, tuple[str, str]] = {}
        self._loops: set[tuple[str, str]] = set()
        self._alike: dict[tuple[Any, Any], dict[str, Any]] = {}  # see _add_step

    # -- the run ----------------------------------------------------------------------------
    def run(self) -> HandlerReport:
        s = self.settings
        if not s.dry_run and self.qm.in_unit_of_work:
            raise HandlerError("the connection holds an open unit of work: commit or back it "
                               "out first (the handler commits its own)")
        unit_failures = 0
        watch = not (s.once or s.dry_run or s.cycle) and s.wait != 0
        result = self.report.result
        before: Mark | None = None
        try:
            while True:
                if before is not None:
                    before.close()
                before = mark(self.qm, s.queue) if watch else None
                done, back = result.done, result.moved_to.get(s.queue, 0)
                counts = self._counts()
                end = self._pass()
                self.report.passes += 1
                self.report.next_due = end.next_due
                if self.stop.is_set():
                    self._stopped()
                    break
                if end.redo:  # the same pass again at once, in units that fit
                    self._restore(counts)
                    continue
                if end.unit_failed and (s.once or s.cycle or s.dry_run):
                    # a run that ends here did nothing with that unit: never exit 0
                    self._stop_early("a unit of work was backed out "
                                     f"({end.failed_reason}): its messages stayed on "
                                     f"{s.queue}")
                    break
                if s.once or s.dry_run or s.cycle:
                    break
                if end.unit_failed:
                    unit_failures = 0 if end.progress else unit_failures + 1
                    if unit_failures >= UNIT_FAILURES_BEFORE_STOP:
                        self._stop_early(f"{UNIT_FAILURES_BEFORE_STOP} passes in a row backed "
                                         "out their unit of work without progress")
                        break
                    continue
                unit_failures = 0
                since = None if before is None else before.after(
                    result.done - done, result.moved_to.get(s.queue, 0) - back)
                if not self._idle(end.next_due, since):
                    break
        except _Stop:
            pass
        finally:
            if before is not None:
                before.close()
            with contextlib.suppress(MQError):
                if self.qm.in_unit_of_work:
                    self.qm.backout()
        self._finish()
        return self.report

    def _idle(self, next_due: float | None, since: Mark | None) -> bool:
        """Wait as WAIT says; True to make another pass, False to end."""
        found = wait_for_work(self.qm, self.settings.queue, self.settings.wait, next_due,
                              self.stop, since=since, clock=self.clock,
                              recount=self.settings.retry_interval)
        if found == STOPPED:
            self._stopped()
        return found == WORK

    def _depth(self) -> int | None:
        """The queue's depth as a pass starts (its progress's total), None when unknown."""
        if self.control.progress is None:
            return None
        try:
            return self.qm.inquire_queue(self.settings.queue).depth
        except MQError:
            return None


    def _stopped(self) -> None:
        res = self.report.result
        if not res.cancelled:
            res.cancelled = True
            res.warnings.append("stopped (a signal or cancel): the open unit of work was "
                                "backed out, its messages stayed on "
                                f"{self.settings.queue}")

    def _stop_early(self, why: str) -> None:
        self.report.result.stopped_early = why
        self.report.result.warnings.append(f"stopped early: {why}")

    # -- one pass ---------------------------------------------------------------------------
    def _pass(self) -> _PassEnd:
        end = _PassEnd()
        seen: set[Key] = set()
        complete = False
        self.store.reload()
        self._landings = {}
        own = lands_on(self.qm, self.settings.queue, local=self.local)
        self._input = own.queue or strip_pad(self.settings.queue)
        self._sent_before, self._sent = self._sent, {}
        unit: list[_Pending] = []
        self._unit = unit
        cursor = self.qm.browse(self.settings.queue, for_get=not self.settings.dry_run)
        step = move_step(cursor)  # the backend's one-call put + get under the cursor
        move = None if step is None else step.move_current_to
        position = 0
        self._removed = self._backed_out = 0
        total = self._depth()
        held = 0  # what the open unit holds of MAXUMSGS
        size = 0  # ... and of --batch-bytes
        try:
            try:
                while True:
                    if self.stop.is_set():
                        self._back_out(unit, "backed out: the handler was stopped")
                        return end
                    m = cursor.next()
                    if m is None:
                        break
                    position += 1
                    self.examined += 1
                    if position % PROGRESS_EVERY == 0:
                        self.control.report(position, max(total or 0, position) or None)
                    held = held if unit else 0
                    size = size if unit else 0
                    need = self.room.need(m.report)
                    if unit and ((self.room.limit is not None
                                  and held + need > self.room.limit)
                                 or size + len(m.body) > self.settings.batch_bytes):
                        # commit what is done rather than hear 2024 from the queue manager
                        # (the reports the messages ask for count in MAXUMSGS too), or pass
                        # --batch-bytes (the recovery log: ops.uowlimit)
                        self._commit(unit, end)
                        held = size = 0
                    self._held = held if unit else 0
                    pending = self._one(m, position, cursor, move, seen, end)
                    if pending is not None:
                        held = (held if unit else 0) + need  # _one may have committed
                        size = (size if unit else 0) + len(m.body)
                        unit.append(pending)
                        if len(unit) >= self.batch:
                            self._commit(unit, end)
                self._commit(unit, end)
                complete = True
            except _UnitFull as f:
                self.room.learn(f.held)
                said = (f"a unit of work reached the queue manager's limit (MAXUMSGS, "
                        f"{f.error.reason_name}) at {f.held} uncommitted messages, the "
                        "reports the messages ask for counted: units are committed before "
                        "that from now on")
                if said not in self.report.result.warnings:
                    self.report.result.warnings.append(said)
                self._back_out(unit, f"backed out ({f.error.reason_name}): the pass is made "
                               "again at once in smaller units of work")
                end.redo = True
            except _UnitFailed as f:
                self._back_out(unit, f"backed out ({f.error.reason_name}): tried again in "
                               "the next pass")
                end.unit_failed = True
                end.failed_reason = f.error.reason_name
        finally:
            self._cut = (complete, position, self._removed, self._backed_out)
            with contextlib.suppress(Exception):
                cursor.close()
        if complete and not self.settings.dry_run:
            self.report.forgotten += self.store.keep_only(seen)
        self.control.report(position, position)
        return end

    def _one(self, m: Message, position: int, cursor: BrowseCursor, move: Any,
             seen: set[Key], end: _PassEnd) -> _Pending | None:
        md = m.md
        msg_id = m.msg_id_hex
        report = self.report
        dlh = dead_letter_header(md, m.body) if format_key(md.format) == "MQDEAD" else None
        if dlh is None:
            report.result.skipped += 1
            report.messages.append(MessageOutcome(msg_id, position, None, None, 0,
                                                  "no valid header: left"))
            return None
        key = message_key(md, dlh)
        back = self._sent.pop(key, None) or self._sent_before.pop(key, None)
        if back is not None:  # put to an unresolved destination, and here again: it loops
            self._loops.add(back)
        elif key in seen:
            report.shared_keys += 1
        seen.add(key)
        known = self.store.get(key)
        attempts = 0 if known is None else known.count
        subject = Subject.of(md, dlh, m.body)
        # FORMAT rules see the data's format (after any RFH2 of properties), the header's
        # may say MQHRF2: the report shows both
        formats = {"data_format": subject.FORMAT, "header_format": strip_pad(dlh.format)}
        rule = applicable(self.table, subject, attempts)
        if rule is None:
            report.result.skipped += 1
            why = "no rule: left" if attempts == 0 else "attempts used up: left"
            report.messages.append(MessageOutcome(msg_id, position, None, None, attempts, why,
                                                  reason=known.last_reason if known else None,
                                                  **formats))
            return None
        counts = report.rules[rule.number]
        if rule.action == "IGNORE":
            counts.matched += 1
            report.result.skipped += 1
            report.messages.append(MessageOutcome(msg_id, position, rule.number, "IGNORE",
                                                  attempts, "ignored: left", **formats))
            return None
        if known is not None:
            due = known.last_attempt + self.settings.retry_interval
            if due > self.clock():
                end.next_due = due if end.next_due is None else min(end.next_due, due)
                report.result.skipped += 1
                report.messages.append(MessageOutcome(
                    msg_id, position, rule.number, rule.action, attempts,
                    f"waiting: tried again after RETRYINT({self.settings.retry_interval})",
                    reason=known.last_reason, **formats))
                return None
        counts.matched += 1
        report.result.selected += 1
        outcome = MessageOutcome(msg_id, position, rule.number, rule.action, attempts,
                                 OPEN, **formats)
        report.messages.append(outcome)
        try:
            out, queue, qmgr_name, label = self._target(rule, m, dlh)
        except _Refused as r:
            self._failed(outcome, key, rule, r.reason, r.detail, r.label, end, subject,
                         reason_text=r.reason_text)
            return None
        outcome.destination = label
        if self.check is not None and out is not None:
            refusal = self.check(out, queue)
            if refusal is not None:
                self._failed(outcome, key, rule, 0, refusal, label, end, subject,
                             reason_text=REFUSED_BY_PLUGIN)
                return None
        as_user = ""
        if rule.put_aut == "CTX" and out is not None:
            as_user = md.user_identifier.rstrip(" \x00")
            if not as_user:
                self._failed(outcome, key, rule, MQRC_NOT_AUTHORIZED,
                             "PUTAUT(CTX): the message carries no UserIdentifier to "
                             "put with", label, end, subject)
                return None
        if self.settings.dry_run:
            self._plan(outcome, rule, out, queue, qmgr_name, label, as_user)
            return None
        if out is None:  # DISCARD
            try:
                cursor.get_current(syncpoint=True)
            except MQError as e:
                if e.reason == MQRC_NO_MSG_UNDER_CURSOR:
                    outcome.outcome = "gone: another application took it"
                    return None
                self._get_refused(e, outcome, key, rule, None, end, subject, md.report,
                                  put=False)
                return None
            return _Pending(outcome, key, rule, None)
        # PUTAUT(CTX): set-all context as the message's user; PUTAUT(DEF): the handler's
        # own authority and context, a new message's (+put only, no +setall: IBM, "DLQ
        # rules (patterns and actions)" — DEF puts "with the authority of the DLQ handler
        # itself"; only CTX needs the authority to act as other users)
        context = Context.SET_ALL if as_user else Context.NEW

        def put() -> MQError | None:
            if move is not None and not as_user:
                return move(queue, out, context, qmgr_name, out is m)
            self.qm.put(queue, out, context=context, syncpoint=True,
                        qmgr_name=qmgr_name, alt_user=as_user)
            return None

        try:
            try:
                err = put()
            except MQError as e:
                if e.reason != MQRC_SYNCPOINT_LIMIT_REACHED or not self._unit:
                    raise
                # the unit of work holds MAXUMSGS messages (reports count too): not the
                # destination's refusal — commit what is done, put this one again
                self._commit(self._unit, end)
                err = put()
        except MQError as e:
            if e.reason in CONNECTION_REASONS:
                raise _UnitFailed(e) from None
            self._failed(outcome, key, rule, e.reason, e.detail or str(e), label, end,
                         subject)
            return None
        pending = _Pending(outcome, key, rule, label, (queue, qmgr_name))
        if err is not None:
            self._get_refused(err, outcome, key, rule, label, end, subject, md.report)
            return None
        if move is None or as_user:
            try:
                got = cursor.get_current(syncpoint=True)
            except MQError as e:
                self._get_refused(e, outcome, key, rule, label, end, subject, md.report)
                return None
            if not same_message(got, m):
                raise _UnitFailed(MQError(MQRC_NO_MSG_UNDER_CURSOR, "the message got under "
                                          "the cursor is not the one browsed"))
        return pending

    def _get_refused(self, e: MQError, outcome: MessageOutcome, key: Key, rule: Rule,
                     label: str | None, end: _PassEnd, subject: Subject, report: int, *,
                     put: bool = True) -> None:
        """The get under the cursor failed after the message was put: the unit fails —
        unless it is 2024 (MAXUMSGS, ``ops.uowlimit``) with nothing before it in the unit:
        then it does not fit alone, its put is backed out (it was not got: its
        BackoutCount stays) and the attempt fails; with messages before it the pass is
        made again in smaller units (``_UnitFull``)."""
        if e.reason != MQRC_SYNCPOINT_LIMIT_REACHED:
            raise _UnitFailed(e) from None
        if self._unit:
            raise _UnitFull(e, self._held + units(report, put=put, get=False)) from None
        with contextlib.suppress(MQError):
            self.qm.backout()
        self._failed(outcome, key, rule, e.reason, "it does not fit in a unit of work of "
                     "its own (MAXUMSGS, the reports it asks for counted)", label, end,
                     subject)

    def _counts(self) -> tuple[Any, ...]:
        """What a pass adds to the report, to take back when it is made again."""
        r = self.report
        return (r.result.selected, r.result.skipped, self.examined, r.messages.mark(),
                {n: c.matched for n, c in r.rules.items()})

    def _restore(self, counts: tuple[Any, ...]) -> None:
        r = self.report
        r.result.selected, r.result.skipped, self.examined, kept, matched = counts
        r.messages.back_to(kept)
        for n, c in r.rules.items():
            c.matched = matched.get(n, 0)

    def _target(self, rule: Rule, m: Message, dlh: MQDLH
                ) -> tuple[Message | None, str, str, str | None]:
        """(message to put or None for DISCARD, queue, ObjectQMgrName, label)."""
        if rule.action == "DISCARD":
            return None, "", "", None
        q, qm_name = resolve_target(rule, m.md, dlh)
        strip = rule.action == "RETRY" or not rule.header
        out = m
        if strip:
            md = m.md.copy(format=dlh.format, encoding=dlh.encoding, ccsid=dlh.ccsid)
            out = Message(md, bytes(m.body[MQDLH_LENGTH:]))
            if rule.action == "RETRY" and format_key(dlh.format) == "MQXMIT":
                from mqconsole.ops.resubmit import unwrap_xmit

                try:
                    out, q, qm_name = unwrap_xmit(out)
                except HeaderError as e:
                    raise _Refused(MQRC_HEADER_ERROR, "its transmission header is not "
                                   f"valid: {e}", None) from None
        qmgr_name = "" if qm_name in ("", self.local) else qm_name
        label = (f"{q}@{qmgr_name}" if qmgr_name else q) or None
        if not q:
            what = {"RETRY": "its dead-letter header names no destination queue",
                    "FWD": f"{rule.fwd_q} is blank for this message"}[rule.action]
            raise _Refused(MQRC_UNKNOWN_OBJECT_NAME, what, None)
        self._not_back(rule.action, q, qmgr_name, label)
        return out, q, qmgr_name, label

    def _not_back(self, action: str, q: str, qmgr_name: str, label: str | None) -> None:
        """Refuse (INPUT_QUEUE) a put that would land on the queue being processed."""
        where = f"the message back on {self._input}, the queue being processed"
        opened = strip_pad(self.settings.queue)
        if opened != self._input:
            where += f" (as {opened})"
        if (q, qmgr_name) in self._loops:
            raise _Refused(0, f"{action} to {label} put {where} (it came back in this run)",
                           label, reason_text=INPUT_QUEUE)
        landing = self._landings.get((q, qmgr_name))
        if landing is None:
            landing = self._landings[q, qmgr_name] = lands_on(self.qm, q, qmgr_name,
                                                              local=self.local)
        if landing.queue is None or landing.queue not in (
                self._input, strip_pad(self.settings.queue)):
            return
        through = "" if label == self._input else f" ({label} resolves to it)"
        raise _Refused(0, f"{action} would put {where}{through}", label,
                       reason_text=INPUT_QUEUE)

    def _failed(self, outcome: MessageOutcome, key: Key, rule: Rule, reason: int,
                detail: str, label: str | None, end: _PassEnd, subject: Subject, *,
                reason_text: str | None = None) -> None:
        """A failed attempt: counted durably, the message stays. A retry is due RETRYINT
        later only while a rule other than IGNORE still applies to it (its budget or a
        later matching rule's); when none does, nothing is due, so WAIT(NO) ends at once."""
        name = reason_text or reason_name(reason)
        text = f"{name}: {detail}" if detail and detail != name else name
        report = self.report
        outcome.destination = label
        if self.settings.dry_run:
            outcome.outcome = f"would fail: {text}"
            outcome.reason = text
            return None
        report.rules[rule.number].failed += 1
        now = self.clock()
        outcome.attempts = self.store.failed(key, text, now=now)
        outcome.outcome = "failed"
        outcome.reason = text
        failure = Failure(msgid=outcome.msg_id, position=outcome.position, reason=reason,
                          reason_name=name, detail=detail, destination=label)
        self.failures[key] = failure
        end.progress = True
        after = applicable(self.table, subject, outcome.attempts)
        if after is None or after.action == "IGNORE":  # nothing more will be tried
            return None
        due = now + self.settings.retry_interval
        end.next_due = due if end.next_due is None else min(end.next_due, due)
        return None

    def _plan(self, outcome: MessageOutcome, rule: Rule, out: Message | None, queue: str,
              qmgr_name: str, label: str | None, as_user: str = "") -> None:
        verb = {"DISCARD": "would discard", "RETRY": "would retry to",
                "FWD": "would forward to"}[rule.action]
        text = verb if label is None else f"{verb} {label}"
        if rule.action == "RETRY" or (rule.action == "FWD" and not rule.header):
            text += " (header removed)"
        if as_user:
            text += f" as {as_user}"
        step: dict[str, Any] = {"msgid": outcome.msg_id, "position": outcome.position,
                                "rule": rule.number, "action": rule.action,
                                "destination": label}
        if out is not None:
            reason = self._predicted(queue, qmgr_name, label, out, as_user)
            if reason:
                text += f" — would fail now: {reason_name(reason)}"
                outcome.reason = reason_name(reason)
                step["would_fail"] = {"reason": reason, "reason_name": reason_name(reason)}
        outcome.outcome = text
        step["outcome"] = text
        self._add_step(step)

    def _add_step(self, step: dict[str, Any]) -> None:
        """A dry run's step into the result's plan: past ``listed`` steps, only those that
        would fail, one step a destination and reason standing for all of them (``count``)."""
        plan = self.report.result.plan
        listed = self.settings.listed
        if listed is None or len(plan) < listed:
            plan.append(step)
            return
        failing = step.get("would_fail")
        if not failing:
            return
        key = (step.get("destination"), failing.get("reason"))
        alike = self._alike.get(key)
        if alike is None:
            self._alike[key] = step
            plan.append(step)
        else:
            alike["count"] = int(alike.get("count", 1)) + 1

    def _predicted(self, queue: str, qmgr_name: str, label: str | None,
                   out: Message, as_user: str = "") -> int | None:
        from mqconsole.ops.transfer import Route, local_prediction

        # the run's put: PUTAUT(CTX) set-all context as the message's user, PUTAUT(DEF)
        # the handler's own, a new context (``_one``)
        context = Context.SET_ALL if as_user else Context.NEW
        predict = self._predict.get(context)
        if predict is None:
            predict = self._predict[context] = local_prediction(self.qm, context)
        return predict(Route(queue, label or queue, out, qmgr_name=qmgr_name,
                             alt_user=as_user))

    # -- units of work ----------------------------------------------------------------------
    def _commit(self, unit: list[_Pending], end: _PassEnd) -> None:
        if not unit:
            return
        if not self.control.before_commit([p.outcome.msg_id for p in unit],
                                          [p.label for p in unit]):
            # its record could not be written: never committed without one (they stay)
            self._back_out(unit, f"backed out: {NOT_RECORDED}")
            self._stop_early(NOT_RECORDED)
            raise _Stop
        try:
            self.qm.commit()
        except MQError as e:
            if not settle_failed_commit(self.qm, e):  # it may have committed: never redone
                self._unknown(unit, e)
            raise _UnitFailed(e) from None
        self.control.after_commit()
        report = self.report
        result = report.result
        for p in unit:
            p.outcome.outcome = VERB[p.rule.action]
            p.outcome.attempts += 1  # tried so far: the failed attempts and this one
            report.rules[p.rule.number].done += 1
            result.record_done(p.outcome.msg_id, p.label)
            self.failures.pop(p.key, None)
            dest = p.dest
            if dest is not None and dest in self._landings and not self._landings[dest].known:
                self._sent[p.key] = dest
        self.store.forget([p.key for p in unit])
        self._removed += len(unit)
        unit.clear()
        end.progress = True

    def _not_tried(self) -> int | None:
        """After a stop: the messages the last pass never tried — those of the unit of
        work it backed out, and every one past where it stopped (the queue's depth less
        the messages it browsed that are still there); they stayed on the queue. None
        when the depth cannot be asked."""
        complete, browsed, removed, backed_out = self._cut
        if complete:
            return backed_out
        try:
            depth = self.qm.inquire_queue(self.settings.queue).depth
        except MQError:
            return None
        if depth is None:
            return None
        return backed_out + max(0, depth - (browsed - removed))

    def _back_out(self, unit: list[_Pending], why: str) -> None:
        with contextlib.suppress(MQError):
            self.qm.backout()
        for p in unit:
            p.outcome.outcome = why
        self._backed_out = len(unit)
        unit.clear()

    def _unknown(self, unit: list[_Pending], e: MQError) -> None:
        result = self.report.result
        result.outcome_unknown = True
        ids = [p.outcome.msg_id for p in unit]
        for p in unit:
            p.outcome.outcome = "outcome unknown"
            p.outcome.reason = f"{e.reason_name}: the commit's outcome is unknown"
            result.failed.append(Failure(msgid=p.outcome.msg_id, position=p.outcome.position,
                                         reason=e.reason, detail=f"outcome unknown: {e}",
                                         destination=p.label))
        result.warnings.append(
            f"the outcome of the commit is unknown ({reason_label(e.reason)}): these "
            f"{counted(len(ids))} may be on {self.settings.queue} or on their destination "
            f"— check both: {', '.join(ids[:20])}" + (" …" if len(ids) > 20 else ""))
        unit.clear()
        result.stopped_early = "a commit's outcome is unknown"
        raise _Stop

    # -- the end ----------------------------------------------------------------------------
    def _finish(self) -> None:
        report = self.report
        result = report.result
        if not self.settings.dry_run:
            result.failed.extend(self.failures.values())
            if result.cancelled or result.stopped_early:
                result.not_tried = self._not_tried()
        if report.shared_keys:
            result.warnings.append(
                f"{counted(report.shared_keys)} "
                f"{agree(report.shared_keys, 'shares its', 'share their')} attempt-count key "
                "(MsgId, CorrelId, the header's put date and time, reason and destination) "
                "with another message on the queue: such messages share one count")
        if not report.durable:
            result.warnings.append("attempt counts were kept in memory only: a restart "
                                   "starts them again")


class _Refused(Exception):
    def __init__(self, reason: int, detail: str, label: str | None, *,
                 reason_text: str | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.label = label
        self.reason_text = reason_text


def settings_for(table: RulesTable, queue: str, *, once: bool = False,
                 wait: int | None = -1, retry_interval: int | None = None, batch: int = 100,
                 dry_run: bool = False, cycle: bool = False,
                 listed: int | None = None,
                 batch_bytes: int = DEFAULT_BATCH_BYTES) -> Settings:
    """The table's control data with the command line's overrides (``wait`` -1: as the
    table says)."""
    c = table.control
    return Settings(queue=queue,
                    retry_interval=c.retry_interval if retry_interval is None else retry_interval,
                    wait=c.wait if wait == -1 else wait, once=once, batch=batch,
                    dry_run=dry_run, cycle=cycle, listed=listed,
                    batch_bytes=batch_bytes)


def run_handler(qm: QueueManager, table: RulesTable, settings: Settings, *,
                store_path: str | None, control: Control | None = None,
                check: PutCheck | None = None,
                clock: Callable[[], float] = time.time) -> HandlerReport:
    """Run the handler (see the module docstring); the attempt counts live in
    ``store_path`` (None: in memory only)."""
    store = AttemptStore(store_path, qm.inquire_qmgr().name, settings.queue)
    try:
        return Handler(qm, table, settings, store=store, control=control, check=check,
                       clock=clock).run()
    finally:
        store.close()


__all__ = ["IDLE", "STOPPED", "WORK", "HandlerError", "HandlerReport", "Mark",
           "MessageOutcome", "RuleCount", "Settings", "first_the_failure", "mark",
           "resolve_queue", "run_handler", "settings_for", "wait_for_work"]

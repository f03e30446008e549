"""Putting messages (new context): test data, repair messages."""

from __future__ import annotations

from mqconsole.backends.base import Context, QueueManager, settle_failed_commit
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.names import reason_label, reason_name
from mqconsole.mq.reasons import (
    MQRC_MSG_TOO_BIG_FOR_Q,
    MQRC_PUT_INHIBITED,
    MQRC_Q_FULL,
    MQRC_SYNCPOINT_LIMIT_REACHED,
)
from mqconsole.ops.result import (
    NOT_RECORDED,
    Control,
    OperationResult,
    PutCheck,
    refused_by_plugin,
    would_fail_by_plugin,
)
from mqconsole.ops.uowlimit import capped_batch

COMMIT_EVERY = 500
MAX_COUNT = 999_999_999  # MQ's largest MAXDEPTH: no queue holds more copies than that
PLAN_STEPS = 1000  # a dry run lists this many copies one by one, then the rest in one step
NEW_MSGID = "(new)"  # a plan's MsgId of a message MQ gives one when it is put


def put_messages(qm: QueueManager, queue: str, md: MQMD, body: bytes, *, count: int = 1,
                 dry_run: bool = False, control: Control | None = None,
                 check: PutCheck | None = None, batch: int = COMMIT_EVERY
                 ) -> OperationResult:
    """Put ``count`` copies in units of work of up to ``batch``: the operation ``put``.

    Each copy is checked first (``check``: the plugins' put checks, to which the operation
    shows each copy as put with a new context); a refused copy fails and is not put. An MQ
    error backs out the open unit of work and is raised: earlier units stay committed (the
    journal's unit records name them). Cancelling stops after the open unit's commit; the
    rest are counted as skipped. ``batch`` is lowered to the queue manager's MAXUMSGS; a
    put answered 2024 all the same (a MAXUMSGS that could not be read) commits what is
    done and puts the copy again.
    """
    control = control or Control()
    result = OperationResult(operation="put", source=None, destination=queue,
                             selected=count, dry_run=dry_run)
    given = md.msg_id.hex().upper() if any(md.msg_id) else NEW_MSGID
    if dry_run:
        result.plan = _plan(qm, queue, md, body, count, given, check)
        return result
    batch, lowered = capped_batch(qm, max(1, batch), per_message=1)
    if lowered:
        result.warnings.append(lowered)
    pending: list[str] = []

    def commit() -> None:
        if pending:
            if not control.before_commit(pending, [queue] * len(pending)):
                qm.backout()  # never committed without its record: nothing of it is put
                result.stopped_early = NOT_RECORDED
                pending.clear()
                raise _Unknown
            try:
                qm.commit()
            except MQError as exc:
                if settle_failed_commit(qm, exc):
                    raise  # backed out: nothing of the unit was put
                # it may have committed (2009, 2018, 2548, 2549): never put again
                result.outcome_unknown = True
                result.stopped_early = "a commit's outcome is unknown"
                result.warnings.append(
                    f"the commit of {len(pending)} message(s) has an unknown outcome "
                    f"({reason_label(exc.reason)}): browse {queue} to see whether "
                    "they are there before putting them again")
                pending.clear()
                raise _Unknown from exc
            control.after_commit()
            result.record_done_many(list(pending), [queue] * len(pending))
            pending.clear()
        control.report(result.done + len(result.failed), count)

    try:
        for position in range(1, count + 1):
            message = Message(md.copy(), body)
            if check is not None and (refusal := check(message, queue)) is not None:
                result.failed.append(refused_by_plugin(given, position, refusal, queue))
                continue
            try:
                put = qm.put(queue, message, context=Context.NEW, syncpoint=True)
            except MQError as exc:
                if exc.reason != MQRC_SYNCPOINT_LIMIT_REACHED or not pending:
                    raise
                commit()  # the unit of work is full: not the queue's refusal
                put = qm.put(queue, message, context=Context.NEW, syncpoint=True)
            pending.append(put.md.msg_id.hex().upper())
            if len(pending) >= batch:
                commit()
                if control.cancelled:
                    result.cancelled = True
                    result.skipped = count - position
                    return result
        commit()
    except _Unknown:
        if result.stopped_early == NOT_RECORDED:
            result.skipped = count - result.done - len(result.failed)
        return result
    except BaseException:
        if qm.in_unit_of_work:
            qm.backout()
        raise
    return result


def _prediction(qm: QueueManager, queue: str, length: int) -> tuple[int | None, int | None]:
    """How a put of copies of ``length`` bytes to ``queue`` would most likely go, as issue
    20's predictions for a move (``ops.transfer.local_prediction``): the reason every copy
    would fail with (unknown queue, put-inhibited, too long for MAXMSGL), else None; and the
    room left under MAXDEPTH (None: not known — an alias or a remote definition), past
    which each copy would fail with MQRC_Q_FULL."""
    try:
        attrs = qm.inquire_queue(queue)
    except MQError as e:
        return e.reason, None
    if attrs.put_inhibited:
        return MQRC_PUT_INHIBITED, None
    if attrs.max_msg_length is not None and length > attrs.max_msg_length:
        return MQRC_MSG_TOO_BIG_FOR_Q, None
    if attrs.depth is None or attrs.max_depth is None:
        return None, None
    return None, max(0, attrs.max_depth - attrs.depth)


def _plan(qm: QueueManager, queue: str, md: MQMD, body: bytes, count: int, given: str,
          check: PutCheck | None) -> list[dict[str, object]]:
    """A put's dry run: the first PLAN_STEPS copies one by one, the rest (alike) in a step
    with its ``count`` — two when the queue fills up within them — so a plan of any count
    is this small. Each says what would most likely fail (a plugin's check first, then the
    queue: :func:`_prediction`)."""
    reason, room = _prediction(qm, queue, len(body))

    def would(first: int, refusal: str | None) -> dict[str, object] | None:
        if refusal is not None:
            return would_fail_by_plugin(refusal)
        why = reason if reason is not None else (
            MQRC_Q_FULL if room is not None and first > room else None)
        return None if why is None else {"reason": why, "reason_name": reason_name(why)}

    def step(first: int, last: int) -> dict[str, object]:
        out: dict[str, object] = {"position": first if first == last else f"{first}-{last}",
                                  "msgid": given, "destination": queue}
        if first != last:
            out["count"] = last - first + 1
        refusal = None if check is None else check(Message(md.copy(), body), queue)
        failing = would(first, refusal)
        if failing is not None:
            out["would_fail"] = failing
        return out

    plan = [step(p, p) for p in range(1, min(count, PLAN_STEPS) + 1)]
    if count > PLAN_STEPS:
        first = PLAN_STEPS + 1
        if room is not None and reason is None and first <= room < count:
            plan.append(step(first, room))  # these fit, the rest would find the queue full
            first = room + 1
        plan.append(step(first, count))
    return plan


class _Unknown(Exception):
    """A commit whose outcome MQ cannot tell, or a unit that could not be recorded: the put
    stops, nothing is put again."""


__all__ = ["COMMIT_EVERY", "MAX_COUNT", "NEW_MSGID", "PLAN_STEPS", "put_messages"]

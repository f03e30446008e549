"""Putting messages (new context): test data, repair messages."""

from __future__ import annotations

from mqconsole.backends.base import Context, QueueManager, settle_failed_commit
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import MQRC_SYNCPOINT_LIMIT_REACHED
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
        # the copies are alike: the first PLAN_STEPS are listed one by one, the rest in one
        # step with its ``count`` (a plan of any count is this small)
        for position in range(1, min(count, PLAN_STEPS + 1) + 1):
            step: dict[str, object] = {"position": position, "msgid": given,
                                       "destination": queue}
            if position > PLAN_STEPS:
                step.update(position=f"{position}-{count}", count=count - PLAN_STEPS)
            refusal = None if check is None else check(Message(md.copy(), body), queue)
            if refusal is not None:
                step["would_fail"] = would_fail_by_plugin(refusal)
            result.plan.append(step)
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
                    f"({exc.reason_name}, {exc.reason}): browse {queue} to see whether "
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


class _Unknown(Exception):
    """A commit whose outcome MQ cannot tell, or a unit that could not be recorded: the put
    stops, nothing is put again."""


__all__ = ["COMMIT_EVERY", "MAX_COUNT", "NEW_MSGID", "PLAN_STEPS", "put_messages"]

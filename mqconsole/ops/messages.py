"""Putting messages (new context): test data, repair messages."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from mqconsole.backends.base import Context, QueueManager
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.result import (
    Control,
    OperationResult,
    PutCheck,
    refused_by_plugin,
    would_fail_by_plugin,
)
from mqconsole.ops.timefmt import format_put_date_time

COMMIT_EVERY = 500
NEW_MSGID = "(new)"  # a plan's MsgId of a message MQ gives one when it is put


def put_messages(qm: QueueManager, queue: str, md: MQMD, body: bytes, *, count: int = 1,
                 dry_run: bool = False, control: Control | None = None,
                 check: PutCheck | None = None, batch: int = COMMIT_EVERY
                 ) -> OperationResult:
    """Put ``count`` copies in units of work of up to ``batch``: the operation ``put``.

    Each copy is checked first (``check``: the plugins' put checks; a refusal fails that
    copy, which is not put). An MQ error backs out the open unit of work and is raised:
    earlier units stay committed (the journal's unit records name them). Cancelling stops
    after the open unit's commit; the rest are counted as skipped.
    """
    control = control or Control()
    check_copy = None if check is None else _as_put(check, md, body, queue)
    result = OperationResult(operation="put", source=None, destination=queue,
                             selected=count, dry_run=dry_run)
    given = md.msg_id.hex().upper() if any(md.msg_id) else NEW_MSGID
    if dry_run:
        for position in range(1, count + 1):
            step: dict[str, object] = {"position": position, "msgid": given,
                                       "destination": queue}
            refusal = None if check_copy is None else check_copy()
            if refusal is not None:
                step["would_fail"] = would_fail_by_plugin(refusal)
            result.plan.append(step)
        return result
    pending: list[str] = []

    def commit() -> None:
        if pending:
            control.before_commit(pending, [queue] * len(pending))
            qm.commit()
            control.after_commit()
            result.record_done_many(list(pending), [queue] * len(pending))
            pending.clear()
        control.report(result.done + len(result.failed), count)

    try:
        for position in range(1, count + 1):
            message = Message(md.copy(), body)
            if check_copy is not None and (refusal := check_copy()) is not None:
                result.failed.append(refused_by_plugin(given, position, refusal, queue))
                continue
            put = qm.put(queue, message, context=Context.NEW, syncpoint=True)
            pending.append(put.md.msg_id.hex().upper())
            if len(pending) >= batch:
                commit()
                if control.cancelled:
                    result.cancelled = True
                    result.skipped = count - position
                    return result
        commit()
    except BaseException:
        if qm.in_unit_of_work:
            qm.backout()
        raise
    return result


def _as_put(check: PutCheck, md: MQMD, body: bytes, queue: str) -> Callable[[], str | None]:
    """The check of one copy, which sees it as it would be put: a new context's put date
    and time are now (a check on a message's age lets a new one go)."""

    def check_copy() -> str | None:
        put_date, put_time = format_put_date_time(datetime.now(UTC))
        return check(Message(md.copy(put_date=put_date, put_time=put_time), body), queue)

    return check_copy


__all__ = ["COMMIT_EVERY", "NEW_MSGID", "put_messages"]

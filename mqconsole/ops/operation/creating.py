"""The kinds that make something new: ``put`` (new messages, new context) and
``queue-define`` (a new local queue). Operations like every other change: validated before
anything is asked, the plugins' put checks before each put, journaled, ``operation_done``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs, name_problem
from mqconsole.mq.reasons import MQRC_UNKNOWN_OBJECT_NAME
from mqconsole.ops.result import OperationResult
from mqconsole.ops.words import counted

from .core import Description, OperationError, Step
from .kinds import check_queue

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager


@dataclass(frozen=True)
class Put:
    """Put ``count`` copies of ``body`` with the descriptor ``md`` on ``queue``, each with a
    new context (``ops.messages.put_messages``). ``--json`` says the new MsgIds
    (``msgids``), as the journal does."""

    journaled: ClassVar[bool] = True
    new_context: ClassVar[bool] = True  # checks see each copy put now
    queue: str
    md: MQMD
    body: bytes
    count: int = 1

    def describe(self) -> Description:
        return Description("put", f"putting {counted(self.count)} on {self.queue}",
                           destination=self.queue,
                           options={"count": self.count, "length": len(self.body),
                                    "format": self.md.format.rstrip(),
                                    "context": "new"})

    def problem(self) -> str | None:
        """What is wrong before the queue manager is asked (a face's form asks too)."""
        from mqconsole.ops.messages import MAX_COUNT

        if self.count < 1:
            return f"a put needs a count of at least 1, not {self.count}"
        if self.count > MAX_COUNT:
            return (f"a put's count is at most {MAX_COUNT:,} (the most messages an MQ queue "
                    f"holds, its largest MAXDEPTH), not {self.count:,}")
        return None

    def validate(self, qm: QueueManager) -> None:
        problem = self.problem()
        if problem is not None:
            raise OperationError(problem)
        check_queue(qm, self.queue, "destination")

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.messages import put_messages

        result = put_messages(step.qm, self.queue, self.md, self.body, count=self.count,
                              dry_run=step.dry_run, control=step.control, check=step.check)
        step.extra.update(queue=self.queue, put=result.done,
                          msgids=list(result.done_msgids))
        return result


@dataclass(frozen=True)
class QueueDefine:
    """Define the local queue ``queue`` with ``attributes`` (``ops.queues.define_queue``);
    ``--json`` is the new queue's document (``queue show --json``) beside the summary."""

    journaled: ClassVar[bool] = True
    queue: str
    attributes: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> Description:
        from mqconsole.ops.record import plain

        return Description("queue-define", f"defining queue {self.queue}",
                           destination=self.queue,
                           options={"attributes": {k: plain(v) for k, v
                                                   in sorted(self.attributes.items())}})

    def problem(self) -> str | None:
        """What is wrong before the queue manager is asked (the name, the attribute
        values): the console's form says it as it is filled in."""
        from mqconsole.mq.queue import changes_problem

        return (name_problem(self.queue, "a valid MQ queue name")
                or changes_problem(self.queue, self.attributes))

    def validate(self, qm: QueueManager) -> None:
        problem = self.problem()
        if problem is not None:
            raise OperationError(problem)
        try:
            qm.inquire_queue(self.queue)
        except MQError as e:
            if e.reason != MQRC_UNKNOWN_OBJECT_NAME:
                raise
        else:
            raise OperationError(f"queue {self.queue} already exists on {qm.name}")

    def cautions(self, qm: QueueManager) -> list[str]:
        """A BOQNAME naming no queue (allowed: it may be defined later)."""
        from mqconsole.ops.queues import missing_backout_queue, validate_changes

        after = QueueAttrs(name=self.queue, **validate_changes(self.attributes))
        warning = missing_backout_queue(qm, after)
        return [] if warning is None else [warning]

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.queues import define_queue, queue_doc

        result = OperationResult(operation="queue-define", source=None,
                                 destination=self.queue, selected=1, dry_run=step.dry_run)
        result.warnings.extend(self.cautions(step.qm))
        if step.dry_run:
            result.plan = [{"queue": self.queue,
                            "attributes": self.describe().options["attributes"]}]
            return result
        define_queue(step.qm, self.queue, **self.attributes)
        result.done = 1
        step.extra.update(queue_doc(step.qm, self.queue))
        return result


__all__ = ["Put", "QueueDefine"]

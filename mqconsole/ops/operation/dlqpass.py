"""The dead-letter handler as an operation: a runmqdlq rules table applied to a queue
(``ops.dlq.handler``) with the operation's journal entry, plugins' checks, ``operation_done``
and summary.

The summary's ``extra`` carries the handler's report in the spec's shapes (dlq-rules.md):
``messages`` (each message with its rule, action, attempts so far, outcome, destination and
reason), ``rules`` (per rule: matched, done, failed), and ``queue``, ``qmgr``, ``passes``,
``attempts_durable``. The exit code is the handler's own: a stop by a signal or a cancel
is how a long-lived handler ends (0), and messages left by IGNORE or no rule are not
failures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.result import OperationResult

from .core import Description, OperationError, Step

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager
    from mqconsole.ops.dlq.handler import HandlerReport
    from mqconsole.ops.dlq.rules import RulesTable


def _wait_words(wait: int | None) -> str:
    return "YES" if wait is None else "NO" if wait == 0 else str(wait)


@dataclass
class DlqPass:
    """Process ``input_q`` (else the table's INPUTQ, else the queue manager's DEADQ) by
    ``table`` until its WAIT says to end (``once``: one pass). ``wait``: -1 as the table
    says, None WAIT(YES), 0 WAIT(NO), n seconds. ``attempts_file``: where the attempt
    counts are kept (None: in memory only, as runmqdlq)."""

    journaled: ClassVar[bool] = True
    table: RulesTable
    rules_file: str
    input_q: str | None = None
    once: bool = False
    wait: int | None = -1
    retry_interval: int | None = None
    batch: int = 100
    attempts_file: str | None = None
    clock: Callable[[], float] | None = None
    queue: str | None = field(default=None, init=False)  # resolved by validate
    report: HandlerReport | None = field(default=None, init=False)  # the last run's

    def describe(self) -> Description:
        queue = self.queue or self.input_q or self.table.control.input_q or None
        where = queue or "the dead-letter queue"
        options: dict[str, Any] = {"rules": self.rules_file, "batch": self.batch}
        if self.once:
            options["once"] = True
        return Description("dlq-handler", f"processing {where} by the rules in "
                           f"{self.rules_file}", source=queue, options=options)

    def validate(self, qm: QueueManager) -> None:
        from mqconsole.mq.errors import MQError
        from mqconsole.mq.reasons import MQRC_UNKNOWN_OBJECT_NAME
        from mqconsole.ops.dlq.handler import HandlerError, resolve_queue

        from .kinds import check_queue

        if self.once and self.wait not in (-1,):
            raise OperationError("once and a wait go one at a time: one pass, or passes "
                                 "until nothing is processable for a while")
        if self.batch < 1:
            raise OperationError(f"the batch must be at least 1, not {self.batch}")
        if self.input_q is not None:
            check_queue(qm, self.input_q, "input")
        try:
            self.queue = resolve_queue(qm, self.table, self.input_q)
        except HandlerError as e:
            raise OperationError(str(e)) from None
        except MQError as e:
            if e.reason != MQRC_UNKNOWN_OBJECT_NAME:
                raise
            raise OperationError(f"the table's INPUTQ({self.table.control.input_q}) does not "
                                 f"exist on {qm.name}") from None

    def execute(self, step: Step) -> OperationResult:
        import time

        from mqconsole.ops.dlq.handler import HandlerError, run_handler, settings_for

        if self.queue is None:
            self.validate(step.qm)
        assert self.queue is not None
        settings = settings_for(self.table, self.queue, once=self.once, wait=self.wait,
                                retry_interval=self.retry_interval, batch=self.batch,
                                dry_run=step.dry_run)
        try:
            report = run_handler(step.qm, self.table, settings, store_path=self.attempts_file,
                                 control=step.control, check=step.check,
                                 clock=self.clock or time.time)
        except HandlerError as e:
            raise OperationError(str(e)) from None
        self.report = report
        step.details.update(queue=self.queue, passes=report.passes,
                            rule_counts=report.rules_json(),
                            retryint=settings.retry_interval,
                            wait=_wait_words(settings.wait),
                            attempts_durable=report.durable)
        step.extra.update(report.to_json())
        step.extra["attempts_file"] = self.attempts_file
        step.done_destinations = {m.msg_id: m.destination for m in report.messages
                                  if m.outcome in ("retried", "forwarded") and m.destination}
        return report.result

    @staticmethod
    def exit_code(result: OperationResult) -> ExitCode:
        """5 when a commit's outcome is unknown; a dry run 0; 1 when a message failed (it
        stayed, with its reason) or the handler stopped early; else 0 — a stop by a signal
        or a cancel included, and messages left by IGNORE, no rule or a used-up budget."""
        if result.outcome_unknown:
            return ExitCode.UNKNOWN_OUTCOME
        if result.dry_run:
            return ExitCode.OK
        if result.failed or result.stopped_early is not None:
            return ExitCode.PARTIAL
        return ExitCode.OK


__all__ = ["DlqPass"]

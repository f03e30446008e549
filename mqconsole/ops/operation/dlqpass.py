"""The dead-letter handler as an operation: a runmqdlq rules table applied to a queue
(``ops.dlq.handler``) with the operation's journal entry, plugins' checks, ``operation_done``
and summary.

The summary's ``extra`` carries the handler's report in the spec's shapes (dlq-rules.md):
``messages`` (each message with its rule, action, attempts so far, outcome, destination and
reason), ``rules`` (per rule: matched, done, failed), and ``queue``, ``qmgr``, ``passes``,
``attempts_durable``. With ``listed`` (the console), ``messages`` lists the first so many,
``message_count`` says how many there were and ``outcome_counts`` counts each outcome.
The exit code is the handler's own: a stop by a signal or a cancel is how a long-lived
handler ends (0), and messages left by IGNORE or no rule are not failures.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mqconsole.ops.result import OperationResult, ProgressFn
from mqconsole.ops.uowlimit import DEFAULT_BATCH_BYTES

from .core import Description, Operation, OperationError, Step, Summary

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
    # messages left by IGNORE, no rule, a used-up budget or a stop are the job, not a failure
    leaving_is_done: ClassVar[bool] = True
    table: RulesTable
    rules_file: str
    input_q: str | None = None
    once: bool = False
    wait: int | None = -1
    retry_interval: int | None = None
    batch: int = 100
    attempts_file: str | None = None
    clock: Callable[[], float] | None = None
    cycle: bool = False  # one cycle of a long-lived run (see keep_running)
    listed: int | None = None  # messages its report lists (None: all; the rest counted)
    batch_bytes: int = DEFAULT_BATCH_BYTES  # --batch-bytes: a unit's bodies at most
    queue: str | None = field(default=None, init=False)  # resolved by validate
    report: HandlerReport | None = field(default=None, init=False)  # the last run's

    @property
    def effective_wait(self) -> int | None:
        """The WAIT this run keeps: the override, else the table's (None: YES)."""
        return self.table.control.wait if self.wait == -1 else self.wait

    @property
    def long_lived(self) -> bool:
        """Whether it waits for arrivals (WAIT(YES) or WAIT(n)) rather than ending when the
        queue holds nothing processable: run it by :func:`keep_running`."""
        return not self.once and self.effective_wait != 0

    def describe(self) -> Description:
        queue = self.queue or self.input_q or self.table.control.input_q or None
        where = queue or "the dead-letter queue"
        options: dict[str, Any] = {"rules": self.rules_file, "batch": self.batch,
                                   "batch_bytes": self.batch_bytes}
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
        if self.attempts_file is not None:
            from mqconsole.ops.dlq.attempts import store_problem

            problem = store_problem(self.attempts_file)
            if problem:
                raise OperationError(f"cannot keep the attempt counts in "
                                     f"{self.attempts_file}: {problem}")
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
        from mqconsole.ops.dlq.handler import HandlerError, run_handler, settings_for

        if self.queue is None:
            self.validate(step.qm)
        assert self.queue is not None
        settings = settings_for(self.table, self.queue, once=self.once, wait=self.wait,
                                retry_interval=self.retry_interval, batch=self.batch,
                                dry_run=step.dry_run, cycle=self.cycle, listed=self.listed,
                                batch_bytes=self.batch_bytes)
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


def keep_running(op: Operation, qm: QueueManager, *, cancel: threading.Event,
                 on_summary: Callable[[Summary], None],
                 progress: ProgressFn | None = None,
                 clock: Callable[[], float] = time.time) -> list[Summary]:
    """A long-lived handler (WAIT(YES) or WAIT(n)) as a series of operations, one per cycle
    of work: each runs the passes that find something to do (a pass whose unit of work was
    backed out is followed by another at once), is journaled and told to the plugins, and is
    given to ``on_summary`` (a face renders it); then the queue is watched as WAIT says —
    for an arrival, or a failed message due again — before the next one. So a handler that
    runs for weeks journals as it goes and keeps one cycle's report in memory.

    Ends when ``cancel`` is set (SIGTERM: the cycle in hand backs its unit of work out),
    WAIT(n) runs out, or a cycle stops early or with a commit of unknown outcome. ``op`` is
    validated already; its kind a :class:`DlqPass` with ``cycle=True``."""
    from mqconsole.ops.dlq.waiting import WORK, mark, wait_for_work

    kind = op.spec
    assert isinstance(kind, DlqPass) and kind.cycle and kind.queue is not None
    summaries: list[Summary] = []
    while True:
        before = mark(qm, kind.queue)  # an arrival after this is never missed
        try:
            summary = op.run(qm, progress=progress, cancel=cancel)
            summaries.append(summary)
            on_summary(summary)
            r = summary.result
            if (cancel.is_set() or r.cancelled or r.stopped_early is not None
                    or r.outcome_unknown):
                return summaries
            due = summary.extra.get("next_due")
            since = before.after(r.done, r.moved_to.get(kind.queue, 0))
            if wait_for_work(qm, kind.queue, kind.effective_wait, due, cancel, since=since,
                             clock=clock, recount=summary.details.get("retryint")) != WORK:
                return summaries
        finally:
            before.close()


__all__ = ["DlqPass", "keep_running"]

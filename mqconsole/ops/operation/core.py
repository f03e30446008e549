"""The operation's lifecycle, written once: describe, validate, plan, run, journal, summary.

A *kind* (:mod:`.kinds`: ``Move``, ``Delete``, ``Edit``, …) knows what its operation does:
what it is (:meth:`Kind.describe`), what bad input looks like (:meth:`Kind.validate`) and
how to do it on a connection (:meth:`Kind.execute`, one call into the ``ops`` engine that
never loses a message). :class:`Operation` wraps a kind with everything that is the same
for every kind — the plugins' put checks, progress and cancel, the journal entry (always
exactly one, whatever the outcome), ``operation_done`` and the :class:`Summary` with its
exit code — so no face writes any of it again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from mqconsole.ops.exit_codes import ExitCode, exit_code_for_error, exit_code_of
from mqconsole.ops.result import Control, Failure, OperationResult, ProgressFn, PutCheck
from mqconsole.ops.timefmt import format_put_date_time
from mqconsole.plugins import NO_PLUGINS, PluginHost

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager
    from mqconsole.mq.message import Message
    from mqconsole.ops.journal import Journal, JournalEntry, Recorder

# What a summary says a kind did to its messages (past participle).
VERBS: dict[str, str] = {
    "move": "moved", "copy": "copied", "resubmit": "resubmitted", "delete": "deleted",
    "save": "saved", "edit": "replaced", "load": "loaded", "put": "put",
    "queue-define": "defined", "queue-set": "changed", "action": "handled",
    "dlq-handler": "handled",
}


class OperationError(ValueError):
    """An operation that cannot start as asked (one sentence for the operator); nothing was
    changed. ``code`` is the exit code a script sees."""

    def __init__(self, message: str, code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Description:
    """What an operation is, before it runs: for a confirmation (``what``), the journal
    (``options`` become the entry's details) and plugins."""

    kind: str  # move, copy, resubmit, delete, save, edit, load, put, queue-define, ...
    what: str  # "moving 3 marked messages from APP.DLQ to APP.IN" (no final stop)
    source: str | None = None
    destination: str | None = None
    selection: str | None = None  # Selection.describe()
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def verb(self) -> str:
        return VERBS.get(self.kind, self.kind)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "what": self.what, "source": self.source,
                "destination": self.destination, "selection": self.selection,
                "options": dict(self.options)}


@dataclass
class Summary:
    """How an operation ended: its result (counts, failures with their reasons, the plan of a
    dry run), the exit code, and what the faces show besides.

    ``error`` is set when the operation stopped before it had a result (it raised: the
    faces report that error as they report any other); ``journal_problem`` when the journal
    entry could not be written (the change happened: say so)."""

    description: Description
    result: OperationResult
    exit_code: ExitCode
    details: dict[str, Any] = field(default_factory=dict)  # what the journal entry says
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific facts for faces
    error: str | None = None
    journal_problem: str | None = None

    @property
    def kind(self) -> str:
        return self.description.kind

    @property
    def verb(self) -> str:
        return self.description.verb

    @property
    def dry_run(self) -> bool:
        return self.result.dry_run

    @property
    def failures(self) -> list[Failure]:
        return self.result.failed

    @property
    def counts(self) -> dict[str, int]:
        r = self.result
        return {"selected": r.selected, "done": r.done,
                "failed": len(r.failed) + r.unlisted_failures, "skipped": r.skipped}

    def to_json(self) -> dict[str, Any]:
        """The result's JSON (``--json``), with the plan of a dry run, the kind's facts, the
        counts and the exit code."""
        doc: dict[str, Any] = self.result.to_json()
        if self.result.dry_run:
            doc["plan"] = self.result.plan
            doc["would_fail"] = self.result.would_fail()
            doc["would_fail_groups"] = self.result.would_fail_groups()
        doc.update(self.extra)
        doc["counts"] = self.counts
        doc["exit_code"] = int(self.exit_code)
        if self.error is not None:
            doc["error"] = self.error
        if self.journal_problem is not None:
            doc["journal_problem"] = self.journal_problem
        return doc


@dataclass
class Step:
    """What a kind's ``execute`` gets: the connection and how this run goes."""

    qm: QueueManager
    dry_run: bool
    control: Control
    check: PutCheck | None  # the plugins' put checks; None when none is loaded (fast path)
    plugins: PluginHost
    profile: str | None
    details: dict[str, Any] = field(default_factory=dict)  # journal details found running
    extra: dict[str, Any] = field(default_factory=dict)  # facts for the faces
    done_destinations: dict[str, str] | None = None  # MsgId -> destination, several ones


class Kind(Protocol):
    """One kind of operation (see :mod:`.kinds`)."""

    journaled: ClassVar[bool]

    def describe(self) -> Description: ...

    def validate(self, qm: QueueManager) -> None: ...

    def execute(self, step: Step) -> OperationResult: ...

    # optional: ``leaving_is_done: ClassVar[bool]`` when messages left where they are count
    # as done in ``ops.exit_codes.exit_code_of`` (the dead-letter handler's); ``cautions(qm)
    # -> list[str]``: warnings a face shows with its confirmation (see Operation.cautions)


def put_now(message: Message) -> Message:
    """``message`` as a put with a new context makes it: put date and time now (UTC)."""
    put_date, put_time = format_put_date_time(datetime.now(UTC))
    return dataclasses.replace(message, md=message.md.copy(put_date=put_date,
                                                           put_time=put_time))


def _qmgr_name(qm: QueueManager) -> str | None:
    try:
        return qm.name
    except Exception:  # a broken connection: the entry is still written
        return None


def _sentence(exc: BaseException) -> str:
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted at once: the open unit of work was backed out"
    return str(exc) or type(exc).__name__


def _say_what_was_committed(exc: BaseException, recorder: Recorder | None,
                            description: Description) -> None:
    """An error that stopped a change after some of its units committed: the error says
    so (a note both faces show) and carries the count (``committed_before_error``: the
    command line's exit code is then 1, never 2, which promises nothing was done)."""
    committed = recorder.reported if recorder is not None else 0
    if not committed or not isinstance(exc, Exception):
        return
    from mqconsole.ops.words import agree, counted

    with contextlib.suppress(AttributeError, TypeError):
        exc.committed_before_error = committed  # type: ignore[attr-defined]
        exc.add_note(f"{counted(committed, grouped=True)} {agree(committed, 'was', 'were')} "
                     f"{description.verb} before it stopped and stay so: mqconsole journal "
                     "lists them")


class Operation:
    """One change, the same object for the CLI and the console (see the package doc)."""

    def __init__(self, kind: Kind, *, journal: Journal | None, profile: str | None = None,
                 plugins: PluginHost = NO_PLUGINS,
                 details: Mapping[str, Any] | None = None) -> None:
        self.spec = kind
        self.journal = journal
        self.profile = profile
        self.plugins = plugins
        self.face_details = dict(details or {})  # e.g. {"tui": True}

    @property
    def kind(self) -> str:
        return self.describe().kind

    # -- before ------------------------------------------------------------------------------
    def describe(self) -> Description:
        return self.spec.describe()

    def validate(self, qm: QueueManager) -> None:
        """Refuse bad input before anything is asked or changed: an :class:`OperationError`
        (or the ``MQError``/ops error the kind raises) naming what and where; a journal
        that cannot be opened is exit code 6, also before anything is asked."""
        self.spec.validate(qm)
        self._refuse_the_journal()
        if self.spec.journaled and self.journal is not None:
            from mqconsole.ops.journal import JournalError

            try:
                self.journal.check()
            except JournalError as exc:
                raise OperationError(f"{exc}: nothing was changed",
                                     ExitCode.JOURNAL_FAILED) from None

    def _refuse_the_journal(self) -> None:
        """A save or a delete's backup aimed at this session's journal (its configured path
        or a rotated file, there yet or not, empty or not) is refused, ``--force`` or not:
        the content check of ``refuse_unsafe_target`` sees only a journal that has records."""
        writes = getattr(self.spec, "writes_file", None)
        target = writes() if callable(writes) else None
        if not target or self.journal is None:
            return
        from mqconsole.ops.savefile.publish import UnsafeTargetError

        mine = os.path.realpath(target)
        if any(mine == os.path.realpath(p) for p in self.journal.files()):
            raise UnsafeTargetError(f"{target} is the change journal: a save never writes it, "
                                    "even with --force")

    def cautions(self, qm: QueueManager) -> list[str]:
        """Warnings to show with the confirmation, after :meth:`validate`: what is allowed
        but probably not meant (a BOQNAME naming no queue). Each face shows them before
        it asks; the run repeats them in its result's warnings (journal, ``--json``)."""
        cautions = getattr(self.spec, "cautions", None)
        out = [] if cautions is None else list(cautions(qm))
        from mqconsole.ops.indoubt import doubt_cautions

        # a move, copy or load whose last run on the same queues ended in doubt (journal)
        return [*out, *doubt_cautions(self.spec, qm, self.journal)]

    # -- running -----------------------------------------------------------------------------
    def plan(self, qm: QueueManager, *, progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Summary:
        """A dry run: per message what would happen and why (plugins' checks included);
        nothing changes. Journaled as a dry run."""
        return self.run(qm, progress=progress, cancel=cancel, dry_run=True)

    def preview(self, qm: QueueManager, *, progress: ProgressFn | None = None,
                cancel: threading.Event | None = None) -> Summary:
        """The plan a face shows in its confirmation (the console's "what goes where"): a dry
        run that is neither journaled nor told to plugins, since the operator did nothing
        yet. Plugins' checks are included, as in :meth:`plan`."""
        return self.run(qm, progress=progress, cancel=cancel, dry_run=True, quiet=True)

    def run(self, qm: QueueManager, *, progress: ProgressFn | None = None,
            cancel: threading.Event | None = None, dry_run: bool = False,
            quiet: bool = False) -> Summary:
        """Run on ``qm`` (a connection of the caller's: the console gives each worker its
        own). ``progress(done, total)`` is called as it goes; setting ``cancel`` stops it at
        the next unit-of-work boundary. Journals as it commits (a start record first: if
        that cannot be written nothing is done, an :class:`OperationError` with exit code 6)
        and tells the plugins however it ends (``quiet``: neither, see :meth:`preview`); an
        error that stops it early is re-raised
        after that (nothing it did is lost: the engines back out what is not committed)."""
        description = self.describe()
        cancel = cancel or threading.Event()
        recorder = None if dry_run or quiet else self._begin(description, qm, cancel)
        control = Control(progress=progress, cancel=cancel, journal=recorder)
        step = Step(qm=qm, dry_run=dry_run, control=control, check=self._check(description),
                    plugins=self.plugins, profile=self.profile)
        try:
            result = self.spec.execute(step)
        except BaseException as exc:
            empty = OperationResult(operation=description.kind, source=description.source,
                                    destination=description.destination, dry_run=dry_run)
            summary = Summary(description, empty, exit_code_for_error(exc),
                              details=self._details(description, step),
                              extra=step.extra, error=_sentence(exc))
            summary.details["error"] = summary.error
            if not quiet:
                self._finish(summary, qm, step, recorder)
            _say_what_was_committed(exc, recorder, description)
            raise
        if recorder is not None and recorder.problem is not None and result.cancelled:
            result.cancelled = False  # stopped by the journal, not by the operator
            result.stopped_early = "the journal could not be written"
        code = exit_code_of(result,
                            leaving_is_done=getattr(self.spec, "leaving_is_done", False))
        summary = Summary(description, result, code,
                          details=self._details(description, step), extra=step.extra)
        if not quiet:
            self._finish(summary, qm, step, recorder)
        return summary

    def _begin(self, description: Description, qm: QueueManager,
               cancel: threading.Event) -> Recorder | None:
        """The start record; one that cannot be written stops the operation before it
        changes anything. A record that fails later cancels it (stop at the next commit)."""
        if not (self.spec.journaled and self.journal is not None):
            return None
        from mqconsole.ops.journal import JournalEntry, JournalError

        details = dict(description.options)
        details.update(self.face_details)
        start = JournalEntry(operation=description.kind, qmgr=_qmgr_name(qm),
                             profile=self.profile, source=description.source,
                             destinations=[description.destination]
                             if description.destination else [], details=details)
        try:
            return self.journal.begin(start, on_failure=lambda _exc: cancel.set())
        except JournalError as exc:
            raise OperationError(f"{exc}: nothing was changed",
                                 ExitCode.JOURNAL_FAILED) from None

    def _check(self, description: Description) -> PutCheck | None:
        """The plugins' put checks for this operation (None without any: the fast path).
        A kind that puts with a new context (``new_context``: a put, ``--new-context``)
        has each message checked as MQ will put it: its put date and time now."""
        host = self.plugins
        if not host.has_checks:
            return None
        kind = description.kind
        if not getattr(self.spec, "new_context", False):
            def check(message: Any, destination: str) -> str | None:
                return host.check_put(kind, message, destination)

            return check

        def check_new(message: Any, destination: str) -> str | None:
            return host.check_put(kind, put_now(message), destination)

        return check_new

    def _details(self, description: Description, step: Step) -> dict[str, Any]:
        details = dict(description.options)
        details.update(step.details)
        details.update(self.face_details)
        return details

    # -- after -------------------------------------------------------------------------------
    def _finish(self, summary: Summary, qm: QueueManager, step: Step,
                recorder: Recorder | None = None) -> None:
        """The journal's end record (the operation writes it, whatever happened), then the
        plugins' ``operation_done``. A journal that failed is the summary's
        ``journal_problem`` and exit code 6 (the change happened: the summary says it)."""
        if self.spec.journaled and self.journal is not None:
            from mqconsole.ops.journal import signals_held

            try:
                with signals_held():  # a second Ctrl-C now: after the end record
                    entry, left_out = self._entry(summary, qm, step, recorder)
                    if recorder is None:
                        self.journal.append(entry)
                    else:
                        recorder.end(entry, reported_left_out=left_out)
            except Exception as exc:
                from mqconsole.ops.journal import JournalError

                summary.journal_problem = str(exc if isinstance(exc, JournalError)
                                              else JournalError(self.journal.path, exc))
            if recorder is not None and recorder.problem is not None:
                summary.journal_problem = str(recorder.problem)
            if (summary.journal_problem is not None and summary.error is None
                    and summary.exit_code != ExitCode.UNKNOWN_OUTCOME):
                summary.exit_code = ExitCode.JOURNAL_FAILED
        with contextlib.suppress(Exception):  # a plugin never takes an operation down
            self.plugins.operation_done(summary)

    def _entry(self, summary: Summary, qm: QueueManager, step: Step,
               recorder: Recorder | None) -> tuple[JournalEntry, bool]:
        """The end entry, and whether it leaves out the done messages the recorder's unit
        records hold (never listing a million ids again)."""
        make: Callable[..., JournalEntry] | None = getattr(self.spec, "journal_entry", None)
        if make is not None:
            return make(summary, qmgr=_qmgr_name(qm), profile=self.profile), False
        from mqconsole.ops.record import entry_for

        journaled = recorder.reported if recorder is not None else 0
        return entry_for(summary.result, qmgr=_qmgr_name(qm), profile=self.profile,
                         details=summary.details, done_destinations=step.done_destinations,
                         done_journaled=journaled), recorder is not None


__all__ = ["VERBS", "Description", "Kind", "Operation", "OperationError", "Step", "Summary"]

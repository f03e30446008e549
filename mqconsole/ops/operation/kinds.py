"""The kinds of operation: each says what it is, what bad input is, and calls its engine.

A kind is a small frozen value built from a face's arguments (the CLI's options, the
console's selection). The engines it calls (``ops.transfer``, ``ops.resubmit``,
``ops.delete``, ``ops.savefile``, ``ops.edit``, ``ops.queues``) keep every rule that loses
nothing; a kind adds no rule of its own besides validation, and passes the plugins' put
checks (``step.check``) to every engine that puts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from mqconsole.mq.errors import MQError
from mqconsole.mq.names import reason_label
from mqconsole.mq.queue import name_problem
from mqconsole.mq.reasons import MQRC_UNKNOWN_OBJECT_NAME
from mqconsole.ops.queues import model_queue_problem
from mqconsole.ops.result import OperationResult
from mqconsole.ops.selection import Selection
from mqconsole.ops.uowlimit import DEFAULT_BATCH_BYTES

from .core import Description, OperationError, Step, Summary

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager
    from mqconsole.mq.queue import QueueAttrs
    from mqconsole.ops.journal import JournalEntry
    from mqconsole.plugins import RegisteredAction



def check_queue(qm: QueueManager, name: str, role: str) -> None:
    """Bad input before anything changes: a name that is not an MQ name, or a queue that is
    not there, as one sentence (exit 2)."""
    the = f"the {role} queue" if role else "the queue"
    problem = name_problem(name, "a valid MQ queue name")
    if problem is not None:
        raise OperationError(f"{the} {problem}")
    try:
        attrs = qm.inquire_queue(name)
    except MQError as e:
        if e.reason == MQRC_UNKNOWN_OBJECT_NAME:
            raise OperationError(f"{the} {name} does not exist on {qm.name}: "
                                 f"{reason_label(e.reason)}") from None
        raise
    model = model_queue_problem(attrs) if role else None  # role "": the queue itself
    if model is not None:
        raise OperationError(f"{the} {model}")


def destination_problem(source: str, destination: str,
                        known: Collection[str] | None = None) -> str | None:
    """What is wrong with ``destination`` for messages of ``source`` on the same queue
    manager before asking it anything (no name, not an MQ name, the source itself, not
    among the ``known`` queue names), or None: said by :meth:`Transfer.validate` and as
    the console's pick list is typed in."""
    if not destination:
        return "give a queue name"
    problem = name_problem(destination, "a valid MQ queue name")
    if problem is not None:
        return f"the destination queue {problem}"
    if destination == source:
        return f"{source} is both the source and the destination"
    if known is not None and destination not in known:
        return f"there is no queue named {destination} here"
    return None


def check_selection(qm: QueueManager, queue: str, selection: Selection) -> None:
    """A --msgid names one message: one carried by several messages on ``queue`` is bad
    input (exit 2, before any question) unless --all-duplicates says to take them all."""
    from mqconsole.ops.selection import SelectionError, check_unique

    try:
        check_unique(qm, queue, selection)
    except SelectionError as e:
        raise OperationError(str(e)) from None


# -- move and copy -------------------------------------------------------------------------------

def header_kept(source: str, destination: str, dlq: str, *, dest_dlq: str | None = None,
                strip_dlh: bool = False) -> str | None:
    """The warning for moving or copying off the dead-letter queue ``dlq`` to a queue that
    is not one (``dest_dlq``: the destination queue manager's, when it is another) without
    ``strip_dlh``: the header stays in front of each payload (issue 15 item 3). The one
    decision both faces use: the CLI says it before its question, the console offers to
    strip the header."""
    dlq = dlq.strip()
    other = dlq if dest_dlq is None else dest_dlq.strip()
    if strip_dlh or not dlq or source != dlq or destination == other:
        return None
    return (f"the dead-letter header is kept: applications reading {destination} get an "
            "MQDLH in front of each payload (--strip-dlh removes it)")


def context_word(new_context: bool, pass_context: bool) -> str:
    """The journal's word for the context a put gives (``set_all``, ``new``,
    ``pass_all``)."""
    return "pass_all" if pass_context else "new" if new_context else "set_all"


def pass_problem(pass_context: bool, new_context: bool, *, copy: bool = False,
                 cross: bool = False) -> str | None:
    """Why ``--context pass`` cannot be given here (None: it can). MQ passes the context
    of a message got through a handle of the same connection (IBM, MQRC_CONTEXT_NOT_AVAILABLE
    2098: none after a browse), so a copy, which only browses, and a move to another queue
    manager, put on another connection, have none to pass."""
    if not pass_context:
        return None
    if new_context:
        return "--context pass and --new-context contradict each other: give one"
    if copy:
        return ("--context pass needs each message got, and a copy only browses (MQ "
                "passes no context after a browse): use --context set-all or default")
    if cross:
        return ("--context pass puts on the connection that got the message: to another "
                "queue manager use --context set-all or default")
    return None


@dataclass(frozen=True)
class Transfer:
    """Move (or ``copy``) the selected messages of ``source`` to ``destination``
    (``ops.transfer``). ``dest_qm``: the destination is on another queue manager (not atomic)."""

    journaled: ClassVar[bool] = True
    source: str
    destination: str
    selection: Selection
    copy: bool = False
    batch: int = 100
    new_context: bool = False
    strip_dlh: bool = False
    dest_qm: QueueManager | None = None
    batch_bytes: int = DEFAULT_BATCH_BYTES  # --batch-bytes: a unit's bodies at most
    # --context pass: get each message first, put it passing its context (+passall)
    pass_context: bool = False

    def describe(self) -> Description:
        where = self.destination
        # pass-all context: a unit of work per message, whatever --batch says (ops.transfer)
        options: dict[str, Any] = {"selection": self.selection.describe(),
                                   "batch": 1 if self.pass_context else self.batch,
                                   "batch_bytes": self.batch_bytes,
                                   "new_context": self.new_context,
                                   "context": context_word(self.new_context,
                                                           self.pass_context),
                                   "strip_dlh": self.strip_dlh}
        if self.dest_qm is not None:
            where = f"{self.destination} on {self.dest_qm.name}"
            options["destination_qmgr"] = self.dest_qm.name
        return Description(
            "copy" if self.copy else "move",
            f"{'copying' if self.copy else 'moving'} {self.selection.describe()} from "
            f"{self.source} to {where}",
            source=self.source, destination=self.destination,
            selection=self.selection.describe(), options=options)

    def validate(self, qm: QueueManager) -> None:
        problem = pass_problem(self.pass_context, self.new_context, copy=self.copy,
                               cross=self.dest_qm is not None)
        if problem is not None:
            raise OperationError(problem)
        check_queue(qm, self.source, "source")
        problem = destination_problem(self.source, self.destination) \
            if self.dest_qm is None else None
        if problem is not None:
            raise OperationError(problem)
        check_queue(self.dest_qm or qm, self.destination, "destination")
        check_selection(qm, self.source, self.selection)

    def doubt_route(self) -> tuple[str, str, str, str | None]:
        """The run a repeat of this one would be (``ops.indoubt.doubt_cautions``)."""
        dest_qmgr = None
        if self.dest_qm is not None:
            try:
                dest_qmgr = self.dest_qm.name
            except Exception:  # a broken connection: no doubt can be matched
                dest_qmgr = None
        return ("copy" if self.copy else "move"), self.source, self.destination, dest_qmgr

    def cautions(self, qm: QueueManager) -> list[str]:
        """A move to another queue manager is not atomic; off the dead-letter queue to a
        queue that is not one, the header kept (:func:`header_kept`)."""
        from mqconsole.ops.destination import not_atomic

        out = []
        dest_dlq = None
        if self.dest_qm is not None:
            dest_dlq = self.dest_qm.inquire_qmgr().dead_letter_queue
            if not self.copy:
                out.append(not_atomic(self.source, self.dest_qm.name))
        warning = header_kept(self.source, self.destination, qm.inquire_qmgr().dead_letter_queue,
                              dest_dlq=dest_dlq, strip_dlh=self.strip_dlh)
        return out if warning is None else [*out, warning]

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.transfer import transfer

        result = transfer(step.qm, self.source, self.destination, self.selection,
                          copy=self.copy, batch=self.batch, new_context=self.new_context,
                          pass_context=self.pass_context, strip_dlh=self.strip_dlh,
                          dry_run=step.dry_run, control=step.control,
                          dest_qm=self.dest_qm, check=step.check,
                          batch_bytes=self.batch_bytes)
        # said again in --json and the journal; a courtesy, never the run's failure
        with contextlib.suppress(MQError):
            result.warnings[:0] = self.cautions(step.qm)
        return result


def Move(source: str, destination: str, selection: Selection, **kw: Any) -> Transfer:
    """A move: :class:`Transfer` with ``copy=False``."""
    return Transfer(source, destination, selection, copy=False, **kw)


def Copy(source: str, destination: str, selection: Selection, **kw: Any) -> Transfer:
    """A copy: :class:`Transfer` with ``copy=True``."""
    return Transfer(source, destination, selection, copy=True, **kw)


# -- resubmit ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Resubmit:
    """Send the selected messages of ``queue`` back where they were going (``ops.resubmit``);
    ``to``: where messages without a dead-letter header go."""

    journaled: ClassVar[bool] = True
    queue: str
    selection: Selection
    to: str | None = None
    batch: int = 100
    batch_bytes: int = DEFAULT_BATCH_BYTES  # --batch-bytes: a unit's bodies at most
    # --context default: put with the resubmitter's context (+put only, no +setall)
    new_context: bool = False
    # --context pass: get each message first, put it passing its context (+passall)
    pass_context: bool = False

    def describe(self) -> Description:
        return Description("resubmit", f"resubmitting {self.selection.describe()} from "
                           f"{self.queue}, each back to its destination", source=self.queue,
                           destination=None,
                           selection=self.selection.describe(),
                           options={"selection": self.selection.describe(),
                                    "batch": 1 if self.pass_context else self.batch,
                                    "batch_bytes": self.batch_bytes,
                                    "to": self.to,
                                    "context": context_word(self.new_context,
                                                            self.pass_context)})

    def validate(self, qm: QueueManager) -> None:
        from mqconsole.ops.resubmit import origin_of

        problem = pass_problem(self.pass_context, self.new_context)
        if problem is not None:
            raise OperationError(problem)
        check_queue(qm, self.queue, "source")
        if self.to is not None:
            check_queue(qm, self.to, "--to")
        check_selection(qm, self.queue, self.selection)
        origin_of(qm, self.queue, self.selection, self.to)  # OriginError: say --to

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.backends.base import Context
        from mqconsole.ops.resubmit import resubmit

        step.done_destinations = {}
        return resubmit(step.qm, self.queue, self.selection, to=self.to, batch=self.batch,
                        batch_bytes=self.batch_bytes,
                        context=(Context.PASS_ALL if self.pass_context else
                                 Context.NEW if self.new_context else Context.SET_ALL),
                        dry_run=step.dry_run, control=step.control,
                        done_destinations=step.done_destinations, check=step.check)


# -- delete and save -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Delete:
    """Save the selected messages of ``queue`` to a file, then remove exactly those
    (``ops.delete``). ``backup``: the file (default: a new one in ``backup_dir``);
    ``remove_after_save``: this is ``save --remove`` (kind ``save``, the file named)."""

    journaled: ClassVar[bool] = True
    queue: str
    selection: Selection
    backup: str | None = None
    backup_dir: str | os.PathLike | None = None
    force: bool = False
    batch: int = 100
    remove_after_save: bool = False
    batch_bytes: int = DEFAULT_BATCH_BYTES  # --batch-bytes: a unit's bodies at most

    def describe(self) -> Description:
        sel = self.selection.describe()
        if self.remove_after_save:
            return Description("save", f"saving {sel} of {self.queue} to {self.backup} and "
                               "removing them", source=self.queue, selection=sel,
                               options={"selection": sel, "remove": True,
                                        "file": self.backup})
        return Description("delete", f"deleting {sel} from {self.queue}", source=self.queue,
                           selection=sel, options={"selection": sel})

    def writes_file(self) -> str | None:
        """The file this change writes (checked against the journal by the operation)."""
        return self.backup

    def validate(self, qm: QueueManager) -> None:
        if self.backup is not None:  # a bad file is bad input, said before any question
            from mqconsole.ops.savefile.publish import check_new_target

            check_new_target(self.backup, force=self.force, exists_hint=(
                "give --force to overwrite it" if self.remove_after_save
                else "a delete never overwrites a file: name a new one"))
        check_queue(qm, self.queue, "source")
        check_selection(qm, self.queue, self.selection)

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.delete import delete_messages

        return delete_messages(step.qm, self.queue, self.selection, backup=self.backup,
                               backup_dir=self.backup_dir, force=self.force,
                               dry_run=step.dry_run, batch=self.batch, control=step.control,
                               operation="save" if self.remove_after_save else "delete",
                               batch_bytes=self.batch_bytes)


@dataclass(frozen=True)
class Save:
    """Write the selected messages of ``queue`` to ``path`` (``ops.savefile``); the queue is
    not changed, so a save is not journaled (``save --remove`` is a :class:`Delete`)."""

    journaled: ClassVar[bool] = False
    queue: str
    path: str
    selection: Selection
    force: bool = False

    def describe(self) -> Description:
        sel = self.selection.describe()
        return Description("save", f"saving {sel} of {self.queue} to {self.path}",
                           source=self.queue, selection=sel,
                           options={"selection": sel, "file": self.path})

    def writes_file(self) -> str | None:
        """The file this save writes (checked against the journal by the operation)."""
        return self.path

    def validate(self, qm: QueueManager) -> None:
        from mqconsole.ops.savefile.publish import check_new_target

        # a database, a journal, a device: never; an existing file without force: not asked
        check_new_target(self.path, force=self.force)
        check_queue(qm, self.queue, "source")
        check_selection(qm, self.queue, self.selection)

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.savefile.save import save_queue

        return save_queue(step.qm, self.queue, self.path, self.selection, force=self.force,
                          dry_run=step.dry_run, control=step.control)


# -- load ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Load:
    """Put every message of a dmpmqmsg/qload file (or amqsbcg output) on ``queue``
    (``ops.savefile.load_to_queue``: the whole file is checked first)."""

    journaled: ClassVar[bool] = True
    path: str
    queue: str
    new_context: bool = False
    batch: int = 100
    # --range: the file's messages so numbered (from 1; last None: to the end)
    first: int = 1
    last: int | None = None
    # --skip-present: messages whose MsgId and body are on the queue are not put again
    skip_present: bool = False
    batch_bytes: int = DEFAULT_BATCH_BYTES  # --batch-bytes: a unit's bodies at most
    # validate's check of the file, kept for execute while the file is unchanged
    _checked: dict[tuple[int, int, int], Any] = field(default_factory=dict, compare=False,
                                                      repr=False)

    def describe(self) -> Description:
        path = str(Path(self.path).absolute())
        options: dict[str, Any] = {"file": path,
                                   "context": "new" if self.new_context else "set_all"}
        what = f"loading {self.path} onto {self.queue}"
        if self.first != 1 or self.last is not None:
            options["range"] = f"{self.first}-{'' if self.last is None else self.last}"
            what = f"loading messages {options['range']} of {self.path} onto {self.queue}"
        if self.skip_present:
            options["skip_present"] = True
            what += " (skipping those already there)"
        return Description("load", what, source=path, destination=self.queue,
                           options=options)

    def doubt_route(self) -> tuple[str, str, str, None]:
        """The run a repeat of this one would be (``ops.indoubt.doubt_cautions``)."""
        return "load", self.describe().source or self.path, self.queue, None

    def validate(self, qm: QueueManager) -> None:
        """A file that is there and well-formed (``DmpFileError`` names the line), and a
        destination queue: bad input before anything is asked."""
        from mqconsole.ops.inputs import not_a_file

        problem = not_a_file(self.path)
        if problem is not None:
            raise OperationError(problem)
        check_queue(qm, self.queue, "destination")
        self.check_file()

    def range_problem(self, count: int) -> str | None:
        """A ``--range`` the file (of ``count`` messages) does not hold, as a sentence."""
        from mqconsole.ops.savefile.load import range_problem

        return range_problem(self.first, self.last, count, self.path)

    def check_file(self) -> Any:
        """``ops.savefile.check_file`` of the file (``DmpFileError`` names the line), kept
        for ``execute`` while the file is unchanged: a face that shows what the file holds
        before asking (the console) reads it once, not again to load it."""
        from mqconsole.ops.savefile.load import check_file

        key = self._stat()
        checked = check_file(self.path)
        self._checked.clear()
        if key is not None and key == self._stat():
            self._checked[key] = checked
        problem = self.range_problem(checked.count)
        if problem is not None:
            raise OperationError(problem)
        return checked

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.savefile.load import load_to_queue

        key = self._stat()
        checked = self._checked.get(key) if key is not None else None
        command = "mqconsole" + (f" --profile {shlex.quote(step.profile)}" if step.profile
                                 else "")
        return load_to_queue(step.qm, self.path, self.queue, new_context=self.new_context,
                             dry_run=step.dry_run, batch=self.batch, control=step.control,
                             check=step.check, checked=checked, first=self.first,
                             last=self.last, skip_present=self.skip_present,
                             command=command, batch_bytes=self.batch_bytes)


# -- edit ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Edit:
    """Replace one message of ``queue`` with an edited copy, atomically (``ops.edit``).

    The summary's ``details`` say each MQMD field before and after and whether the payload
    changed (as the journal does); ``extra`` the position, the new MsgId, the checks'
    problems and the body's length before and after."""

    journaled: ClassVar[bool] = True
    queue: str
    msg_id: bytes
    body: bytes | None = None
    text: str | None = None
    changes: dict[str, Any] = field(default_factory=dict)
    to: str | None = None
    position: int | None = None
    new_context: bool = False
    new_msg_id: bool = False
    keep_headers: bool = False
    force: bool = False
    backup_dir: str | os.PathLike | None = None  # the original's backup file goes there

    def describe(self) -> Description:
        hex_id = self.msg_id.hex().upper()
        return Description("edit", f"replacing message {hex_id} on {self.queue}",
                           source=self.queue, destination=self.to or self.queue,
                           options={"position": self.position})

    def validate(self, qm: QueueManager) -> None:
        """The queues, then the edit itself as a dry run (the message found and not
        ambiguous, the new body made, the checks passed): an ``EditError`` before anything
        is asked."""
        check_queue(qm, self.queue, "source")
        if self.to is not None:
            check_queue(qm, self.to, "--to")
        self._edit(qm, dry_run=True, put_check=None)

    def _save_original(self, qm: QueueManager) -> Path | None:
        """The original, as delete saves what it removes: to a new backup file first (the
        journal entry names it), so an edit can always be undone by loading it."""
        from mqconsole.ops.delete import default_backup
        from mqconsole.ops.savefile.publish import write_messages_file

        found = self._edit(qm, dry_run=True, put_check=None)
        if found.original is None:
            return None
        target = default_backup(qm, self.queue, self.backup_dir)
        write_messages_file(target, [found.original], qmgr=qm.name, queue=self.queue)
        return target

    def _edit(self, qm: QueueManager, *, dry_run: bool, put_check: Any) -> Any:
        from mqconsole.ops.edit import edit_message

        return edit_message(qm, self.queue, self.msg_id, body=self.body, text=self.text,
                            changes=self.changes, to=self.to, position=self.position,
                            new_context=self.new_context, new_msg_id=self.new_msg_id,
                            keep_headers=self.keep_headers, force=self.force,
                            dry_run=dry_run, put_check=put_check)

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.record import edit_details

        backup = None if step.dry_run else self._save_original(step.qm)
        out = self._edit(step.qm, dry_run=step.dry_run, put_check=step.check)
        if backup is not None:
            out.result.backup = str(backup)
        step.details.update(edit_details(out, self.changes, new_context=self.new_context))
        step.extra.update(position=out.position, msgid=out.new_msgid,
                          problems=[p.to_json() for p in out.problems])
        if out.original is not None and out.edited is not None:
            step.extra["body_length"] = {"before": len(out.original.body),
                                         "after": len(out.edited.body)}
        return out.result


# -- queue attributes ----------------------------------------------------------------------------

@dataclass(frozen=True)
class QueueSet:
    """Change attributes of ``queue`` (``ops.queues.set_queue``); journaled as ``queue-set``
    with each attribute before and after."""

    journaled: ClassVar[bool] = True
    queue: str
    changes: dict[str, Any]

    def describe(self) -> Description:
        keys = ", ".join(sorted(self.changes))
        return Description("queue-set", f"changing {keys} of queue {self.queue}",
                           source=self.queue, options={})

    def validate(self, qm: QueueManager) -> None:
        from mqconsole.mq.queue import changes_problem

        if not self.changes:
            raise OperationError("queue set needs at least one attribute to change (see "
                                 "--help)")
        problem = changes_problem(self.queue, self.changes)
        if problem is not None:
            raise OperationError(problem)
        check_queue(qm, self.queue, "")

    def cautions(self, qm: QueueManager) -> list[str]:
        """What to know before confirming: a BOQNAME that names no queue (issue 15 item 5)."""
        return self._cautions(qm, dataclasses.replace(qm.inquire_queue(self.queue),
                                                      **self.changes))

    def _cautions(self, qm: QueueManager, after: QueueAttrs) -> list[str]:
        from mqconsole.ops.queues import missing_backout_queue

        if not {"boqname", "bothresh"} & set(self.changes):
            return []
        warning = missing_backout_queue(qm, after)
        return [] if warning is None else [warning]

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.queues import set_queue
        from mqconsole.ops.record import field_changes

        if step.dry_run:
            before = step.qm.inquire_queue(self.queue)
            after = dataclasses.replace(before, **self.changes)
        else:
            before, after = set_queue(step.qm, self.queue, **self.changes)
        diff = field_changes(before, after, self.changes)
        step.details["changes"] = diff
        step.extra["changes"] = diff
        result = OperationResult(operation="queue-set", source=self.queue, selected=1,
                                 dry_run=step.dry_run)
        result.warnings.extend(self._cautions(step.qm, after))
        if step.dry_run:
            result.plan = [{"queue": self.queue, "changes": diff}]
        else:
            result.done = 1
        return result

    def journal_entry(self, summary: Summary, *, qmgr: str | None, profile: str | None
                      ) -> JournalEntry:
        """The ``queue-set`` record: before and after of each attribute asked to change, and
        the warnings (a BOQNAME naming no queue)."""
        from mqconsole.ops.journal import JournalEntry

        details = dict(summary.details)
        if summary.result.warnings:
            details["warnings"] = list(summary.result.warnings)
        return JournalEntry(operation="queue-set", qmgr=qmgr, profile=profile,
                            source=self.queue, details=details, dry_run=summary.dry_run)


# -- plugin actions ------------------------------------------------------------------------------

@dataclass(frozen=True)
class PluginAction:
    """Run a plugin's action (``Action.run(context, messages)``) on the selected messages of
    ``queue`` (a ``message`` scope: one MsgId; ``queue``: every message). A dry run lists
    the messages it would get and does not call the action. An action that raises is
    reported as failed for every message it was given (the operation still ends normally:
    journaled, summarised)."""

    journaled: ClassVar[bool] = True
    action: RegisteredAction
    queue: str
    selection: Selection
    read_only: bool = False

    def describe(self) -> Description:
        a = self.action
        return Description("action", f"running {a.action.title} ({a.plugin}) on "
                           f"{self.selection.describe()} of {self.queue}", source=self.queue,
                           selection=self.selection.describe(),
                           options={"action": a.id, "plugin": a.plugin,
                                    "selection": self.selection.describe()})

    def validate(self, qm: QueueManager) -> None:
        """A ``message`` action gets exactly one message (one MsgId, or one mark), a
        ``queue`` action the whole queue; then the queue and the selection as for a move."""
        sel, a = self.selection, self.action
        if a.action.scope == "message" and (len(sel.msgids) + len(sel.marks) != 1
                                            or sel.where is not None or sel.all
                                            or sel.all_duplicates):
            raise OperationError(f"action {a.id} works on one message: give one --msgid "
                                 "(with --position when several carry it) or one --token")
        if a.action.scope == "queue" and not (sel.all and sel.everything
                                              and sel.limit is None):
            raise OperationError(f"action {a.id} works on the whole queue: give no "
                                 "selection")
        check_queue(qm, self.queue, "source")
        check_selection(qm, self.queue, self.selection)

    def execute(self, step: Step) -> OperationResult:
        from mqconsole.ops.savefile.save import iter_selected
        from mqconsole.plugins import ActionContext, ActionSummary

        result = OperationResult(operation="action", source=self.queue, dry_run=step.dry_run)
        chosen = list(iter_selected(step.qm, self.queue, self.selection, step.control))
        messages = [m for _, m in chosen]
        result.selected = len(messages)
        if step.dry_run:
            result.plan = [{"position": p, "msgid": m.msg_id_hex, "action": self.action.id}
                           for p, m in chosen]
            return result
        a = self.action
        context = ActionContext(connection=step.qm, profile=step.profile or "",
                                queue=self.queue, settings=step.plugins.settings_of(a.plugin),
                                progress=step.control.report, cancel=step.control.cancel,
                                read_only=self.read_only)
        from mqconsole.plugins.host import describe, operators_stop

        try:  # (not marked as running: an action is told of a stop by context.cancelled)
            with step.plugins.output_aside():
                out = a.action.run(context, messages)
        except BaseException as e:  # its sys.exit too: a plugin never takes a face down
            if operators_stop(e):
                raise
            sentence = f"plugin {a.plugin}'s action {a.id} failed ({describe(e)})"
            result.unlisted_failures = len(messages)  # said once, as the action's sentence
            step.extra.update(sentence=sentence, files=[])
            step.details.update(sentence=sentence)
            return result
        if not isinstance(out, ActionSummary):
            out = ActionSummary(sentence=f"plugin {a.plugin}'s action {a.id} returned "
                                f"{type(out).__name__}, not an ActionSummary")
        result.done = max(0, int(out.done))
        result.unlisted_failures = max(0, int(out.failed))
        result.cancelled = step.control.cancelled
        files = [str(f) for f in out.files]
        step.extra.update(sentence=out.sentence, files=files)
        step.details.update(sentence=out.sentence, files=files)
        return result


__all__ = ["Copy", "Delete", "Edit", "Load", "Move", "PluginAction", "QueueSet", "Resubmit",
           "Save", "Transfer", "check_queue", "check_selection", "destination_problem"]

"""The console's actions: thin drivers of :class:`~mqconsole.ops.operation.Operation`.

Every change goes the same way, as the CLI's commands do (``cli/operate.py``):

1. ask what is needed (a destination queue, a file, new attribute values) and build the
   operation's kind (``Move``, ``Copy``, ``Resubmit``, ``Delete``, ``Edit``, ``Load``,
   ``Save``, ``QueueSet``, ``PluginAction``) for the :class:`~mqconsole.tui.targets.Targets`;
2. validate it (and, for a resubmit or an edit, preview its plan) in a worker, so bad input
   is one notification before anything is asked;
3. confirm: destructive actions always ask; moving or deleting *every* message of a queue,
   and a dangerous plugin action, ask the operator to type the queue name;
4. run it in :class:`~mqconsole.tui.screens.operation.OperationDialog` (a thread worker on a
   connection of its own, progress, ``escape`` to stop at the next unit of work);
5. show its summary (:mod:`mqconsole.tui.summary`, the console's one renderer).

Each action is one straight-line ``async`` flow (:mod:`mqconsole.tui.flow`): every question
awaited in turn, every read in a thread, no callbacks nested.

The operation writes the journal and tells the plugins; nothing here does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from rich.text import Text

from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.names import format_by_text
from mqconsole.ops.operation import (
    Copy,
    Delete,
    Edit,
    Kind,
    Load,
    Move,
    PluginAction,
    Put,
    QueueDefine,
    QueueSet,
    Resubmit,
    Save,
    Summary,
    Transfer,
    destination_problem,
    header_kept,
)
from mqconsole.ops.selection import Mark
from mqconsole.ops.views import MessageView
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import ask, in_thread, launch
from mqconsole.tui.keys import Command, is_changing
from mqconsole.tui.requests import LeaveDetail, QueueChanged, QueuesChanged
from mqconsole.tui.safe import clean
from mqconsole.tui.screens.dialogs import (
    ChoiceDialog,
    ConfirmDialog,
    Field,
    FormDialog,
    InputDialog,
    TextDialog,
    TypeNameDialog,
)
from mqconsole.tui.screens.operation import OperationDialog
from mqconsole.tui.summary import is_bad, plan_text, summary_text
from mqconsole.tui.targets import Targets
from mqconsole.tui.widgets.paths import PathSuggester

if TYPE_CHECKING:
    from textual.screen import Screen

    from mqconsole.backends.base import QueueManager
    from mqconsole.ops.operation import Operation
    from mqconsole.ops.savefile.load import FileCheck
    from mqconsole.plugins import RegisteredAction
    from mqconsole.tui.screens.edit import EditRequest, EditScreen

R = TypeVar("R")

# The context a move, copy or resubmit puts its messages with (the CLI's --context), as the
# confirmation offers it; the first is the default, as on the command line.
CONTEXTS: tuple[tuple[str, str], ...] = (
    ("set-all", "Each its own: set-all (+setall on the queue and queue manager)"),
    ("default", "Yours, as new messages: default (+put only)"),
)
# a move or resubmit on one connection may also pass each message's context (it gets first)
CONTEXTS_PASSING: tuple[tuple[str, str], ...] = (
    *CONTEXTS,
    ("pass", "Each its own, passed: pass (got first, one per unit; +passall)"),
)


class MenuScreen(Protocol):
    """What the actions menu needs of a screen (``screens.base.ConsoleScreen``: this module
    does not import it, since screens make their ``ActionRunner``)."""

    def commands(self) -> list[Command]: ...

    def run_command(self, command: Command) -> None: ...


class ActionRunner:
    """Runs the console's actions on what a screen shows (one instance per screen).

    Each action checks what needs no question (a read-only profile, bad input) at once, then
    runs as one straight-line flow (:func:`~mqconsole.tui.flow.launch`): its questions are
    awaited, its reads run in threads, and it ends by starting the operation."""

    def __init__(self, ctx: ConsoleContext) -> None:
        self.ctx = ctx

    # -- helpers -----------------------------------------------------------------------------
    @property
    def read_only(self) -> bool:
        return self.ctx.read_only

    def _refuse(self, what: str) -> bool:
        if self.read_only:
            self.ctx.notify(f"Profile {self.ctx.profile.name} is read-only: {what} is not "
                            "available.", severity="warning")
            return True
        return False

    def queue_names(self, *, exclude: str | None = None) -> list[str]:
        return [r["name"] for r in self.ctx.queue_rows if r["name"] != exclude]

    def queue_choices(self, *, exclude: str | None = None) -> list[tuple[str, Text]]:
        """The queues a message can be put to, for a pick list: each name with its type
        and depth (a model queue is a template, not a destination)."""
        out = []
        for r in self.ctx.queue_rows:
            if r["name"] == exclude or r.get("type") == "model":
                continue
            label = Text(clean(r["name"]))
            kind = str(r.get("type") or "")
            extra = kind if r.get("depth") is None else f"{kind} · {r['depth']:,}"
            if r.get("put_inhibited"):
                extra += " · put-inhibited"
            label.append(f"  {extra}", "dim")
            out.append((r["name"], label))
        return out

    def _check_queue(self, name: str, source: str) -> str | None:
        return _sentence(destination_problem(source, name, self.queue_names() or None))

    def _describe(self, t: Targets, verb: str, extra: str = "") -> Text:
        body = Text()
        body.append(f"{verb} ")
        body.append(clean(t.label), "bold")
        body.append(f" of {clean(t.queue)}{extra}.\n")
        for n in t.notes:
            body.append(f"\n{clean(n)}\n", "yellow")
        return body

    # -- how a flow asks, reads and plans ------------------------------------------------------
    def _launch(self, flow: Coroutine[Any, Any, None], what: str) -> None:
        launch(self.ctx, flow, what=what)

    async def _ask(self, screen: Screen[R]) -> R | None:
        return await ask(self.ctx, screen)

    async def _confirmed(self, t: Targets, title: str, body: Text, *, danger: bool,
                         typed: bool, confirm: str) -> bool:
        """Destructive actions ask; ``typed``: the queue name must be typed."""
        dialog = (TypeNameDialog(title, body, t.queue) if typed
                  else ConfirmDialog(title, body, confirm=confirm, danger=danger))
        return bool(await self._ask(dialog))

    async def _confirmed_with_context(self, t: Targets, title: str, body: Text, *,
                                      danger: bool, typed: bool, confirm: str,
                                      contexts: Sequence[tuple[str, str]] = CONTEXTS
                                      ) -> str | None:
        """As :meth:`_confirmed`, the context chosen in the same dialog (the CLI's
        ``--context``): its id (``set-all``, ``default``), or None when not confirmed."""
        dialog = (TypeNameDialog(title, body, t.queue, contexts=contexts) if typed
                  else ConfirmDialog(title, body, confirm=confirm, danger=danger,
                                     contexts=contexts))
        return dialog.context if await self._ask(dialog) else None

    async def _validate(self, kind: Kind, what: str) -> None:
        """Validate ``kind`` on a connection of its own, in a thread; bad input is one
        notification and ends the flow (:class:`~mqconsole.tui.flow.Reported`)."""
        ctx = self.ctx
        op = ctx.operation(kind)

        def job() -> None:
            qm = ctx.conns.new()
            try:
                op.validate(qm)
            finally:
                ctx.conns.release(qm)

        await in_thread(ctx, job, queue=op.describe().source, what=what)

    async def _plan(self, kind: Kind, what: str,
                    quiet: tuple[type[BaseException], ...] = ()) -> Summary | None:
        """Validate and plan ``kind`` (the operation's dry run: the CLI's ``--dry-run``,
        checks and predictions included) with its progress; ``None`` if an error (reported)
        or the operator stopped it. An error in ``quiet`` is raised for the caller."""
        dialog = OperationDialog(self.ctx, self.ctx.operation(kind), f"Planning: {what}",
                                 preview=True, quiet=quiet)
        plan = await self._ask(dialog)
        if isinstance(dialog.error, quiet):
            raise dialog.error
        return plan

    def _nothing_to(self, plan: Summary, t: Targets, verb: str) -> bool:
        """A plan that selects no message (the marked ones were moved, got or expired since
        they were marked): said in one sentence instead of a question about an empty plan
        and a result of "0 of 0". True when so."""
        if plan.result.selected:
            return False
        why = "; ".join(plan.result.warnings) or (
            f"no message of {t.queue} is selected any more")
        self.ctx.notify(f"Nothing to {verb.lower()}: {clean(why)}.", title=f"{verb} messages",
                        severity="warning")
        return True

    # -- the one way an operation runs ---------------------------------------------------------
    def start(self, kind: Kind, title: str, *, leave_detail: bool = False,
              after: Callable[[], None] | None = None) -> None:
        """Run the operation of ``kind`` in its dialog, then show its summary (``after``:
        then, e.g. close the other queue manager it put to)."""
        ctx = self.ctx
        op = ctx.operation(kind)

        def finished(summary: Summary | None) -> None:
            if after is not None:
                after()
            source = op.describe().source
            for q in _changed_queues(op, summary):
                ctx.mark_dirty(q, _left(op, summary) if q == source else None)
                ctx.request(QueueChanged(q))
            ctx.request(QueuesChanged())
            if summary is None:
                return
            if leave_detail and summary.result.done:
                ctx.request(LeaveDetail())
            self.show(summary, title)

        ctx.app.push_screen(OperationDialog(ctx, op, title), finished)

    def show(self, summary: Summary, title: str) -> None:
        """The summary: a notification for a queue's attributes, a define or a put that went
        well, else a dialog to read."""
        text = summary_text(summary)
        if summary.kind in NOTIFIED and not is_bad(summary):
            self.ctx.app.notify(text.plain, title=NOTIFIED[summary.kind], markup=False)
            return
        # after the requests posted before (one queue of messages): the view left first
        self.ctx.app.call_later(self.ctx.app.push_screen,
                                TextDialog(title, text, danger=is_bad(summary)))

    # -- the menu ----------------------------------------------------------------------------
    def menu(self, screen: MenuScreen, t: Targets) -> None:
        """The actions for ``t`` (a read-only profile lists no changing one)."""
        commands = [c for c in screen.commands()
                    if c.action in ("move", "copy", "resubmit", "delete", "edit",
                                    "edit_external", "save", "copy_msgid", "copy_payload",
                                    "load", "put")
                    and not (self.read_only and is_changing(c.action))]
        if commands:
            self._launch(self._menu(screen, t, commands), "actions")

    async def _menu(self, screen: MenuScreen, t: Targets, commands: list[Command]) -> None:
        options = [(c.action, Text(f"{c.title} — {c.help}")) for c in commands]
        note = Text(f"On {clean(t.label)} of {clean(t.queue)}")
        action = await self._ask(ChoiceDialog("Actions", options, note=note))
        if action:
            screen.run_command(next(c for c in commands if c.action == action))

    # -- move and copy -----------------------------------------------------------------------
    def transfer(self, t: Targets, *, copy: bool) -> None:
        verb = "Copy" if copy else "Move"
        if not self._refuse(verb.lower()):
            self._launch(self._transfer(t, verb, copy=copy), verb.lower())

    async def _transfer(self, t: Targets, verb: str, *, copy: bool) -> None:
        dest = await self._ask(InputDialog(
            f"{verb} to which queue?", Text(f"{verb} {clean(t.label)} of {clean(t.queue)} to:"),
            suggestions=self.queue_names(exclude=t.queue), placeholder="QUEUE.NAME",
            choices=[*self.queue_choices(exclude=t.queue),
                     (OTHER_QM, Text("… on another queue manager (not atomic)", "italic"))],
            validate=lambda v: None if v == OTHER_QM else self._check_queue(v, t.queue)))
        if not dest:
            return
        if dest == OTHER_QM:
            await self._transfer_elsewhere(t, verb, copy=copy)
            return
        await self._plan_and_start(t, verb, dest, copy=copy)

    async def _transfer_elsewhere(self, t: Targets, verb: str, *, copy: bool) -> None:
        """To a queue of another queue manager (the CLI's ``--dest-embedded`` and
        ``--dest-profile``): opened as the CLI opens it, warned of as the CLI warns (not
        atomic; a dead-letter header kept unless the operator strips it, ``--strip-dlh``),
        closed when the move is done."""
        dest_qm = await self._other_qm("copying" if copy else "moving")
        if dest_qm is None:
            return
        started = False
        try:
            # its queues, as the pick list of this queue manager offers them: completion,
            # and a name it does not have refused at once (before the header's question)
            try:
                there = await in_thread(self.ctx, lambda: [
                    q for q in dest_qm.list_queues("*") if q.type.value != "model"],
                    queue=None, what=f"list the queues of {dest_qm.name}", quiet=(MQError,))
            except MQError:  # no +dsp there: the name is checked when it is opened
                there = []
            names = [q.name for q in there]

            def problem(name: str) -> str | None:
                said = _queue_name_problem(name)
                if said is None and names and name not in names:
                    said = f"{clean(dest_qm.name)} has no queue {clean(name)}."
                return said

            choices = [(q.name, Text(clean(q.name)).append(
                f"  {q.type.value}" + ("" if q.depth is None else f" · {q.depth:,}"), "dim"))
                for q in there]
            dest = await self._ask(InputDialog(
                f"{verb} to which queue of {clean(dest_qm.name)}?",
                Text(f"{verb} {clean(t.label)} of {clean(t.queue)} to this queue of "
                     f"{clean(dest_qm.name)}:"),
                suggestions=names, choices=choices, placeholder="QUEUE.NAME",
                validate=problem))
            if not dest:
                return
            started = await self._plan_and_start(t, verb, dest, copy=copy, dest_qm=dest_qm)
        finally:
            if not started:
                dest_qm.close()

    async def _plan_and_start(self, t: Targets, verb: str, dest: str, *, copy: bool,
                              dest_qm: QueueManager | None = None) -> bool:
        """The rest of a move or copy once its destination is known: the dead-letter
        header's choice, the plan, the confirmation, then the operation (``dest_qm``: on
        another queue manager, closed when the operation ends). Whether it started."""
        first = await self._settled_first((Copy if copy else Move)(
            t.queue, dest, t.selection, dest_qm=dest_qm), dest_qm=dest_qm)
        if first != "go":
            return first == "started"  # settling runs instead (it closes dest_qm after)
        strip_dlh = await self._strip_dlh(t.queue, dest)
        if strip_dlh is None:
            return False
        kind = (Copy if copy else Move)(t.queue, dest, t.selection, dest_qm=dest_qm,
                                        strip_dlh=strip_dlh)
        where = dest if dest_qm is None else f"{dest} on {dest_qm.name}"
        plan = await self._plan(kind, f"{verb.lower()} to {where}")
        if plan is None or self._nothing_to(plan, t, verb):
            return False
        if dest_qm is None:
            body = self._transfer_body(t, verb, dest, copy=copy, strip_dlh=strip_dlh)
        else:
            cautions: list[str] = await in_thread(
                self.ctx, lambda: self.ctx.conns.call(self.ctx.operation(kind).cautions),
                queue=t.queue, what=f"{verb.lower()} to {dest}")
            body = self._describe(t, verb, f" to {clean(dest)} on {clean(dest_qm.name)}")
            for caution in cautions:  # as the CLI says them before it asks
                body.append(f"\nWarning: {clean(caution)}\n", "yellow")
            if strip_dlh:
                body.append("\nDead-letter headers are removed: the messages arrive as "
                            "they were first put.\n")
        body.append("\nPlan:\n", "bold")
        body.append_text(plan_text(plan))
        context = await self._confirmed_with_context(
            t, f"{verb} messages", body, danger=not copy, typed=t.everything and not copy,
            confirm=verb,
            contexts=CONTEXTS if copy or dest_qm is not None else CONTEXTS_PASSING)
        if context is None:
            return False
        kind = dataclasses.replace(kind, new_context=context == "default",
                                   pass_context=context == "pass")
        self.start(kind, f"{verb} {t.queue} → {where}",
                   leave_detail=t.view is not None and not copy,
                   after=None if dest_qm is None else dest_qm.close)
        return True

    async def _settled_first(self, kind: Transfer | Load, *,
                             dest_qm: QueueManager | None = None) -> str:
        """When the last move, copy or load like ``kind`` (same source and destination)
        ended in doubt (journal), say so before anything else and offer to settle it first
        (the CLI's ``--resolve-in-doubt``): ``go`` on with this one, ``stop``, or ``started``
        (the settling runs instead)."""
        from mqconsole.ops.indoubt import doubt_caution, last_in_doubt
        from mqconsole.ops.operation import ResolveInDoubt

        operation, source, dest, dest_qmgr = kind.doubt_route()
        journal = self.ctx.settings.journal()

        def find() -> Any:
            qmgr = self.ctx.conns.call(lambda qm: qm.name)
            return last_in_doubt(journal, operation=operation, qmgr=qmgr, source=source,
                                 destination=dest, dest_qmgr=dest_qmgr)

        entry = await in_thread(self.ctx, find, queue=dest, what="read the journal")
        if entry is None:
            return "go"
        said = doubt_caution(entry, operation, source, dest).replace(
            "--resolve-in-doubt", "settling it")
        choice = await self._ask(ChoiceDialog(
            "The last run ended in doubt",
            [("resolve", Text("Settle it first (as --resolve-in-doubt)")),
             ("anyway", Text(f"{operation.capitalize()} anyway")),
             ("cancel", Text("Cancel"))],
            note=Text(clean(said[:1].upper() + said[1:]), "yellow")))
        if choice == "anyway":
            return "go"
        if choice != "resolve":
            return "stop"
        settle = ResolveInDoubt(operation, source, dest, journal, dest_qm=dest_qm)
        # which run it settles, found now: once it starts, its own record is the newest
        await in_thread(self.ctx, lambda: self.ctx.conns.call(settle.validate), queue=dest,
                        what="find the run in doubt")
        self.start(settle, f"Settle the last {operation} {source} → {dest}",
                   after=None if dest_qm is None else dest_qm.close)
        return "started"

    async def _other_qm(self, verb: str) -> QueueManager | None:
        """Which other queue manager: one of the config's profiles, or an embedded file."""
        ctx = self.ctx
        opener = ctx.open_profile
        options = [(name, Text(f"Profile {clean(name)}")) for name in ctx.profile_names
                   if opener is not None and name != ctx.profile.name]
        options.append((OTHER_QM, Text("An embedded queue manager (a file)")))
        how = await self._ask(ChoiceDialog("To which queue manager?", options, note=Text(
            "Between two queue managers nothing is atomic: a failure between the two commits "
            "leaves duplicates, never a loss.")))
        if not how:
            return None
        if how != OTHER_QM and opener is not None:
            from mqconsole.tui.screens.dialogs import ask_password_from_thread

            ask = ask_password_from_thread(ctx.app)
            return await in_thread(ctx, lambda: opener(how, verb, ask), queue=None,
                                   what=f"open profile {how}")
        path = await self._ask(InputDialog(
            "An embedded queue manager", Text("Its file:"),
            value=str(ctx.settings.save_dir or Path.cwd()) + os.sep,
            validate=_file_problem, suggester=PathSuggester()))
        if not path:
            return None
        from mqconsole.ops.destination import open_embedded_destination

        return await in_thread(ctx, lambda: open_embedded_destination(path), queue=None,
                               what="open the queue manager")

    async def _strip_dlh(self, source: str, dest: str) -> bool | None:
        """Off the dead-letter queue to a queue that is not one: strip the header or keep it
        (``None``: the operator went back)."""
        if self._header_kept(source, dest) is None:
            return False
        options = [("strip", Text("Remove the dead-letter header (--strip-dlh): the "
                                  "messages arrive as they were first put")),
                   ("keep", Text(f"Keep the header: {clean(dest)} gets each message with "
                                 "its MQDLH in front"))]
        how = await self._ask(ChoiceDialog("Off the dead-letter queue", options,
                                           note=Text(f"{clean(dest)} is not a dead-letter "
                                                     "queue.")))
        return None if not how else how == "strip"

    def _transfer_body(self, t: Targets, verb: str, dest: str, *, copy: bool,
                       strip_dlh: bool) -> Text:
        body = self._describe(t, verb, f" to {clean(dest)}")
        if copy:
            body.append("\nThe copies have the context chosen below; the messages stay "
                        f"on {clean(t.queue)} (browsed, never got).\n")
        else:
            body.append("\nThe messages have the context chosen below; each get and put "
                        "happen in one unit of work.\n")
        if strip_dlh:
            body.append("Dead-letter headers are removed: the messages arrive as they "
                        "were first put.\n")
        elif (kept := self._header_kept(t.queue, dest)) is not None:
            body.append(f"{clean(kept[0].upper() + kept[1:])}.\n", "yellow")
        return body

    def _header_kept(self, source: str, dest: str) -> str | None:
        """Moving off the queue manager's dead-letter queue to a queue that is not one, the
        header kept: the CLI's warning (``header_kept``), offered here as a choice."""
        info = self.ctx.qmgr_info
        return header_kept(source, dest, info.dead_letter_queue if info is not None else "")

    # -- resubmit ----------------------------------------------------------------------------
    def resubmit(self, t: Targets, to: str | None = None) -> None:
        if not self._refuse("resubmit"):
            self._launch(self._resubmit(t, to), "resubmit")

    async def _resubmit(self, t: Targets, to: str | None) -> None:
        from mqconsole.ops.resubmit import OriginError

        kind = Resubmit(t.queue, t.selection, to=to)
        try:
            plan = await self._plan(kind, "resubmit plan", quiet=(OriginError,))
        except OriginError as exc:  # messages without a header: back to which queue?
            options = [(q, Text(q)) for q in exc.candidates] or \
                      [(q, Text(q)) for q in self.queue_names(exclude=t.queue)]
            to = await self._ask(ChoiceDialog(
                "Back to which queue?", options,
                note=Text(clean(str(exc)).replace(" with --to QUEUE", ""))))
            if to:
                await self._resubmit(t, to)
            return
        if plan is None or self._nothing_to(plan, t, "Resubmit"):
            return
        body = self._resubmit_body(t, to)
        body.append("\nPlan:\n", "bold")
        body.append_text(plan_text(plan))
        context = await self._confirmed_with_context(t, "Resubmit messages", body,
                                                     danger=True, typed=False,
                                                     confirm="Resubmit",
                                                     contexts=CONTEXTS_PASSING)
        if context is not None:
            kind = dataclasses.replace(kind, new_context=context == "default",
                                       pass_context=context == "pass")
            self.start(kind, f"Resubmit from {t.queue}")

    def _resubmit_body(self, t: Targets, to: str | None) -> Text:
        body = self._describe(t, "Resubmit", ", each back to its destination")
        info = self.ctx.qmgr_info
        dlq = info.dead_letter_queue.strip() if info is not None else ""
        if t.queue == dlq:
            body.append("\nDead-letter headers are removed; the context is chosen below.\n")
        else:  # a backout queue: its messages carry no dead-letter header
            body.append("\nThe context is chosen below.\n")
        if to:
            body.append(f"Messages without a dead-letter header go to {clean(to)}.\n")
        return body

    # -- delete ------------------------------------------------------------------------------
    def delete(self, t: Targets) -> None:
        if not self._refuse("delete"):
            self._launch(self._delete(t), "delete")

    async def _delete(self, t: Targets) -> None:
        folder = self.ctx.settings.backup_dir
        if t.selection.marks and not t.everything:
            # marks are found by their tokens (cheap): one that left since it was marked is
            # said at once, not asked about and then "Deleted 0 of 0" (issue 24)
            plan = await self._plan(Delete(t.queue, t.selection, backup_dir=folder),
                                    "delete plan")
            if plan is None or self._nothing_to(plan, t, "Delete"):
                return
        body = self._describe(t, "Delete")
        body.append("\nThey are saved to a backup file first (")
        body.append(clean(str(folder)) if folder else "the backups folder of the state "
                                                      "directory")
        body.append("); only messages saved there are removed.\n")
        if await self._confirmed(t, "Delete messages", body, danger=True, typed=t.everything,
                                 confirm="Delete"):
            self.start(Delete(t.queue, t.selection, backup_dir=folder),
                       f"Delete from {t.queue}", leave_detail=t.view is not None)

    # -- save and load -----------------------------------------------------------------------
    def default_save_path(self, queue: str) -> str:
        folder = self.ctx.settings.save_dir or Path.cwd()
        qmgr = self.ctx.qmgr_name or "QM"
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        return str(Path(folder) / f"{qmgr}-{queue}-{stamp}.dmp")

    def save(self, t: Targets) -> None:
        self._launch(self._save(t), "save")

    async def _save(self, t: Targets) -> None:
        from mqconsole.tui.clipboard import new_file_problem

        path = await self._ask(InputDialog(
            "Save to a file", Text(f"Save {clean(t.label)} of {clean(t.queue)} "
                                   "(dmpmqmsg format) to:"),
            value=self.default_save_path(t.queue), validate=new_file_problem,
            suggester=PathSuggester()))
        if path:
            self.start(Save(t.queue, str(Path(path).expanduser()), t.selection),
                       f"Save {t.queue}")

    def load(self, queue: str) -> None:
        if not self._refuse("load"):
            self._launch(self._load(queue), "load")

    async def _load(self, queue: str) -> None:
        path = await self._ask(InputDialog(
            "Load from a file",
            Text(f"Put the messages of a dmpmqmsg file on {clean(queue)}. File:"),
            value=str(self.ctx.settings.save_dir or Path.cwd()) + os.sep,
            validate=_file_problem, suggester=PathSuggester()))
        if not path:
            return
        source = str(Path(path).expanduser())
        kind = Load(source, queue)
        if await self._settled_first(kind) != "go":
            return
        # read once to say what it holds (the load reads it once more)
        info = await in_thread(self.ctx, kind.check_file, queue=queue, what="read file")
        # the CLI's --range and --skip-present: the form is the question
        from mqconsole.ops.savefile.load import parse_range, range_problem

        fields = [Field("range", "Messages (N-M as the file numbers them, from 1; empty: "
                                 "all)", "text", ""),
                  Field("skip_present", f"Skip those already on {queue} (same MsgId and "
                                        "body): resumes a load without duplicates", "bool",
                        False),
                  Field("new_context", "Put them with your context, as new messages "
                                       "(--context default: +put only; unticked each keeps "
                                       "its own, set-all: +setall)", "bool", False)]

        def chosen(values: dict[str, object]) -> tuple[int, int | None]:
            text = str(values.get("range") or "").strip()
            return parse_range(text) if text else (1, None)

        def problem(values: dict[str, object]) -> str | None:
            try:
                first, last = chosen(values)
            except ValueError as exc:
                return _sentence(str(exc))
            return _sentence(range_problem(first, last, info.count, source))

        values = await self._ask(FormDialog("Load messages", fields, validate=problem,
                                            note=_load_body(info, source, queue)))
        if values is None:
            return
        first, last = chosen(values)
        kind = dataclasses.replace(kind, first=first, last=last,
                                   skip_present=bool(values.get("skip_present")),
                                   new_context=bool(values.get("new_context")),
                                   _checked=kind._checked)
        self.start(kind, f"Load into {queue}")

    # -- new messages and queues --------------------------------------------------------------
    def put(self, queue: str) -> None:
        """Put new messages on ``queue`` (a text payload in UTF-8, Format MQSTR, a new
        context): ``mqconsole put QUEUE --text TEXT --count N``. Not asked, as the command
        line does not ask: the form is the question."""
        if not self._refuse("put"):
            self._launch(self._put(queue), "put")

    async def _put(self, queue: str) -> None:
        fields = [Field("text", "Payload (text, UTF-8, Format MQSTR)", "text", ""),
                  Field("count", "How many messages", "int", 1)]

        def kind_of(values: dict[str, object]) -> Put:
            count = values.get("count")
            return Put(queue, MQMD(format=format_by_text("MQSTR"), ccsid=1208),
                       str(values.get("text") or "").encode("utf-8"),
                       count=count if isinstance(count, int) else 0)

        values = await self._ask(FormDialog(f"Put on {clean(queue)}", fields,
                                            validate=lambda v: _sentence(kind_of(v).problem())))
        if values is not None:
            kind = kind_of(values)
            await self._validate(kind, "put")
            self.start(kind, f"Put on {queue}")

    def define_queue(self) -> None:
        """Define a local queue (``mqconsole queue define``): its name and the attributes
        operators set first; a BOQNAME naming no queue is said in the summary."""
        if not self._refuse("defining a queue"):
            self._launch(self._define_queue(), "define")

    async def _define_queue(self) -> None:
        fields = [Field("name", "Name", "text", ""),
                  Field("max_depth", "MAXDEPTH", "int", 5000),
                  Field("bothresh", "BOTHRESH (backout threshold; 0 = never)", "int", 0),
                  Field("boqname", "BOQNAME (backout queue; empty = none)", "text", "",
                        self.queue_names()),
                  Field("description", "DESCR", "text", "")]

        def kind_of(values: dict[str, object]) -> QueueDefine:
            attrs = {k: v for k, v in values.items() if k != "name" and v != ""}
            return QueueDefine(str(values.get("name") or "").strip(), attrs)

        values = await self._ask(FormDialog("Define a local queue", fields,
                                            validate=lambda v: _sentence(kind_of(v).problem())))
        if values is not None:
            kind = kind_of(values)
            await self._validate(kind, "define")
            self.start(kind, f"Define {kind.queue}")

    # -- edit --------------------------------------------------------------------------------
    def edit(self, queue: str, view: MessageView, *, external: bool = False) -> None:
        if self._refuse("edit"):
            return
        from mqconsole.tui.screens.edit import EditScreen, editable_text

        text, kind = editable_text(view)
        if external:
            self._edit_external(queue, view, text, kind)
            return
        self.ctx.app.push_screen(EditScreen(
            self.ctx, queue, view, text, kind,
            submit=lambda screen, e: self.apply_edit(queue, view, e, screen=screen)))

    def _edit_external(self, queue: str, view: MessageView, text: str, kind: str) -> None:
        ctx = self.ctx
        suffix = {"json": ".json", "xml": ".xml", "hex": ".hex"}.get(kind, ".txt")
        fd, name = tempfile.mkstemp(prefix="mqconsole-edit-", suffix=suffix)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fp:
                fp.write(text)
            try:
                with ctx.app.suspend():
                    subprocess.call([*ctx.settings.editor.split(), name])
            except Exception as exc:
                ctx.report_error(exc, what="$EDITOR")
                return
            new = Path(name).read_text(encoding="utf-8")
        finally:
            with contextlib.suppress(OSError):
                os.unlink(name)
        self.edited_externally(queue, view, text, new, kind)

    def edited_externally(self, queue: str, view: MessageView, text: str, new: str,
                          kind: str) -> None:
        """What an external editor gave back: a final newline it added is said, and the
        operator chooses whether to keep it (bytes never change silently)."""
        if new == text or (kind != "hex" and new == text + "\n"):
            self.ctx.notify("The payload was not changed" + (
                "" if new == text else " (the editor only added a final newline)") + ".")
            return
        if kind == "hex" or not new.endswith("\n") or text.endswith("\n"):
            self.apply_edit(queue, view, {"payload": new, "kind": kind, "changes": {}})
            return
        self._launch(self._final_newline(queue, view, new, kind), "edit")

    async def _final_newline(self, queue: str, view: MessageView, new: str,
                             kind: str) -> None:
        options = [("drop", Text("Drop the final newline the editor added")),
                   ("keep", Text("Keep it: the payload gets one byte more (0x0A) at its end"))]
        how = await self._ask(ChoiceDialog(
            "A final newline", options,
            note=Text("The edited payload ends with a newline the original did not have.")))
        if how:
            payload = new[:-1] if how == "drop" else new
            self.apply_edit(queue, view, {"payload": payload, "kind": kind, "changes": {}})

    def apply_edit(self, queue: str, view: MessageView, edit: EditRequest, *,
                   screen: EditScreen | None = None) -> None:
        """Check (a preview of the edit), confirm with the difference and the byte counts,
        then replace. ``screen``: the editor, which stays open with a failed check's
        sentence (and force offered) until the replacement is confirmed."""
        from mqconsole.tui.screens.edit import editable_text

        original, _ = editable_text(view)
        payload = edit["payload"]
        body: bytes | None = None
        if payload != original and edit["kind"] == "hex":
            try:
                body = bytes.fromhex("".join(payload.split()))
            except ValueError:
                self._edit_problem(screen, "The payload is not valid hexadecimal: nothing "
                                           "changed.")
                return
        # only MQMD fields changed: the body stays as it is
        text = payload if payload != original and body is None else None
        kind = Edit(queue, bytes(view.md.msg_id), body=body, text=text,
                    changes=edit["changes"], position=view.position, keep_headers=True,
                    force=bool(edit.get("force")), backup_dir=self.ctx.settings.backup_dir)
        self._launch(self._apply_edit(kind, view, original, payload, screen), "edit")

    def _edit_problem(self, screen: EditScreen | None, text: str, *,
                      can_force: bool = False) -> None:
        if screen is not None and screen.is_attached:
            screen.show_problem(text, can_force=can_force)
        else:
            self.ctx.notify(text, severity="error")

    async def _apply_edit(self, kind: Edit, view: MessageView, original: str, payload: str,
                          screen: EditScreen | None) -> None:
        from mqconsole.ops.edit import EditError

        try:
            plan = await self._plan(kind, "check the edit", quiet=(EditError,))
        except EditError as exc:
            errors = [p.text for p in exc.problems if p.level == "error"]
            # the console's words: its key (ctrl+f, said under it), not the CLI's --force
            said = ("The edited message fails a check: " + "; ".join(errors)) if errors \
                else str(exc)
            self._edit_problem(screen, said, can_force=bool(errors))
            return
        if plan is None:
            return
        if screen is not None:
            self._edit_problem(screen, "")
        body = _edit_body(kind, view, original, payload, plan)
        if not await self._ask(ConfirmDialog("Replace the message", body, confirm="Replace",
                                             danger=True)):
            return
        if screen is not None and screen.is_attached:
            self.ctx.app.call_later(screen.dismiss, None)
        self.ctx.app.call_later(self.start, kind,
                                f"Edit message {view.position} of {kind.queue}",
                                leave_detail=True)

    # -- queue attributes --------------------------------------------------------------------
    def set_attributes(self, row: dict[str, Any]) -> None:
        if not self._refuse("changing queue attributes"):
            self._launch(self._set_attributes(row), "attributes")

    async def _set_attributes(self, row: dict[str, Any]) -> None:
        name = row["name"]

        def check(values: dict[str, object]) -> str | None:
            from mqconsole.mq.queue import changes_problem

            # a BOQNAME naming no queue is allowed: warned of when confirming
            return _sentence(changes_problem(name, dict(values)))

        changes = await self._ask(FormDialog(f"Attributes of {name}",
                                             self._attribute_fields(row), validate=check))
        if not changes:
            return
        kind = QueueSet(name, dict(changes))
        op = self.ctx.operation(kind)
        cautions: list[str] = await in_thread(
            self.ctx, lambda: self.ctx.conns.call(op.cautions), queue=name,
            what="check the attributes")
        body = _attributes_body(row, changes)
        for caution in cautions:  # as the CLI says them before it asks
            body.append(f"\nWarning: {clean(caution)}\n", "yellow")
        if await self._ask(ConfirmDialog("Change queue attributes", body, confirm="Change",
                                         danger=True)):
            self.start(kind, f"Attributes of {name}")

    def _attribute_fields(self, row: dict[str, Any]) -> list[Field]:
        """What can be changed: inhibiting for any queue; backout settings for a local one."""
        if row.get("type") not in ("local", "model"):
            fields = [Field("put_inhibited", "Put inhibited", "bool", bool(row["put_inhibited"]))]
            if row.get("type") == "alias":
                fields.append(Field("get_inhibited", "Get inhibited", "bool",
                                    bool(row["get_inhibited"])))
            return fields
        return [
            Field("bothresh", "BOTHRESH (backout threshold; 0 = never)", "int",
                  int(row.get("bothresh") or 0)),
            Field("boqname", "BOQNAME (backout queue; empty = none)", "text",
                  row.get("boqname") or "", self.queue_names(exclude=row["name"])),
            Field("hardenbo", "HARDENBO (harden the backout count)", "bool",
                  bool(row.get("hardenbo"))),
            Field("put_inhibited", "Put inhibited", "bool", bool(row["put_inhibited"])),
            Field("get_inhibited", "Get inhibited", "bool", bool(row["get_inhibited"])),
        ]

    # -- plugin actions ----------------------------------------------------------------------
    def plugin_action(self, registered: RegisteredAction, t: Targets) -> None:
        """Run a site plugin's action on ``t``; a dangerous one is confirmed by typing the
        queue name (it is never offered in a read-only profile)."""
        action = registered.action
        if action.dangerous and self._refuse(action.title):
            return
        kind = PluginAction(registered, t.queue, t.selection, read_only=self.read_only)
        title = f"{action.title} on {t.queue}"
        if not action.dangerous:
            self.start(kind, title)
            return
        self._launch(self._dangerous_plugin_action(registered, t, kind, title), title)

    async def _dangerous_plugin_action(self, registered: RegisteredAction, t: Targets,
                                       kind: PluginAction, title: str) -> None:
        body = self._describe(t, clean(registered.action.title))
        body.append(f"\nThis action of the site plugin {clean(registered.plugin)} may change "
                    "them.\n")
        if await self._confirmed(t, clean(registered.action.title), body, danger=True,
                                 typed=True, confirm="Run"):
            self.start(kind, title)


def _queue_name_problem(name: str) -> str | None:
    from mqconsole.mq.queue import name_problem

    return "Give a queue name." if not name else _sentence(name_problem(name))


def _file_problem(path: str) -> str | None:
    """What is wrong with a file to load, as a sentence (``None``: nothing)."""
    if not path:
        return "Give a file name."
    from mqconsole.ops.inputs import not_a_file

    return _sentence(not_a_file(Path(path).expanduser()))


def _load_body(info: FileCheck, source: str, queue: str) -> Text:
    body = Text()
    body.append(f"Put {info.count:,} message{'s' if info.count != 1 else ''} "
                f"from {clean(source)} on ")
    body.append(clean(queue), "bold")
    body.append(".\n")
    if info.queue or info.qmgr:
        body.append(f"The file was saved from {clean(info.queue or '?')} on "
                    f"{clean(info.qmgr or '?')}.\n")
    body.append("Context in the file is kept (set-all).\n")
    for w in info.warnings[:5]:
        body.append(f"Warning: {clean(w)}\n", "yellow")
    return body


def _edit_body(kind: Edit, view: MessageView, original: str, payload: str,
               plan: Summary) -> Text:
    """The confirmation of an edit: what changes (a diff, the byte counts) and the check's
    problems."""
    body = Text()
    body.append(f"Replace message {view.position} (MsgId {view.msgid}) of "
                f"{clean(kind.queue)} with the edited version.\n")
    planned = plan.details.get("changes") or {}
    if kind.changes:  # each field's old value too, by its MQMD name
        from mqconsole.ops.changes import change_line

        body.append("MQMD: " + ", ".join(
            clean(change_line(k, planned.get(k, {}).get("before", getattr(view.md, k, None)),
                              v)) for k, v in kind.changes.items()) + "\n")
    length = plan.extra.get("body_length")
    if payload != original:
        body.append_text(edit_diff(original, payload))
        if length:
            body.append(f"Payload: {length['before']:,} → {length['after']:,} bytes\n", "bold")
    body.append("The original is saved to a backup file first; the MsgId and context "
                "are kept; the put of the new message and the get of the original "
                "happen in one unit of work. The edited message is put anew, so it moves to "
                "the end of the queue.\n")
    for p in plan.extra.get("problems", []):
        body.append(f"{p['level']}: {clean(p['text'])}\n",
                    "red" if p["level"] == "error" else "yellow")
    return body


def _attributes_body(row: dict[str, Any], changes: dict[str, object]) -> Text:
    body = Text()
    body.append("Change ")
    body.append(clean(row["name"]), "bold")
    body.append(":\n")
    from mqconsole.ops.changes import change_line

    for k, v in changes.items():
        body.append(f"  {clean(change_line(k, row.get(k), v))}\n")
    if changes.get("bothresh") == 0 and row.get("bothresh"):
        body.append("\nBOTHRESH 0 means a poison message is never moved to the backout "
                    "queue: it is retried for ever.\n", "yellow")
    if changes.get("get_inhibited") or changes.get("put_inhibited"):
        body.append("\nInhibiting stops applications using the queue.\n", "yellow")
    return body


MAX_DIFF_LINES = 40
OTHER_QM = "@"  # the pick "on another queue manager" (no queue name has an @)
# kinds whose summary is a notification when nothing went wrong (else a dialog to read)
NOTIFIED = {"queue-set": "Queue changed", "queue-define": "Queue defined",
            "put": "Messages put"}


def _sentence(problem: str | None) -> str | None:
    """An operation's problem as a sentence for a dialog (capital, full stop)."""
    return None if problem is None else f"{problem[:1].upper()}{problem[1:]}."


def edit_diff(before: str, after: str) -> Text:
    """The lines an edit changes (a unified diff, made safe), at most MAX_DIFF_LINES."""
    lines = list(difflib.unified_diff(before.split("\n"), after.split("\n"), "original",
                                      "edited", n=1, lineterm=""))[2:]
    out = Text()
    for line in lines[:MAX_DIFF_LINES]:
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        out.append(clean(line) + "\n", style)
    if len(lines) > MAX_DIFF_LINES:
        out.append(f"… {len(lines) - MAX_DIFF_LINES} more lines of difference\n", "dim")
    return out


def _left(op: Operation, summary: Summary | None) -> frozenset[Mark] | None:
    """Which marked messages a move, delete or resubmit of marked messages took off its
    source, exactly (a copy: none); None when that cannot be told (another selection, a
    MsgId done fewer times than it is marked, an error): the list is read again then."""
    selection = getattr(op.spec, "selection", None)
    if (summary is None or summary.error or selection is None or not selection.marks
            or selection.where is not None or selection.msgids
            or not isinstance(op.spec, Transfer | Resubmit | Delete)):
        return None
    result = summary.result
    if getattr(op.spec, "copy", False) or result.dry_run:
        return frozenset()
    done = Counter(result.done_msgids)
    marked = Counter(m.msgid.hex().upper() for m in selection.marks if m.msgid is not None)
    if any(m.msgid is None for m in selection.marks) or any(
            done[h] not in (0, n) for h, n in marked.items()):
        return None  # some of the messages sharing a MsgId went: which ones is not known
    return frozenset(m for m in selection.marks if done[m.msgid.hex().upper()])


def _changed_queues(op: Operation, summary: Summary | None) -> list[str]:
    """The queues an operation may have changed (their lists are read again)."""
    if isinstance(op.spec, Save):
        return []  # saving never changes the queue
    d = op.describe()
    names = {d.destination} if isinstance(op.spec, Load) else {d.source, d.destination}
    if summary is not None:
        names.update(summary.result.moved_to)
    return sorted(n for n in names if n)


__all__ = ["ActionRunner", "Targets"]

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

The operation writes the journal and tells the plugins; nothing here does.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import subprocess
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

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
    destination_problem,
    header_kept,
)
from mqconsole.ops.views import MessageView
from mqconsole.tui.context import ConsoleContext
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
    from mqconsole.ops.operation import Operation
    from mqconsole.ops.savefile import FileCheck
    from mqconsole.plugins import RegisteredAction
    from mqconsole.tui.screens.edit import EditScreen


class MenuScreen(Protocol):
    """What the actions menu needs of a screen (``screens.base.ConsoleScreen``: this module
    does not import it, since screens make their ``ActionRunner``)."""

    def commands(self) -> list[Command]: ...

    def run_command(self, command: Command) -> None: ...


class ActionRunner:
    """Runs the console's actions on what a screen shows (one instance per screen)."""

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

    def _confirm(self, t: Targets, title: str, body: Text, *, then: Callable[[], None],
                 danger: bool, typed: bool, confirm: str) -> None:
        dialog = (TypeNameDialog(title, body, t.queue) if typed
                  else ConfirmDialog(title, body, confirm=confirm, danger=danger))
        self.ctx.app.push_screen(dialog, lambda ok: then() if ok else None)

    # -- the one way an operation runs ---------------------------------------------------------
    def prepare(self, kind: Kind, then: Callable[[Summary | None], None], *,
                preview: bool = False, what: str = "check",
                quiet: tuple[type[BaseException], ...] = (),
                failed: Callable[[BaseException], None] | None = None) -> None:
        """Validate ``kind`` in a worker, then ``then(None)`` on the event loop; with
        ``preview``, also plan it (the operation's dry run: the CLI's ``--dry-run``, checks
        and predictions included) with its progress, then ``then(plan)``. Bad input is
        reported as a notification and nothing is asked."""
        ctx = self.ctx
        op = ctx.operation(kind)
        if preview:
            ctx.app.push_screen(
                OperationDialog(ctx, op, f"Planning: {what}", preview=True, quiet=quiet,
                                failed=failed),
                lambda plan: then(plan) if plan is not None else None)
            return

        def job() -> None:
            qm = ctx.conns.new()
            try:
                op.validate(qm)
            finally:
                ctx.conns.release(qm)

        ctx.backend(job, done=then, failed=failed, queue=op.describe().source, what=what,
                    quiet=quiet)

    def start(self, kind: Kind, title: str, *, leave_detail: bool = False) -> None:
        """Run the operation of ``kind`` in its dialog, then show its summary."""
        ctx = self.ctx
        op = ctx.operation(kind)

        def finished(summary: Summary | None) -> None:
            for q in _changed_queues(op, summary):
                ctx.mark_dirty(q)
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
        if not commands:
            return
        options = [(c.action, Text(f"{c.title} — {c.help}")) for c in commands]
        note = Text(f"On {clean(t.label)} of {clean(t.queue)}")

        def chosen(action: str | None) -> None:
            if action:
                screen.run_command(next(c for c in commands if c.action == action))

        self.ctx.app.push_screen(ChoiceDialog("Actions", options, note=note), chosen)

    # -- move and copy -----------------------------------------------------------------------
    def transfer(self, t: Targets, *, copy: bool) -> None:
        verb = "Copy" if copy else "Move"
        if self._refuse(verb.lower()):
            return

        def plan(dest: str, strip_dlh: bool) -> None:
            kind = (Copy if copy else Move)(t.queue, dest, t.selection, strip_dlh=strip_dlh)
            body = self._describe(t, verb, f" to {clean(dest)}")
            if copy:
                body.append("\nEach copy keeps the message's context (put time, user, "
                            f"application); the messages stay on {clean(t.queue)} (browsed, "
                            "never got).\n")
            else:
                body.append("\nEach message keeps its context (put time, user, application); "
                            "each get and put happen in one unit of work.\n")
            if strip_dlh:
                body.append("Dead-letter headers are removed: the messages arrive as they "
                            "were first put.\n")
            elif (kept := self._header_kept(t.queue, dest)) is not None:
                body.append(f"{clean(kept[0].upper() + kept[1:])}.\n", "yellow")

            def planned(summary: Summary | None) -> None:
                if summary is not None:
                    body.append("\nPlan:\n", "bold")
                    body.append_text(plan_text(summary))
                self._confirm(t, f"{verb} messages", body, danger=not copy,
                              typed=t.everything and not copy, confirm=verb,
                              then=lambda: self.start(kind, f"{verb} {t.queue} → {dest}",
                                                      leave_detail=t.view is not None
                                                      and not copy))

            self.prepare(kind, planned, preview=True, what=f"{verb.lower()} to {dest}")

        def got_dest(dest: str | None) -> None:
            if not dest:
                return
            if self._header_kept(t.queue, dest) is None:
                plan(dest, False)
                return
            options = [("strip", Text("Remove the dead-letter header (--strip-dlh): the "
                                      "messages arrive as they were first put")),
                       ("keep", Text(f"Keep the header: {clean(dest)} gets each message with "
                                     "its MQDLH in front"))]
            self.ctx.app.push_screen(
                ChoiceDialog("Off the dead-letter queue", options,
                             note=Text(f"{clean(dest)} is not a dead-letter queue.")),
                lambda how: plan(dest, how == "strip") if how else None)

        self.ctx.app.push_screen(InputDialog(
            f"{verb} to which queue?", Text(f"{verb} {clean(t.label)} of {clean(t.queue)} to:"),
            suggestions=self.queue_names(exclude=t.queue), placeholder="QUEUE.NAME",
            choices=self.queue_choices(exclude=t.queue),
            validate=lambda v: self._check_queue(v, t.queue)), got_dest)

    def _header_kept(self, source: str, dest: str) -> str | None:
        """Moving off the queue manager's dead-letter queue to a queue that is not one, the
        header kept: the CLI's warning (``header_kept``), offered here as a choice."""
        info = self.ctx.qmgr_info
        return header_kept(source, dest, info.dead_letter_queue if info is not None else "")

    # -- resubmit ----------------------------------------------------------------------------
    def resubmit(self, t: Targets, to: str | None = None) -> None:
        if self._refuse("resubmit"):
            return
        from mqconsole.ops.resubmit import OriginError

        kind = Resubmit(t.queue, t.selection, to=to)

        def planned(plan: Summary | None) -> None:
            body = self._describe(t, "Resubmit", ", each back to its destination")
            info = self.ctx.qmgr_info
            dlq = info.dead_letter_queue.strip() if info is not None else ""
            if t.queue == dlq:
                body.append("\nDead-letter headers are removed; context is kept.\n")
            else:  # a backout queue: its messages carry no dead-letter header
                body.append("\nContext is kept.\n")
            if to:
                body.append(f"Messages without a dead-letter header go to {clean(to)}.\n")
            if plan is not None:
                body.append("\nPlan:\n", "bold")
                body.append_text(plan_text(plan))
            self._confirm(t, "Resubmit messages", body, danger=True, typed=False,
                          confirm="Resubmit",
                          then=lambda: self.start(kind, f"Resubmit from {t.queue}"))

        def failed(exc: BaseException) -> None:
            if isinstance(exc, OriginError):
                options = [(q, Text(q)) for q in exc.candidates] or \
                          [(q, Text(q)) for q in self.queue_names(exclude=t.queue)]
                self.ctx.app.push_screen(ChoiceDialog(
                    "Back to which queue?", options,
                    note=Text(clean(str(exc)).replace(" with --to QUEUE", ""))),
                    lambda q: self.resubmit(t, to=q) if q else None)

        self.prepare(kind, planned, preview=True, what="resubmit plan", quiet=(OriginError,),
                     failed=failed)

    # -- delete ------------------------------------------------------------------------------
    def delete(self, t: Targets) -> None:
        if self._refuse("delete"):
            return
        folder = self.ctx.settings.backup_dir
        kind = Delete(t.queue, t.selection, backup_dir=folder)
        body = self._describe(t, "Delete")
        body.append("\nThey are saved to a backup file first (")
        body.append(clean(str(folder)) if folder else "the backups folder of the state "
                                                      "directory")
        body.append("); only messages saved there are removed.\n")
        self._confirm(t, "Delete messages", body, danger=True, typed=t.everything,
                      confirm="Delete",
                      then=lambda: self.start(kind, f"Delete from {t.queue}",
                                              leave_detail=t.view is not None))

    # -- save and load -----------------------------------------------------------------------
    def default_save_path(self, queue: str) -> str:
        folder = self.ctx.settings.save_dir or Path.cwd()
        qmgr = self.ctx.qmgr_name or "QM"
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        return str(Path(folder) / f"{qmgr}-{queue}-{stamp}.dmp")

    def save(self, t: Targets) -> None:
        from mqconsole.tui.clipboard import new_file_problem

        def got(path: str | None) -> None:
            if path:
                self.start(Save(t.queue, str(Path(path).expanduser()), t.selection),
                           f"Save {t.queue}")

        self.ctx.app.push_screen(InputDialog(
            "Save to a file", Text(f"Save {clean(t.label)} of {clean(t.queue)} "
                                   "(dmpmqmsg format) to:"),
            value=self.default_save_path(t.queue), validate=new_file_problem,
            suggester=PathSuggester()), got)

    def load(self, queue: str) -> None:
        if self._refuse("load"):
            return
        ctx = self.ctx

        def check(path: str) -> str | None:
            if not path:
                return "Give a file name."
            from mqconsole.ops.inputs import not_a_file

            problem = not_a_file(Path(path).expanduser())
            return None if problem is None else f"{problem[:1].upper()}{problem[1:]}."

        def got(path: str | None) -> None:
            if not path:
                return
            source = str(Path(path).expanduser())
            kind = Load(source, queue)

            def inspect() -> FileCheck:
                return kind.check_file()  # kept for the load: the file is read once more

            def inspected(info: FileCheck) -> None:
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
                ctx.app.push_screen(
                    ConfirmDialog("Load messages", body, confirm="Load"),
                    lambda ok: self.start(kind, f"Load into {queue}")
                    if ok else None)

            ctx.backend(inspect, done=inspected, queue=queue, what="read file")

        ctx.app.push_screen(InputDialog("Load from a file",
                                        Text(f"Put the messages of a dmpmqmsg file on "
                                             f"{clean(queue)}. File:"),
                                        value=str(ctx.settings.save_dir or Path.cwd()) + os.sep,
                                        validate=check, suggester=PathSuggester()), got)

    # -- new messages and queues --------------------------------------------------------------
    def put(self, queue: str) -> None:
        """Put new messages on ``queue`` (a text payload in UTF-8, Format MQSTR, a new
        context): ``mqconsole put QUEUE --text TEXT --count N``. Not asked, as the command
        line does not ask: the form is the question."""
        if self._refuse("put"):
            return
        fields = [Field("text", "Payload (text, UTF-8, Format MQSTR)", "text", ""),
                  Field("count", "How many messages", "int", 1)]

        def kind_of(values: dict[str, object]) -> Put:
            count = values.get("count")
            return Put(queue, MQMD(format=format_by_text("MQSTR"), ccsid=1208),
                       str(values.get("text") or "").encode("utf-8"),
                       count=count if isinstance(count, int) else 0)

        def got(values: dict[str, object] | None) -> None:
            if values is not None:
                kind = kind_of(values)
                self.prepare(kind, lambda _: self.start(kind, f"Put on {queue}"),
                             what="put")

        self.ctx.app.push_screen(FormDialog(f"Put on {clean(queue)}", fields,
                                            validate=lambda v: _sentence(kind_of(v).problem())),
                                 got)

    def define_queue(self) -> None:
        """Define a local queue (``mqconsole queue define``): its name and the attributes
        operators set first; a BOQNAME naming no queue is said in the summary."""
        if self._refuse("defining a queue"):
            return
        fields = [Field("name", "Name", "text", ""),
                  Field("max_depth", "MAXDEPTH", "int", 5000),
                  Field("bothresh", "BOTHRESH (backout threshold; 0 = never)", "int", 0),
                  Field("boqname", "BOQNAME (backout queue; empty = none)", "text", "",
                        self.queue_names()),
                  Field("description", "DESCR", "text", "")]

        def kind_of(values: dict[str, object]) -> QueueDefine:
            attrs = {k: v for k, v in values.items() if k != "name" and v != ""}
            return QueueDefine(str(values.get("name") or "").strip(), attrs)

        def got(values: dict[str, object] | None) -> None:
            if values is not None:
                kind = kind_of(values)
                self.prepare(kind, lambda _: self.start(kind, f"Define {kind.queue}"),
                             what="define")

        self.ctx.app.push_screen(FormDialog("Define a local queue", fields,
                                            validate=lambda v: _sentence(kind_of(v).problem())),
                                 got)

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

        def apply(payload: str) -> None:
            self.apply_edit(queue, view, {"payload": payload, "kind": kind, "changes": {}})

        if kind == "hex" or not new.endswith("\n") or text.endswith("\n"):
            apply(new)
            return
        options = [("drop", Text("Drop the final newline the editor added")),
                   ("keep", Text("Keep it: the payload gets one byte more (0x0A) at its end"))]
        self.ctx.app.push_screen(
            ChoiceDialog("A final newline", options,
                         note=Text("The edited payload ends with a newline the original did "
                                   "not have.")),
            lambda how: apply(new[:-1] if how == "drop" else new) if how else None)

    def apply_edit(self, queue: str, view: MessageView, edit: dict[str, Any], *,
                   screen: EditScreen | None = None) -> None:
        """Check (a preview of the edit), confirm with the difference and the byte counts,
        then replace. ``screen``: the editor, which stays open with a failed check's
        sentence (and force offered) until the replacement is confirmed."""
        from mqconsole.ops.edit import EditError
        from mqconsole.tui.screens.edit import editable_text

        def problem(text: str, *, can_force: bool = False) -> None:
            if screen is not None and screen.is_attached:
                screen.show_problem(text, can_force=can_force)
            else:
                self.ctx.notify(text, severity="error")

        original, _ = editable_text(view)
        payload = edit["payload"]
        changes = edit.get("changes") or {}
        kw: dict[str, Any] = {}
        if payload == original:
            pass  # only MQMD fields changed: the body stays as it is
        elif edit["kind"] == "hex":
            try:
                kw["body"] = bytes.fromhex("".join(payload.split()))
            except ValueError:
                problem("The payload is not valid hexadecimal: nothing changed.")
                return
        else:
            kw["text"] = payload
        kind = Edit(queue, bytes(view.md.msg_id), changes=changes, position=view.position,
                    keep_headers=True, force=bool(edit.get("force")),
                    backup_dir=self.ctx.settings.backup_dir, **kw)

        def checked(plan: Summary | None) -> None:
            body = Text()
            body.append(f"Replace message {view.position} (MsgId {view.msgid}) of "
                        f"{clean(queue)} with the edited version.\n")
            if changes:
                body.append("MQMD: " + ", ".join(f"{k} → {clean(v)}" for k, v in changes.items())
                            + "\n")
            length = plan.extra.get("body_length") if plan is not None else None
            if payload != original:
                body.append_text(edit_diff(original, payload))
                if length:
                    body.append(f"Payload: {length['before']:,} → {length['after']:,} bytes\n",
                                "bold")
            body.append("The original is saved to a backup file first; the MsgId and context "
                        "are kept; the put of the new message and the get of the original "
                        "happen in one unit of work.\n")
            for p in (plan.extra.get("problems", []) if plan is not None else []):
                body.append(f"{p['level']}: {clean(p['text'])}\n",
                            "red" if p["level"] == "error" else "yellow")
            if screen is not None:
                problem("")

            def confirmed(ok: bool | None) -> None:
                if not ok:
                    return
                if screen is not None and screen.is_attached:
                    self.ctx.app.call_later(screen.dismiss, None)
                self.ctx.app.call_later(
                    self.start, kind, f"Edit message {view.position} of {queue}",
                    leave_detail=True)

            self.ctx.app.push_screen(
                ConfirmDialog("Replace the message", body, confirm="Replace", danger=True),
                confirmed)

        def failed(exc: BaseException) -> None:
            if isinstance(exc, EditError):
                problem(str(exc), can_force=any(p.level == "error" for p in exc.problems))

        self.prepare(kind, checked, preview=True, what="check the edit", quiet=(EditError,),
                     failed=failed)

    # -- queue attributes --------------------------------------------------------------------
    def set_attributes(self, row: dict[str, Any]) -> None:
        if self._refuse("changing queue attributes"):
            return
        name = row["name"]
        if row.get("type") not in ("local", "model"):
            fields = [Field("put_inhibited", "Put inhibited", "bool", bool(row["put_inhibited"]))]
            if row.get("type") == "alias":
                fields.append(Field("get_inhibited", "Get inhibited", "bool",
                                    bool(row["get_inhibited"])))
        else:
            fields = [
                Field("bothresh", "BOTHRESH (backout threshold; 0 = never)", "int",
                      int(row.get("bothresh") or 0)),
                Field("boqname", "BOQNAME (backout queue; empty = none)", "text",
                      row.get("boqname") or "", self.queue_names(exclude=name)),
                Field("hardenbo", "HARDENBO (harden the backout count)", "bool",
                      bool(row.get("hardenbo"))),
                Field("put_inhibited", "Put inhibited", "bool", bool(row["put_inhibited"])),
                Field("get_inhibited", "Get inhibited", "bool", bool(row["get_inhibited"])),
            ]

        def check(values: dict[str, object]) -> str | None:
            from mqconsole.mq.queue import changes_problem

            # a BOQNAME naming no queue is allowed: warned of when confirming
            return _sentence(changes_problem(name, dict(values)))

        def got(changes: dict[str, object] | None) -> None:
            if not changes:
                return
            body = Text()
            body.append("Change ")
            body.append(clean(name), "bold")
            body.append(":\n")
            for k, v in changes.items():
                body.append(f"  {k.upper()}: {clean(row.get(k))} → {clean(v)}\n")
            if changes.get("bothresh") == 0 and row.get("bothresh"):
                body.append("\nBOTHRESH 0 means a poison message is never moved to the backout "
                            "queue: it is retried for ever.\n", "yellow")
            if changes.get("get_inhibited") or changes.get("put_inhibited"):
                body.append("\nInhibiting stops applications using the queue.\n", "yellow")
            kind = QueueSet(name, dict(changes))
            op = self.ctx.operation(kind)

            def confirm(cautions: list[str]) -> None:
                for caution in cautions:  # as the CLI says them before it asks
                    body.append(f"\nWarning: {clean(caution)}\n", "yellow")
                self.ctx.app.push_screen(
                    ConfirmDialog("Change queue attributes", body, confirm="Change",
                                  danger=True),
                    lambda ok: self.start(kind, f"Attributes of {name}") if ok else None)

            self.ctx.backend(lambda: self.ctx.conns.call(op.cautions), done=confirm,
                             queue=name, what="check the attributes")

        self.ctx.app.push_screen(FormDialog(f"Attributes of {name}", fields, validate=check), got)

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
        body = self._describe(t, clean(action.title))
        body.append(f"\nThis action of the site plugin {clean(registered.plugin)} may change "
                    "them.\n")
        self._confirm(t, clean(action.title), body, danger=True, typed=True, confirm="Run",
                      then=lambda: self.start(kind, title))


MAX_DIFF_LINES = 40
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

"""The console's actions: ask, confirm, run ``ops`` in a worker with progress, show, journal.

Every action on messages works on :class:`Targets` — the marked messages, every message
the filter matches, or the one under the cursor — and goes the same way:

1. ask what is needed (a destination queue, a file, new attribute values);
2. confirm: destructive actions always ask; moving or deleting *every* message of a queue
   asks the operator to type the queue name; a resubmit first computes its plan (a dry
   run) and shows what goes where;
3. run the ``ops`` function on a connection of its own in a thread worker, with a progress
   dialog whose ``escape`` stops at the next unit-of-work boundary;
4. write the result to the journal (``ops.record``) and show what went where, what failed
   and why.

The TUI never writes to a queue manager itself: every change is an ``ops`` call.
Marked messages are selected by MsgId (``ops.Selection``): MsgIds need not be unique, so
when a marked MsgId is also carried by an unmarked message the confirmation says so.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from mqconsole.ops.record import field_changes
from mqconsole.ops.result import Control, OperationResult
from mqconsole.ops.selection import Selection
from mqconsole.ops.views import MessageView
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.keys import is_changing
from mqconsole.tui.requests import LeaveDetail, QueueChanged, QueuesChanged
from mqconsole.tui.safe import clean
from mqconsole.tui.screens.dialogs import (
    ChoiceDialog,
    ConfirmDialog,
    Field,
    FormDialog,
    InputDialog,
    ProgressDialog,
    TextDialog,
    TypeNameDialog,
)

if TYPE_CHECKING:
    from mqconsole.tui.browsing import BrowseModel
    from mqconsole.tui.widgets.message_list import MessageList

PROGRESS_EVERY = 0.1
DUPLICATE_CHECK_LIMIT = 5000  # marks above this are not checked for shared MsgIds


@dataclass
class Targets:
    """The messages an action works on, and how to say which they are."""

    queue: str
    selection: Selection
    label: str  # "3 marked messages", "message 17", ...
    count: int | None = None
    everything: bool = False  # every message of the queue: confirm by typing its name
    notes: list[str] = field(default_factory=list)
    view: MessageView | None = None  # the one message, when there is one

    @classmethod
    def single(cls, queue: str, view: MessageView) -> Targets:
        return cls(queue, Selection(msgids=frozenset([bytes(view.md.msg_id)])),
                   f"message {view.position} (MsgId {view.msgid})", 1, view=view)

    @classmethod
    def from_list(cls, queue: str, lst: MessageList, model: BrowseModel | None
                  ) -> Targets | None:
        if model is None:
            return None
        if lst.all_marked:
            if model.where is not None:
                n = f"{model.count:,} " if model.done else ""
                return cls(queue, Selection(where=model.where, where_text=model.where_text),
                           f"every message matching {model.where_text} ({n}listed"
                           f"{'' if model.done else ' so far'}; messages that match when the "
                           "action runs are included)",
                           model.count if model.done else None)
            return cls(queue, Selection(all=True),
                       f"every message ({model.total_label()})",
                       model.scanned if model.done else None, everything=True)
        if lst.marks:
            ids = frozenset(lst.marks.values())
            t = cls(queue, Selection(msgids=ids), f"{len(lst.marks):,} marked message"
                    f"{'s' if len(lst.marks) != 1 else ''}", len(lst.marks))
            t.notes.extend(duplicate_notes(model, lst.marks))
            return t
        if lst.cursor >= model.count:
            return None
        row = model.row(lst.cursor)
        t = cls(queue, Selection(msgids=frozenset([row.msgid])),
                f"message {row.position} (MsgId {row.msgid_hex})", 1,
                view=model.view(lst.cursor))
        t.notes.extend(duplicate_notes(model, {row.position: row.msgid}))
        return t


def duplicate_notes(model: BrowseModel, marks: dict[int, bytes]) -> list[str]:
    """Say when a selected MsgId is also carried by a message that is not selected."""
    if len(marks) > DUPLICATE_CHECK_LIMIT:
        return ["Messages are selected by MsgId; MsgIds need not be unique, and with this "
                "many marks they were not checked for duplicates."]
    wanted = set(marks.values())
    extra: Counter[bytes] = Counter()
    ids = model.index.msgids
    for i in range(model.count):
        mid = bytes(ids[i * 24:(i + 1) * 24])
        if mid in wanted and model.index.positions[i] not in marks:
            extra[mid] += 1
    notes = []
    if extra:
        n = sum(extra.values())
        notes.append(f"MsgIds need not be unique: {n} other listed message"
                     f"{'s' if n != 1 else ''} carr{'y' if n != 1 else 'ies'} a selected MsgId "
                     "and will be included too.")
    if not model.done:
        notes.append("Messages are selected by MsgId; the queue was not read to its end, so a "
                     "message further on with the same MsgId would be included too.")
    return notes


def result_text(result: OperationResult, *, journal_problem: str | None = None) -> Text:
    """What went where, what failed and why — every name made safe."""
    out = Text()
    verb = {"move": "Moved", "copy": "Copied", "resubmit": "Resubmitted", "delete": "Deleted",
            "edit": "Replaced", "save": "Saved", "load": "Loaded"}.get(result.operation,
                                                                        result.operation)
    if result.dry_run:
        out.append("Dry run — nothing changed.\n", "bold")
    out.append(f"{verb} {result.done:,} of {result.selected:,} message"
               f"{'s' if result.selected != 1 else ''}", "bold")
    if result.source:
        out.append(f" from {clean(result.source)}")
    out.append("\n")
    for dest, n in sorted(result.moved_to.items()):
        out.append(f"  → {clean(dest)}: {n:,}\n")
    if result.failed:
        out.append(f"Failed: {len(result.failed):,} (they stayed where they were)\n", "bold red")
        for f in result.failed[:20]:
            where = f" → {clean(f.destination)}" if f.destination else ""
            detail = f": {clean(f.detail)}" if f.detail else ""
            out.append(f"  #{f.position} {f.msgid[-16:]} {f.reason_name} ({f.reason})"
                       f"{where}{detail}\n")
        if len(result.failed) > 20:
            out.append(f"  … {len(result.failed) - 20:,} more (see the journal)\n")
    if result.skipped:
        out.append(f"Skipped: {result.skipped:,}\n")
    for w in result.warnings:
        out.append(f"Warning: {clean(w)}\n", "yellow")
    if result.backup:
        out.append(f"Saved to {clean(result.backup)}\n")
    if result.cancelled:
        out.append("Stopped by the operator after the unit of work in progress.\n", "bold")
    if result.outcome_unknown:
        out.append("The outcome of the last commit is UNKNOWN: browse the queues to see "
                   "where those messages are.\n", "bold red")
    if journal_problem:
        out.append(f"The journal could not be written: {clean(journal_problem)}\n", "bold red")
    return out


def plan_text(result: OperationResult) -> Text:
    """A dry run's plan, counted by destination."""
    out = Text()
    dests: Counter[str] = Counter()
    for step in result.plan:
        dests[str(step.get("destination") or step.get("action") or "?")] += 1
    for dest, n in dests.most_common(12):
        out.append(f"  → {clean(dest)}: {n:,}\n")
    if len(dests) > 12:
        out.append(f"  … and {len(dests) - 12} more destinations\n")
    for f in result.failed[:10]:
        out.append(f"  ✗ #{f.position} {f.reason_name}: {clean(f.detail)}\n", "red")
    for w in result.warnings:
        out.append(f"Warning: {clean(w)}\n", "yellow")
    return out


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
            self.ctx.app.notify(f"Profile {self.ctx.profile.name} is read-only: {what} is not "
                            "available.", markup=False, severity="warning")
            return True
        return False

    def queue_names(self, *, exclude: str | None = None) -> list[str]:
        return [r["name"] for r in self.ctx.queue_rows if r["name"] != exclude]

    def _check_queue(self, name: str, source: str) -> str | None:
        if not name:
            return "Give a queue name."
        if name == source:
            return f"{name} is the queue the messages are on."
        known = self.queue_names()
        if known and name not in known:
            return f"There is no queue named {name} here."
        return None

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
        if typed:
            self.ctx.app.push_screen(TypeNameDialog(title, body, t.queue),
                                 lambda ok: then() if ok else None)
        else:
            self.ctx.app.push_screen(ConfirmDialog(title, body, confirm=confirm, danger=danger),
                                 lambda ok: then() if ok else None)

    def run(self, title: str, op: Callable[[Any, Control], OperationResult], *,
            queue: str, changed: list[str], details: dict[str, Any] | None = None,
            journal: bool = True, after: Callable[[OperationResult], None] | None = None,
            done_destinations: dict[str, str] | None = None) -> None:
        """Run ``op(qm, control)`` in a worker with a progress dialog, then journal and show."""
        ctx = self.ctx
        control = Control()
        dialog = ProgressDialog(title, control.cancel.set)
        last = [0.0]

        def progress(done: int, total: int | None) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                ctx.post_from_thread(dialog.update_progress, done, total)

        control.progress = progress
        ctx.app.push_screen(dialog)

        def job() -> tuple[OperationResult, str | None]:
            qm = ctx.conns.new()
            try:
                result = op(qm, control)
                qmgr = qm.name
            finally:
                ctx.conns.release(qm)
            problem = None
            if journal:
                try:
                    from mqconsole.ops.journal import Journal
                    from mqconsole.ops.record import record

                    record(Journal(ctx.settings.journal_path), result, qmgr=qmgr,
                           profile=ctx.profile.name, details=details,
                           done_destinations=done_destinations)
                except Exception as exc:  # the change happened: say the journal failed
                    problem = str(exc) or type(exc).__name__
            return result, problem

        def done(out: tuple[OperationResult, str | None]) -> None:
            result, problem = out
            if ctx.app.screen is dialog:
                dialog.dismiss()
            for q in changed:
                ctx.mark_dirty(q)
                ctx.request(QueueChanged(q))
            ctx.request(QueuesChanged())
            if after is not None:
                after(result)
            text = result_text(result, journal_problem=problem)
            bad = bool(result.failed or result.outcome_unknown or problem)
            # after the requests above (one queue of messages): the view left first
            ctx.app.call_later(ctx.app.push_screen, TextDialog(title, text, danger=bad))

        def failed(exc: BaseException) -> None:
            if ctx.app.screen is dialog:
                dialog.dismiss()

        ctx.backend(job, done=done, failed=failed, queue=queue, what=title)

    # -- the menu ----------------------------------------------------------------------------
    def menu(self, screen: Any, t: Targets) -> None:
        """The actions for ``t`` (a read-only profile lists no changing one)."""
        commands = [c for c in screen.commands()
                    if c.action in ("move", "copy", "resubmit", "delete", "edit",
                                    "edit_external", "save", "copy_msgid", "copy_payload",
                                    "load")
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

        def got_dest(dest: str | None) -> None:
            if not dest:
                return
            body = self._describe(t, verb, f" to {clean(dest)}")
            body.append("\nEach message keeps its context (put time, user, application); each "
                        "get and put happen in one unit of work.\n")

            def go() -> None:
                from mqconsole.ops.transfer import transfer

                self.run(f"{verb} {t.queue} → {dest}",
                         lambda qm, c: transfer(qm, t.queue, dest, t.selection, copy=copy,
                                                control=c),
                         queue=t.queue, changed=[t.queue, dest],
                         details={"selection": t.selection.describe(), "tui": True})

            self._confirm(t, f"{verb} messages", body, then=go, danger=not copy,
                          typed=t.everything and not copy, confirm=verb)

        self.ctx.app.push_screen(InputDialog(
            f"{verb} to which queue?", Text(f"{verb} {clean(t.label)} of {clean(t.queue)} to:"),
            suggestions=self.queue_names(exclude=t.queue), placeholder="QUEUE.NAME",
            validate=lambda v: self._check_queue(v, t.queue)), got_dest)

    # -- resubmit ----------------------------------------------------------------------------
    def resubmit(self, t: Targets, to: str | None = None) -> None:
        if self._refuse("resubmit"):
            return
        ctx = self.ctx
        destinations: dict[str, str] = {}

        def plan() -> OperationResult:
            from mqconsole.ops.resubmit import resubmit

            qm = ctx.conns.new()
            try:
                return resubmit(qm, t.queue, t.selection, to=to, dry_run=True)
            finally:
                ctx.conns.release(qm)

        def planned(result: OperationResult) -> None:
            body = self._describe(t, "Resubmit", " back where each message was going")
            body.append("\nDead-letter headers are removed; context is kept.\n")
            if to:
                body.append(f"Messages without a dead-letter header go to {clean(to)}.\n")
            body.append("\nPlan:\n", "bold")
            body.append_text(plan_text(result))

            def go() -> None:
                from mqconsole.ops.resubmit import resubmit

                self.run(f"Resubmit from {t.queue}",
                         lambda qm, c: resubmit(qm, t.queue, t.selection, to=to, control=c,
                                                done_destinations=destinations),
                         queue=t.queue,
                         changed=[t.queue, *{str(s.get("destination")) for s in result.plan}],
                         details={"selection": t.selection.describe(), "to": to, "tui": True},
                         done_destinations=destinations)

            self._confirm(t, "Resubmit messages", body, then=go, danger=True, typed=False,
                          confirm="Resubmit")

        def failed(exc: BaseException) -> None:
            from mqconsole.ops.resubmit import OriginError

            if isinstance(exc, OriginError):
                options = [(q, Text(q)) for q in exc.candidates] or \
                          [(q, Text(q)) for q in self.queue_names(exclude=t.queue)]
                ctx.app.push_screen(ChoiceDialog(
                    "Back to which queue?", options,
                    note=Text(clean(str(exc)).replace(" with --to QUEUE", ""))),
                    lambda q: self.resubmit(t, to=q) if q else None)

        from mqconsole.ops.resubmit import OriginError

        ctx.backend(plan, done=planned, failed=failed, queue=t.queue, what="resubmit plan",
                    quiet=(OriginError,))

    # -- delete ------------------------------------------------------------------------------
    def delete(self, t: Targets) -> None:
        if self._refuse("delete"):
            return
        folder = self.ctx.settings.backup_dir
        body = self._describe(t, "Delete")
        body.append("\nThey are saved to a backup file first (")
        body.append(clean(str(folder)) if folder else "the backups folder of the state "
                                                      "directory")
        body.append("); only messages saved there are removed.\n")

        def go() -> None:
            from mqconsole.ops.delete import delete_messages

            self.run(f"Delete from {t.queue}",
                     lambda qm, c: delete_messages(qm, t.queue, t.selection, backup_dir=folder,
                                                   control=c),
                     queue=t.queue, changed=[t.queue],
                     details={"selection": t.selection.describe(), "tui": True},
                     after=self._leave_detail(t))

        self._confirm(t, "Delete messages", body, then=go, danger=True, typed=t.everything,
                      confirm="Delete")

    def _leave_detail(self, t: Targets) -> Callable[[OperationResult], None]:
        def after(result: OperationResult) -> None:
            if result.done and t.view is not None:
                self.ctx.request(LeaveDetail())
        return after

    # -- save and load -----------------------------------------------------------------------
    def default_save_path(self, queue: str) -> str:
        folder = self.ctx.settings.save_dir or Path.cwd()
        qmgr = self.ctx.qmgr_info.name if self.ctx.qmgr_info is not None else "QM"
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        return str(Path(folder) / f"{qmgr}-{queue}-{stamp}.dmp")

    def save(self, t: Targets) -> None:
        def check(path: str) -> str | None:
            if not path:
                return "Give a file name."
            p = Path(path).expanduser()
            if p.exists():
                return f"{path} exists: choose another name (files are never overwritten)."
            if not p.parent.is_dir():
                return f"There is no folder {p.parent}."
            return None

        def got(path: str | None) -> None:
            if not path:
                return
            target = str(Path(path).expanduser())

            def op(qm: Any, c: Control) -> OperationResult:
                from mqconsole.ops.savefile import save_queue

                return save_queue(qm, t.queue, target, t.selection, control=c)

            self.run(f"Save {t.queue}", op, queue=t.queue, changed=[],
                     details={"selection": t.selection.describe(), "file": target,
                              "tui": True})

        self.ctx.app.push_screen(InputDialog(
            "Save to a file", Text(f"Save {clean(t.label)} of {clean(t.queue)} "
                                   "(dmpmqmsg format) to:"),
            value=self.default_save_path(t.queue), validate=check), got)

    def load(self, queue: str) -> None:
        if self._refuse("load"):
            return
        ctx = self.ctx

        def check(path: str) -> str | None:
            if not path:
                return "Give a file name."
            if not Path(path).expanduser().is_file():
                return f"There is no file {path}."
            return None

        def got(path: str | None) -> None:
            if not path:
                return
            source = str(Path(path).expanduser())

            def inspect():
                from mqconsole.ops.savefile import check_file

                return check_file(source)

            def inspected(info) -> None:
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

                def go() -> None:
                    from mqconsole.ops.savefile import load_to_queue

                    self.run(f"Load into {queue}",
                             lambda qm, c: load_to_queue(qm, source, queue, control=c),
                             queue=queue, changed=[queue],
                             details={"file": source, "tui": True})

                ctx.app.push_screen(ConfirmDialog("Load messages", body, confirm="Load"),
                                lambda ok: go() if ok else None)

            ctx.backend(inspect, done=inspected, queue=queue, what="read file")

        ctx.app.push_screen(InputDialog("Load from a file",
                                    Text(f"Put the messages of a dmpmqmsg file on "
                                         f"{clean(queue)}. File:"),
                                    value=str(self.ctx.settings.save_dir or Path.cwd()) + os.sep,
                                    validate=check), got)

    # -- edit --------------------------------------------------------------------------------
    def edit(self, queue: str, view: MessageView, *, external: bool = False) -> None:
        if self._refuse("edit"):
            return
        from mqconsole.tui.screens.edit import EditScreen, editable_text

        text, kind = editable_text(view)
        if external:
            self._edit_external(queue, view, text, kind)
            return
        self.ctx.app.push_screen(EditScreen(self.ctx, queue, view, text, kind),
                             lambda r: self.apply_edit(queue, view, r) if r else None)

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
        if new == text:
            ctx.app.notify("The payload was not changed.", markup=False)
            return
        self.apply_edit(queue, view, {"payload": new, "kind": kind, "changes": {}})

    def apply_edit(self, queue: str, view: MessageView, edit: dict[str, Any]) -> None:
        """Validate (a dry run of the edit), confirm with the problems found, then replace."""
        ctx = self.ctx
        kind = edit["kind"]
        payload = edit["payload"]
        changes = edit.get("changes") or {}
        kw: dict[str, Any] = {}
        from mqconsole.tui.screens.edit import editable_text

        if payload == editable_text(view)[0]:
            pass  # only MQMD fields changed: the body stays as it is
        elif kind == "hex":
            try:
                kw["body"] = bytes.fromhex("".join(payload.split()))
            except ValueError:
                ctx.app.notify("The payload is not valid hexadecimal: nothing changed.",
                           markup=False, severity="error")
                return
        else:
            kw["text"] = payload
        msg_id = bytes(view.md.msg_id)

        def check():
            from mqconsole.ops.edit import edit_message

            qm = ctx.conns.new()
            try:
                return edit_message(qm, queue, msg_id, changes=changes, position=view.position,
                                    keep_headers=True, dry_run=True, **kw)
            finally:
                ctx.conns.release(qm)

        def checked(outcome) -> None:
            body = Text()
            body.append(f"Replace message {view.position} (MsgId {view.msgid}) of "
                        f"{clean(queue)} with the edited version.\n")
            if changes:
                body.append("MQMD: " + ", ".join(f"{k} → {clean(v)}" for k, v in changes.items())
                            + "\n")
            body.append("The MsgId and context are kept; the put of the new message and the "
                        "get of the original happen in one unit of work.\n")
            for p in outcome.problems:
                body.append(f"{p.level}: {clean(p.text)}\n",
                            "red" if p.level == "error" else "yellow")

            def go() -> None:
                from mqconsole.ops.edit import edit_message
                from mqconsole.ops.record import edit_details

                details: dict[str, Any] = {"position": view.position, "tui": True}

                def op(qm: Any, c: Control) -> OperationResult:
                    out = edit_message(qm, queue, msg_id, changes=changes,
                                       position=view.position, keep_headers=True, **kw)
                    # (the journal is written after op returns: the same details as the CLI's)
                    details.update(edit_details(out, changes), tui=True)
                    return out.result

                self.run(f"Edit message {view.position} of {queue}", op, queue=queue,
                         changed=[queue], details=details,
                         after=lambda r: ctx.request(LeaveDetail()) if r.done else None)

            ctx.app.push_screen(ConfirmDialog("Replace the message", body, confirm="Replace",
                                          danger=True), lambda ok: go() if ok else None)

        ctx.backend(check, done=checked, queue=queue, what="check the edit")

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
            bothresh = values.get("bothresh")
            if isinstance(bothresh, int) and not 0 <= bothresh <= 999_999_999:
                return "BOTHRESH must be 0 to 999999999."
            boq = values.get("boqname")
            if isinstance(boq, str) and boq:
                if boq == name:
                    return "A queue cannot be its own backout queue."
                known = self.queue_names()
                if known and boq not in known:
                    return f"There is no queue named {boq} here."
            return None

        def got(changes: dict[str, object] | None) -> None:
            if not changes:
                return
            body = Text()
            body.append("Change ")
            body.append(clean(name), "bold")
            body.append(":\n")
            for k, v in changes.items():
                before = row.get(k)
                body.append(f"  {k.upper()}: {clean(before)} → {clean(v)}\n")
            if changes.get("bothresh") == 0 and row.get("bothresh"):
                body.append("\nBOTHRESH 0 means a poison message is never moved to the backout "
                            "queue: it is retried for ever.\n", "yellow")
            if changes.get("get_inhibited") or changes.get("put_inhibited"):
                body.append("\nInhibiting stops applications using the queue.\n", "yellow")

            def go() -> None:
                self._apply_attributes(name, changes)

            self.ctx.app.push_screen(ConfirmDialog("Change queue attributes", body,
                                                   confirm="Change", danger=True),
                                     lambda ok: go() if ok else None)

        self.ctx.app.push_screen(FormDialog(f"Attributes of {name}", fields, validate=check), got)

    def _apply_attributes(self, name: str, changes: dict[str, object]) -> None:
        ctx = self.ctx

        def job():
            from mqconsole.ops.queues import set_queue

            before, after = ctx.conns.call(lambda qm: set_queue(qm, name, **changes))
            qmgr = ctx.qmgr_info.name if ctx.qmgr_info is not None else None
            problem = None
            try:
                from mqconsole.ops.journal import Journal
                from mqconsole.ops.record import queue_set_entry

                Journal(ctx.settings.journal_path).append(queue_set_entry(
                    qmgr=qmgr, profile=ctx.profile.name, queue=name, before=before,
                    after=after, keys=changes, details={"tui": True}))
            except Exception as exc:
                problem = str(exc) or type(exc).__name__
            return before, after, problem

        def done(out) -> None:
            before, after, problem = out
            parts = [f"{k.upper()} {v['before']} → {v['after']}"
                     for k, v in field_changes(before, after, changes).items()]
            ctx.app.notify(f"{name}: " + ", ".join(parts), title="Queue changed", markup=False)
            if problem:
                ctx.app.notify(f"The journal could not be written: {problem}", markup=False,
                           severity="error")
            ctx.request(QueuesChanged())

        ctx.backend(job, done=done, queue=name, what="set queue attributes")


__all__ = ["ActionRunner", "Targets", "duplicate_notes", "plan_text", "result_text"]


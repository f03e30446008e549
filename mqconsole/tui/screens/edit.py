"""Editing one message: the payload in a ``TextArea`` (or hex) and a few MQMD fields.

The payload is edited as text when it decodes cleanly and holds no control characters
(else as hex, so no byte is lost to an escape). ``ctrl+o`` checks (``submit``: the actions
validate and preview the edit) while the editor stays open: a failed check is shown here,
with ``ctrl+f`` to apply anyway, and nothing typed is lost; the confirmation that follows
shows the difference and the byte counts. ``escape`` with changes asks before leaving.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NotRequired, TypedDict

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from mqconsole.mq.payload import kind_of, safe_text
from mqconsole.ops.views import MessageView
from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.safe import clean
from mqconsole.tui.screens.dialogs import ConfirmDialog
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.payload import PayloadView

FIELDS = [("format", "Format", 8), ("priority", "Priority", 3), ("persistence", "Persist", 2),
          ("expiry", "Expiry", 10), ("reply_to_q", "ReplyToQ", 48)]
INT_FIELDS = {"priority", "persistence", "expiry"}


def editable_text(view: MessageView) -> tuple[str, str]:
    """(text to edit, kind): ``json``/``xml``/``text`` when the payload is clean text, else
    ``hex`` (16 bytes a line)."""
    text = view.text
    if text is not None and safe_text(text) == text and "\r" not in text:
        try:
            kind = kind_of(view.payload, view.payload_format.ljust(8), text)
        except Exception:
            kind = "text"
        return text, kind if kind in ("json", "xml") else "text"
    data = view.payload
    lines = [data[i:i + 16].hex(" ") for i in range(0, len(data), 16)]
    return "\n".join(lines), "hex"


def md_value(view: MessageView, attr: str) -> str:
    value = getattr(view.md, attr)
    return str(value).rstrip(" \x00") if isinstance(value, str) else str(value)


class EditRequest(TypedDict):
    """An edit to apply: the payload as typed (text, or hexadecimal for ``kind`` hex) and
    the MQMD fields changed; ``force`` applies it despite a failed check."""

    payload: str
    kind: str
    changes: dict[str, object]
    force: NotRequired[bool]


class EditScreen(Screen):
    HELP_NAME = "edit"
    BINDINGS = K.bindings([K.EDIT_APPLY, K.EDIT_FORCE, K.EDIT_CANCEL])

    def __init__(self, ctx: ConsoleContext, queue: str, view: MessageView, text: str,
                 kind: str, submit: Callable[[EditScreen, EditRequest], None] | None = None
                 ) -> None:
        super().__init__()
        self.ctx = ctx
        self.queue = queue
        self.view = view
        self.text = text
        self.kind = kind
        self.submit = submit  # None: dismissed with the edit (the caller checks it)
        self.can_force = False  # a check failed: ctrl+f applies anyway

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, f"edit {self.queue} #{self.view.position}")
        how = "hexadecimal (the payload is not plain text)" if self.kind == "hex" else self.kind
        yield Static(Text(f"Editing the payload as {how}; headers (dead-letter header, RFH2) "
                          "are kept. ctrl+o: check and apply · escape: cancel"), id="note")
        with Horizontal(id="fields"):
            for attr, label, _ in FIELDS:
                yield Label(Text(label))
                yield Input(md_value(self.view, attr), id=f"md-{attr}", classes=f"f-{attr}")
        yield Label(Text(""), id="problem")
        yield PayloadView(self.text, kind=self.kind if self.kind != "hex" else "text",
                          read_only=False, id="payload")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#payload", PayloadView).focus()

    def changes(self) -> dict[str, object] | str:
        out: dict[str, object] = {}
        for attr, label, width in FIELDS:
            raw = self.query_one(f"#md-{attr}", Input).value.strip()
            if raw == md_value(self.view, attr):
                continue
            if attr in INT_FIELDS:
                try:
                    out[attr] = int(raw)
                except ValueError:
                    return f"{label} must be a whole number"
            else:
                if len(raw) > width:
                    return f"{label} is at most {width} characters"
                out[attr] = raw
        return out

    def edit(self, *, force: bool = False) -> EditRequest | str:
        """The edit as typed, or a sentence saying what is wrong with it."""
        changes = self.changes()
        if isinstance(changes, str):
            return changes
        payload = self.query_one("#payload", PayloadView).text
        if payload == self.text and not changes:
            return "Nothing was changed."
        return {"payload": payload, "kind": self.kind, "changes": changes, "force": force}

    def changed(self) -> bool:
        changes = self.changes()
        return bool(changes) or self.query_one("#payload", PayloadView).text != self.text

    def action_apply(self, force: bool = False) -> None:
        edit = self.edit(force=force)
        if isinstance(edit, str):
            self.show_problem(edit)
            return
        if self.submit is None:
            self.dismiss(edit)
            return
        self.show_problem("checking…")
        self.submit(self, edit)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.can_force if action == "force" else True

    def action_force(self) -> None:
        if self.can_force:
            self.action_apply(force=True)

    def show_problem(self, text: str, *, can_force: bool = False) -> None:
        """A problem with the edit, shown above the payload; the editor stays as it is."""
        self.can_force = can_force
        self.refresh_bindings()  # ctrl+f is in the footer only while it can be used
        line = Text(clean(text))
        if can_force:  # on a line of its own: the reason above wraps, never cut
            line.append("\nctrl+f: apply anyway (the original is saved to a backup first)",
                        "bold")
        self.query_one("#problem", Label).update(line)

    def action_cancel(self) -> None:
        if not self.changed():
            self.dismiss(None)
            return
        self.app.push_screen(
            ConfirmDialog("Leave the editor?", Text("The changes you made to this message are "
                                                    "lost; the message stays as it is."),
                          confirm="Discard", danger=True),
            self._leave_if)

    def _leave_if(self, ok: bool | None) -> None:
        if ok:
            self.app.call_later(self.dismiss, None)


__all__ = ["EditRequest", "EditScreen", "editable_text"]

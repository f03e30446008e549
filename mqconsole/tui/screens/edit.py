"""Editing one message: the payload in a ``TextArea`` (or hex) and a few MQMD fields.

The payload is edited as text when it decodes cleanly and holds no control characters
(else as hex, so no byte is lost to an escape). ``ctrl+o`` checks and applies (through
``ops.edit``, after a confirmation listing what the checks found); ``escape`` leaves without
changing anything.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static

from mqconsole.mq.payload import kind_of, safe_text
from mqconsole.ops.views import MessageView
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.safe import clean
from mqconsole.tui.widgets.banner import Banner
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


class EditScreen(Screen):
    HELP_NAME = "edit"
    BINDINGS = [Binding("ctrl+o", "apply", "Check and apply", id="edit_apply"),
                Binding("escape", "cancel", "Cancel", id="edit_cancel")]
    DEFAULT_CSS = """
    EditScreen #fields { height: 2; }
    EditScreen #fields Label { width: auto; padding: 0 1 0 0; }
    EditScreen #fields Input { width: 1fr; height: 1; border: none; padding: 0; }
    EditScreen #fields .f-format { max-width: 10; }
    EditScreen #fields .f-priority, EditScreen #fields .f-persistence { max-width: 4; }
    EditScreen #fields .f-expiry { max-width: 12; }
    EditScreen #note { height: auto; padding: 0 1; color: $text-muted; }
    EditScreen #problem { height: auto; padding: 0 1; color: $error; }
    EditScreen PayloadView { border: round $primary; }
    """

    def __init__(self, ctx: ConsoleContext, queue: str, view: MessageView, text: str,
                 kind: str) -> None:
        super().__init__()
        self.ctx = ctx
        self.queue = queue
        self.view = view
        self.text = text
        self.kind = kind

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

    def action_apply(self) -> None:
        changes = self.changes()
        if isinstance(changes, str):
            self.query_one("#problem", Label).update(Text(clean(changes)))
            return
        payload = self.query_one("#payload", PayloadView).text
        if payload == self.text and not changes:
            self.query_one("#problem", Label).update(Text("Nothing was changed."))
            return
        self.dismiss({"payload": payload, "kind": self.kind, "changes": changes})

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["EditScreen", "editable_text"]

"""Modal dialogs: confirm, confirm by typing a name, ask for a value, choose, read a text.

Every label is a ``Text`` built by the caller (names from the queue manager pass through
``safe``); nothing here parses markup. Each dialog closes with ``escape`` (cancel) and is
driven by the keyboard alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import Suggester, SuggestFromList
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    Static,
)
from textual.widgets.option_list import Option

from mqconsole.tui import keys as K


def said_cancelled(dialog: Dialog) -> None:
    """A confirmation answered no (Enter on Cancel, n, escape) says so."""
    dialog.app.notify(f"{dialog.title_text.plain}: cancelled, nothing was done.",
                      markup=False, timeout=4)


class Tick(Checkbox, inherit_bindings=False):
    """A checkbox whose state is a mark, not a colour: ``X`` when on, blank when off
    (Textual's draws an X either way and tells them apart by colour, which NO_COLOR and
    monochrome terminals lose). ``space`` ticks it; ``enter`` is the form's OK, as its hint
    says (Textual's checkbox took enter as a toggle too)."""

    BINDINGS = K.binding(K.DIALOG_TOGGLE)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.BUTTON_INNER = "X" if self.value else " "  # (Textual's public mark)

    def watch_value(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        super().watch_value()


class Dialog(ModalScreen):
    """A modal dialog; its styles are in ``tui/styles/dialogs.tcss``."""

    BINDINGS = K.binding(K.DIALOG_CANCEL)

    def __init__(self, title: Text | str) -> None:
        super().__init__()
        self.title_text = Text(title) if isinstance(title, str) else title  # never markup

    def heading(self, note: Text | None = None) -> ComposeResult:
        """The title, and a note under it when there is one."""
        yield Label(self.title_text, classes="title")
        if note is not None:
            yield Static(note)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ContextChoice:
    """Which context the messages are put with (the CLI's ``--context``), chosen in a
    confirmation: ``contexts`` are (id, label) pairs, the first one chosen at first;
    ``context`` is the id chosen (the dialog's result stays yes or no)."""

    contexts: Sequence[tuple[str, str]] = ()
    context: str | None = None

    def context_widgets(self) -> ComposeResult:
        if not self.contexts:
            return
        yield Label(Text("Put them with which context? (tab, then arrows and space)"))
        with RadioSet(id="context"):
            for i, (cid, label) in enumerate(self.contexts):
                yield RadioButton(Text(label), value=i == 0, id=f"ctx-{cid}")

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        pressed = event.pressed.id or ""
        self.context = pressed.removeprefix("ctx-")


class ConfirmDialog(ContextChoice, Dialog):
    """Yes or no. ``y`` (or the confirm button) says yes; ``n``/``escape`` says no.
    ``contexts``: the context is chosen here too (:class:`ContextChoice`)."""

    BINDINGS = K.bindings([K.DIALOG_YES, K.DIALOG_NO])

    def __init__(self, title: Text | str, body: Text, *, confirm: str = "Yes",
                 danger: bool = False, contexts: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(title)
        self.body = body
        self.confirm_label = confirm
        self.danger = danger
        self.contexts = contexts
        self.context = contexts[0][0] if contexts else None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog" + (" -danger" if self.danger else "")
                      + (" -context" if self.contexts else "")):
            yield Label(self.title_text, classes="title")
            with VerticalScroll(classes="body"):
                yield Static(self.body)
            yield from self.context_widgets()
            yield Label(Text("y: yes   n / escape: no"), classes="hint")
            with Horizontal():
                yield Button(Text(self.confirm_label), id="yes",
                             variant="error" if self.danger else "primary")
                yield Button(Text("Cancel"), id="no")

    def on_mount(self) -> None:
        self.query_one("#no" if self.danger else "#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "yes":
            self.dismiss(True)
        else:
            self.action_cancel()

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        said_cancelled(self)
        self.dismiss(False)


class TypeNameDialog(ContextChoice, Dialog):
    """Confirm by typing ``name`` exactly (for "everything on the queue"). ``contexts``:
    the context is chosen here too (:class:`ContextChoice`)."""

    def __init__(self, title: Text | str, body: Text, name: str, *,
                 contexts: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(title)
        self.body = body
        self.expected = name
        self.contexts = contexts
        self.context = contexts[0][0] if contexts else None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -danger" + (" -context" if self.contexts else "")):
            yield Label(self.title_text, classes="title")
            with VerticalScroll(classes="body"):
                yield Static(self.body)
            yield from self.context_widgets()
            yield Label(Text.assemble("Type the queue name ", (self.expected, "bold"),
                                      " to confirm:"))
            yield Input(placeholder=self.expected, id="name")
            yield Label(Text(""), id="problem", classes="error")
            yield Label(Text("enter: confirm   escape: cancel"), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value == self.expected:
            self.dismiss(True)
        else:
            self.query_one("#problem", Label).update(
                Text("That is not the queue name; nothing was done."))

    def action_cancel(self) -> None:
        said_cancelled(self)
        self.dismiss(False)


MAX_PICKS = 200  # choices listed under the input at once (typing narrows them)


class InputDialog(Dialog):
    """Ask for one value; ``validate`` returns a problem sentence or None.

    ``choices`` (value, label) are also listed under the input, narrowed as it is typed
    (names starting with the text first, then names holding it): ``down`` goes into the
    list and ``enter`` there takes one. ``suggester`` completes the input instead of
    ``suggestions`` (a file path: :class:`~mqconsole.tui.widgets.paths.PathSuggester`)."""

    def __init__(self, title: Text | str, prompt: Text | str, *, value: str = "",
                 suggestions: Iterable[str] = (), placeholder: str = "",
                 validate: Callable[[str], str | None] | None = None,
                 choices: Sequence[tuple[str, Text | str]] = (),
                 suggester: Suggester | None = None) -> None:
        super().__init__(title)
        self.prompt = Text(prompt) if isinstance(prompt, str) else prompt
        self.value = value
        self.suggestions = list(suggestions)
        self.placeholder = placeholder
        self.validate = validate
        self.choices = list(choices)
        self.suggester = suggester

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="title")
            yield Static(self.prompt)
            suggester = self.suggester or (
                SuggestFromList(self.suggestions, case_sensitive=False)
                if self.suggestions else None)
            yield Input(value=self.value, placeholder=self.placeholder, suggester=suggester,
                        id="value")
            if self.choices:
                yield OptionList(*self._picks(self.value), id="picks")
            yield Label(Text(""), id="problem", classes="error")
            yield Label(Text("enter: OK   right: complete   "
                             + ("down: pick from the list   " if self.choices else "")
                             + "escape: cancel"), classes="hint")

    def _picks(self, typed: str) -> list[Option]:
        text = typed.strip().upper()
        first = [c for c in self.choices if c[0].upper().startswith(text)]
        then = [c for c in self.choices if text and text in c[0].upper()
                and not c[0].upper().startswith(text)]
        return [Option(Text(label) if isinstance(label, str) else label, id=value)
                for value, label in (first + then)[:MAX_PICKS]]

    def on_mount(self) -> None:
        self.query_one("#value", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if self.choices and event.input.id == "value":
            picks = self.query_one("#picks", OptionList)
            picks.clear_options()
            picks.add_options(self._picks(event.value))

    def on_key(self, event: events.Key) -> None:
        if (event.key == "down" and self.choices and self.focused is not None
                and self.focused.id == "value"):
            picks = self.query_one("#picks", OptionList)
            if picks.option_count:
                event.stop()
                picks.focus()
                picks.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "picks" and event.option.id is not None:
            event.stop()
            self.query_one("#value", Input).value = event.option.id
            self._submit(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._submit(event.value.strip())

    def _submit(self, value: str) -> None:
        problem = self.validate(value) if self.validate is not None else None
        if problem:
            self.query_one("#problem", Label).update(Text(problem))
            return
        self.dismiss(value)


class PasswordDialog(Dialog):
    """Ask for a queue manager's password (a profile with ``password_prompt: true``): typed
    hidden, never kept by the dialog; ``escape`` declines (None)."""

    def __init__(self, prompt: str) -> None:
        super().__init__("Password")
        self.prompt = Text(prompt.strip())

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="title")
            yield Static(self.prompt)
            yield Input(password=True, id="password")
            yield Label(Text("enter: connect   escape: cancel"), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#password", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)


def ask_password_from_thread(app: App[object]) -> Callable[[str], str | None]:
    """An ``ask_password`` for a backend opened in a thread worker: the dialog is shown on
    the event loop and the thread waits for the answer (None: escape, or the console
    closing)."""

    def ask(prompt: str) -> str | None:
        answer: Future[str | None] = Future()

        def show() -> None:
            app.push_screen(PasswordDialog(prompt), answer.set_result)

        app.call_from_thread(show)
        while True:
            try:
                return answer.result(timeout=1.0)
            except TimeoutError:
                if not app.is_running:  # the console closed with the dialog open
                    return None

    return ask


@dataclass
class Field:
    key: str
    label: str
    kind: str = "text"  # text | int | bool
    value: object = ""
    suggestions: Sequence[str] = ()


class FormDialog(Dialog):
    """Several values at once; returns ``{key: value}`` of the fields the operator changed."""

    BINDINGS = K.binding(K.DIALOG_SUBMIT)

    def __init__(self, title: Text | str, fields: list[Field], *,
                 validate: Callable[[dict[str, object]], str | None] | None = None,
                 note: Text | None = None) -> None:
        super().__init__(title)
        self.fields = fields
        self.validate = validate
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield from self.heading(self.note)
            # the fields scroll when the terminal is short (80x24): the problem and the key
            # hints under them stay on screen
            with VerticalScroll(classes="fields"):
                for f in self.fields:
                    if f.kind == "bool":
                        yield Tick(Text(f.label), bool(f.value), id=f"f_{f.key}")
                    else:
                        yield Label(Text(f.label))
                        suggester = (SuggestFromList(list(f.suggestions),
                                                     case_sensitive=False)
                                     if f.suggestions else None)
                        yield Input(value=str(f.value), id=f"f_{f.key}", suggester=suggester,
                                    type="integer" if f.kind == "int" else "text")
            yield Label(Text(""), id="problem", classes="error")
            yield Label(Text("tab: next field   enter / ctrl+o: OK   escape: cancel"),
                        classes="hint")

    def values(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for f in self.fields:
            widget = self.query_one(f"#f_{f.key}")
            if isinstance(widget, Checkbox):
                out[f.key] = widget.value
            elif isinstance(widget, Input):
                raw = widget.value.strip()
                out[f.key] = int(raw) if f.kind == "int" and raw.lstrip("-").isdigit() else raw
        return out

    def action_submit(self) -> None:
        values = self.values()
        for f in self.fields:
            if f.kind == "int" and not isinstance(values[f.key], int):
                self.query_one("#problem", Label).update(Text(f"{f.label}: a whole number"))
                return
        problem = self.validate(values) if self.validate is not None else None
        if problem:
            self.query_one("#problem", Label).update(Text(problem))
            return
        changed = {f.key: values[f.key] for f in self.fields if values[f.key] != f.value}
        self.dismiss(changed)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()


class ChoiceDialog(Dialog):
    """Pick one of ``options`` (id, label); returns the id."""

    def __init__(self, title: Text | str, options: Sequence[tuple[str, Text | str]], *,
                 note: Text | None = None) -> None:
        super().__init__(title)
        self.options = options
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield from self.heading(self.note)
            yield OptionList(*[Option(Text(label) if isinstance(label, str) else label, id=oid)
                               for oid, label in self.options], id="choices")
            yield Label(Text("enter: choose   escape: cancel"), classes="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class TextDialog(Dialog):
    """A block of text (a result, a queue's attributes, a journal entry) to read and close."""

    BINDINGS = K.binding(K.DIALOG_CLOSE)

    def __init__(self, title: Text | str, body: Text, *, danger: bool = False) -> None:
        super().__init__(title)
        self.body = body
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog" + (" -danger" if self.danger else "")):
            yield Label(self.title_text, classes="title")
            with VerticalScroll(classes="body", id="text-body"):
                yield Static(self.body, id="text")
            yield Label(Text("enter / escape: close"), classes="hint")

    def on_mount(self) -> None:
        self.query_one("#text-body").focus()


__all__ = ["ChoiceDialog", "ConfirmDialog", "Field", "FormDialog", "InputDialog",
           "TextDialog", "TypeNameDialog"]

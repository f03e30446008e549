"""The ``/`` line at the bottom of a list: type a filter, ``enter`` applies, ``escape`` leaves."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label

from mqconsole.tui import keys as K


class FilterBar(Vertical):
    """The filter's line; a problem with the filter wraps on the lines below it (at 80
    columns a long sentence is read whole, never cut)."""

    BINDINGS = K.binding(K.FILTER_CLOSE)

    class Changed(Message):
        def __init__(self, value: str, submitted: bool) -> None:
            super().__init__()
            self.value = value
            self.submitted = submitted

    def __init__(self, prompt: str, *, placeholder: str = "", live: bool = False,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.prompt = prompt
        self.placeholder = placeholder
        self.live = live
        self.value = ""

    def compose(self) -> ComposeResult:
        with Horizontal(id="filter-row"):
            yield Label(Text(self.prompt))
            yield Input(placeholder=self.placeholder, id="filter-input")
        yield Label(Text(""), classes="error -empty", id="filter-error")

    def open(self) -> None:
        self.add_class("-open")
        inp = self.query_one(Input)
        inp.value = self.value
        inp.focus()

    def action_close(self) -> None:
        self.remove_class("-open")
        self.show_error("")
        self.post_message(self.Changed(self.value, submitted=False))

    def show_error(self, problem: str) -> None:
        label = self.query_one("#filter-error", Label)
        label.update(Text(problem))
        label.set_class(not problem, "-empty")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.live:
            self.value = event.value
            self.post_message(self.Changed(event.value, submitted=False))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.value = event.value.strip()
        self.post_message(self.Changed(self.value, submitted=True))

    def close_quietly(self) -> None:
        self.remove_class("-open")
        self.show_error("")


__all__ = ["FilterBar"]

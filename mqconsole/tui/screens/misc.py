"""Small screens: the keys of a screen (``?``), the profile chooser, "terminal too small"."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label, OptionList, Static
from textual.widgets.option_list import Option

from mqconsole.tui import keys as K
from mqconsole.tui.context import MIN_HEIGHT, MIN_WIDTH, ProfileInfo
from mqconsole.tui.requests import CheckSize
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.widgets.lists import ListTable


class HelpDialog(ModalScreen):
    """The bindings of the screen below: key, what it does, and the id to remap it by."""

    BINDINGS = K.binding(K.HELP_CLOSE)

    def __init__(self, rows: Sequence[tuple[str, str, str]], title: str) -> None:
        super().__init__()
        self.rows = rows
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(txt(self.title_text), classes="title")
            yield ListTable(id="keys", cursor_type="row", zebra_stripes=True)
            yield Label(Text("Remap a key with keymap: {id: key} in the config · escape: close"),
                        classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(Text("KEY"), Text("ACTION"), Text("ID"))
        for key, description, binding_id in self.rows:
            table.add_row(txt(key, "bold"), txt(description), txt(binding_id, "dim"))
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)


class ProfileScreen(Screen):
    """Choose a profile when the config names several queue managers."""
    HELP_NAME = "profile"

    BINDINGS = K.binding(K.PROFILES_BACK)

    def __init__(self, profiles: Sequence[ProfileInfo], *, can_leave: bool) -> None:
        super().__init__()
        self.profiles = list(profiles)
        self.can_leave = can_leave

    def compose(self) -> ComposeResult:
        with Center(), Vertical(id="box"):
            yield Label(Text("Choose a profile", style="bold"))
            options = []
            for p in self.profiles:
                line = Text(clean(p.name), style="bold")
                if p.environment:
                    line.append(f"  {clean(p.environment)}",
                                "bold red" if p.environment == "production" else "")
                if p.read_only:
                    line.append("  read-only", "italic")
                if p.description:
                    line.append(f"  {clean(p.description)}", "dim")
                options.append(Option(line, id=p.name))
            yield OptionList(*options)
            yield Label(Text("enter: open · q: quit"), classes="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = next(p for p in self.profiles if p.name == event.option.id)
        self.dismiss(chosen)

    def action_leave(self) -> None:
        if self.can_leave:
            self.dismiss(None)


class TooSmallScreen(ModalScreen):
    """Shown over everything while the terminal is smaller than 80x24."""

    BINDINGS = K.binding(K.TOO_SMALL_QUIT)

    def compose(self) -> ComposeResult:
        yield Static(Text(""), id="message")

    def on_mount(self) -> None:
        self.update_size()

    def on_resize(self) -> None:
        self.call_after_refresh(self.app.post_message, CheckSize())

    def update_size(self) -> None:
        w, h = self.app.size
        found = self.query("#message")
        if not found:
            return
        found.first(Static).update(Text(
            f"Terminal too small: {w}x{h}.\nmqconsole needs at least "
            f"{MIN_WIDTH}x{MIN_HEIGHT}.\nEnlarge the window (q quits).", justify="center"))


__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "HelpDialog", "ProfileScreen", "TooSmallScreen"]

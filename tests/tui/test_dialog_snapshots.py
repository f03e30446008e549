"""Every dialog at 80x24 and 200x50 (issue 15, screens 8): centred, buttons with their
labels, the default one visible, help using the height it has. The dialogs are shown on a
small app with the console's styles (tui/styles/*.tcss) and theme, so each snapshot holds
only the dialog. ``pytest --snapshot-update`` after a deliberate change (look at the SVGs)."""

from __future__ import annotations

import threading

import pytest
from rich.text import Text
from textual.app import App

from mqconsole.tui.context import (
    REPO_THEMES,
    STYLES,
    Connections,
    ConsoleContext,
    ProfileInfo,
    Settings,
)
from mqconsole.tui.screens.dialogs import (
    ChoiceDialog,
    ConfirmDialog,
    Field,
    FormDialog,
    InputDialog,
    PasswordDialog,
    TextDialog,
    TypeNameDialog,
)

from .conftest import steady_cursors

SIZES = [(80, 24), (200, 50)]


class DialogApp(App[None]):
    CSS_PATH = STYLES

    def __init__(self, make) -> None:
        super().__init__()
        self.make = make

    def exit(self, *args, **kwargs) -> None:
        """The picture is taken: an operation held halfway may end (it waits for this)."""
        for halfway in HALFWAY:
            halfway.release.set()
        super().exit(*args, **kwargs)

    def on_mount(self) -> None:
        from mqconsole.tui.themes import load_themes

        for theme in load_themes([REPO_THEMES]).themes.values():
            self.register_theme(theme)
        self.theme = "mqconsole-dark"
        self.push_screen(self.make(self))


def body(lines: int) -> Text:
    out = Text()
    out.append("Delete ")
    out.append("3 marked messages", "bold")
    out.append(" of APP.ORDERS.BOQ.\n")
    for i in range(lines):
        out.append(f"\nline {i + 1} of what the operator should read before saying yes")
    return out


class _Conn:
    name = "QM1"

    def new_connection(self):
        return self

    def close(self) -> None:
        pass


class Halfway:
    """An operation kind that reports half of its messages done, then waits."""

    journaled = False

    def describe(self):
        from mqconsole.ops.operation import Description

        return Description("move", "moving", source="APP.ORDERS", destination="APP.AUDIT")

    def validate(self, qm) -> None:
        pass

    def __init__(self) -> None:
        self.release = threading.Event()  # set by the test once the picture is taken
        HALFWAY.append(self)

    def execute(self, step):
        from mqconsole.ops.result import OperationResult

        step.control.report(500, 1000)
        # halfway until the picture is taken (it waited 2 s: on a busy machine the move had
        # ended before the picture, and the dialog showed its result)
        while not (self.release.is_set() or step.control.cancel.is_set()):
            self.release.wait(0.05)
        return OperationResult("move", "APP.ORDERS", "APP.AUDIT")


HALFWAY: list[Halfway] = []


def operation_dialog(app):
    from mqconsole.ops.operation import Operation
    from mqconsole.tui.screens.operation import OperationDialog

    ctx = ConsoleContext(app, profile=ProfileInfo(), settings=Settings(),
                         conns=Connections(_Conn))
    return OperationDialog(ctx, Operation(Halfway(), journal=None), "Move APP.ORDERS → APP.AUDIT")


def help_dialog(app):
    from mqconsole.tui.screens.misc import HelpDialog

    rows = [(k, f"what key {k} does on this screen", f"id_{k}")
            for k in "abcdefghijklmnopqrstuvwxyz0123"]
    return HelpDialog(rows, "Keys of messages")


def picks() -> list[tuple[str, Text]]:
    """A destination pick list as the console makes it (queue_choices): name, type, depth."""
    out = []
    for n, (name, kind, depth) in enumerate([
            ("APP.AUDIT", "local", 12), ("APP.INVOICES", "local", 0),
            ("APP.LEGACY", "local", 1_204), ("APP.ORDERS.BOQ", "local", 3),
            ("APP.PAYMENTS", "local", 58_301), ("APP.REMOTE.ORDERS", "remote", None),
            ("APP.SETTLEMENT.INSTRUCTIONS.EUROPE.PRIORITY.BOQ1", "local", 7),
            ("SYSTEM.DEAD.LETTER.QUEUE", "local", 216_000)]):
        label = Text(name)
        extra = kind if depth is None else f"{kind} · {depth:,}"
        label.append(f"  {extra}" + (" · put-inhibited" if n == 1 else ""), "dim")
        out.append((name, label))
    return out


def profile_screen(app):
    from mqconsole.tui.screens.misc import ProfileScreen

    return ProfileScreen([
        ProfileInfo("dev", description="the embedded demo queue manager"),
        ProfileInfo("qm1-test", environment="test", description="QM1 on mq-test-01(1414)"),
        ProfileInfo("qm1-prod", environment="production", read_only=True,
                    description="QM1 on mq-prod-01(1414), read-only")], can_leave=True)


def too_small(app):
    from mqconsole.tui.screens.misc import TooSmallScreen

    return TooSmallScreen()


DIALOGS = {
    "confirm_danger": lambda app: ConfirmDialog("Delete messages", body(3), confirm="Delete",
                                                danger=True),
    "confirm": lambda app: ConfirmDialog("Copy messages", body(1), confirm="Copy"),
    "confirm_long": lambda app: ConfirmDialog("Resubmit messages", body(60),
                                              confirm="Resubmit", danger=True),
    "type_name": lambda app: TypeNameDialog("Move messages", body(2), "APP.PAYMENTS"),
    "input": lambda app: InputDialog("Move to which queue?", "Move 3 marked messages to:",
                                     value="APP.AUDIT", placeholder="QUEUE.NAME"),
    "input_picks": lambda app: InputDialog("Move to which queue?",
                                           "Move 3 marked messages to:", choices=picks(),
                                           placeholder="QUEUE.NAME"),
    "form": lambda app: FormDialog("Attributes of APP.ORDERS", [
        Field("bothresh", "BOTHRESH (backout threshold; 0 = never)", "int", 3),
        Field("boqname", "BOQNAME (backout queue; empty = none)", "text", "APP.ORDERS.BOQ"),
        Field("hardenbo", "HARDENBO (harden the backout count)", "bool", True),
        Field("put_inhibited", "Put inhibited", "bool", False)]),
    "choice": lambda app: ChoiceDialog("Off the dead-letter queue", [
        ("strip", "Remove the dead-letter header (--strip-dlh)"),
        ("keep", "Keep the header: APP.AUDIT gets each message with its MQDLH in front")],
        note=Text("APP.AUDIT is not a dead-letter queue.")),
    "text": lambda app: TextDialog("Delete from APP.ORDERS.BOQ", body(40)),
    "operation": operation_dialog,
    "help": help_dialog,
    "profile": profile_screen,
    "password": lambda app: PasswordDialog("MQ password for mqapp (profile prod):"),
}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(DIALOGS))
def test_dialog(snap_compare, name, size):
    async def ready(pilot):
        await pilot.pause()
        await steady_cursors(pilot)
        if name == "operation":
            from .conftest import wait_for

            await wait_for(pilot.app, pilot, lambda: "500 of 1,000" in str(
                pilot.app.screen.query_one("#status").content), workers=False)

    app = DialogApp(DIALOGS[name])
    try:
        assert snap_compare(app, terminal_size=size, run_before=ready)
    finally:
        for halfway in HALFWAY:
            halfway.release.set()
        HALFWAY.clear()


@pytest.mark.parametrize("size", [(79, 24), (40, 12)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_too_small(snap_compare, size):
    """Shown below 80x24 only (at the two sizes above it is never up): centred, whole."""
    assert snap_compare(DialogApp(too_small), terminal_size=size)


async def test_enter_on_cancel_says_cancelled():
    answers = []
    app = DialogApp(lambda app: ConfirmDialog("Delete messages", body(1), confirm="Delete",
                                              danger=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dialog = app.screen
        dialog.dismiss = lambda result=None: answers.append(result)  # type: ignore[method-assign]
        assert app.focused is not None and app.focused.id == "no"  # the default: Cancel
        await pilot.press("enter")
        await pilot.pause()
        assert answers == [False]
        assert any(str(n.message) == "Delete messages: cancelled, nothing was done."
                   for n in app._notifications)

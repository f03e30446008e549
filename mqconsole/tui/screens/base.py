"""What every console screen shares: the banner, read-only removal of changing keys, commands.

A read-only profile *removes* changing bindings from the screen's bindings when the screen is
made (so they are neither shown nor reachable: the screen is made as a subclass whose
``BINDINGS`` bind those keys to a refused stand-in — Textual's public way, no private
attribute), refuses them in ``check_action`` (so nothing, not even a stray ``run_action``,
can start one), and leaves them out of :meth:`commands` (the command palette and the action
menus are built from it).
"""

from __future__ import annotations

from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from textual.screen import Screen
from textual.worker import Worker

from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.keys import REFUSED, Command, Key, changing_keys_refused, is_changing
from mqconsole.tui.requests import CheckSize

if TYPE_CHECKING:
    from mqconsole.tui.actions import ActionRunner


class ConsoleScreen(Screen):
    """A screen of the console; ``ctx`` is how it reaches the console (never the app class)."""

    KEYS: ClassVar[list[Key]] = []
    HELP_NAME: ClassVar[str] = "this screen"  # "Keys of <HELP_NAME>" in the help

    def __new__(cls, ctx: ConsoleContext, *args: Any, **kwargs: Any) -> ConsoleScreen:
        return super().__new__(read_only_class(cls) if ctx.read_only else cls)

    def __init__(self, ctx: ConsoleContext, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ctx = ctx

    @cached_property
    def actions(self) -> ActionRunner:
        """The actions on this screen's messages and queues."""
        from mqconsole.tui.actions import ActionRunner

        return ActionRunner(self.ctx)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.ctx.worker_changed(event)

    def on_resize(self) -> None:
        self.call_after_refresh(self.ctx.request, CheckSize())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == REFUSED or (is_changing(action) and self.ctx.read_only))

    def commands(self) -> list[Command]:
        """The commands of this screen for the palette (read-only: no changing ones)."""
        out = []
        for key in self.KEYS:
            if key.changing and self.ctx.read_only:
                continue
            if self.check_action(key.action_name, ()) is False:
                continue
            out.append(Command(key.description, key.help, key.action_name, key.changing))
        return out

    def on_key(self, event: Any) -> None:
        """In a read-only profile a changing key is not bound: say why nothing happens
        (instead of nothing at all), for the key the keymap gives it if it gives one."""
        if not self.ctx.read_only:
            return
        keymap = self.ctx.settings.keymap
        for key in self.KEYS:
            keys = keymap.get(key.id) or key.key
            if key.changing and event.key in (k.strip() for k in keys.split(",")):
                event.stop()
                self.ctx.notify(f"Profile {self.ctx.profile.name} is read-only: "
                                f"{key.description.lower()} is not available here.",
                                severity="warning")
                return

    def run_command(self, command: Command) -> None:
        if command.changing and self.ctx.read_only:
            return
        action = command.action
        if action.startswith("app."):
            self.app.call_later(self.app.run_action, action[4:])
        else:
            self.call_later(self.run_action, action)


@cache
def read_only_class(cls: type[ConsoleScreen]) -> type[ConsoleScreen]:
    """``cls`` for a read-only profile: the same screen (same name, so the same styles),
    whose changing keys are bound to the refused stand-in."""
    if vars(cls).get("READ_ONLY"):
        return cls
    namespace = {"BINDINGS": changing_keys_refused(cls.__mro__), "READ_ONLY": True,
                 "__module__": cls.__module__, "__qualname__": cls.__qualname__}
    meta: Any = type(cls)  # Textual's metaclass makes it, as for a class statement
    return meta(cls.__name__, (cls,), namespace)


__all__ = ["Command", "ConsoleScreen", "read_only_class"]

"""Site plugins' actions in the command palette (a Textual command provider).

Each action (``mqconsole_actions``) is offered on the screens that can say what it works
on: ``message`` the message under the cursor (or shown), ``selection`` the marked messages
(else the one under the cursor), ``queue`` every message of the queue. A dangerous action
is absent — not greyed — in a read-only profile, and is confirmed by typing the queue name
(:meth:`mqconsole.tui.actions.ActionRunner.plugin_action`).

Titles come from plugins: they reach the palette as plain ``Text`` made safe, never as
markup (the palette parses its help strings as markup, so the help is part of the Text).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider

from mqconsole.tui.safe import clean

if TYPE_CHECKING:
    from mqconsole.plugins import RegisteredAction
    from mqconsole.tui.targets import Targets

SCOPE_HELP = {"message": "on the message under the cursor",
              "selection": "on the marked messages",
              "queue": "on every message of the queue"}


def offered(actions: list[RegisteredAction], *,
            targets: Callable[[str], Targets | None]) -> list[tuple[RegisteredAction, Targets]]:
    """The actions to offer (``PluginHost.offered_actions``: none dangerous in a read-only
    profile) with what each would work on; one whose scope the screen cannot fill is not
    offered."""
    out = []
    for registered in actions:
        t = targets(registered.action.scope)
        if t is not None:
            out.append((registered, t))
    return out


def prompt(registered: RegisteredAction, t: Targets) -> Text:
    """The palette line: the action's title, then what it works on and whose it is."""
    action = registered.action
    out = Text(clean(action.title))
    out.append("\n")
    out.append(f"{SCOPE_HELP.get(action.scope, action.scope)} ({clean(t.label)} of "
               f"{clean(t.queue)}) · plugin {clean(registered.plugin)}"
               + (" · confirmed by typing the queue name" if action.dangerous else ""), "dim")
    return out


class PluginActions(Provider):
    """The site plugins' actions for the screen the palette was opened on."""

    async def _offers(self) -> list[tuple[Text, str, Callable[[], Any]]]:
        screen: Any = self.screen
        ctx = getattr(screen, "ctx", None)
        targets = getattr(screen, "plugin_targets", None)
        if ctx is None or targets is None:
            return []
        host = ctx.plugins
        # a plugin hook: off the event loop
        actions = await asyncio.to_thread(host.offered_actions, read_only=ctx.read_only)
        out: list[tuple[Text, str, Callable[[], Any]]] = []
        for registered, t in offered(actions, targets=targets):
            def run(r: RegisteredAction = registered, t: Targets = t) -> None:
                screen.actions.plugin_action(r, t)

            out.append((prompt(registered, t), clean(registered.action.title), run))
        return out

    async def discover(self) -> Hits:
        for display, text, run in await self._offers():
            yield DiscoveryHit(display, run, text=text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for display, text, run in await self._offers():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, display, run, text=text)


__all__ = ["PluginActions", "offered", "prompt"]

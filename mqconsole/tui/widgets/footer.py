"""The key footer, made again only when what it shows changes.

Textual's Footer makes all its keys again (a widget per key, each styled) on every change
of the bindings — each focus move, each screen shown, each dialog closed — even when the
keys it shows are the same: on a screen of twenty keys that is most of the CPU a keystroke
costs (issue 26: the console's pilot tests spent a fifth of their time there). This one
compares what it would show — each key's display, description, action, group, whether it
is enabled and its tooltip — with what it shows, and keeps its keys when they are equal.

When it does make its keys, each is given its compact look before it is mounted. Textual's
key is compact by default and then bound to the footer's ``compact`` (not compact here):
each key was styled at its mount, then again for the ``-compact`` class its default added,
and again when the binding took it away — three stylings of every key where one does.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.reactive import Reactive
from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    """Textual's Footer that skips a re-make showing the same keys."""

    mq_shown: Hashable = None  # what its keys show (None: not made yet)

    def mq_what_it_shows(self) -> Hashable:
        """What :meth:`compose` would show now (its keys in order), as a comparable value."""
        app = self.app
        keys = tuple(
            (binding.key, app.get_key_display(binding), binding.description, binding.action,
             binding.group, enabled, tooltip or binding.tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show)
        return (keys, self.compact, self.show_command_palette, self.combine_groups,
                app.ENABLE_COMMAND_PALETTE)

    def compose(self) -> ComposeResult:
        """Textual's keys, each bound to this footer's ``compact`` given that value (and its
        class) before it is mounted, so the binding finds it so and re-styles nothing. (The
        command palette's key is not bound: it keeps Textual's default.)"""
        compact = self.compact
        for widget in super().compose():
            field = getattr(type(widget), "compact", None)
            if isinstance(field, Reactive) and not widget.has_class("-command-palette"):
                widget.set_reactive(field, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        shown = self.mq_what_it_shows()
        if shown == self.mq_shown and self.children:
            return
        self.mq_shown = shown
        await super().recompose()

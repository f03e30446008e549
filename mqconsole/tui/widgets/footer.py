"""The key footer, made again only when what it shows changes.

Textual's Footer makes all its keys again (a widget per key, each styled) on every change
of the bindings — each focus move, each screen shown, each dialog closed — even when the
keys it shows are the same: on a screen of twenty keys that is most of the CPU a keystroke
costs (issue 26: the console's pilot tests spent a fifth of their time there). This one
compares what it would show — each key's display, description, action, group, whether it
is enabled and its tooltip — with what it shows, and keeps its keys when they are equal.
"""

from __future__ import annotations

from collections.abc import Hashable

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

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        shown = self.mq_what_it_shows()
        if shown == self.mq_shown and self.children:
            return
        self.mq_shown = shown
        await super().recompose()

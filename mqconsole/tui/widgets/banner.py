"""The line at the top of every screen: profile, queue manager, dead-letter queue, read-only.

Its colour is the profile's ``banner`` colour (a production profile without one is dark red),
so a production session never looks like a test one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget

from mqconsole.tui.safe import clean

if TYPE_CHECKING:
    from mqconsole.tui.context import ConsoleContext

PRODUCTION_BANNER = "darkred"


def banner_colour(profile) -> str | None:
    if profile.banner:
        return profile.banner
    if (profile.environment or "") == "production":
        return PRODUCTION_BANNER
    return None


class Banner(Widget):
    """The top line: profile, queue manager, where the operator is (styles: widgets.tcss)."""

    def __init__(self, ctx: ConsoleContext, where: str = "") -> None:
        super().__init__()
        self.ctx = ctx
        self.where = where

    def on_mount(self) -> None:
        colour = banner_colour(self.ctx.profile)
        if colour:
            self.styles.background = colour
            self.add_class("-coloured")

    def set_where(self, where: str) -> None:
        self.where = where
        self.refresh()

    def render(self) -> Text:
        """Profile, queue manager, dead-letter queue and depth, and where the operator is.
        When the line is too narrow, the dead-letter queue's name goes first, then the
        environment: what the screen shows (a queue name is up to 48 characters) stays."""
        width = self.size.width or 80
        for short_dlq, short_env in ((False, False), (True, False), (True, True)):
            out = self._line(short_dlq=short_dlq, short_env=short_env)
            if out.cell_len <= width:
                break
        out.no_wrap, out.overflow = True, "ellipsis"
        return out

    def _line(self, *, short_dlq: bool, short_env: bool) -> Text:
        ctx = self.ctx
        p = ctx.profile
        out = Text()
        out.append(" ")
        out.append(clean(p.name), "bold")
        if p.environment and not short_env:
            out.append(f" ({clean(p.environment)})")
        if p.read_only:
            out.append(" READ-ONLY", "bold reverse")
        out.append(" │ ")
        info = ctx.qmgr_info
        out.append(clean(info.name) if info is not None else "connecting…", "bold")
        if info is not None and info.dead_letter_queue.strip():
            depth = ctx.dlq_depth
            out.append(" │ DLQ ")
            if not short_dlq:
                out.append(clean(info.dead_letter_queue.strip()))
                out.append(" ")
            label = "?" if depth is None else f"{depth:,}"
            out.append(f" {label} ", "bold reverse" if depth else "bold")
        if self.where:
            out.append(" │ ")
            out.append(clean(self.where), "bold")
        return out


__all__ = ["Banner", "banner_colour"]

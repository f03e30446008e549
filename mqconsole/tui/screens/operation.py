"""Running one operation: a dialog that owns the thread worker, shows progress and stops.

The console's one way to run a change — and to plan one (``preview=True``: validate, then the
operation's dry run, the same planner as the CLI's ``--dry-run``, for the confirmation).
The :class:`~mqconsole.ops.operation.Operation` does
the rest (puts and gets in units of work, the plugins' checks, the journal entry,
``operation_done``); this dialog gives it a connection of its own, reports its progress,
sets its cancel event on ``escape`` (it stops at the next unit-of-work boundary) and is
dismissed with the :class:`~mqconsole.ops.operation.Summary` — or ``None`` when an error
stopped the operation, which is reported as every console error is (but those in ``quiet``,
left in :attr:`OperationDialog.error` for the caller).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, ProgressBar

from mqconsole.ops.words import counted
from mqconsole.tui import keys as K
from mqconsole.tui.screens.dialogs import Dialog

if TYPE_CHECKING:
    from collections.abc import Callable

    from mqconsole.ops.operation import Operation, Summary
    from mqconsole.tui.context import ConsoleContext

PROGRESS_EVERY = 0.1  # seconds between progress updates on screen


class OperationDialog(Dialog):
    """Runs ``op`` in a worker with its progress; ``escape`` asks it to stop."""

    BINDINGS = K.binding(K.DIALOG_STOP)

    #: what escape does, in the operation's own words: most stop after the unit of work in
    #: progress (committed); the dead-letter handler backs its open unit out instead
    AFTER_UNIT = "after the current unit of work"
    BACK_OUT = "at the next message: the open unit of work is backed out, its messages stay"

    def __init__(self, ctx: ConsoleContext, op: Operation, title: str, *,
                 preview: bool = False, quiet: tuple[type[BaseException], ...] = (),
                 stops: str = AFTER_UNIT,
                 run_by: Callable[[Callable[..., None], threading.Event], Summary] | None = None
                 ) -> None:
        """``run_by(progress, cancel)``: how the operation runs, when not on a connection of
        this process's own (the dead-letter handler's, in its own process)."""
        super().__init__(title)
        self.run_by = run_by
        self.stops = stops
        self.ctx = ctx
        self.op = op
        self.preview = preview
        self.quiet = quiet  # errors the caller handles (``error``) instead of reporting
        self.cancel = threading.Event()
        self.stopping = False
        self.finished = False
        self._outcome: Summary | None = None
        self.error: BaseException | None = None  # what stopped it (dismissed with None)
        self._waiting = False  # finished while another screen was on top

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="title")
            yield ProgressBar(total=None, show_eta=False, id="bar")
            yield Label(Text("starting…"), id="status")
            yield Label(Text("escape: stop planning here" if self.preview else
                             f"escape: stop {self.stops}"), classes="hint")

    def on_mount(self) -> None:
        self.run_operation()

    @work(thread=True, exit_on_error=False, group="operation", name="operation")
    def run_operation(self) -> None:
        ctx = self.ctx
        last = [0.0]

        def progress(done: int, total: int | None, matched: int | None = None) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                if matched is None:
                    ctx.post_from_thread(self.update_progress, done, total)
                else:
                    ctx.post_from_thread(self.update_progress, done, total, matched)

        progress.wants_matched = True  # type: ignore[attr-defined]  # (Control.report)

        source = self.op.describe().source
        try:
            summary: Summary | None
            if self.run_by is not None:
                summary = self.run_by(progress, self.cancel)
            else:
                qm = ctx.conns.new()
                try:
                    if self.preview:
                        self.op.validate(qm)
                        summary = self.op.preview(qm, progress=progress, cancel=self.cancel)
                    else:
                        summary = self.op.run(qm, progress=progress, cancel=self.cancel)
                finally:
                    ctx.conns.release(qm)
        except BaseException as exc:  # journaled by the operation; reported here, once
            if not isinstance(exc, self.quiet):
                ctx.post_from_thread(ctx.report_error, exc, queue=source,
                                     what=self.title_text.plain)
            ctx.post_from_thread(self._finished, None, exc)
            return
        ctx.post_from_thread(self._finished, summary)

    def update_progress(self, done: int, total: int | None, matched: int | None = None
                        ) -> None:
        if self.finished or not self.is_attached:
            return
        bar = self.query_one(ProgressBar)
        if total:
            bar.update(total=total, progress=done)
        text = (f"{done:,} of {counted(total, grouped=True)}" if total
                else counted(done, grouped=True))
        if matched is not None:
            text += f" read · {matched:,} selected"
        if self.stopping:
            text += f" — stopping {self.stops}"
        self.query_one("#status", Label).update(Text(text))

    def _finished(self, summary: Summary | None, error: BaseException | None = None) -> None:
        self.finished = True
        self._outcome = summary
        self.error = error
        if self.app.screen is self:
            self._close()
        else:  # (a screen on top, e.g. "terminal too small"): close when shown again
            self._waiting = True

    def on_screen_resume(self) -> None:
        if self._waiting:
            self._waiting = False
            self._close()

    def _close(self) -> None:
        self.dismiss(self._outcome)

    def action_cancel(self) -> None:
        if not self.stopping and not self.finished:
            self.op.face_details.setdefault("stopped_by", "escape")  # the end record says
            self.stop_work()
            self.query_one("#status", Label).update(
                Text(f"stopping {self.stops}…"))

    def stop_work(self) -> None:
        """Ask the operation to stop at its next unit-of-work boundary (also when the
        console quits or switches profile)."""
        self.stopping = True
        self.op.face_details.setdefault("stopped_by", "the console closing")
        self.cancel.set()


__all__ = ["OperationDialog"]

"""Replay the delivery model on a queue (read only) and step through its timeline.

Choose a queue (or a scenario file), an endpoints file (empty: an activation specification
that does not stop on failure) and failure rules (``position=1``, ``msgid=HEX``,
``first=2``, ``between=1000:5000``, ``then=discard`` …; several separated by ``;``), then
``ctrl+o`` (or ``enter`` in the last field). The events are listed; moving through them shows
every queue's messages (with backout counts) and every endpoint's state after that event.
``n``/``p`` jump to the next/previous event that moves a message or stops an endpoint.

A queue is replayed by the code of ``mqconsole replay --queue`` (ops.replay.replay_queue,
the same limits), in a process of its own (``ops.replaychild``: the model's millions of
short-lived objects are not the console's to keep), with a progress bar fed from it;
``ctrl+x`` (or escape) stops it. Its result stays in that process (``ops.replayview``): the
screen holds the summary and a few pages of rows (``tui.pages``), asks for the rows as they
come into view and for the step under the cursor, and the process ends when it closes.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, ProgressBar, Static

from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import in_thread, launch, start
from mqconsole.tui.pages import Pages
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.rowlist import RowColumn, RowList

if TYPE_CHECKING:
    from mqconsole.ops.replaychild import ReplayRunner
    from mqconsole.ops.replayview import EventRow, ReplayView, StepView

COLUMNS = (RowColumn("#", 5, right=True), RowColumn("T(ms)", 7, right=True),
           RowColumn("EVENT", 120))


class ReplayScreen(ConsoleScreen):
    HELP_NAME = "replay"
    KEYS = [*K.REPLAY_KEYS, K.BACK]
    BINDINGS = K.bindings([*K.REPLAY_KEYS, K.BACK])

    def __init__(self, ctx: ConsoleContext, queue: str | None = None, *,
                 endpoints: str | None = None, fail: str = "position=1") -> None:
        super().__init__(ctx)
        self.queue = queue or ""
        self.endpoints = endpoints or ""
        self.fail = fail
        self.view: ReplayView | None = None  # the result shown (kept where it was made)
        self.pages: Pages[EventRow] | None = None  # its rows here (a few pages)
        self.stop: threading.Event | None = None  # set while a replay runs
        self.names: dict[str, str] = {}  # endpoints' names shortened in the list
        self._runner: ReplayRunner | None = None

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, "replay (nothing on the queue manager changes)")
        names = [r["name"] for r in self.ctx.queue_rows if r.get("type") == "local"]
        with Horizontal(id="form"):
            yield Label(Text("Queue"))
            yield Input(self.queue, id="r-queue", placeholder="QUEUE or scenario.yaml",
                        suggester=SuggestFromList(names, case_sensitive=False))
            yield Label(Text("Endpoints"))
            yield Input(self.endpoints, id="r-endpoints", placeholder="(default endpoint)")
            yield Label(Text("Fail"))
            yield Input(self.fail, id="r-fail", placeholder="position=1")
        yield ProgressBar(total=None, show_eta=False, id="r-progress", classes="-hidden")
        yield Static(Text("ctrl+o runs the replay"), id="r-summary")
        with Horizontal(id="r-body"):
            yield RowList(COLUMNS, id="r-events")  # drawn as they come into view
            with VerticalScroll(id="r-state"):
                yield Static(Text(""), id="r-contents")
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.query_one("#r-events", RowList), "cursor", self._cursor_moved,
                   init=False)
        self.query_one("#r-queue" if not self.queue else "#r-fail", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run_replay()

    def action_run_replay(self) -> None:
        if self.stop is not None:
            self.notify("A replay is running: ctrl+x stops it.", markup=False)
            return
        queue = self.query_one("#r-queue", Input).value.strip()
        endpoints = self.query_one("#r-endpoints", Input).value.strip()
        fails = [f.strip() for f in self.query_one("#r-fail", Input).value.split(";")
                 if f.strip()]
        if not queue:
            self.query_one("#r-summary", Static).update(Text("Give a queue (or a scenario "
                                                             "file)."))
            return
        self.stop = threading.Event()
        launch(self.ctx, self._run(queue, endpoints, fails, self.stop), what="replay")

    async def _run(self, queue: str, endpoints: str, fails: list[str],
                   stop: threading.Event) -> None:
        from mqconsole.ops.replay import ReplayStopped

        bar = self.query_one("#r-progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.remove_class("-hidden")
        self._say(f"replaying {queue}…")
        scenario = queue.endswith((".yaml", ".yml"))
        try:
            out = await in_thread(self.ctx, partial(self._replay, queue, endpoints, fails,
                                                    stop),
                                  queue=None if scenario else queue, what="replay")
        finally:
            self.stop = None
            if self.is_attached:
                bar.add_class("-hidden")
        if isinstance(out, ReplayStopped):
            if self.is_attached:
                self._say(str(out))
            return
        self._show(out)

    def _replay(self, queue: str, endpoints: str, fails: list[str],
                stop: threading.Event) -> Any:
        """In a thread: the scenario file, or the queue by ``mqconsole replay --queue``'s
        code (``ops.replaychild.replay_for_console``), in the replay's own process by
        default; a stop is returned, not raised (it is no error)."""
        from mqconsole.ops import replay as rp

        def progress(what: str, done: int, total: int | None) -> None:
            self.ctx.post_from_thread(self._progress, what, done, total)

        try:
            return self.runner.replay(queue, endpoints, fails, self.ctx.conns,
                                      self.ctx.plugins, progress, stop)
        except rp.ReplayStopped as stopped:
            return stopped

    @property
    def runner(self) -> ReplayRunner:
        """Where the replay happens (made at the first: its own process by default, ended
        when this screen closes)."""
        if self._runner is None:
            from mqconsole.ops.replaychild import default_runner

            self._runner = (self.ctx.settings.replay_runner or default_runner)()
        return self._runner

    def on_unmount(self) -> None:
        self.stop_work()
        self.view = self.pages = None
        if self._runner is not None:  # its process ends: what it held goes with it
            self._runner.close()
            self._runner = None

    def _progress(self, what: str, done: int, total: int | None) -> None:
        if not self.is_attached or self.stop is None:
            return
        self.query_one("#r-progress", ProgressBar).update(total=total, progress=done)
        of = f" of {total:,}" if total else ""
        self._say(f"{what} {done:,}{of}" + (" messages…" if what == "read" else " events…"))

    def _say(self, text: str) -> None:
        self.query_one("#r-summary", Static).update(txt(text))

    def action_stop_replay(self) -> None:
        if self.stop is not None:
            self.stop.set()
            self._say("stopping the replay…")

    def stop_work(self) -> None:
        """The console quits or switches profile: stop the replay running."""
        if self.stop is not None:
            self.stop.set()

    def _show(self, view: ReplayView) -> None:
        if not self.is_attached:
            return
        shown = view.shown
        self.view = view
        self.names = shown.names
        # why it ended first: at 80 columns the line's end is what is cut
        counts = shown.counts.rsplit("; ended:", 1)[0]
        self.query_one("#r-summary", Static).update(
            txt(f"ended: {shown.summary['stopped_by']} · {shown.note}: {counts}"))
        table = self.query_one("#r-events", RowList)
        self.pages = pages = Pages(self.ctx, self, shown.count, view.rows,
                                   table.refresh, first=shown.first, what="replay events")

        def cells(n: int) -> list[Text]:
            row = pages.get(n)
            if row is None:  # its page is on its way
                return [Text(str(n + 1)), Text(""), Text("…", "dim")]
            number, t_ms, text, notable = row
            return [Text(str(number)), Text(t_ms), txt(text, "bold" if notable else "")]

        table.show(shown.count, cells)
        table.focus()
        self._draw_step(shown.step)

    def _cursor_moved(self, row: int) -> None:
        view = self.view
        if view is None or not 0 <= row < view.shown.count or not view.shown.timeline:
            return
        if view.shown.step is not None and view.shown.step.index == row:
            self._draw_step(view.shown.step)
            return

        async def fetch() -> None:
            step = await in_thread(self.ctx, partial(view.step, row), queue=None,
                                   what="replay step", node=self, group="step",
                                   exclusive=True)
            if self.view is view and self.query_one("#r-events", RowList).cursor == row:
                self._draw_step(step)

        # the newest cursor's step only: one asked for before it is dropped
        start(self, fetch, what="replay step", group="step-flow", exclusive=True)

    def _draw_step(self, step: StepView | None) -> None:
        from mqconsole.ops.replay import short_label

        out = Text()
        if step is None:
            self.query_one("#r-contents", Static).update(out)
            return
        if step.event is None:
            out.append("before the first event\n", "dim")
        else:  # the event whole, wrapped here (its line in the list is cut at the edge)
            out.append(f"after event {step.index + 1}: ", "dim")
            out.append_text(txt(step.event))
            out.append("\n")
        for queue, depth, items in step.queues:
            out.append(f"{clean(queue)} ({depth})\n", "bold")
            for message, backout, in_flight in items:
                label = short_label(clean(message), 14)  # the end: where MsgIds differ
                out.append(f"  {label} bo={backout}")
                if in_flight:
                    who, _, session = in_flight.partition("/")
                    flight = self.names.get(who, who) + (f"/{session}" if session else "")
                    out.append(f" ⇄{clean(flight)}", "italic")
                out.append("\n")
            if depth > len(items):
                out.append(f"  … {depth - len(items)} more\n", "dim")
        if step.endpoints:
            out.append("Endpoints\n", "bold")
            for name, state, rollback in step.endpoints:
                style = "bold red" if state == "stopped" else ""
                out.append(f"  {clean(self.names.get(name, name))}: {state} "
                           f"rc={rollback}\n", style)
        self.query_one("#r-contents", Static).update(out)

    def _jump(self, step: int) -> None:
        from mqconsole.ops.replayview import next_notable

        if self.view is None or not self.view.shown.count:
            return
        table = self.query_one("#r-events", RowList)
        n = next_notable(self.view.shown.notable, table.cursor, step)
        if n is not None:
            table.move_cursor(n)

    def action_next_event(self) -> None:
        self._jump(1)

    def action_previous_event(self) -> None:
        self._jump(-1)

    def action_back(self) -> None:
        self.stop_work()
        self.app.pop_screen()


__all__ = ["ReplayScreen"]

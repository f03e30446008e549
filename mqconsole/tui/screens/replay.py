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
``ctrl+x`` (or escape) stops it.
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
from mqconsole.tui.flow import in_thread, launch
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.rowlist import RowColumn, RowList

if TYPE_CHECKING:
    from mqconsole.ops.replaychild import ReplayRunner

NOTABLE = {"requeued", "dead_lettered", "to_exception_destination", "to_module_destination",
           "lost", "endpoint_stopped", "endpoint_started", "qmgr_restart"}
MAX_LISTED = 12  # messages shown per queue at one step
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
        self.result: Any = None
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

    def _show(self, out: tuple[Any, str]) -> None:
        from mqconsole.ops.replay import event_text, short_name, summary_text

        result, note = out
        if not self.is_attached:
            return
        self.result = result
        events = result.events
        # the list names endpoints shortly, never cut mid-word ("the model activation
        # specification" is "model AS"); the pane beside it says the current event whole
        names = {n: short_name(n) for n in {str(ev.get("endpoint", "")) for ev in events} if n}
        self.names = {n: s for n, s in names.items() if s != n}
        # why it ended first: at 80 columns the line's end is what is cut
        counts = summary_text(result).rsplit("; ended:", 1)[0]
        self.query_one("#r-summary", Static).update(
            txt(f"ended: {result.summary['stopped_by']} · {note}: {counts}"))
        table = self.query_one("#r-events", RowList)

        def cells(n: int) -> list[Text]:
            ev = events[n]
            return [Text(str(n + 1)), Text(str(ev.get("t_ms", ""))),
                    txt(event_text(ev, names=self.names),
                        "bold" if ev["type"] in NOTABLE else "")]

        table.show(len(events), cells)
        table.focus()
        self._show_step(0 if events else -1)

    def _cursor_moved(self, row: int) -> None:
        if self.result is not None and 0 <= row < len(self.result.events):
            self._show_step(row)

    def _show_step(self, index: int) -> None:
        from mqconsole.ops.replay import short_label

        timeline = self.result.timeline if self.result is not None else None
        out = Text()
        if timeline is None:
            self.query_one("#r-contents", Static).update(out)
            return
        if index < 0:
            out.append("before the first event\n", "dim")
        else:  # the event whole, wrapped here (its line in the list is cut at the edge)
            from mqconsole.ops.replay import event_text

            out.append(f"after event {index + 1}: ", "dim")
            out.append_text(txt(event_text(self.result.events[index])))
            out.append("\n")
        for queue, items in timeline.queues_at(index).items():
            out.append(f"{clean(queue)} ({len(items)})\n", "bold")
            for m in items[:MAX_LISTED]:
                label = short_label(clean(m.message), 14)  # the end: where MsgIds differ
                out.append(f"  {label} bo={m.backout_count}")
                if m.in_flight:
                    who, _, session = m.in_flight.partition("/")
                    flight = self.names.get(who, who) + (f"/{session}" if session else "")
                    out.append(f" ⇄{clean(flight)}", "italic")
                out.append("\n")
            if len(items) > MAX_LISTED:
                out.append(f"  … {len(items) - MAX_LISTED} more\n", "dim")
        endpoints = timeline.endpoints_at(index)
        if endpoints:
            out.append("Endpoints\n", "bold")
            for name, st in endpoints.items():
                style = "bold red" if st.state == "stopped" else ""
                out.append(f"  {clean(self.names.get(name, name))}: {st.state} "
                           f"rc={st.rollback_counter}\n", style)
        self.query_one("#r-contents", Static).update(out)

    def _jump(self, step: int) -> None:
        if self.result is None or not self.result.events:
            return
        table = self.query_one("#r-events", RowList)
        n = table.cursor + step
        while 0 <= n < len(self.result.events):
            if self.result.events[n]["type"] in NOTABLE:
                table.move_cursor(n)
                return
            n += step

    def action_next_event(self) -> None:
        self._jump(1)

    def action_previous_event(self) -> None:
        self._jump(-1)

    def action_back(self) -> None:
        self.stop_work()
        self.app.pop_screen()


__all__ = ["ReplayScreen"]

"""Replay the delivery model on a queue (read only) and step through its timeline.

Choose a queue (or a scenario file), an endpoints file (empty: an activation specification
that does not stop on failure) and failure rules (``position=1``, ``msgid=HEX``,
``first=2``, ``between=1000:5000``, ``then=discard`` …; several separated by ``;``), then
``ctrl+o`` (or ``enter`` in the last field). The events are listed; moving through them shows
every queue's messages (with backout counts) and every endpoint's state after that event.
``n``/``p`` jump to the next/previous event that moves a message or stops an endpoint.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.suggester import SuggestFromList
from textual.widgets import DataTable, Footer, Input, Label, Static

from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.lists import ListTable

NOTABLE = {"requeued", "dead_lettered", "to_exception_destination", "to_module_destination",
           "lost", "endpoint_stopped", "endpoint_started", "qmgr_restart"}
MAX_LISTED = 12  # messages shown per queue at one step


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
        yield Static(Text("ctrl+o runs the replay"), id="r-summary")
        with Horizontal(id="r-body"):
            yield ListTable(id="r-events", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="r-state"):
                yield Static(Text(""), id="r-contents")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#r-events", DataTable)
        table.add_column(Text("#"), width=4)
        table.add_column(Text("T(ms)"), width=7)
        table.add_column(Text("EVENT"), width=120)
        self.query_one("#r-queue" if not self.queue else "#r-fail", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run_replay()

    def action_run_replay(self) -> None:
        queue = self.query_one("#r-queue", Input).value.strip()
        endpoints = self.query_one("#r-endpoints", Input).value.strip()
        fails = [f.strip() for f in self.query_one("#r-fail", Input).value.split(";")
                 if f.strip()]
        if not queue:
            self.query_one("#r-summary", Static).update(Text("Give a queue (or a scenario "
                                                             "file)."))
            return
        ctx = self.ctx
        self.query_one("#r-summary", Static).update(txt(f"replaying {queue}…"))

        def run() -> tuple[Any, str]:
            from mqconsole.ops import replay as rp

            if queue.endswith((".yaml", ".yml")):
                scenario = rp.load_scenario(queue)
                rules = self._failure_rules(any(r.plugin for r in scenario.failures))
                result = rp.run_scenario(scenario, timeline=True, plugins=rules)
                return result, f"scenario {queue}"
            if endpoints:
                eps = rp.load_endpoints(endpoints)
            else:
                from mqconsole.model import EndpointsFile
                from mqconsole.ops.doctor import default_endpoint

                eps = EndpointsFile((default_endpoint(queue),))
            rules = self._failure_rules(any("plugin" in f.lower() for f in fails))
            run = ctx.conns.call(lambda qm: rp.replay_queue(qm, queue, eps, fails,
                                                            timeline=True, plugins=rules))
            note = f"{queue} read by {', '.join(run.endpoints)}"
            if run.truncated:
                note += " (only the first messages were modelled)"
            return run.result, note

        ctx.backend(run, done=self._show, queue=None if queue.endswith(".yaml") else queue,
                    what="replay")

    def _failure_rules(self, needed: bool) -> dict[str, Any]:
        """The site plugins' failure rules (``plugin: NAME`` in a scenario, ``plugin=NAME``
        in the Fail field), loaded only when a rule asks for one (as ``mqconsole replay``)."""
        return dict(self.ctx.plugins.failure_rules()) if needed else {}

    def _show(self, out: tuple[Any, str]) -> None:
        from mqconsole.ops.replay import event_text, summary_text

        result, note = out
        if not self.is_attached:
            return
        self.result = result
        self.query_one("#r-summary", Static).update(
            txt(f"{note}: {summary_text(result)}"))
        table = self.query_one("#r-events", DataTable)
        table.clear()
        for n, ev in enumerate(result.events):
            notable = ev["type"] in NOTABLE
            table.add_row(Text(str(n + 1), justify="right"),
                          Text(str(ev.get("t_ms", "")), justify="right"),
                          txt(event_text(ev), "bold" if notable else ""), key=str(n))
        table.focus()
        self._show_step(0 if result.events else -1)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.result is not None and event.row_key is not None:
            self._show_step(int(str(event.row_key.value)))

    def _show_step(self, index: int) -> None:
        from mqconsole.ops.replay import short_label

        timeline = self.result.timeline if self.result is not None else None
        out = Text()
        if timeline is None:
            self.query_one("#r-contents", Static).update(out)
            return
        out.append("before the first event\n" if index < 0 else f"after event {index + 1}\n",
                   "dim")
        for queue, items in timeline.queues_at(index).items():
            out.append(f"{clean(queue)} ({len(items)})\n", "bold")
            for m in items[:MAX_LISTED]:
                label = short_label(clean(m.message), 14)  # the end: where MsgIds differ
                out.append(f"  {label} bo={m.backout_count}")
                if m.in_flight:
                    out.append(f" ⇄{clean(m.in_flight)}", "italic")
                out.append("\n")
            if len(items) > MAX_LISTED:
                out.append(f"  … {len(items) - MAX_LISTED} more\n", "dim")
        endpoints = timeline.endpoints_at(index)
        if endpoints:
            out.append("Endpoints\n", "bold")
            for name, st in endpoints.items():
                style = "bold red" if st.state == "stopped" else ""
                out.append(f"  {clean(name)}: {st.state} rc={st.rollback_counter}\n", style)
        self.query_one("#r-contents", Static).update(out)

    def _jump(self, step: int) -> None:
        if self.result is None or not self.result.events:
            return
        table = self.query_one("#r-events", DataTable)
        n = table.cursor_row + step
        while 0 <= n < len(self.result.events):
            if self.result.events[n]["type"] in NOTABLE:
                table.move_cursor(row=n)
                return
            n += step

    def action_next_event(self) -> None:
        self._jump(1)

    def action_previous_event(self) -> None:
        self._jump(-1)

    def action_back(self) -> None:
        self.app.pop_screen()


__all__ = ["ReplayScreen"]

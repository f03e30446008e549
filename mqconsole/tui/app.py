"""The terminal console. (First slice: the queues screen; the full console is issue 4.)

Every backend call runs in a thread worker and posts its result back; errors are reported in
one place as notifications. Text that may come from message bytes or queue names is shown
with ``Text`` objects, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header, Static


class SessionLike(Protocol):
    def connect(self) -> Any: ...

    def close(self) -> None: ...


class MQConsoleApp(App[None]):
    TITLE = "mqconsole"
    BINDINGS = [
        Binding("r", "refresh", "Refresh", id="refresh"),
        Binding("q", "quit", "Quit", id="quit"),
    ]
    CSS = """
    #qmgr { height: 1; padding: 0 1; background: $boost; }
    """

    def __init__(self, connect: Callable[[], Any], profile_name: str = "", **kw: Any) -> None:
        super().__init__(**kw)
        self._connect = connect
        self._qm: Any = None
        self.profile_name = profile_name

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("connecting…"), id="qmgr")
        yield DataTable(id="queues", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#queues", DataTable)
        table.add_columns("Queue", "Type", "Depth", "Max", "Inh", "BOTHRESH", "BOQNAME",
                          "HARDENBO", "Role")
        self.action_refresh()

    def action_refresh(self) -> None:
        self.load_queues()

    @work(thread=True, exclusive=True, group="queues")
    def load_queues(self) -> None:
        from mqconsole.ops.queues import queue_rows

        try:
            if self._qm is None:
                self._qm = self._connect()
            qm = self._qm
            info = qm.inquire_qmgr()
            rows = queue_rows(qm)
        except Exception as e:  # reported in one place, never a crash
            self.call_from_thread(self.notify, str(e), title="queue manager",
                                  severity="error", markup=False)
            return
        self.call_from_thread(self._show_queues, info, rows)

    def _show_queues(self, info: Any, rows: list[dict]) -> None:
        dlq_depth = next((r["depth"] for r in rows if r["is_dead_letter_queue"]), None)
        header = Text.assemble(
            ("Queue manager ", "bold"), str(info.name), "   ",
            ("DLQ ", "bold"), str(info.dead_letter_queue or "-"),
            ("  depth ", "bold"), (str(dlq_depth if dlq_depth is not None else "-"),
                                   "bold red" if dlq_depth else ""),
            "   ", ("profile ", "bold"), self.profile_name)
        self.query_one("#qmgr", Static).update(header)
        table = self.query_one("#queues", DataTable)
        table.clear()
        for r in rows:
            role = "DLQ" if r["is_dead_letter_queue"] else (
                "BOQ for " + ",".join(r["backout_queue_for"]) if r["backout_queue_for"] else "")
            inh = ("P" if r["put_inhibited"] else "-") + ("G" if r["get_inhibited"] else "-")
            table.add_row(Text(r["name"]), r["type"], "" if r["depth"] is None else str(r["depth"]),
                          str(r["max_depth"]), inh, str(r["bothresh"]), Text(r["boqname"]),
                          "Y" if r["hardenbo"] else "N", Text(role))


def run_app(session: Any) -> None:
    """Run the console on the session's profile (blocks until the operator quits)."""
    profile = session.profile
    session.connect()  # fail fast with a one-line CLI error rather than inside the UI
    app = MQConsoleApp(session.new_connection, profile_name=profile.name)
    app.run()

"""The doctor: per queue, what a poison message would do there, and what to change.

Runs ``ops.doctor.diagnose`` in a worker (it only inquires); ``enter`` shows a queue's
finding with the fixing commands (``mqconsole queue set …`` and MQSC), ``y`` copies them,
``o`` reads an endpoints file so the verdicts are about the real consumers.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from mqconsole.tui import clipboard
from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import in_thread, launch
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.screens.dialogs import InputDialog, TextDialog
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.lists import ListTable
from mqconsole.tui.widgets.paths import PathSuggester

VERDICT_STYLE = {"ok": "bold green", "warn": "bold yellow", "bad": "bold red"}


class DoctorScreen(ConsoleScreen):
    HELP_NAME = "doctor"
    KEYS = [*K.DOCTOR_KEYS, K.BACK]
    BINDINGS = K.bindings([*K.DOCTOR_KEYS, K.BACK])
    AUTO_FOCUS = "#diagnoses"

    def __init__(self, ctx: ConsoleContext, endpoints: str | None = None) -> None:
        super().__init__(ctx)
        self.endpoints_path = endpoints
        self.report = None

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, "doctor")
        yield ListTable(id="diagnoses", cursor_type="row", zebra_stripes=True)
        yield Static(Text("examining the queues…"), id="status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(Text("QUEUE"), width=24)
        table.add_column(Text("VERDICT"), width=7)
        table.add_column(Text("FINDING"), width=max(20, self.app.size.width - 38))
        self.action_refresh()

    def action_refresh(self) -> None:
        ctx = self.ctx
        path = self.endpoints_path

        def run():
            from mqconsole.model import load_endpoints
            from mqconsole.ops.doctor import diagnose

            endpoints = load_endpoints(path) if path else None
            return ctx.conns.call(lambda qm: diagnose(qm, endpoints))

        async def diagnose() -> None:
            self._show(await in_thread(ctx, run, queue=None, what="doctor"))

        launch(ctx, diagnose(), what="doctor")

    def _show(self, report) -> None:
        if not self.is_attached:
            return
        self.report = report
        table = self.query_one(DataTable)
        table.clear()
        for n, d in enumerate(report.diagnoses):
            table.add_row(txt(d.queue), Text(d.verdict.upper(), VERDICT_STYLE.get(d.verdict, "")),
                          txt(d.finding), key=str(n))
        counts = report.counts()
        status = (f"{len(report.diagnoses)} queues: {counts['bad']} bad, {counts['warn']} warn, "
                  f"{counts['ok']} ok · ")
        status += (f"endpoints from {self.endpoints_path}" if self.endpoints_path else
                   "assuming an activation specification that does not stop (o: endpoints)")
        self.query_one("#status", Static).update(txt(status))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_show()

    def action_show(self) -> None:
        if self.report is None or not self.report.diagnoses:
            return
        table = self.query_one(DataTable)
        d = self.report.diagnoses[table.cursor_row]
        body = Text()
        body.append(f"{d.verdict.upper()}\n", VERDICT_STYLE.get(d.verdict, ""))
        body.append(clean(d.finding) + "\n")
        if d.fixes:
            body.append("\nTo fix:\n", "bold")
            for line in d.fixes:
                body.append(f"  {clean(line)}\n")
        self.app.push_screen(TextDialog(Text(f"Doctor: {clean(d.queue)}"), body,
                                        danger=d.verdict == "bad"))

    def action_endpoints(self) -> None:
        def check(path: str) -> str | None:
            from mqconsole.ops.inputs import not_a_file

            problem = not_a_file(Path(path).expanduser()) if path else None
            return None if problem is None else f"{problem[:1].upper()}{problem[1:]}."

        def got(path: str | None) -> None:
            if path is None:
                return
            self.endpoints_path = str(Path(path).expanduser()) if path else None
            self.action_refresh()

        self.app.push_screen(InputDialog(
            "Endpoints", Text("An endpoints file (empty: judge each queue on its own):"),
            value=self.endpoints_path or "", validate=check, suggester=PathSuggester()), got)

    def action_copy_fixes(self) -> None:
        if self.report is not None:
            clipboard.copy_text(self.ctx, "\n".join(self.report.all_commands()),
                                       what="fixing commands")

    def action_back(self) -> None:
        self.app.pop_screen()


__all__ = ["DoctorScreen"]

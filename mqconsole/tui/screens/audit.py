"""The audit screen: queues → a snapshot on Spark (with a progress bar) → the report → messages.

Opened with ``A`` on the queue list (the filter's pattern, or the queue under the cursor).
Give the queues (a comma list; a trailing ``*`` is MQ's generic name) and the snapshot
folder, then ``ctrl+e``: Spark starts in a thread worker (7-9 s the first time: the screen
stays live and says so), the export browses the queues into the folder with a progress bar
(``ctrl+x`` cancels: nothing is written), and the report appears as tables with horizontal
bar charts — the same lists as ``mqconsole audit report``. ``ctrl+r`` shows the report of an
existing snapshot folder. ``enter`` on a row opens the matching messages in the browser
with that row's ``--where`` filter (an age bucket: its ``arrival`` range at the report's time;
a plugin column: the field of the same name).

The jobs run in the audit's own process (``audit.child``: Spark and its Python libraries
are never imported by the console, and their memory goes when this screen closes), or where
``tui.Settings.audit_runner`` says (the tests: in process, on their one Spark session).
Spark's output goes to its log file (``audit.session``); failures are one notification.
What a job notes for the operator — the snapshot's notes (a queue that changed while it was
exported), a report's doubts (its data disagrees with its manifest): the sentences the CLI
says — is a warning notification when it is heard, and stays on the report view, under its
headline, as the CLI's report shows it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Input, Label, ProgressBar, Static

from mqconsole.audit.jobs import ExportJob, Watch, is_remote
from mqconsole.audit.store import display, local_path, to_uri
from mqconsole.ops.words import counted
from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import in_thread, start
from mqconsole.tui.requests import OpenQueue
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.lists import ListTable

if TYPE_CHECKING:
    from mqconsole.audit.runner import AuditRunner

BAR_WIDTH = 30
AUDIT = "audit"  # the group of the export's or report's worker
OPEN = "audit-open"  # the group of a drill-down's question (which queues hold a row)


def default_folder(base: Path | None, now: datetime) -> Path:
    """``<state>/audits/audit-YYYYmmdd-HHMMSS`` (or under ``base``)."""
    if base is None:
        from mqconsole.paths import user_state_dir

        base = user_state_dir() / "audits"
    return base / f"audit-{now.astimezone(UTC).strftime('%Y%m%d-%H%M%S')}"


def sentence(error: BaseException) -> str:
    """One sentence for a failed export or report (never a traceback)."""
    from mqconsole.audit.jobs import sentence as said

    return clean(said(error))


class AuditScreen(ConsoleScreen):
    HELP_NAME = "the audit"
    KEYS = [*K.AUDIT_KEYS, K.BACK]
    BINDINGS = K.bindings([*K.AUDIT_KEYS, K.BACK])

    def __init__(self, ctx: ConsoleContext, patterns: str = "", *,
                 folder: Path | str | None = None,
                 report: dict[str, Any] | None = None,
                 spark: Callable[[str | None], Any] | None = None,
                 runner: AuditRunner | None = None) -> None:
        """``folder``: the snapshot folder shown, a path or a URI (``hdfs://…``);
        ``runner`` runs the jobs (default: ``settings.audit_runner`` for the master, else
        the audit's own process); ``spark``: run them here, on the session it starts."""
        super().__init__(ctx)
        self.patterns = patterns
        self.folder = folder or default_folder(ctx.settings.audit_dir, ctx.settings.now())
        self.report: dict[str, Any] | None = report
        # the folder of the report shown (a URI): its drill-downs ask that snapshot, not
        # whatever the folder field holds by then
        self.report_folder: str | None = to_uri(self.folder) if report is not None else None
        self.notes: list[str] = []  # what the job of the report shown noted (see _end)
        self._told: set[str] = set()  # the running job's notes notified as they were heard
        self.runner = runner or _runner(ctx, spark)
        self.running: str | None = None  # "export" or "report" while a worker runs
        self.cancel = threading.Event()
        self._tables: dict[str, list[dict[str, Any]]] = {}

    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, "audit")
        with Horizontal(classes="field"):
            yield Label("Queues")
            yield Input(self.patterns, placeholder="SYSTEM.DEAD.LETTER.QUEUE, APP.*.BOQ",
                        id="patterns")
        with Horizontal(classes="field"):
            yield Label("Snapshot")
            yield Input(str(self.folder), id="folder")
        yield ProgressBar(total=None, show_eta=False, id="progress", classes="-hidden")
        yield Static(Text("ctrl+e exports the queues and shows the report; ctrl+r reports "
                          "an existing snapshot folder"), id="status")
        yield VerticalScroll(id="tables")
        yield Footer()

    async def on_mount(self) -> None:
        if self.report is not None:
            await self.show_report(self.report, self.notes)

    # -- what the operator does ---------------------------------------------------------------
    def action_export(self) -> None:
        patterns = self.query_one("#patterns", Input).value.strip()
        if self.running:
            self.notify(f"An {self.running} is running: ctrl+x cancels it.", markup=False)
            return
        if not patterns:
            self.notify("Name the queues to audit (a comma list; APP.* for a pattern).",
                        severity="error", markup=False)
            return
        if self.ctx.settings.audit_connection is None:
            self.notify("This console has no queue manager Spark can open for an export: "
                        "use 'mqconsole audit export'.", severity="error", markup=False)
            return
        folder = self._folder()
        if folder is None:
            return
        local = local_path(folder)
        # only a file: folder of a classic session is this machine's to look at (anywhere
        # else the export's store checks it through Spark, once it has started)
        if local is not None and not is_remote(self.ctx.settings.audit_master) \
                and Path(local).exists():
            self.notify(f"{clean(local)} exists: give a new snapshot folder.",
                        severity="error", markup=False)
            return
        self._begin("export")
        heard: list[str] = []
        self._job("export", partial(self._export, patterns, folder, self.cancel, heard),
                  heard, folder)

    def action_report(self) -> None:
        if self.running:
            self.notify(f"An {self.running} is running: ctrl+x cancels it.", markup=False)
            return
        folder = self._folder()
        if folder is None:
            return
        self._begin("report")
        heard: list[str] = []
        self._job("report", partial(self._report, folder, self.cancel, heard), heard, folder)

    def _folder(self) -> str | None:
        """The snapshot folder field as a URI (``store.to_uri``: a URI as typed — a Hadoop
        one keeps its host, which ``Path`` would drop —, a path made absolute here, as
        ``file:``); None, said, when the field is empty."""
        text = self.query_one("#folder", Input).value.strip()
        if not text:
            self.notify("Name the snapshot folder: a path, or a URI such as "
                        "hdfs://namenode:8020/audits/snap.", severity="error", markup=False)
            return None
        return to_uri(text)

    def action_cancel(self) -> None:
        if not self.running:
            return
        self.cancel.set()
        self._status(f"cancelling the {self.running}…")

    def action_back(self) -> None:
        if self.running:
            self.action_cancel()
        self.app.pop_screen()

    def stop_work(self) -> None:
        """The console quits or switches profile: cancel what runs, end the audit's process."""
        self.cancel.set()
        self.runner.close()

    def on_unmount(self) -> None:
        """Closed: the audit's process ends (its Spark, its memory), whatever ran."""
        self.cancel.set()
        self.runner.close()

    # -- workers (Spark never runs on the event loop): flows of this screen (tui.flow) -------
    def _begin(self, what: str) -> None:
        self.running = what
        self.cancel = threading.Event()
        self._told = set()
        bar = self.query_one("#progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.remove_class("-hidden")
        self._status(f"starting Spark for the {what} (the first start takes a few seconds)…")

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(Text(clean(text)))

    def _from_job(self, cancel: threading.Event, fn: Callable[..., Any], *args: Any) -> None:
        """From a job's threads (its worker's, or one of its own: the export's progress):
        ``fn(*args)`` on the event loop soon, never waiting for it — dropped when the job
        (``cancel`` is its own) has ended by then, or this screen has gone."""

        def run() -> None:
            if self._shown() and self.running and self.cancel is cancel:
                fn(*args)

        self.ctx.post_from_thread(run)

    def _shown(self) -> bool:
        """This screen is still the console's, its widgets there: not popped (its widgets
        go before it does), not closing with the console (the same)."""
        return self.is_attached and self in self.app.screen_stack

    def _job(self, what: str, job: Callable[[], tuple[dict[str, Any], str]],
             heard: list[str], folder: str) -> None:
        """Run ``job`` (the report and the status line to show) in a thread; then
        :meth:`_end` with what it noted (``heard``, filled by its thread: complete when it
        has ended) — unless the screen has gone meanwhile (its result, or its error, is
        dropped). ``folder``: the snapshot its report is of."""

        async def flow() -> None:
            done, error = await in_thread(self.ctx, partial(_attempt, job), queue=None,
                                          what=f"audit {what}", group=AUDIT, node=self)
            if not self._shown():  # the console is quitting: its screens are going
                return
            if error is not None:
                await self._end(None, error, heard=heard)
            else:
                report, note = done
                self.report_folder = folder
                await self._end(report, None, note, heard)

        start(self, flow, what=f"audit {what}", group=AUDIT, exclusive=True)

    async def _end(self, report: dict[str, Any] | None, error: BaseException | None,
                   note: str = "", heard: list[str] | None = None) -> None:
        """The job has ended: its notes, then its error or its report. The screen's job
        runs (``running``: no other starts, a late word of it only changes what this then
        sets again) until its report is shown."""
        try:
            await self._ended(self.running, report, error, note, heard or [])
        finally:
            self.running = None

    async def _ended(self, what: str | None, report: dict[str, Any] | None,
                     error: BaseException | None, note: str, heard: list[str]) -> None:
        self.query_one("#progress", ProgressBar).add_class("-hidden")
        notes = list(dict.fromkeys(heard))
        for text in notes:  # those not notified as they were heard (the heard word that
            self._heard(text)  # comes later finds it told, or the job ended)
        if error is not None:
            from mqconsole.audit.jobs import as_cancelled

            error = as_cancelled(what or "audit", error, self.cancel)  # Spark's own words
        if error is not None:
            text = sentence(error)
            self._status(text)
            self.notify(text, severity="warning" if self.cancel.is_set() else "error",
                        markup=False)
            return
        if report is not None:
            await self.show_report(report, notes)
            self.report = report
            self.notes = notes
            status = note or "report done"
            if notes:  # the status line changes with the next job: the notes stay there
                status += f" ({counted(len(notes), 'note')} under the report's headline)"
            self._status(status)

    def _heard(self, text: str) -> None:
        """A note of the running job, notified once (a warning: the operator must know it),
        on the event loop."""
        if text not in self._told:
            self._told.add(text)
            self.notify(clean(f"Note: {text}"), severity="warning", markup=False)

    def _watch(self, cancel: threading.Event, heard: list[str]) -> Watch:
        """What a job tells this screen (from its thread); its notes are kept in ``heard``
        for :meth:`_end`, and notified as they come."""

        def note(text: str) -> None:
            heard.append(text)
            self._from_job(cancel, self._heard, text)

        return Watch(cancel, status=lambda text: self._from_job(cancel, self._status, text),
                     progress=lambda done, total, text: self._from_job(
                         cancel, self._progress, done, total, text), note=note)

    def _report(self, folder: str, cancel: threading.Event,
                heard: list[str]) -> tuple[dict[str, Any], str]:
        """In a thread: the report of the snapshot at ``folder`` (a URI)."""
        report = self.runner.report(folder, self.ctx.settings.now(),
                                    self._watch(cancel, heard))
        return report, f"report of {clean(display(folder))}"

    def _export(self, patterns: str, folder: str, cancel: threading.Event,
                heard: list[str]) -> tuple[dict[str, Any], str]:
        """In a thread: the export of ``patterns`` into ``folder`` (a URI), and its report."""
        settings = self.ctx.settings
        job = ExportJob(patterns=patterns, folder=folder, profile=self.ctx.profile.name,
                        connection=settings.audit_connection, plugins=self.ctx.plugins,
                        # the report's time: the console's clock when it has one of its own
                        # (the tests'), else now when the report starts, after the export
                        as_of=None if settings.clock is None else settings.now())
        done = self.runner.export(job, self._watch(cancel, heard))
        return done["report"], f"{counted(done['rows'], grouped=True)} exported to " \
                               f"{clean(display(folder))}"

    def _progress(self, done: int, total: int | None, text: str) -> None:
        self.query_one("#progress", ProgressBar).update(total=total, progress=done)
        self._status(text)

    # -- the report -----------------------------------------------------------------------------
    async def show_report(self, report: dict[str, Any], notes: list[str] | None = None
                          ) -> None:
        """The report's lists as tables (the first ``TOP_ROWS`` rows of each, then how many
        more, as the CLI's report), each count with a horizontal bar; ``notes`` (what
        the export said about the snapshot, the report's doubts) under the headline, as the
        CLI's report shows them. The tables of a report shown before are removed first
        (their ids are the new ones': mounted while the old were still there, the second
        report of the screen failed, DuplicateIds, and showed no table)."""
        from mqconsole.audit.present import TOP_ROWS, bar, extremes, headline, tables

        box = self.query_one("#tables", VerticalScroll)
        await box.remove_children()
        self._tables = {}
        widgets: list[Any] = [Static(txt(headline(report)), classes="title")]
        widgets += [Static(Text(clean(f"note: {text}"), style="bold yellow"), classes="note")
                    for text in notes or ()]
        widgets += [Static(txt(f"{label}: {text}")) for label, text in extremes(report)]
        for part in tables(report, top=TOP_ROWS):  # as the CLI's and the HTML page's
            widgets.append(Static(txt(part.title), classes="title"))
            if not part.rows:
                widgets.append(Static(Text("  none", style="dim")))
                continue
            table: DataTable[Any] = ListTable(cursor_type="row", zebra_stripes=True,
                                              id=f"list-{part.key}")
            table.add_columns(*part.headers, "")
            largest = max(part.counts)
            for row, count in zip(part.rows, part.counts, strict=True):
                table.add_row(*(txt(c) for c in row), Text(f"{count:,}", justify="right"),
                              Text(bar(count, largest, BAR_WIDTH), style="bold"))
            self._tables[part.key] = part.source
            widgets.append(table)
            if part.more:
                widgets.append(Static(Text(f"  … {part.more:,} more ('mqconsole audit report "
                                           "--json' lists every row)", style="dim"),
                                      classes="more"))
        await box.mount_all(widgets)
        first = next((w for w in widgets if isinstance(w, DataTable)), None)
        if first is not None:  # the rows are what to look at now (enter opens one); the
            # report's head line stays in sight (scrolling to the focused table raced the
            # layout: the screen opened at its top or 8 lines down, by timing)
            self.call_after_refresh(lambda: first.focus(scroll_visible=False))

    def action_open_row(self) -> None:
        focused = self.focused
        if isinstance(focused, DataTable) and focused.id and focused.id.startswith("list-"):
            self._open(focused.id.removeprefix("list-"), focused.cursor_row)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        table = event.data_table
        if table.id and table.id.startswith("list-"):
            self._open(table.id.removeprefix("list-"), event.cursor_row)

    def _open(self, key: str, index: int) -> None:
        from mqconsole.audit.drill import drill

        rows = self._tables.get(key) or []
        if not 0 <= index < len(rows):
            return
        found = drill(key, rows[index], as_of=self._as_of())
        if found is None:
            self.notify("The browser has no filter for this row.", markup=False)
            return
        if found.queue is not None:
            self.ctx.request(OpenQueue(found.queue, found.where or None))
            return
        queues = (self.report or {}).get("by_queue") or []
        if len(queues) == 1:
            self.ctx.request(OpenQueue(queues[0]["queue"], found.where))
            return
        self._find_queue(found)

    def _as_of(self) -> datetime | None:
        """The report's time: an age bucket's messages are those that were that old then."""
        from mqconsole.audit.ages import parse_as_of

        text = (self.report or {}).get("as_of")
        return parse_as_of(text) if text else None

    def _find_queue(self, found: Any) -> None:
        """Ask the runner which queues hold the row's messages (a snapshot of several
        queues), then open the first; nothing opens once the screen has gone. The
        snapshot asked is the report's, whatever the folder field says now."""
        folder = self.report_folder or self._folder()
        if folder is None:
            return

        async def flow() -> None:
            holding, error = await in_thread(
                self.ctx, partial(_attempt, lambda: self.runner.queues_holding(folder, found)),
                queue=None, what="audit drill-down", group=OPEN, node=self)
            if not self._shown():
                return
            if error is not None:
                self.notify(sentence(error), severity="error", markup=False)
            else:
                self._open_first(found, holding)

        start(self, flow, what="audit drill-down", group=OPEN, exclusive=True)

    def _open_first(self, found: Any, holding: list[tuple[str, str, int]]) -> None:
        if not holding:
            self.notify("No message of the snapshot matches that row.", markup=False)
            return
        _qmgr, queue, _n = holding[0]
        if len(holding) > 1:
            others = ", ".join(f"{q} ({n:,})" for _m, q, n in holding[1:6])
            self.notify(clean(f"Also on {others}: open them from the queue list with the "
                              f"filter {found.where}"), markup=False)
        self.ctx.request(OpenQueue(queue, found.where))


def _attempt(job: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    """``job()`` and no error, or its error (said by the screen in its own words: one
    sentence, a cancel as a warning) — a flow's cancellation is never mistaken for it."""
    try:
        return job(), None
    except BaseException as e:  # (a thread's: never the operator's interrupt)
        return None, e


def _runner(ctx: ConsoleContext, spark: Callable[..., Any] | None) -> AuditRunner:
    """The screen's runner, for the console's Spark master and settings (``tui.audit_conf``):
    on ``spark``'s session in this process when given, else as the settings say (the tests:
    in process), else the audit's own process."""
    from mqconsole.audit.runner import InProcessRunner, default_runner

    master, conf = ctx.settings.audit_master, ctx.settings.audit_conf
    if spark is not None:
        return InProcessRunner(master, spark, conf=conf)
    return (ctx.settings.audit_runner or default_runner)(master, conf=conf)

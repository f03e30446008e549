"""The dead-letter handler in the console: open a runmqdlq rules table, see its plan, run it.

Opened with ``H`` from a queue's messages (the dead-letter queue's, usually) or the queue
list. Give the rules file (the path completes with ``→``) and ``enter``: the table is read
and shown with line numbers — a table with problems has each one under its line, a caret at
its column, and nothing is planned — and a good one is planned at once: a dry run of one
pass (``ops.operation.DlqPass``, the plugins' checks included, nothing journaled) lists each
message with the rule that applies, its action, the attempts made so far (the durable
counts the command line keeps too) and what would happen; each rule's line says how many
messages it would take. ``ctrl+o`` runs that pass after a confirmation, with progress and
``escape`` to stop (the open unit of work is backed out), then shows the summary, each
message's outcome and each rule's counts. ``r`` reads the file and plans again. The messages
(the first :data:`MAX_ROWS`) are kept as plain rows where the plan or run was made
(``ops.dlq.rows``): the screen holds the first few hundred and a few pages more
(``tui.pages``), asks for the others as they come into view and draws them then
(:class:`~mqconsole.tui.widgets.rowlist.RowList`).

Typing in the Rules or Queue field plans too, once the typing pauses (``PLAN_DELAY``): one
edit makes one plan, never one per key (a plan reads the whole queue); ``enter`` plans at once.

The plan and the run happen in the handler's own process (``ops.dlq.child``: the same
``Operation``, its units of work and journal records, on a connection of that process's;
its progress, its summary or its error come back over a pipe), started at the first plan
and ended when this screen closes: what a pass of 200,000 messages makes and drops is not
the console's to keep (docs/benchmarks.md).

The console runs one pass; ``mqconsole dlq-handler`` runs passes as the table's WAIT says
(docs/dlq-handler.md).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, ScrollableContainer
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, Static

from mqconsole.ops.dlq.rows import Listed, Row
from mqconsole.ops.words import counted
from mqconsole.tui import keys as K
from mqconsole.tui.context import ConsoleContext
from mqconsole.tui.flow import Reported, in_thread, start
from mqconsole.tui.pages import Pages
from mqconsole.tui.requests import QueueChanged, QueuesChanged
from mqconsole.tui.safe import clean, txt
from mqconsole.tui.screens.base import ConsoleScreen
from mqconsole.tui.widgets.banner import Banner
from mqconsole.tui.widgets.footer import Footer
from mqconsole.tui.widgets.paths import PathSuggester
from mqconsole.tui.widgets.rowlist import RowColumn, RowList

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.timer import Timer

    from mqconsole.ops.dlq.child import HandlerRunner
    from mqconsole.ops.dlq.rules import Problem, RulesTable
    from mqconsole.ops.operation import Operation, Summary

MAX_SHOWN_LINES = 2_000  # of a rules file (a table is a few dozen lines)
PROGRESS_EVERY = 0.25  # seconds between a plan's progress lines
MAX_ROWS = 5_000  # messages listed and kept (the rest only counted; the CLI lists all)
PLAN_DELAY = 0.6  # seconds of no typing in the Rules or Queue field before it plans


def _short(outcome: str) -> str:
    """"would retry to APP.IN (header removed) — would fail now: …" → "would retry"."""
    what = outcome.split(" — ")[0].split(" (")[0].split(":")[0]
    return what.split(" to ")[0].split(" as ")[0]


def row_cells(row: Row | None, i: int) -> list[Text]:
    """Row ``i``'s cells, made safe when it is drawn (never kept); None: its page is on its
    way."""
    if row is None:
        return [Text("…", "dim")]
    msg_id, rule, action, attempts, fmt, outcome, bad = row
    return [Text(clean(msg_id)[-8:]), Text(clean(rule)), Text(clean(action)),
            Text(str(attempts), style="yellow" if attempts else ""), Text(clean(fmt)),
            Text(clean(outcome), style="red" if bad else "")]


def rules_text(text: str, problems: list[Problem], notes: dict[int, str] | None = None
               ) -> Text:
    """The table with line numbers; each problem under its line (a caret at its column),
    ``notes`` (line -> text) beside the lines of rules. Made safe: never markup."""
    notes = notes or {}
    by_line: dict[int, list[Problem]] = {}
    for p in problems:
        by_line.setdefault(p.line, []).append(p)
    out = Text(no_wrap=True, overflow="ellipsis")
    lines = text.splitlines() or [""]
    width = len(str(len(lines)))
    for n, line in enumerate(lines[:MAX_SHOWN_LINES], 1):
        bad = n in by_line
        out.append(f"{n:>{width}} ", "bold red" if bad else "dim")
        shown = clean(line)
        out.append(shown, "red" if bad else "")
        if n in notes:
            out.append(f"  ← {clean(notes[n])}", "cyan")
        out.append("\n")
        for p in by_line.get(n, []):
            out.append(" " * (width + 1) + " " * max(0, p.column - 1) + "^ ", "bold red")
            out.append(clean(p.text) + "\n", "red")
    if len(lines) > MAX_SHOWN_LINES:
        out.append(f"… {len(lines) - MAX_SHOWN_LINES:,} more lines\n", "dim")
    shown_lines = min(len(lines), MAX_SHOWN_LINES)
    for p in problems:  # past the end (a continuation at the end of the file)
        if p.line > shown_lines:
            out.append(f"line {p.line} column {p.column}: {clean(p.text)}\n", "red")
    return out


def outcome_counts(summary: Summary) -> Counter[str]:
    """Each outcome of the plan or run and how many messages had it: the report lists only
    the first ``MAX_ROWS`` messages and counts them all (``outcome_counts``)."""
    counts = summary.extra.get("outcome_counts")
    if counts is not None:
        return Counter(counts)
    return Counter(m["outcome"] for m in summary.extra.get("messages", []))


def listed_of(summary: Summary) -> Listed:
    """The plan's or run's listed messages as the runner keeps them (``ops.dlq.rows``)."""
    listed = summary.extra.get("listed")
    return listed if isinstance(listed, Listed) else Listed(0, (), (), 0)


def short_counts(summary: Summary, failing: int) -> Counter[str]:
    """``outcome_counts`` by what happens ("would retry"), leaving out the messages that
    would fail now when they are said first (``failing``)."""
    out: Counter[str] = Counter()
    for outcome, n in outcome_counts(summary).items():
        if not (failing and " — would fail now" in outcome):
            out[_short(outcome)] += n
    return out


def read_rules(path: str) -> tuple[str, RulesTable | None, list[Problem]]:
    """The file's text, the table (None when it has problems) and its problems (a file
    that cannot be read raises OSError; a folder or a FIFO ``NotAFile``)."""
    from mqconsole.ops.dlq.rules import check_table, read_text

    p = Path(path).expanduser()
    text = read_text(str(p))  # a folder or a FIFO: NotAFile, never waited for
    table, problems = check_table(text)
    return text, table, problems


class DlqHandlerScreen(ConsoleScreen):
    HELP_NAME = "dead-letter handler"
    KEYS = [*K.DLQ_KEYS, K.BACK]
    BINDINGS = K.bindings([*K.DLQ_KEYS, K.BACK])

    def __init__(self, ctx: ConsoleContext, queue: str | None = None, *,
                 rules: str = "") -> None:
        super().__init__(ctx)
        self.queue = queue or ""
        self.rules = rules
        self.text = ""
        self.table: RulesTable | None = None
        self.problems: list[Problem] = []
        self.op: Operation | None = None
        self.plan: Summary | None = None
        self.outcome: Summary | None = None  # the last run's
        self._planning = threading.Event()  # set: the plan in a worker stops
        self._typed: Timer | None = None  # the plan a pause in typing starts
        self._planned: tuple[str, str] | None = None  # (rules, queue) of the last plan
        self.shown: Summary | None = None  # the plan or run the table lists
        self.pages: Pages[Row] | None = None  # its listed messages here (a few pages)
        self.plan_delay = PLAN_DELAY
        self._runner: HandlerRunner | None = None

    # -- layout ---------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Banner(self.ctx, "dead-letter handler")
        names = [r["name"] for r in self.ctx.queue_rows if r.get("type") == "local"]
        with Horizontal(id="form"):
            yield Label(Text("Rules"))
            yield Input(self.rules, id="d-rules", placeholder="a runmqdlq rules table file",
                        suggester=PathSuggester())
            yield Label(Text("Queue"))
            yield Input(self.queue, id="d-queue", placeholder="(the table's INPUTQ or DEADQ)",
                        suggester=SuggestFromList(names, case_sensitive=True))
        yield Static(Text("Give a rules file and press enter to see its plan."),
                     id="d-status")
        with ScrollableContainer(id="d-file"):
            yield Static(Text(""), id="d-text")
        yield RowList(id="d-plan")  # drawn as they come into view
        yield Static(Text(""), id="d-row")
        yield Footer()

    def on_mount(self) -> None:
        self._columns(["MQSTR"])
        self.watch(self.query_one("#d-plan", RowList), "cursor", self._row_under_cursor,
                   init=False)
        self.query_one("#d-rules", Input).focus()
        if self.rules:
            self.action_plan()

    def _columns(self, formats: list[str]) -> None:
        """The plan's columns, FORMAT as wide as its cells (the dead-letter header's
        format in brackets only when one differs), no row number (the line below the
        table says it): at 80 columns OUTCOME keeps room for "would fail now: MQRC_Q_FULL
        — …", and the line below says the highlighted message's outcome whole."""
        from rich.cells import cell_len

        header = "FORMAT (DLH)" if any("(" in f for f in formats) else "FORMAT"
        width = max(len(header), *map(cell_len, formats))
        self.query_one("#d-plan", RowList).set_columns([
            RowColumn("MSGID", 8), RowColumn("RULE", 4, right=True), RowColumn("ACTION", 7),
            RowColumn("ATT", 3, right=True), RowColumn(header, width),
            RowColumn("OUTCOME", 100)])

    def _row_under_cursor(self, row: int) -> None:
        """The highlighted message's outcome whole, under the table (its cell may end at
        the screen's edge)."""
        found = self.pages.get(row) if self.pages is not None else None
        if found is None:  # none, or its page is on its way (drawn again when it comes)
            return
        msg_id, _rule, _action, _attempts, _fmt, outcome, bad = found
        line = Text(f"#{row + 1} …{clean(msg_id)[-8:]}: ", "bold")
        line.append(clean(outcome), "red" if bad else "")
        self.query_one("#d-row", Static).update(line)

    def action_focus_rules(self) -> None:
        """f: back to the rules file's field (the plan's table has the focus after a plan)."""
        field = self.query_one("#d-rules", Input)
        field.focus()
        field.cursor_position = len(field.value)

    def _status(self, text: Text | str) -> None:
        self.query_one("#d-status", Static).update(text if isinstance(text, Text)
                                                   else txt(text))

    # -- reading and planning ------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_plan()

    def on_input_changed(self, event: Input.Changed) -> None:
        """An edit of the Rules or Queue field plans once the typing pauses: each key
        starts the wait again, so one edit is one plan (never one per key)."""
        event.stop()
        if event.input.id not in ("d-rules", "d-queue"):
            return
        if self._typed is not None:
            self._typed.stop()
        self._typed = self.set_timer(self.plan_delay, self._plan_typed)

    def _fields(self) -> tuple[str, str]:
        return (self.query_one("#d-rules", Input).value.strip(),
                self.query_one("#d-queue", Input).value.strip())

    def _plan_typed(self) -> None:
        """After a pause in typing: plan what the fields now say, unless that is what was
        planned last (the plan itself fills in the queue) or no file is there yet (a path
        half typed is not an error)."""
        self._typed = None
        path, _queue = self._fields()
        if not self.is_attached or self._fields() == self._planned:
            return
        if not path or not Path(path).expanduser().is_file():
            self.op = self.plan = None
            self._status("Give a rules file and press enter to see its plan.")
            return
        self.action_plan()

    def action_plan(self) -> None:
        """Read the rules file; show it (with its problems at their lines); plan it."""
        if self._typed is not None:  # planning now: the pending plan of an edit is this one
            self._typed.stop()
            self._typed = None
        path, self.queue = self._fields()
        self._planned = (path, self.queue)
        self.op = self.plan = None
        self.pages = None
        self.query_one("#d-plan", RowList).show(0, lambda i: [])
        if not path:
            self._status("Give a rules file (a runmqdlq rules table).")
            return
        self.rules = path
        from mqconsole.inputfile import NotAFile

        try:
            self.text, self.table, self.problems = read_rules(path)
        except (OSError, NotAFile) as e:
            sentence = str(e) if isinstance(e, NotAFile) else \
                f"cannot read the rules table {path}: {e.strerror or e}"
            self.text, self.table, self.problems = "", None, []
            self.query_one("#d-text", Static).update(Text(""))
            self._status(txt(sentence, "bold red"))
            self.ctx.notify(sentence, title="Rules table", severity="error")
            return
        self._show_file()
        if self.table is None:
            first = self.problems[0]
            more = len(self.problems) - 1
            sentence = (f"{path} line {first.line} column {first.column}: {first.text}"
                        + (f" (and {more} more problem{'s' if more != 1 else ''})"
                           if more else ""))
            self._status(txt(sentence, "bold red"))
            self.ctx.notify(sentence, title="Rules table", severity="error")
            # to scroll through the problems; r reads the file again once it is fixed
            self.query_one("#d-file", ScrollableContainer).focus()
            return
        self._plan(path, self.table)

    def _show_file(self, notes: dict[int, str] | None = None) -> None:
        self.query_one("#d-text", Static).update(rules_text(self.text, self.problems, notes))

    def _kind(self, path: str, table: RulesTable) -> Any:
        from mqconsole.ops.dlq.attempts import default_path
        from mqconsole.ops.operation import DlqPass

        return DlqPass(table, path, input_q=self.queue or None, once=True,
                       attempts_file=str(default_path()), listed=MAX_ROWS)

    def _plan(self, path: str, table: RulesTable) -> None:
        ctx = self.ctx
        op = ctx.operation(self._kind(path, table))
        self._status(f"planning {path}…")
        self._planning.set()  # a plan still running stops
        cancel = self._planning = threading.Event()
        last = [0.0]
        answered = threading.Event()

        def say(line: str) -> None:
            # on the event loop, later: dropped once this plan has answered or been
            # replaced, or the screen has gone (its widgets go first: NoMatches)
            if (not answered.is_set() and self._planning is cancel and self.is_attached
                    and self in self.app.screen_stack):
                self._status(line)

        def progress(done: int, total: int | None) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                of = f" of {total:,}" if total else ""
                ctx.post_from_thread(say, f"planning {path}: {done:,}{of} messages read…")

        runner = self.runner

        def job() -> Summary:
            try:
                return runner.plan(op, ctx.conns, progress, cancel)
            finally:
                answered.set()

        queue = self.queue or None

        async def plan() -> None:
            try:
                summary = await in_thread(ctx, job, queue=queue,
                                          what="dead-letter handler plan", group="plan",
                                          node=self)
            except Reported as failed:
                self._status(txt(f"cannot plan: {failed.__cause__}", "bold red"))
                return
            self.op, self.plan = op, summary
            self.queue = str(summary.extra.get("queue") or self.queue)
            self.query_one("#d-queue", Input).value = self.queue
            self._planned = (path, self.queue)  # filling the queue in is no edit
            self._show(summary)

        # a newer plan cancels this one (its result, even one already in, is dropped)
        start(self, plan, what="dead-letter handler plan", group="plan", exclusive=True)

    # -- showing a plan or a run ---------------------------------------------------------
    def _show(self, summary: Summary) -> None:
        listed = listed_of(summary)
        table = self.query_one("#d-plan", RowList)
        self.shown = summary
        runner = self.runner

        def arrived() -> None:
            table.refresh()
            self._row_under_cursor(table.cursor)

        self.pages = pages = Pages(self.ctx, self, listed.count,
                                   lambda start, stop: runner.rows(listed.token, start, stop),
                                   arrived, first=listed.first, what="dead-letter handler rows")
        self.query_one("#d-row", Static).update(Text(""))
        self._columns([clean(f) for f in listed.formats] or ["MQSTR"])
        table.show(listed.count, lambda i: row_cells(pages.get(i), i))
        self._row_under_cursor(0)
        by_rule = {r["rule"]: r for r in summary.extra.get("rules", [])}
        notes: dict[int, str] = {}
        if self.table is not None:
            for rule in self.table.rules:
                c = by_rule.get(rule.number, {})
                if summary.dry_run:
                    notes[rule.line] = f"rule {rule.number}: {counted(c.get('matched', 0))}"
                else:
                    notes[rule.line] = (f"rule {rule.number}: matched {c.get('matched', 0)}, "
                                        f"done {c.get('done', 0)}, failed {c.get('failed', 0)}")
        self._show_file(notes)
        failing = summary.result.would_fail() if summary.dry_run else 0
        counts = short_counts(summary, failing)
        total = int(summary.extra.get("message_count", listed.count))
        parts = ", ".join(f"{n:,} {what}" for what, n in counts.most_common())
        queue = clean(summary.extra.get("queue") or self.queue)
        line = Text()
        if summary.dry_run:
            line.append(f"Plan of one pass over {queue}: ", "bold")
            if failing:  # first: the numbers to confirm are what will happen
                line.append(f"{failing:,} would fail now", "bold red")
                line.append(", then " if parts else "")
            line.append(parts or ("" if failing else "no message"))
            if not self.ctx.read_only:
                line.append(" · ctrl+o runs it", "dim")
        else:
            line.append(f"Ran one pass over {queue}: ", "bold")
            line.append(parts or "no message")
            if summary.result.failed:
                line.append(f" · {len(summary.result.failed):,} failed (they stayed, their "
                            "attempts counted)", "bold red")
            if summary.result.not_tried:  # a stop: never tried, they stayed
                line.append(f" · {summary.result.not_tried:,} not tried (they stayed)",
                            "bold yellow")
            line.append(" · r plans again", "dim")
        if total > MAX_ROWS:
            line.append(f" · the first {MAX_ROWS:,} of {total:,} listed "
                        "(dlq-handler --dry-run lists all)", "dim")
        self._status(line)
        if listed.count:
            table.focus()

    # -- running ----------------------------------------------------------------------------
    def action_run_handler(self) -> None:
        if self.ctx.read_only:
            return
        if self.op is None or self.plan is None or self.table is None:
            self.ctx.notify("Plan a rules table first (enter in the Rules field).",
                            title="Dead-letter handler", severity="warning")
            return
        from mqconsole.tui.screens.dialogs import ConfirmDialog

        plan = self.plan
        queue = clean(plan.extra.get("queue") or self.queue)
        body = Text()
        body.append("Process ")
        body.append(queue, "bold")
        body.append(f" by the rules in {clean(self.rules)}: one pass.\n\n")
        failing = plan.result.would_fail()
        if failing:  # first, grouped: the destinations say so today
            from mqconsole.tui.summary import would_fail_text

            body.append_text(would_fail_text(plan.result))
        counts = short_counts(plan, failing)
        if failing and counts:
            body.append("Then:\n", "bold")
        for what, n in counts.most_common():
            body.append(f"  {n:,} {clean(what)}\n")
        body.append("\nEach message is put and got in one unit of work; a failed attempt is "
                    "counted and the message stays.\n")
        op = self.op
        self.app.push_screen(ConfirmDialog("Run the dead-letter handler", body, confirm="Run",
                                           danger=True),
                             lambda ok: self._run(op) if ok else None)

    def _run(self, op: Operation) -> None:
        from mqconsole.tui.screens.dialogs import TextDialog
        from mqconsole.tui.screens.operation import OperationDialog
        from mqconsole.tui.summary import is_bad, summary_text

        ctx = self.ctx

        def finished(summary: Summary | None) -> None:
            queue = op.describe().source
            if queue:
                ctx.mark_dirty(queue)
                ctx.request(QueueChanged(queue))
            for dest in (summary.result.moved_to if summary is not None else {}):
                ctx.mark_dirty(dest)
                ctx.request(QueueChanged(dest))
            ctx.request(QueuesChanged())
            if summary is None or not self.is_attached:
                return
            self.outcome = summary
            self.plan = None  # the queue changed: plan again before another run
            self._show(summary)
            ctx.app.call_later(ctx.app.push_screen,
                               TextDialog("Dead-letter handler", summary_text(summary),
                                          danger=is_bad(summary)))

        runner = self.runner

        def run(progress: Callable[..., None], cancel: threading.Event) -> Summary:
            return runner.run(op, ctx.conns, progress, cancel)

        ctx.app.push_screen(OperationDialog(ctx, op, "Running the dead-letter handler",
                                            stops=OperationDialog.BACK_OUT, run_by=run),
                            finished)

    @property
    def runner(self) -> HandlerRunner:
        """Where the plan and the run happen (made at the first: the handler's own process
        by default, ended when this screen closes)."""
        if self._runner is None:
            from mqconsole.ops.dlq.child import default_runner

            self._runner = (self.ctx.settings.handler_runner or default_runner)()
        return self._runner

    def on_unmount(self) -> None:
        self._planning.set()
        self.pages = None
        if self._runner is not None:  # its process ends: what it held goes with it
            self._runner.close()
            self._runner = None

    def action_back(self) -> None:
        self._planning.set()
        self.app.pop_screen()


__all__ = ["DlqHandlerScreen", "read_rules", "rules_text"]

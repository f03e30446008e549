"""The audit screen's jobs and the screen's life, with a stand-in runner (no Spark, no
process): a job that answers after the screen has closed changes nothing and is no error, and
what a job says reaches the screen as plain text (tests/tui/test_audit_screen.py runs Spark).
"""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from mqconsole.audit.jobs import Watch
from mqconsole.tui.screens.audit import AuditScreen
from mqconsole.tui.screens.messages import MessagesScreen
from mqconsole.tui.screens.queues import QueuesScreen
from tests.audit.reportdata import AS_OF, make_rows, oracle

from .conftest import DLQ, audit_done, audit_screen, settle, wait_for

BOUND = 600  # a hang guard only: every wait below is for something the test does
NEWS = "\x1b[2J[bold red]late news[/]\x07"  # an escape sequence, markup and a bell


class HeldRunner:
    """An audit runner whose jobs wait for the test's word, then tell the screen their
    progress and answer; what telling the screen raised in the job's thread is kept."""

    def __init__(self, report: dict[str, Any]) -> None:
        self.answer = report
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()
        self.raised: list[BaseException] = []
        self.closed = 0

    def _tell(self, watch: Any) -> None:
        for say in (lambda: watch.status(NEWS),
                    lambda: watch.progress(1, 2, "read 1")):
            try:
                say()
            except BaseException as e:  # what the old screen raised here: "no such widget"
                self.raised.append(e)

    def _held(self, watch: Any, answer: Any) -> Any:
        self.started.set()
        try:
            assert self.release.wait(BOUND)
            self._tell(watch)
            return answer
        finally:
            self.finished.set()

    def report(self, folder: Path, as_of: datetime, watch: Any) -> dict[str, Any]:
        return self._held(watch, self.answer)

    def export(self, job: Any, watch: Any) -> dict[str, Any]:
        return self._held(watch, {"rows": self.answer["messages"], "report": self.answer})

    def queues_holding(self, folder: Path, found: Any) -> list[tuple[str, str, int]]:
        return self._held(Watch(), [("QM1", "APP.OTHER", 3), ("QM1", DLQ, 2)])

    def close(self) -> None:
        self.closed += 1


def _report() -> dict[str, Any]:
    report = oracle(make_rows(30, seed=4))
    report["by_queue"] = [{"qmgr": "QM1", "queue": DLQ, "count": 20},
                          {"qmgr": "QM1", "queue": "APP.OTHER", "count": 10}]
    return report


def _errors(app) -> list[str]:
    return [str(n.message) for n in app._notifications if n.severity == "error"]


async def test_a_report_that_answers_after_the_screen_closed_changes_nothing(make_app,
                                                                             tmp_path):
    """The operator leaves while the report runs; when it then says its progress and
    answers, nothing raises in its thread (it raised NoMatches: the closed screen's widgets
    were gone), nothing is shown and no error is said."""
    runner = HeldRunner(_report())
    app = make_app(audit_runner=lambda master, **_: runner)
    async with app.run_test(size=(100, 34)) as pilot:
        await settle(app, pilot)
        queues = app.screen
        assert isinstance(queues, QueuesScreen)
        screen = AuditScreen(app.ctx, DLQ, folder=tmp_path / "snap")
        await app.push_screen(screen)
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, runner.started.is_set, workers=False)
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: app.screen is queues, workers=False)
        assert runner.closed  # the runner was let go (its process ends)
        runner.release.set()
        await wait_for(app, pilot, runner.finished.is_set, workers=False)
        await settle(app, pilot)
        assert runner.raised == []
        assert app.screen is queues and app.is_running
        assert _errors(app) == []
        assert screen.report is None


async def test_a_drill_down_answered_after_the_screen_closed_opens_nothing(make_app):
    """Enter on a row of a snapshot of several queues asks which queue holds it; the
    operator goes back to the queue list meanwhile: the answer opens no browser there."""
    runner = HeldRunner(_report())
    app = make_app(clock=lambda: AS_OF, audit_runner=lambda master, **_: runner)
    async with app.run_test(size=(100, 34)) as pilot:
        await settle(app, pilot)
        queues = app.screen
        screen = AuditScreen(app.ctx, DLQ, folder=Path("/srv/snap"), report=runner.answer)
        await app.push_screen(screen)
        await wait_for(app, pilot, lambda: isinstance(app.focused, DataTable))
        reasons = screen.query_one("#list-by_reason", DataTable)
        reasons.focus()
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(app, pilot, runner.started.is_set, workers=False)
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: app.screen is queues, workers=False)
        runner.release.set()
        await wait_for(app, pilot, runner.finished.is_set, workers=False)
        await settle(app, pilot)
        assert app.screen is queues
        assert not any(isinstance(s, MessagesScreen) for s in app.screen_stack)
        assert _errors(app) == []


class ChattyRunner(HeldRunner):
    """Once let go (its close, as the console quits), tells its progress over and over,
    as a job does that reads fast, until the test has seen the console end."""

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(report)
        self.enough = threading.Event()

    def report(self, folder: Path, as_of: datetime, watch: Any) -> dict[str, Any]:
        self.started.set()
        try:
            assert self.release.wait(BOUND)
            told = 0
            while not self.enough.is_set() and told < 10_000:
                told += 1
                try:
                    watch.progress(told, None, f"read {told:,}")
                except BaseException as e:
                    self.raised.append(e)
            return self.answer
        finally:
            self.finished.set()

    def close(self) -> None:
        self.closed += 1
        self.release.set()


async def test_a_job_telling_its_progress_as_the_console_quits_raises_nothing(make_app,
                                                                             tmp_path):
    """The console quits while a job reads: the job, told to stop, says its progress on
    its way out — while the console's screens are being taken down. Telling the screen
    never raises in the job's thread (it raised NoMatches '#status' or '#progress': the
    screen was still there, its widgets gone — in about 3 of 4 quits), and the console
    ends with 0. Three quits: the moment the job's words arrive is the machine's."""
    for _ in range(3):
        runner = ChattyRunner(_report())
        app = make_app(audit_runner=lambda master, runner=runner, **_: runner)
        async with app.run_test(size=(100, 34)) as pilot:
            await audit_screen(app, pilot, tmp_path / "snap")
            await pilot.press("ctrl+r")
            await wait_for(app, pilot, runner.started.is_set, workers=False)
            await app.action_quit()
        runner.enough.set()
        assert await asyncio.to_thread(runner.finished.wait, BOUND)
        assert runner.closed
        assert runner.raised == []
        assert app.return_code == 0


class SayingRunner(HeldRunner):
    """Says its status at once, then waits for the test's word to answer."""

    def report(self, folder: Path, as_of: datetime, watch: Any) -> dict[str, Any]:
        watch.status(NEWS)
        return self._held(Watch(), self.answer)


async def test_what_a_job_says_is_shown_as_plain_text(make_app, tmp_path):
    """A job's status line (the audit's process relays it) is data: an escape sequence or
    Rich markup in it is shown, not obeyed."""
    runner = SayingRunner(_report())
    app = make_app(audit_runner=lambda master, **_: runner)
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "snap")
        status = screen.query_one("#status")
        await pilot.press("ctrl+r")
        await wait_for(app, pilot, lambda: "late news" in str(status.content), workers=False)
        shown = str(status.content)
        assert "\x1b" not in shown and "\x07" not in shown
        assert "[bold red]late news[/]" in shown  # the brackets as they were, not a style
        runner.release.set()
        await audit_done(app, pilot, screen)
        assert runner.raised == []
        assert screen.report == runner.answer


class ProgressThreadRunner(HeldRunner):
    """An export whose progress is told from a thread of its own (as audit/export.py's
    watcher does), many times, before it answers."""

    def export(self, job: Any, watch: Any) -> dict[str, Any]:
        def tell() -> None:
            for read in range(1, 201):
                try:
                    watch.progress(read, 200, f"read {read}")
                except BaseException as e:
                    self.raised.append(e)

        teller = threading.Thread(target=tell, name="export-progress")
        teller.start()
        teller.join()
        return {"rows": self.answer["messages"], "report": self.answer}


async def test_an_exports_progress_from_its_own_thread_ends_in_its_note(make_app, tmp_path):
    """Progress told from the export's own thread (not the worker's) reaches the bar, and
    none of it, arriving late, overwrites the export's closing note."""
    runner = ProgressThreadRunner(_report())
    app = make_app(audit_runner=lambda master, **_: runner, audit_connection={"backend": "x"})
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "snap")
        await pilot.press("ctrl+e")
        await audit_done(app, pilot, screen)
        await settle(app, pilot)
        assert runner.raised == []
        status = str(screen.query_one("#status").content)
        assert status == f"{runner.answer['messages']} messages exported to {tmp_path / 'snap'}"
        assert screen.query_one("#progress").has_class("-hidden")
        assert _errors(app) == []


CHANGED = f"{DLQ} (QM1) changed during the export: 3 more rows than its depth"
DOUBT = ("the stored aggregates disagree with the manifest (not computed from the files it "
         "commits): counting the messages instead")


class NotingRunner(HeldRunner):
    """A report that notes what the CLI says of its snapshot (and of its counts) while it
    runs, then says its progress (which replaced the sentence in the status line before),
    then answers; ``notes`` are what it notes on its next job."""

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(report)
        self.notes = [CHANGED, DOUBT, CHANGED]  # a sentence heard twice is said once

    def report(self, folder: Path, as_of: datetime, watch: Any) -> dict[str, Any]:
        for text in self.notes:
            watch.note(text)
        watch.status("counting the messages")
        return self.answer


def _warnings(app) -> list[str]:
    return [str(n.message) for n in app._notifications if n.severity == "warning"]


def _note_lines(screen) -> list[str]:
    return [str(w.content) for w in screen.query("#tables .note")]


async def test_a_jobs_notes_are_notified_once_and_stay_on_the_report_view(make_app,
                                                                          tmp_path):
    """What a report notes (the snapshot changed while exported; the stored aggregates
    disagree with the manifest) is one warning notification each, and stays under the
    report's headline as the CLI's report prints it ("note: …") — the status line's later
    words do not take it away; the next report without notes shows none."""
    runner = NotingRunner(_report())
    app = make_app(audit_runner=lambda master, **_: runner)
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await audit_screen(app, pilot, tmp_path / "snap")
        await pilot.press("ctrl+r")
        await audit_done(app, pilot, screen)
        await settle(app, pilot)
        assert _warnings(app) == [f"Note: {CHANGED}", f"Note: {DOUBT}"]
        assert _note_lines(screen) == [f"note: {CHANGED}", f"note: {DOUBT}"]
        assert screen.notes == [CHANGED, DOUBT]
        status = str(screen.query_one("#status").content)
        assert status == (f"report of {tmp_path / 'snap'} (2 notes under the report's "
                          "headline)")
        headline = screen.query("#tables Static").first()
        assert "title" in headline.classes  # the notes come right under it
        runner.notes = []
        await pilot.press("ctrl+r")
        await audit_done(app, pilot, screen)
        await settle(app, pilot)
        assert _note_lines(screen) == [] and screen.notes == []
        # the second report's tables replace the first's (same ids: DuplicateIds before)
        assert screen.query_one("#list-by_reason", DataTable).row_count
        assert len(_warnings(app)) == 2  # nothing more said
        assert _errors(app) == []

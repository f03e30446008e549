"""The dead-letter handler in the console: open a rules file from the DLQ's messages, see
its problems at their lines or its plan (each message, its rule, attempts, outcome), run it
with progress and a summary — checked on the queues, the journal and the attempt counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Label, Static

from mqconsole.ops.dlq.attempts import AttemptStore, default_path
from mqconsole.ops.journal import Journal
from mqconsole.tui.screens.dialogs import ConfirmDialog, TextDialog
from mqconsole.tui.screens.dlq import DlqHandlerScreen
from mqconsole.tui.widgets.paths import complete_path
from mqconsole.tui.widgets.rowlist import RowList

from .conftest import DLQ, depth, open_queue, screen_text, settle, wait_for

IBM_EXAMPLE = (Path(__file__).parents[2] / "examples" / "dlq" / "ibm-example.rules").read_text()
BAD = "* site rules\nREASON(MQRC_Q_FULL) ACTION(RETRY)\nDESTQ(APP.*) ACTION(FWD) FWQ(X)\n"


@pytest.fixture
def rules_dir(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "ibm.rules").write_text(IBM_EXAMPLE)
    (folder / "bad.rules").write_text(BAD)
    (folder / "small.rules").write_text("REASON(MQRC_Q_FULL) DESTQ(APP.SMALL) ACTION(RETRY) "
                                        "RETRY(3)\nACTION(IGNORE)\n")
    monkeypatch.chdir(folder)
    return folder


def define_ibm_queues(qm) -> None:
    from mqconsole.mq.queue import QueueAttrs

    for name in ("APP.DEADQ", "DEADQ.MANUAL.SECURITY", "IGNORED.DEAD.QUEUE"):
        qm.define_queue(QueueAttrs(name=name))


async def open_handler(app, pilot, rules: str, *, wait: bool = True) -> DlqHandlerScreen:
    """The handler screen on the DLQ with ``rules`` entered; ``wait``: its plan's worker
    done too (False: a test's runner holds the plan)."""
    await settle(app, pilot)
    await open_queue(app, pilot, DLQ)
    await settle(app, pilot)
    await pilot.press("H")
    await wait_for(app, pilot, lambda: isinstance(app.screen, DlqHandlerScreen))
    screen = app.screen
    assert screen.query_one("#d-queue", Input).value == DLQ
    screen.query_one("#d-rules", Input).value = rules
    screen.query_one("#d-rules", Input).focus()
    await pilot.press("enter")
    if wait:
        await settle(app, pilot)
    return screen


def status(screen) -> str:
    return str(screen.query_one("#d-status", Static).content)


def plan_rows(screen) -> list[list[str]]:
    table = screen.query_one("#d-plan", RowList)
    return [table.cells(i) for i in range(table.row_count)]


async def test_problems_are_shown_at_their_lines_and_nothing_is_planned(make_app, rules_dir):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_handler(app, pilot, "bad.rules")
        text = str(screen.query_one("#d-text", Static).content)
        lines = text.splitlines()
        at = lines.index("3 DESTQ(APP.*) ACTION(FWD) FWQ(X)")
        assert lines[at + 1].startswith("  " + " " * 25 + "^ FWQ is not a rules-table keyword")
        assert "bad.rules line 3 column 26: FWQ is not a rules-table keyword" in status(screen)
        assert plan_rows(screen) == []
        assert any("line 3 column 26" in n.message for n in app._notifications)
        # ctrl+o has nothing to run
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, DlqHandlerScreen)
        # a file that is not there: one sentence
        screen.query_one("#d-rules", Input).value = "missing.rules"
        screen.query_one("#d-rules", Input).focus()
        await pilot.press("enter")
        assert "cannot read the rules table missing.rules" in status(screen)
        # a queue that is not there: one sentence, nothing planned
        screen.query_one("#d-queue", Input).value = "NO.SUCH"
        screen.query_one("#d-rules", Input).value = "small.rules"
        screen.query_one("#d-rules", Input).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert "the input queue NO.SUCH does not exist" in status(screen)
        assert screen.plan is None and plan_rows(screen) == []


def _live_texts() -> int:
    import gc

    from rich.text import Text

    gc.collect()
    return sum(isinstance(o, Text) for o in gc.get_objects())


async def test_the_plan_holds_its_rows_as_plain_values_not_rich_texts(make_app, rules_dir):
    """Issue 23 item 3: a plan's rows are plain values (str and int), drawn as they come
    into view: listing 240 messages adds no Rich text per row (a DataTable kept six a row,
    13 MB of a 5,000-row plan's 23 MB, left in Python's arenas once the screen closed)."""
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "")
        await settle(app, pilot)
        before = _live_texts()
        screen.query_one("#d-rules", Input).value = "small.rules"
        screen.query_one("#d-rules", Input).focus()
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        await settle(app, pilot)
        assert len(plan_rows(screen)) == screen.pages.count == screen.pages.held == 240
        assert all(type(v) in (str, int, bool) for i in range(240)
                   for v in screen.pages.get(i))
        assert _live_texts() - before < 60, "Rich texts kept per row"
        assert plan_rows(screen)[0][5].startswith("would fail now: MQRC_Q_FULL")


def test_the_rules_file_is_shown_as_data() -> None:
    """Escapes and markup in a rules file reach the screen as visible text, never as
    terminal control or Rich markup."""
    from mqconsole.ops.dlq.rules import check_table
    from mqconsole.tui.screens.dlq import rules_text

    text = "* [bold]not markup[/bold] \x1b[31mred\x1b[0m\nACTION(FWD) FWDQ(\x1b]52;c;AAAA\x07)\n"
    _, problems = check_table(text)
    shown = rules_text(text, problems)
    assert "\x1b" not in shown.plain and "\x07" not in shown.plain
    assert "[bold]not markup[/bold]" in shown.plain
    assert problems and problems[0].line == 2


async def test_plan_then_run_ibms_table_on_the_demo_dlq(make_app, qm, rules_dir, tmp_path,
                                                       monkeypatch):
    from mqconsole.tui.screens.operation import OperationDialog

    hints: list[str] = []  # what the running dialog says escape does
    mounted = OperationDialog.on_mount

    def on_mount(self) -> None:
        hints.append(str(self.query_one(".hint", Label).content))
        mounted(self)

    monkeypatch.setattr(OperationDialog, "on_mount", on_mount)
    define_ibm_queues(qm)
    before = depth(qm, DLQ)
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "ibm.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        rows = plan_rows(screen)
        assert len(rows) == before == 240
        assert {r[1] for r in rows} == {"1", "2", "3", "4"}
        assert all(r[3] == "0" for r in rows)  # no attempts yet
        assert "Plan of one pass over SYSTEM.DEAD.LETTER.QUEUE" in status(screen)
        text = str(screen.query_one("#d-text", Static).content)
        assert "← rule 1: 25 messages" in text
        assert depth(qm, DLQ) == before and not list(Journal(tmp_path / "journal.jsonl")
                                                    .read())  # a plan changes nothing
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        assert "SYSTEM.DEAD.LETTER.QUEUE" in body and "one pass" in body
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        summary = str(app.screen.body)
        assert "Handled 140 of 240 messages from SYSTEM.DEAD.LETTER.QUEUE" in summary
        assert "→ DEADQ.MANUAL.SECURITY: 25" in summary and "Failed: 100" in summary
        # the handler backs its open unit out when stopped: the dialog says so, not "after"
        assert hints == ["escape: stop at the next message: the open unit of work is backed "
                         "out, its messages stay"]
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
        rows = plan_rows(screen)
        # Q_FULL on APP.SMALL and PUT_INHIBITED on APP.LEGACY: failed, 1 attempt each
        failed = [r for r in rows if r[5].startswith("failed")]
        assert failed and all(r[3] == "1" for r in failed)
        assert "Ran one pass" in status(screen)
        assert "← rule 2: matched" in str(screen.query_one("#d-text", Static).content)
    # on the queues: what the pass committed
    assert depth(qm, "DEADQ.MANUAL.SECURITY") == 25
    assert depth(qm, DLQ) == len(failed)
    [entry] = Journal(tmp_path / "journal.jsonl").read()
    assert entry.operation == "dlq-handler" and entry.details["rules"] == "ibm.rules"
    # the attempt counts are the durable ones the command line uses
    store = AttemptStore(default_path(), "QM1", DLQ)
    assert len(store) == len(failed)
    store.close()


async def test_attempts_from_earlier_runs_are_shown_in_the_plan(make_app, qm, rules_dir):
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "small.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("r")  # plan again: the counts are there
        await wait_for(app, pilot, lambda: screen.plan is not None)
        small = [r for r in plan_rows(screen) if r[1] == "1"]
        assert len(small) == 60 and {r[3] for r in small} == {"1"}
        assert all(r[5].startswith("waiting: tried again after RETRYINT(60)") for r in small)


async def test_read_only_plans_but_cannot_run(make_app, qm, rules_dir):
    app = make_app(read_only=True)
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "small.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        assert "ctrl+o" not in status(screen)
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert app.screen is screen and "dlq_run" not in screen_text(app)
        # leaving stops a plan still running in its worker
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is not screen and screen._planning.is_set()
    assert depth(qm, DLQ) == 240


def test_paths_complete(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "site.rules").write_text("ACTION(IGNORE)")
    (tmp_path / ".hidden").write_text("")
    assert complete_path("ru", base=tmp_path) == "rules/"
    assert complete_path("rules/s", base=tmp_path) == "rules/site.rules"
    assert complete_path(str(tmp_path / "rules" / "si")) == str(tmp_path / "rules" /
                                                                 "site.rules")
    assert complete_path("", base=tmp_path) is None
    assert complete_path("nothing", base=tmp_path) is None
    assert complete_path(".h", base=tmp_path) == ".hidden"
    assert complete_path("no/such/folder/x", base=tmp_path) is None


async def test_a_long_plan_lists_the_first_rows_and_counts_all(make_app, rules_dir,
                                                                monkeypatch):
    import mqconsole.tui.screens.dlq as dlq_screen

    monkeypatch.setattr(dlq_screen, "MAX_ROWS", 50)
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "small.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        assert len(plan_rows(screen)) == 50
        assert "the first 50 of 240 listed" in status(screen)
        assert "60 would fail now, then 180 ignored" in status(screen)


async def test_a_run_shows_its_progress_and_escape_backs_the_open_unit_out(
        make_app, qm, rules_dir, monkeypatch):
    """ctrl+o's pass reports its progress against the queue's depth; escape mid-pass stops
    it with the open unit of work backed out: every message is then once on the DLQ or
    once on APP.DEADQ, the summary says it was stopped."""
    import mqconsole.ops.dlq.handler as handler_mod
    import mqconsole.tui.screens.operation as operation_mod
    from mqconsole.tui.screens.operation import OperationDialog

    (rules_dir / "fwd.rules").write_text("ACTION(FWD) FWDQ(APP.DEADQ)\n")
    define_ibm_queues(qm)
    before = {m.md.msg_id for m in _browse(qm, DLQ)}
    monkeypatch.setattr(handler_mod, "PROGRESS_EVERY", 5)
    monkeypatch.setattr(operation_mod, "PROGRESS_EVERY", 0)
    shown: list[tuple[int, int | None, str]] = []
    update = OperationDialog.update_progress

    def update_progress(self, done: int, total: int | None) -> None:
        update(self, done, total)
        shown.append((done, total, str(self.query_one("#status", Label).content)))

    monkeypatch.setattr(OperationDialog, "update_progress", update_progress)
    import threading

    one = handler_mod.Handler._one
    gate, calls = threading.Event(), [0]

    def gated_one(self, *args, **kw):  # from the run's 200th message it waits: mid-pass
        calls[0] += not self.settings.dry_run  # (the plan is a dry run)
        if calls[0] >= 200:
            assert gate.wait(120), "the test never opened the gate"
        return one(self, *args, **kw)

    monkeypatch.setattr(handler_mod.Handler, "_one", gated_one)
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "fwd.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, OperationDialog),
                       workers=False)
        # past the first commit (the console's units of work are of 100 messages)
        await wait_for(app, pilot, lambda: any(done >= 130 for done, _, _ in shown),
                       workers=False)
        assert all(total == 240 for _, total, _ in shown)
        assert shown[0][2].endswith("of 240 messages")
        dones = [done for done, _, _ in shown]
        assert dones == sorted(dones)
        await pilot.press("escape")
        gate.set()
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        summary = str(app.screen.body)
        assert "stopped" in summary
    moved = [m.md.msg_id for m in _browse(qm, "APP.DEADQ")]
    left = [m.md.msg_id for m in _browse(qm, DLQ)]
    assert 100 <= len(moved) < 240 and len(moved) + len(left) == 240
    assert set(moved) | set(left) == before and not set(moved) & set(left)


def _browse(qm, queue: str):
    from tests.support.faulty import browse_all

    return browse_all(qm, queue)


async def test_an_unusable_attempts_file_is_said_and_nothing_planned(make_app, qm, rules_dir):
    path = default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a database " * 20)
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "small.rules")
        await wait_for(app, pilot, lambda: "cannot plan" in status(screen))
        sentence = f"cannot keep the attempt counts in {path}: file is not a database"
        assert sentence in status(screen)
        assert any(sentence in n.message for n in app._notifications)
        assert screen.plan is None and plan_rows(screen) == []
        await pilot.press("ctrl+o")  # nothing to run
        await settle(app, pilot)
        assert app.screen is screen
    assert depth(qm, DLQ) == 240


@pytest.mark.timeout(120, method="signal")  # without the fix the open blocks the event loop
async def test_a_fifo_typed_as_the_rules_file_is_named_and_the_console_answers(
        make_app, rules_dir):
    """Issue 28 item 9: a FIFO typed as the rules file froze the console (its open waited
    for a writer on the event loop; Escape, q and Ctrl-C ignored). Now one sentence."""
    import os

    os.mkfifo(rules_dir / "pipe.rules")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_handler(app, pilot, "pipe.rules")
        said = "the rules table pipe.rules is a FIFO (a named pipe), not a file"
        assert said in status(screen)
        assert any(said in n.message for n in app._notifications)
        assert plan_rows(screen) == []
        # the console still answers: the rules file can be corrected and planned
        screen.query_one("#d-rules", Input).value = "small.rules"
        screen.query_one("#d-rules", Input).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert "FIFO" not in status(screen)


async def test_a_plan_whose_destinations_fill_says_how_many_would_fail_before_the_question(
        make_app, qm, rules_dir):
    """Forwarding the whole dead-letter queue to a 3-deep queue: the plan's line and the
    confirmation say first how many would fail now (by destination and reason), then what
    would succeed — the numbers the operator confirms are what will happen."""
    from mqconsole.mq.queue import QueueAttrs

    qm.define_queue(QueueAttrs(name="APP.FEW", max_depth=3))
    (rules_dir / "few.rules").write_text("ACTION(FWD) FWDQ(APP.FEW) HEADER(NO)\n")
    total = depth(qm, DLQ)
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "few.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        assert screen.plan.result.would_fail() == total - 3
        assert f"{total - 3:,} would fail now, then 3 would forward" in status(screen)
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = screen_text(app)
        first = body.index(f"{total - 3:,} would fail now")
        assert f"{total - 3:,} on APP.FEW: MQRC_Q_FULL (2053)" in body
        assert body.index("3 would forward") > first
        await pilot.press("escape")
    assert depth(qm, "APP.FEW") == 0  # nothing was run


async def test_f_puts_the_cursor_back_in_the_rules_field(make_app, rules_dir):
    """After a plan the table has the focus; f goes back to the rules file's field, where
    typing another name and enter plans that one."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_handler(app, pilot, "small.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        field = screen.query_one("#d-rules", Input)
        field.blur()
        await pilot.pause()
        assert screen.focused is not field
        await pilot.press("f")
        await pilot.pause()
        assert screen.focused is field


def test_what_would_fail_comes_first_in_the_outcome_column() -> None:
    """At 80 columns the OUTCOME column is cut at the screen's edge: its first words say
    what would fail (issue 24: the dead-letter plan hid 'would fail now')."""
    from mqconsole.ops.dlq.handler import first_the_failure

    said = first_the_failure("would retry to APP.PAYMENTS (header removed) — would fail now: "
                             "MQRC_Q_FULL")
    assert said.startswith("would fail now: MQRC_Q_FULL — would retry to APP.PAYMENTS")
    assert first_the_failure("would discard") == "would discard"


class _Timers:
    """The screen's timers, held: a test fires the one still pending when it chooses (no
    waiting on a clock)."""

    def __init__(self) -> None:
        self.started: list[tuple[float, object, _Timers.Timer]] = []

    class Timer:
        def __init__(self) -> None:
            self.stopped = False

        def stop(self) -> None:
            self.stopped = True

    def __call__(self, delay, callback, **_kw):
        timer = _Timers.Timer()
        self.started.append((delay, callback, timer))
        return timer

    def pending(self) -> list:
        return [callback for _d, callback, timer in self.started if not timer.stopped]


async def _handler_typing(app, pilot, monkeypatch) -> tuple[DlqHandlerScreen, list, _Timers]:
    """The handler screen opened with an empty rules field, its plans counted, its timers
    held."""
    plans: list[str] = []
    original = DlqHandlerScreen._plan

    def counted(self, path, table):
        plans.append(path)
        return original(self, path, table)

    monkeypatch.setattr(DlqHandlerScreen, "_plan", counted)
    await settle(app, pilot)
    await open_queue(app, pilot, DLQ)
    await settle(app, pilot)
    await pilot.press("H")
    await wait_for(app, pilot, lambda: isinstance(app.screen, DlqHandlerScreen))
    screen = app.screen
    timers = _Timers()
    screen.set_timer = timers  # type: ignore[method-assign]
    await settle(app, pilot)
    assert app.focused is screen.query_one("#d-rules", Input) and plans == []
    return screen, plans, timers


async def test_typing_a_rules_file_plans_it_once(make_app, rules_dir, monkeypatch):
    """Issue 24 item 5: typing in the rules field planned once a key; one edit is one plan,
    made when the typing pauses (each key starts the wait again)."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen, plans, timers = await _handler_typing(app, pilot, monkeypatch)
        await pilot.press(*"small.rules")
        await settle(app, pilot)
        assert plans == []  # nothing while typing
        assert len(timers.started) == len("small.rules") and len(timers.pending()) == 1
        timers.pending()[0]()  # the pause
        await wait_for(app, pilot, lambda: screen.plan is not None)
        await settle(app, pilot)
        assert plans == ["small.rules"]
        # the plan filled in the queue field: that is no edit, no second plan
        for callback in timers.pending():
            callback()
        await settle(app, pilot)
        assert plans == ["small.rules"]
        # a half-typed name is no error and no plan
        screen.query_one("#d-rules", Input).focus()
        await pilot.press("backspace", "backspace")
        await settle(app, pilot)
        for callback in timers.pending():
            callback()
        await settle(app, pilot)
        assert plans == ["small.rules"] and screen.plan is None
        assert "press enter" in status(screen) and not app._notifications


async def test_enter_plans_at_once_and_the_pause_adds_none(make_app, rules_dir, monkeypatch):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen, plans, timers = await _handler_typing(app, pilot, monkeypatch)
        await pilot.press(*"ibm.rules", "enter")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        await settle(app, pilot)
        assert plans == ["ibm.rules"]
        for callback in timers.pending():  # a pause after enter: planned already
            callback()
        await settle(app, pilot)
        assert plans == ["ibm.rules"]


async def test_the_plan_shows_the_data_format_and_the_headers(make_app, qm, rules_dir):
    """issue 22 item 8: a message whose properties came as an RFH2 (MQGMO_PROPERTIES_FORCE_
    MQRFH2) has MQHRF2 in its dead-letter header; FORMAT(MQSTR) matches the data after that
    RFH2, and the plan shows both formats."""
    from mqconsole.backends.base import Context
    from tests.ops.dlq.test_formats import with_properties

    qm.put(DLQ, with_properties(1, dest="APP.NOWHERE"), context=Context.SET_ALL,
           syncpoint=False)
    (rules_dir / "format.rules").write_text("FORMAT(MQSTR) DESTQ(APP.NOWHERE) ACTION(IGNORE)\n")
    app = make_app()
    async with app.run_test(size=(160, 34)) as pilot:
        screen = await open_handler(app, pilot, "format.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        rows = [r for r in plan_rows(screen) if r[1] == "1"]
        assert [(r[2], r[4]) for r in rows] == [("IGNORE", "MQSTR (MQHRF2)")]


async def test_at_80_columns_the_outcome_keeps_its_reason_and_the_row_below_says_it_whole(
        make_app, rules_dir):
    """Issue 24 item 4: the FORMAT (DLH) column cut OUTCOME to 'would fail now: MQRC_Q_F' at
    80 columns. The columns leave room for the reason (FORMAT as wide as its cells, no row
    number), and the line below the table says the highlighted message's outcome whole,
    however long its reason (MQRC_UNKNOWN_OBJECT_NAME), following the cursor."""
    (rules_dir / "nowhere.rules").write_text("REASON(MQRC_Q_FULL) ACTION(FWD) "
                                             "FWDQ(APP.NO.SUCH.QUEUE)\nACTION(IGNORE)\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_handler(app, pilot, "small.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        await settle(app, pilot)
        lines = screen_text(app).split("\n")
        rows = [ln for ln in lines if "would fail now" in ln and "…" not in ln
                and not ln.startswith(" Plan")]
        assert rows and all("would fail now: MQRC_Q_FULL" in ln for ln in rows), lines
        row = str(screen.query_one("#d-row", Static).content)
        assert row.startswith("#1 …") and "would fail now: MQRC_Q_FULL — would retry to " \
            "APP.SMALL" in " ".join(row.split())
        screen.query_one("#d-rules", Input).value = "nowhere.rules"
        screen.query_one("#d-rules", Input).focus()
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: "APP.NO.SUCH.QUEUE" in str(
            screen.query_one("#d-row", Static).content))
        await settle(app, pilot)
        said = " ".join(screen_text(app).split())
        assert ("would fail now: MQRC_UNKNOWN_OBJECT_NAME — would forward to "
                "APP.NO.SUCH.QUEUE") in said, said
        table = screen.query_one("#d-plan", RowList)
        failing = [i for i, r in enumerate(plan_rows(screen)) if "would fail" in r[5]]
        ignored = next(i for i, r in enumerate(plan_rows(screen)) if r[5].startswith("ignored"))
        table.move_cursor(row=ignored)
        await settle(app, pilot)
        assert f"#{ignored + 1} …" in str(screen.query_one("#d-row", Static).content)
        assert "ignored: left" in str(screen.query_one("#d-row", Static).content)
        assert failing


async def test_a_plans_progress_after_the_screen_has_gone_is_dropped(make_app, rules_dir):
    """A plan still reading when the operator leaves says its progress later: that line
    goes nowhere (before, it looked for the screen's status widget, gone by then: NoMatches
    on the event loop, which ends the console)."""
    import threading

    from mqconsole.ops.dlq.child import InProcess

    left, said = threading.Event(), threading.Event()

    class Chatty(InProcess):
        def plan(self, op, conns, progress, cancel):
            left.wait(60)  # the operator has left the screen
            progress(5, 10)
            said.set()
            raise RuntimeError("the plan ends after its screen")

    app = make_app(handler_runner=Chatty)
    async with app.run_test(size=(120, 34)) as pilot:
        # the plan starts, and waits in Chatty.plan
        screen = await open_handler(app, pilot, "small.rules", wait=False)
        await wait_for(app, pilot, lambda: "planning" in status(screen), workers=False)
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: screen not in app.screen_stack, workers=False)
        left.set()
        await wait_for(app, pilot, said.is_set, workers=False)
        await settle(app, pilot)
        assert app.is_running and app.return_code is None
        assert not isinstance(app.screen, DlqHandlerScreen)


async def test_a_plan_past_its_first_rows_pages_them_as_they_come_into_view(
        make_app, rules_dir, monkeypatch):
    """Issue 23 item 3: the console holds a plan's first rows and a few pages; the others stay
    with the runner (the handler's process by default) and are asked for as they come into
    view: scrolling shows the same rows, the line under the table follows."""
    import mqconsole.ops.dlq.rows as rows_mod
    from mqconsole.tui.screens.dlq import row_cells

    monkeypatch.setattr(rows_mod, "FIRST", 30)
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        screen = await open_handler(app, pilot, "small.rules")
        await wait_for(app, pilot, lambda: screen.plan is not None)
        listed = screen.plan.extra["listed"]
        assert listed.count == 240 and len(listed.first) == 30
        assert "messages" not in screen.plan.extra
        whole = screen.runner.rows(listed.token, 0, listed.count)  # what the runner keeps
        table = screen.query_one("#d-plan", RowList)

        def drawn(i: int) -> list[str]:
            return [c.plain for c in row_cells(whole[i], i)]

        assert table.cells(0) == drawn(0)
        for target in (239, 100, 31, 5):
            table.move_cursor(target)
            await wait_for(app, pilot, lambda t=target: table.cells(t) != ["…"])
            assert table.cells(target) == drawn(target)
            await wait_for(app, pilot, lambda t=target: str(
                screen.query_one("#d-row", Static).content).startswith(f"#{t + 1} …"))
        assert screen.pages.held <= 240

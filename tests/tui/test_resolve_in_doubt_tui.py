"""A move or copy whose last run on the same queues ended in doubt: the console says so
before anything else and offers to settle it first, as the CLI's --resolve-in-doubt
(issue 28 item 16: each feature in both faces)."""

from __future__ import annotations

from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.journal import Journal
from mqconsole.ops.operation import Copy, Operation
from mqconsole.ops.selection import Selection
from mqconsole.tui.screens.dialogs import ChoiceDialog, InputDialog
from tests.support.faulty import Faults, FaultyQueueManager

from .conftest import depth, open_queue, screen_text, settle, wait_for
from .test_actions import answer, result


async def test_a_copy_after_one_in_doubt_offers_to_settle_it_first(make_app, qm, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")  # the console's (make_app's) journal
    # the second unit's commit commits, then MQ cannot say so (2549): 10 copies in doubt
    summary = Operation(Copy("APP.ORDERS", "APP.AUDIT", Selection(all=True), batch=10),
                        journal=journal).run(FaultyQueueManager(qm, Faults(
                            commit_after={2: 2549})))
    assert summary.exit_code == ExitCode.UNKNOWN_OUTCOME
    copied = depth(qm, "APP.AUDIT")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.ORDERS")
        await settle(app, pilot)
        await pilot.press("c")
        await answer(app, pilot, InputDialog, "enter", value="APP.AUDIT")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog)
                       and "ended in doubt" in app.screen.title_text.plain)
        said = screen_text(app)
        assert "may already be on APP.AUDIT" in said and "Settle it first" in said
        await pilot.press("enter")  # settle it first
        text = await result(app, pilot)
        assert "10" in text
    assert depth(qm, "APP.AUDIT") == copied  # nothing copied again, nothing removed
    kinds = [e.operation for e in journal.read()]
    assert kinds[-1] == "resolve-in-doubt"


async def test_a_load_after_one_in_doubt_says_so_before_it_asks(make_app, qm, tmp_path):
    """The console's load: the same question first (cancel leaves everything as it was)."""
    from mqconsole.ops.operation import Load, Save

    journal = Journal(tmp_path / "journal.jsonl")
    saved = tmp_path / "orders.dmp"
    assert Operation(Save("APP.ORDERS", str(saved), Selection(all=True)), journal=None).run(
        qm).exit_code == ExitCode.OK
    summary = Operation(Load(str(saved), "APP.AUDIT", batch=10), journal=journal).run(
        FaultyQueueManager(qm, Faults(commit_after={2: 2549})))
    assert summary.exit_code == ExitCode.UNKNOWN_OUTCOME
    loaded = depth(qm, "APP.AUDIT")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.AUDIT")
        await settle(app, pilot)
        await pilot.press("l")
        await answer(app, pilot, InputDialog, "enter", value=str(saved))
        await wait_for(app, pilot, lambda: isinstance(app.screen, ChoiceDialog)
                       and "ended in doubt" in app.screen.title_text.plain)
        assert "The last load from" in screen_text(app)
        await pilot.press("escape")
        await settle(app, pilot)
    assert depth(qm, "APP.AUDIT") == loaded

"""The console's face of a commit whose outcome is unknown (issue 14 item 1): a move whose
MQCMIT reply is lost (2009 after the commit happened) says UNKNOWN in its result, is not
redone, and every message is in exactly one place — as the command line exits 5."""

from __future__ import annotations

from textual.widgets import Input

from mqconsole.backends.open import open_embedded
from mqconsole.tui.app import MQConsoleApp
from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings
from mqconsole.tui.screens.dialogs import ConfirmDialog, InputDialog, TextDialog
from tests.support.faulty import Faults, FaultyQueueManager

from .conftest import NOW, depth, open_queue, settle, wait_for

SRC, DST = "APP.SHIPPING", "APP.AUDIT"


async def test_a_lost_commit_reply_is_said_unknown_and_not_redone(demo_file, qm, tmp_path):
    faults = Faults(commit_after={1: 2009})
    settings = Settings(refresh_seconds=0, clock=lambda: NOW, themes_dirs=[REPO_THEMES],
                        journal_path=tmp_path / "journal.jsonl",
                        backup_dir=tmp_path / "backups", save_dir=tmp_path)
    app = MQConsoleApp(lambda: FaultyQueueManager(open_embedded(str(demo_file)), faults),
                       profile=ProfileInfo(name="test"), settings=settings)
    before = depth(qm, SRC) + depth(qm, DST)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, SRC)
        await settle(app, pilot)
        await pilot.press("space", "m")
        await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog)
                       and bool(app.screen.query(Input)))  # (its field mounted too)
        app.screen.query_one(Input).value = DST
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        text = str(app.screen.body)
    assert faults.injected and faults.commits == 1  # never redone
    assert "UNKNOWN" in text and "MQRC_CONNECTION_BROKEN" in text
    assert depth(qm, SRC) + depth(qm, DST) == before  # committed once: no duplicate

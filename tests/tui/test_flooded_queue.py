"""The console on a flooded queue (issue 23): one marked message deep in a queue of 100,000
is planned and moved without browsing the messages before it, and the list is updated, not
read again: the cursor and the filter stay."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.tui.app import MQConsoleApp
from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings
from mqconsole.tui.screens.dialogs import ConfirmDialog, InputDialog, TextDialog
from mqconsole.tui.widgets.message_list import MessageList
from tests.support.counting import CountingQueueManager, bulk_fill, msg_id_of

from .conftest import NOW, open_queue, settle, wait_for

FLOOD, HOLD = "APP.FLOOD", "APP.HOLD"
N = 100_000


@pytest.fixture(scope="session")
def flood_template(tmp_path_factory) -> Path:
    """A queue of 100,000 messages (message i carries MsgId i), built once per worker."""
    path = tmp_path_factory.mktemp("flood") / "qm.sqlite"
    qm = create_queue_manager(str(path), name="QM1")
    qm.define_queue(QueueAttrs(FLOOD, max_depth=N + 10))
    qm.define_queue(QueueAttrs(HOLD, max_depth=N + 10))
    bulk_fill(qm, FLOOD, N)
    qm.close()
    return path


@pytest.fixture
def flood(flood_template: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("MQCONSOLE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MQCONSOLE_CONFIG", raising=False)
    target = tmp_path / "qm.sqlite"
    shutil.copy(flood_template, target)
    counting = CountingQueueManager.__new__(CountingQueueManager)  # counts shared below
    CountingQueueManager.__init__(counting, None)
    counts = counting.counts

    def connect() -> CountingQueueManager:
        return CountingQueueManager(open_embedded(str(target)), counts)

    app = MQConsoleApp(connect, profile=ProfileInfo(name="test", read_only=False),
                       settings=Settings(refresh_seconds=0, clock=lambda: NOW,
                                         themes_dirs=[REPO_THEMES],
                                         journal_path=tmp_path / "journal.jsonl",
                                         backup_dir=tmp_path / "backups", save_dir=tmp_path))
    check = open_embedded(str(target))
    yield app, counts, check
    check.close()


async def _move_marked(app, pilot, dest: str) -> str:
    await pilot.press("m")
    await wait_for(app, pilot, lambda: isinstance(app.screen, InputDialog))
    app.screen.query_one("Input").value = dest
    await pilot.press("enter")
    await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
    asked = str(app.screen.body)
    await pilot.press("y")
    await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
    said = str(app.screen.body)
    await pilot.press("enter")
    await settle(app, pilot)
    return asked + "\n" + said


def _bodies(qm, queue: str) -> list[bytes]:
    with qm.browse(queue) as c:
        return [m.body for m in c.next_batch(100)]


async def test_one_marked_message_deep_in_100k_is_moved_without_browsing_the_rest(flood):
    app, counts, qm = flood
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, FLOOD)
        lst = app.screen.query_one(MessageList)
        await pilot.press("end")
        await wait_for(app, pilot, lambda: lst.cursor == N - 1
                       and app.screen.model.has_row(N - 1))
        await pilot.press("up", "up", "up", "up", "up")  # row N - 6: message N - 5
        await wait_for(app, pilot, lambda: app.screen.model.has_row(lst.cursor))
        target = app.screen.model.row(lst.cursor)
        assert target.msgid == msg_id_of(N - 5) and target.position == N - 5
        await pilot.press("space")  # marked; the cursor goes on to message N - 4
        counts.reset()
        text = await _move_marked(app, pilot, HOLD)
        assert "Moved 1 of 1 message" in text
        # the plan and the move found it by its token: nothing on the queue was browsed
        assert counts.browsed[FLOOD] == 0, counts.browsed
        assert _bodies(qm, HOLD) == [b"message %d" % (N - 5)]
        assert qm.inquire_queue(FLOOD).depth == N - 1
        # the list is updated, not read again: the cursor stays on message N - 4
        screen = app.screen
        await wait_for(app, pilot, lambda: screen.model.has_row(lst.cursor))
        assert screen.model.row(lst.cursor).msgid == msg_id_of(N - 4)
        assert screen.model.row(lst.cursor - 1).msgid == msg_id_of(N - 6)


async def test_after_a_move_on_a_filtered_list_the_filter_and_the_cursor_stay_unread(flood):
    """Messages 100 to 999 (bodies of 11 bytes) are listed by the filter; one of them is
    moved: its row goes, the cursor stays on its message, nothing is read again; the filter
    survives escape and re-entry (said in the status line) and F clears it."""
    app, counts, qm = flood
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, FLOOD)
        await pilot.press("slash", *"length = 11", "enter")
        screen = app.screen
        await wait_for(app, pilot, lambda: screen.model.where_text == "length = 11"
                       and screen.model.count > 0)
        await pilot.press("E")  # read to its end (the backend selects on the length)
        await wait_for(app, pilot, lambda: screen.model.done)
        assert screen.model.count == 900
        lst = screen.query_one(MessageList)
        lst.cursor = 500  # message 600
        await pilot.press("space")  # marked; the cursor on message 601
        counts.reset()
        assert "Moved 1 of 1 message" in await _move_marked(app, pilot, HOLD)
        assert counts.browsed[FLOOD] == 0 and counts.selected[FLOOD] == 0  # not read again
        assert screen.model.where_text == "length = 11" and screen.model.count == 899
        assert screen.model.row(lst.cursor).msgid == msg_id_of(601)
        assert screen.model.row(lst.cursor - 1).msgid == msg_id_of(599)
        assert screen.model.row(lst.cursor).position == 600  # moved up by one
        assert _bodies(qm, HOLD) == [b"message 600"]
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: app.screen is not screen)
        await open_queue(app, pilot, FLOOD)
        again = app.screen
        await wait_for(app, pilot, lambda: again.model.where_text == "length = 11"
                       and again.model.count > 0)
        await pilot.press("E")
        await wait_for(app, pilot, lambda: again.model.done)
        assert again.model.count == 899
        assert "the filter kept from before: F clears it" in str(
            again.query_one("#status").render())
        await pilot.press("F")
        await wait_for(app, pilot, lambda: again.model.where is None and again.model.known)
        assert again.model.count == N - 1

"""The console on real MQ, which browses forward only (issue 16): End on a deep queue reads
forward with progress in the status line, Escape stops it (the list is what was read, the
cursor on its last row), End reads on; a filter browses and says how far it read. The
MQI backend over the stand-in: no page at a position, no selection in the queue manager."""

from __future__ import annotations

import threading

from mqconsole.backends.base import ListsByPosition, ReadsByPosition, SelectsByFacts
from mqconsole.backends.mqi import cursor as mqi_cursor
from mqconsole.mq.md import MQMD
from mqconsole.ops.messages import put_messages
from mqconsole.tui.app import MQConsoleApp
from mqconsole.tui.browsing import BrowseModel
from mqconsole.tui.context import ProfileInfo, Settings
from mqconsole.tui.screens import messages as messages_screen
from mqconsole.tui.widgets.message_list import MessageList
from tests.tui.conftest import open_queue, screen_text, settle, wait_for

DEPTH = 600


async def test_end_reads_forward_with_progress_and_escape_stops_it(qmgr, qm, tmp_path,
                                                                  monkeypatch) -> None:
    assert not isinstance(qm, ReadsByPosition) and not isinstance(qm, SelectsByFacts)
    assert not isinstance(qm, ListsByPosition)  # rows at a position: embedded only
    queue = qmgr.queue(max_depth=10_000)
    admin = qmgr.admin()
    put_messages(admin, queue, MQMD(format="MQSTR", ccsid=1208), b"hello", count=DEPTH)
    admin.commit()
    monkeypatch.setattr(messages_screen, "AUTO_READ", 50)  # deep enough to read on demand
    real = mqi_cursor.MQICursor.next_batch
    gate, returned = threading.Event(), [0]

    def next_batch(self, n):  # past 100 messages the read waits for the gate: mid-read
        if returned[0] >= 100:
            assert gate.wait(120), "the test never opened the gate"
        batch = real(self, n)
        returned[0] += len(batch)
        return batch

    monkeypatch.setattr(mqi_cursor.MQICursor, "next_batch", next_batch)
    app = MQConsoleApp(qmgr.connect, profile=ProfileInfo(name="mq"),
                       settings=Settings(refresh_seconds=0, page_size=20,
                                         journal_path=tmp_path / "j.jsonl",
                                         backup_dir=tmp_path / "backups", save_dir=tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, queue)
        await settle(app, pilot)
        screen = app.screen
        model = screen.model
        lst = screen.query_one(MessageList)
        assert isinstance(model, BrowseModel) and 0 < model.count < DEPTH
        await pilot.press("end")
        await wait_for(app, pilot, lambda: model.count >= 100 and screen._reading,
                       workers=False)
        assert "reading… (esc stops)" in screen_text(app)  # the progress, and how to stop
        await pilot.press("escape")
        assert model.stopped  # while the read still waits
        gate.set()
        await wait_for(app, pilot, lambda: not screen._reading)
        await pilot.pause()
        assert app.screen is screen and model.stopped and not model.done
        read = model.count
        assert read < DEPTH and lst.virtual_size.height == read and lst.cursor == read - 1
        assert "End or E reads on" in screen_text(app) and f"  {read} " in screen_text(app)
        await pilot.press("end")
        await wait_for(app, pilot, lambda: model.done, timeout=60)
        await settle(app, pilot)
        assert model.count == DEPTH and lst.cursor == DEPTH - 1
        assert f"showing {DEPTH} of {DEPTH}" in screen_text(app)
        await pilot.press("home")
        assert lst.cursor == 0
        await pilot.press("slash", *"length > 100", "enter")  # matches nothing: reads all
        await wait_for(app, pilot, lambda: screen.model.where_text == "length > 100"
                       and screen.model.done, timeout=60)
        assert screen.model.count == 0 and screen.model.scanned == DEPTH
    app.conns.close()

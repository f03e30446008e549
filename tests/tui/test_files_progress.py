"""Saving a whole queue and loading the file from the console (issue 16): the operation's
dialog gets the progress of both, to the whole count, and the file is checked once."""

from __future__ import annotations

from mqconsole.backends.base import Context
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dmpfile import read_messages
from mqconsole.tui.screens import operation as operation_screen
from mqconsole.tui.screens.dialogs import FormDialog, InputDialog

from .conftest import depth, open_queue, settle, wait_for
from .test_actions import answer, result

N = 1500


async def test_save_all_and_load_report_progress_to_the_whole_count(make_app, qm, tmp_path,
                                                                     monkeypatch):
    for name in ("APP.BULK", "APP.BULK.COPY"):
        qm.define_queue(QueueAttrs(name, max_depth=100_000))
    for i in range(N):
        qm.put("APP.BULK", Message(MQMD(format="MQSTR"), b"bulk %d" % i),
               context=Context.SET_ALL, syncpoint=True)
    qm.commit()
    seen: list[tuple[int, int | None]] = []
    real = operation_screen.OperationDialog.update_progress

    def update(self, done, total):
        seen.append((done, total))
        real(self, done, total)

    from mqconsole.ops.savefile import load as savefile
    checks = []
    real_check = savefile.check_file
    monkeypatch.setattr(savefile, "check_file",
                        lambda path: checks.append(path) or real_check(path))
    monkeypatch.setattr(operation_screen, "PROGRESS_EVERY", 0.0)  # every report shown
    monkeypatch.setattr(operation_screen.OperationDialog, "update_progress", update)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.BULK")
        await settle(app, pilot)
        await pilot.press("asterisk", "w")
        target = tmp_path / "bulk.dmp"
        await answer(app, pilot, InputDialog, "enter", value=str(target))
        assert f"Saved {N:,} of {N:,} messages" in await result(app, pilot)
        assert seen and seen[-1] == (N, N)
        assert sum(1 for _ in read_messages(target)) == N
        seen.clear()
        await pilot.press("escape")
        await settle(app, pilot)
        from textual.widgets import DataTable
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.BULK.COPY"))
        await pilot.press("l")
        await answer(app, pilot, InputDialog, "enter", value=str(target))
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        assert f"Put {N:,} messages" in str(app.screen.note)
        await pilot.press("ctrl+o")
        assert f"Loaded {N:,} of {N:,} messages" in await result(app, pilot)
        assert seen and seen[-1] == (N, N)
        # the file checked once (shown in the question), then read once to load it
        assert checks == [str(target)]
    assert depth(qm, "APP.BULK.COPY") == N

"""Issue 22 item 2's note in the console: when the command server does not answer, the
queue list is the profile's ``queues:`` names, each asked with MQINQ — and the console says
so (under the dead-letter line, and once as a notification), as ``mqconsole queues`` says
it on stderr. Before, the console showed the shorter list without a word. A queue's
message list opens and browses too (its look-up by MQINQ)."""

from __future__ import annotations

from mqconsole.tui.app import MQConsoleApp
from mqconsole.tui.context import ProfileInfo, Settings
from tests.tui.conftest import open_queue, screen_text, settle, wait_for


async def test_the_console_says_the_queue_list_is_the_profiles(qmgr, tmp_path) -> None:
    from textual.widgets import DataTable

    from mqconsole.backends.base import Context
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message

    a, b = qmgr.queue("A"), qmgr.queue("B")
    qmgr.queue("NOT.LISTED")
    for text in (b"hello from A", b"and again"):
        qmgr.admin().put(a, Message(MQMD(format="MQSTR   "), text), context=Context.NEW,
                         syncpoint=False)
    qmgr.qdef.command_server = False

    def connect():
        return qmgr.connect(response_wait_interval=200, queues=f"{a},{b}")

    app = MQConsoleApp(connect, profile=ProfileInfo(name="mq"),
                       settings=Settings(refresh_seconds=0, journal_path=tmp_path / "j.jsonl",
                                         backup_dir=tmp_path / "backups", save_dir=tmp_path))
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(app, pilot)
        await wait_for(app, pilot, lambda: app.screen.query_one("#queues", DataTable)
                       .row_count == 2)
        text = screen_text(app)
        note = f"listing the profile's queues ({a}, {b}) with MQINQ instead"
        assert note in " ".join(text.split()), text
        told = [n for n in app._notifications if "MQINQ" in str(n.message)]
        assert len(told) == 1 and told[0].title == "Queue list without the command server"
        app.screen.action_refresh()  # told once, shown each time
        await settle(app, pilot)
        assert len([n for n in app._notifications if "MQINQ" in str(n.message)]) == 1
        # the message list too: the queue looked up with MQINQ, its messages browsed
        await open_queue(app, pilot, a)
        await wait_for(app, pilot, lambda: app.screen.model.done)
        assert app.screen.model.count == 2
        assert "showing 2 of 2" in " ".join(screen_text(app).split())
    app.conns.close()

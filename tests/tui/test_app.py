"""The console opens on a queue manager and lists its queues (pilot test)."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.ops.demo import build_demo
from mqconsole.tui.app import MQConsoleApp


@pytest.fixture
def demo_file(tmp_path):
    path = tmp_path / "qm.sqlite"
    qm = create_queue_manager(str(path), name="QM1")
    build_demo(qm)
    qm.close()
    return path


async def test_opens_on_the_queue_manager_with_its_queues(demo_file):
    app = MQConsoleApp(lambda: open_embedded(str(demo_file)), profile_name="demo")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert "SYSTEM.DEAD.LETTER.QUEUE" in names and "APP.SHARED.BOQ" in names
        header = str(app.query_one("#qmgr", Static).render())
        assert "QM1" in header and "SYSTEM.DEAD.LETTER.QUEUE" in header
        await pilot.press("q")


async def test_backend_failure_is_a_notification_not_a_crash(tmp_path):
    def broken():
        return open_embedded(str(tmp_path / "missing.sqlite"))

    app = MQConsoleApp(broken, profile_name="demo")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any("2058" in str(n.message) for n in app._notifications)

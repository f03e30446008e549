"""Queue attributes on the real-MQ backend (the stand-in): a BOQNAME naming no queue is
warned of before the change — ``queue set`` (a child process) and the console's form — as
on the embedded backend (issue 15 item 5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import standin

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.embedded.connection import open_embedded
from mqconsole.mq.queue import QueueAttrs

MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")
QMGR, ADMIN, PASSWORD = "QMSET", "mqadmin", "set-passw0rd"


def test_a_boqname_naming_no_queue_is_warned_of_on_real_mq(tmp_path: Path) -> None:
    path = tmp_path / "qm.qm"
    create_queue_manager(path, QMGR).close()
    qm = open_embedded(path, principal=ADMIN)
    for name in ("APP.IN", "APP.IN.BOQ"):
        qm.define_queue(QueueAttrs(name=name))
    qm.close()
    config = tmp_path / "config.yaml"
    config.write_text(f"""profiles:
  - name: real
    backend:
      type: mq
      queue_manager: {QMGR}
      channel: DEV.APP.SVRCONN
      connection_name: mqhost(1414)
      user: {ADMIN}
      password_env: MQSET_PASSWORD
""")
    spec = {"name": QMGR, "path": str(path), "admin": ADMIN, "password": PASSWORD,
            "encoding": 546, "default_user": "mqm"}
    base = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    base.update(MQCONSOLE_HOME=str(tmp_path / "home"), MQSET_PASSWORD=PASSWORD)
    env = standin.child_env([spec], base)

    def run(*args: str) -> subprocess.CompletedProcess:
        return standin.run_cli(["--config", str(config), "--profile", "real", "queue", "set",
                                "APP.IN", *args], env)

    missing = (f"warning: BOQNAME APP.IN.RETRY names a queue that does not exist on {QMGR}: "
               "a message backed out BOTHRESH times cannot be requeued there")
    r = run("--boqname", "APP.IN.RETRY", "--bothresh", "3")
    assert r.returncode == 4 and missing in r.stderr and "needs --yes" in r.stderr, r.stderr
    r = run("--boqname", "APP.IN.RETRY", "--bothresh", "3", "--yes")
    assert r.returncode == 0 and missing in r.stderr, r.stderr
    r = run("--boqname", "APP.IN.BOQ", "--yes")
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    qm = open_embedded(path, principal=ADMIN)
    try:
        attrs = qm.inquire_queue("APP.IN")
        assert attrs.boqname.strip() == "APP.IN.BOQ" and attrs.bothresh == 3
    finally:
        qm.close()


async def test_the_console_warns_of_a_boqname_naming_no_queue_on_real_mq(qmgr, tmp_path
                                                                         ) -> None:
    """The console's attribute form over the MQI backend: the confirmation warns of a
    BOQNAME the queue manager does not know (2085 from the stand-in), the change is made."""
    from textual.widgets import DataTable, Input

    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import ProfileInfo, Settings
    from mqconsole.tui.screens.dialogs import ConfirmDialog, FormDialog
    from tests.tui.conftest import settle, wait_for

    queue = qmgr.queue()
    app = MQConsoleApp(qmgr.connect, profile=ProfileInfo(name="mq"),
                       settings=Settings(refresh_seconds=0, journal_path=tmp_path / "j.jsonl",
                                         backup_dir=tmp_path / "backups", save_dir=tmp_path))
    missing = f"{queue}.RETRY"
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index(queue))
        await pilot.press("a")
        await wait_for(app, pilot, lambda: isinstance(app.screen, FormDialog))
        app.screen.query_one("#f_boqname", Input).value = missing
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ConfirmDialog))
        body = str(app.screen.body)
        await pilot.press("y")
        await wait_for(app, pilot, lambda: any("BOQNAME" in str(n.message)
                                               for n in app._notifications))
    app.conns.close()
    assert (f"Warning: BOQNAME {missing} names a queue that does not exist on "
            f"{qmgr.settings.queue_manager}") in body
    assert qmgr.admin().inquire_queue(queue).boqname.strip() == missing

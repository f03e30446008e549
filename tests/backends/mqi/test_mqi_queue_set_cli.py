"""``queue set`` on the real-MQ backend (the stand-in, a child process): a BOQNAME naming no
queue is warned of before the change, as on the embedded backend (issue 15 item 5)."""

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
        return subprocess.run([MQCONSOLE, "--config", str(config), "--profile", "real",
                               "queue", "set", "APP.IN", *args], capture_output=True,
                              text=True, env=env, timeout=120)

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

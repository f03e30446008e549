"""Issue 14 item 7: least authority.

An operator granted +connect, +dsp/+browse on the application's queues and nothing on the
queue manager object: no command needs +inq on the queue manager (its configured name is
used), and a listing asks with the operator's pattern, so the queue manager's log gets no
AMQ8245 for every queue the operator may not display (the stand-in writes those).
"""

from __future__ import annotations

from mqconsole.ops.queues import queue_rows


def _operator(qmgr, qmgr_auth=frozenset({"connect"})):
    app1, app2 = qmgr.queue("APP.ONE"), qmgr.queue("APP.TWO")
    other = qmgr.queue("PAYROLL")
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    prefix = app1.rsplit(".", 2)[0] + ".APP.*"
    admin.set_authority("ops", prefix, {"dsp", "browse", "inq"})
    admin.set_authority("ops", "", set(qmgr_auth), object_type="qmgr")
    return qmgr.connect(user="ops"), prefix, (app1, app2, other)


def test_no_command_needs_inq_on_the_queue_manager(qmgr) -> None:
    qm, prefix, (app1, _, _) = _operator(qmgr)
    info = qm.inquire_qmgr()
    assert info.name == qmgr.name
    assert [r["name"] for r in queue_rows(qm, prefix)][:1] == [app1]


def test_a_listing_asks_with_the_operators_pattern(qmgr) -> None:
    qm, prefix, (app1, app2, _) = _operator(qmgr, {"connect", "inq"})
    qmgr.qdef.error_log.clear()
    assert [r["name"] for r in queue_rows(qm, prefix)] == [app1, app2]
    assert qmgr.qdef.error_log == []
    # a pattern MQ's generic names cannot say is asked by its prefix, then filtered
    assert [r["name"] for r in queue_rows(qm, prefix[:-1] + "*TWO")] == [app2]
    assert qmgr.qdef.error_log == []


def test_listings_of_every_queue_ask_for_the_profiles_queues(qmgr) -> None:
    """The console's queue list, ``queue show``'s backout-queue marks and ``doctor`` ask
    for every queue (``*``): with the profile's ``queues`` they ask for those only. Before,
    each wrote an AMQ8245 to the queue manager's log for every queue it could not display."""
    from mqconsole.ops.doctor import diagnose
    from mqconsole.ops.queues import queue_doc

    _, prefix, (app1, app2, _) = _operator(qmgr, {"connect", "inq"})
    qm = qmgr.connect(user="ops", queues=prefix)
    qmgr.qdef.error_log.clear()
    assert [r["name"] for r in queue_rows(qm)] == [app1, app2]  # the console's list
    assert queue_doc(qm, app1)["name"] == app1
    diagnose(qm)
    assert qmgr.qdef.error_log == []
    assert [r["name"] for r in queue_rows(qm, app2)] == [app2]  # a name asked is asked


def test_the_profile_setting_reaches_the_connection() -> None:
    from types import SimpleNamespace

    import pytest

    from mqconsole.backends.mqi.connection import settings_from_profile
    from mqconsole.config.backends import MQBackendConfig

    backend = MQBackendConfig(type="mq", queue_manager="QM1", queues="APP.*")
    assert settings_from_profile(SimpleNamespace(backend=backend)).queues == "APP.*"
    assert MQBackendConfig(type="mq", queue_manager="QM1").queues == "*"
    for bad in ("APP.*.X", "A B*", "*APP", "X" * 49):
        with pytest.raises(ValueError):
            MQBackendConfig(type="mq", queue_manager="QM1", queues=bad)


def test_a_viewer_runs_every_looking_command_through_the_cli(qmgr, tmp_path) -> None:
    """docs/real-mq.md's authority table for the commands that only look, checked through
    the CLI in a child process: +connect on the queue manager (no +inq), +browse and +dsp
    on the queues (the stand-in's command server asks +inq where MQ asks +dsp: granted
    both), never +get or +put — and without +browse the sentence names it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import standin

    from mqconsole.backends.base import Context
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message

    q, dest = qmgr.queue("APP.LOOK"), qmgr.queue("APP.DEST")
    admin = qmgr.admin()
    msg_id = b"VIEWER".ljust(24, b"\0")
    admin.put(q, Message(MQMD(format="MQSTR   ", msg_id=msg_id), b"hello"),
              context=Context.SET_ALL, syncpoint=False)
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("viewer", q.rsplit(".", 1)[0] + ".*", {"browse", "dsp", "inq"})
    admin.set_authority("viewer", "", {"connect"}, object_type="qmgr")
    config = tmp_path / "config.yaml"
    config.write_text(f"""profiles:
  - name: real
    backend:
      type: mq
      queue_manager: {qmgr.name}
      channel: DEV.APP.SVRCONN
      connection_name: mqhost(1414)
      user: viewer
      password_env: VIEWER_PASSWORD
      queues: "{q.rsplit(".", 1)[0]}.*"
""")
    spec = {"name": qmgr.name, "path": str(qmgr.path), "admin": "mqadmin",
            "password": qmgr.settings.password, "encoding": 546, "default_user": "mqm"}
    base = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    base.update(MQCONSOLE_HOME=str(tmp_path / "home"),
                VIEWER_PASSWORD=qmgr.settings.password or "")
    env = standin.child_env([spec], base)
    exe = str(Path(sys.executable).parent / "mqconsole")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([exe, "--config", str(config), "--profile", "real", *args],
                              capture_output=True, text=True, env=env, timeout=120)

    looking = [["browse", q], ["show", q, msg_id.hex()], ["summary", q],
               ["save", q, str(tmp_path / "saved.dmp")], ["queues"], ["queue", "show", q],
               ["copy", q, dest, "--all", "--dry-run"], ["move", q, dest, "--all", "--dry-run"],
               ["delete", q, "--all", "--dry-run"]]
    for args in looking:
        r = run(*args)
        assert r.returncode == 0, (args, r.stderr)
    assert admin.inquire_queue(q).depth == 1 and admin.inquire_queue(dest).depth == 0
    admin.set_authority("viewer", q.rsplit(".", 1)[0] + ".*", {"dsp", "inq"})
    r = run("browse", q)
    assert r.returncode == 4 and "+browse" in r.stderr

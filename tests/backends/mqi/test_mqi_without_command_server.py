"""Issue 22 item 2: browsing does not need the command server. When PCF cannot be used — the
command server sends no reply (stopped: ``QMgrDef.command_server=False``), or the queue
manager refuses PCF (no +dsp on its object) — a queue is looked up with MQOPEN + MQINQ on
the queue itself (+inq), once per connection decided, and a listing names the profile's
``queues`` with a one-line note. browse, show, save, move and every other command that
changes messages then work through the CLI."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import standin

from mqconsole.backends.base import Context
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueType

WAIT = 300  # ms: the PCF reply wait of these connections


def _pcf_requests(engine, qmgr) -> int:
    return sum(1 for c in [*engine.calls_named("MQPUT"), *engine.calls_named("MQPUT1")]
               if c.info.get("queue") == qmgr.qdef.command_queue)


def test_queues_are_inquired_with_mqinq_when_no_command_server_answers(qmgr, engine) -> None:
    admin = qmgr.admin()
    local = qmgr.queue("LOCAL", max_depth=77, bothresh=3, boqname="SOME.BOQ", hardenbo=True,
                       description="d")
    alias = qmgr.queue("ALIAS", type=QueueType.ALIAS, target_q=local)
    remote = qmgr.queue("REMOTE", type=QueueType.REMOTE, remote_q_name="R.Q",
                        remote_qmgr_name="QMR", xmit_q=local)
    admin.put(local, Message(MQMD(format="MQSTR   "), b"x"), context=Context.NEW,
              syncpoint=False)
    qmgr.qdef.command_server = False
    qm = qmgr.connect(response_wait_interval=WAIT)
    got = qm.inquire_queue(local)
    want = admin.inquire_queue(local)
    for attr in ("type", "depth", "max_depth", "max_msg_length", "bothresh", "boqname",
                 "hardenbo", "put_inhibited", "get_inhibited", "description", "usage"):
        assert getattr(got, attr) == getattr(want, attr), attr
    assert qm.pcf_unavailable and "no reply" in qm.pcf_unavailable
    assert qm.inquire_queue(alias).target_q == local
    r = qm.inquire_queue(remote)
    assert (r.type, r.remote_q_name, r.remote_qmgr_name, r.xmit_q) == (
        QueueType.REMOTE, "R.Q", "QMR", local)
    assert _pcf_requests(engine, qmgr) == 1  # asked once, then MQINQ straight away
    assert qm.inquire_queue(local).depth == 1


def test_a_refused_pcf_falls_back_to_mqinq(qmgr) -> None:
    q = qmgr.queue()
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("bob", q, {"browse", "inq"})
    standin.grant_pcf(admin, "bob")
    admin.set_authority("bob", "", {"connect"}, object_type="qmgr")  # no +dsp: PCF refused
    bob = qmgr.connect(user="bob")
    assert bob.inquire_queue(q).type is QueueType.LOCAL
    assert "+dsp on the queue manager object" in (bob.pcf_unavailable or "")
    admin.set_authority("bob", q, {"browse"})  # and without +inq either: both said
    try:
        qmgr.connect(user="bob").inquire_queue(q)
    except Exception as exc:
        assert "+inq" in str(exc) and "+dsp on the queue manager object" in str(exc)
    else:
        raise AssertionError("inquired without +dsp and without +inq")


def test_a_listing_names_the_profiles_queues_with_a_note(qmgr) -> None:
    one, two = qmgr.queue("APP.IN"), qmgr.queue("APP.OUT")
    qmgr.qdef.command_server = False
    generic = one.rsplit(".", 1)[0] + ".*"
    qm = qmgr.connect(response_wait_interval=WAIT, queues=f"{generic},{one},{two}")
    assert [q.name for q in qm.list_queues()] == [one, two]
    assert qm.last_listing_note and "MQINQ" in qm.last_listing_note
    assert [q.name for q in qm.list_queues(two)] == [two]
    only_generic = qmgr.connect(response_wait_interval=WAIT, queues=generic)
    assert only_generic.list_queues() == []
    assert "queues:" in (only_generic.last_listing_note or "")


def test_browse_show_save_and_move_work_with_the_command_server_stopped(
        qmgr, tmp_path: Path) -> None:
    src, dest = qmgr.queue("APP.SRC"), qmgr.queue("APP.DEST")
    admin = qmgr.admin()
    msg_id = b"NOCMDSRV".ljust(24, b"\0")
    admin.put(src, Message(MQMD(format="MQSTR   ", msg_id=msg_id), b"hello"),
              context=Context.SET_ALL, syncpoint=False)
    qmgr.qdef.command_server = False
    config = tmp_path / "config.yaml"
    config.write_text(f"""profiles:
  - name: real
    backend:
      type: mq
      queue_manager: {qmgr.name}
      channel: DEV.APP.SVRCONN
      connection_name: mqhost(1414)
      user: mqadmin
      password_env: SITE_PASSWORD
      queues: [{src}, {dest}]
""")
    base = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    base.update(MQCONSOLE_HOME=str(tmp_path / "home"),
                SITE_PASSWORD=qmgr.settings.password or "")
    env = standin.child_env([standin.qmgr_spec(qmgr.qdef, str(qmgr.path))], base)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return standin.run_cli(["--config", str(config), "--profile", "real", *args], env)

    for args in (["browse", src], ["show", src, msg_id.hex()],
                 ["save", src, str(tmp_path / "saved.dmp")],
                 ["move", src, dest, "--all", "--yes"]):
        r = run(*args)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    assert admin.inquire_queue(src).depth == 0 and admin.inquire_queue(dest).depth == 1
    assert (tmp_path / "saved.dmp").stat().st_size > 0
    # every other command that changes messages, and summary, looks its queues up the same
    # way (issue 22 item 2: "every change command")
    for args in (["summary", dest], ["copy", dest, src, "--all", "--yes"],
                 ["resubmit", src, "--all", "--to", dest, "--yes"],
                 ["put", src, "--text", "new"],
                 ["load", str(tmp_path / "saved.dmp"), src, "--yes"],
                 ["move", dest, src, "--all", "--context", "pass", "--yes"]):
        r = run(*args)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    assert admin.inquire_queue(src).depth == 4 and admin.inquire_queue(dest).depth == 0
    r = run("delete", src, "--all", "--yes")
    assert r.returncode == 0 and admin.inquire_queue(src).depth == 0, (r.stdout, r.stderr)
    r = run("queues")
    assert r.returncode == 0 and src in r.stdout and dest in r.stdout, r
    assert "no reply" in r.stderr and "MQINQ" in r.stderr, r.stderr

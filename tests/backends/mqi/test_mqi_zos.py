"""Issue 22 item 4: the command queue, the model queue and z/OS.

A z/OS queue manager has no SYSTEM.ADMIN.COMMAND.QUEUE unless an administrator made it an
alias: its command server reads SYSTEM.COMMAND.INPUT (IBM MQ, "PCF command messages"). It
wants an MQCFH of version 3 and type MQCFT_COMMAND_XR (3003 and 3001 otherwise), and answers
in extended responses, in sets each ending with MQCFC_LAST — with a command scope, the
acceptance first, announcing the set of the answer (IBM MQ, "Extended responses"). The
stand-in's z/OS-flavoured queue manager (MQIA_PLATFORM MVS, SYSTEM.COMMAND.INPUT only) does
all of that (fake_cmdserver's docstring). mqconsole reads MQIA_PLATFORM and
MQCA_COMMAND_INPUT_Q_NAME with MQINQ when the profile does not name the command queue.

Reply queues (PCF's and the ping's) are closed with MQCO_DELETE_PURGE: a DEFTYPE(PERMDYN)
model leaves nothing behind (the fixture fails a test that leaves a dynamic queue)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import standin
from fake_ibmmqc import CMQC as C

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.embedded.connection import open_embedded
from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueAttrs

ZOS = {"platform": C.MQPL_ZOS, "command_queue": "SYSTEM.COMMAND.INPUT", "encoding": 785,
       "ccsid": 1047}
MQCONSOLE = str(Path(sys.executable).parent / "mqconsole")


def _requests(engine, queue: str) -> int:
    return sum(1 for c in engine.calls_named("MQPUT1") if c.info.get("queue") == queue)


@pytest.mark.parametrize("scope", [None, "*"])
def test_admin_commands_on_a_zos_queue_manager(make_qmgr, engine, scope) -> None:
    qmgr = make_qmgr("QMZOS", **ZOS)
    qm = qmgr.connect(command_scope=scope, response_wait_interval=2000)
    a, b = qmgr.queue("A", max_depth=50), qmgr.queue("B")
    assert qm.inquire_qmgr().platform == "ZOS"
    engine.clear_calls()
    assert [q.name for q in qm.list_queues(a.rsplit(".", 1)[0] + ".*")] == sorted([a, b])
    assert qm.inquire_queue(a).max_depth == 50
    assert qm.change_queue(a, max_depth=60).max_depth == 60
    assert qmgr.admin().inquire_queue(a).max_depth == 60
    qm.define_queue(QueueAttrs(name=a + ".NEW"))
    assert qm.queue_status(a + ".NEW").depth == 0
    qm.delete_queue(a + ".NEW")
    assert qm.pcf_unavailable is None
    assert _requests(engine, "SYSTEM.COMMAND.INPUT") > 0
    assert _requests(engine, "SYSTEM.ADMIN.COMMAND.QUEUE") == 0
    requests = list(engine.server.requests)
    assert requests and all(r.version == 3 and r.type == qm.lib.CMQCFC.MQCFT_COMMAND_XR
                            for r in requests)


def test_the_stand_in_refuses_what_zos_refuses(make_qmgr) -> None:
    """The rules themselves: a request to z/OS of MQCFH version 1 is answered 3003, one of
    type MQCFT_COMMAND 3001; a command scope elsewhere 3015."""
    from mqconsole.backends.mqi.pcf import PCFSession

    zos = make_qmgr("QMZOS", **ZOS)
    qm = zos.connect()
    lib = qm.lib
    plain = PCFSession(lib, qm._qmgr, command_queue="SYSTEM.COMMAND.INPUT")
    with pytest.raises(lib.MQMIError) as info:
        plain.command("MQCMD_INQUIRE_Q_MGR", {})
    assert info.value.reason == lib.CMQCFC.MQRCCF_CFH_VERSION_ERROR
    plain.close()
    unix = make_qmgr("QMUNIX")
    scoped = unix.connect(command_scope="*")
    scoped._pcf().zos, scoped._pcf()._scope = False, "*"  # as a wrong guess would send it
    with pytest.raises(MQError):
        scoped.change_queue(unix.queue(), max_depth=3)


def test_the_profile_names_the_command_queue(make_qmgr, engine) -> None:
    """A profile's command_queue is used as it is; without +inq on the queue manager the
    z/OS name alone tells the platform (the requests are then version 3)."""
    qmgr = make_qmgr("QMZOS", **ZOS)
    qm = qmgr.connect(command_queue="SYSTEM.COMMAND.INPUT")
    q = qmgr.queue()
    engine.clear_calls()
    assert qm.inquire_queue(q).name == q
    assert [c.info.get("queue") for c in engine.calls_named("MQPUT1")] == [
        "SYSTEM.COMMAND.INPUT"]
    assert not any(c.info.get("selectors") for c in engine.calls_named("MQINQ")
                   if C.MQCA_COMMAND_INPUT_Q_NAME in (c.info.get("selectors") or []))


@pytest.mark.parametrize("zos", [False, True])
def test_no_reply_queue_is_left_behind_by_a_permanent_model(make_qmgr, engine, zos) -> None:
    """SYSTEM.DEFAULT.MODEL.QUEUE defined DEFTYPE(PERMDYN): the ping's reply queue (asked for
    a UNIX queue manager's encoding), the PCF session's, a refusal's look-up — each is
    closed with MQCO_DELETE_PURGE. Failed before: the ping closed its queue with MQCO_NONE,
    leaving one permanent dynamic queue per connection."""
    model = "SYSTEM.DEFAULT.MODEL.QUEUE"
    qmgr = make_qmgr("QMPERM", permanent_models={model}, **(ZOS if zos else {}))
    for _ in range(2):
        qm = qmgr.connect()
        q = qmgr.queue()
        qm.inquire_qmgr()
        qm.list_queues("*")
        qm.inquire_queue(q)
        qm.queue_status(q)
        qm.close()
    assert engine.leftovers(qmgr.qdef) == []


def test_queue_list_queue_set_and_doctor_through_the_cli_on_zos(tmp_path: Path) -> None:
    name, admin, password = "QMZC", "mqadmin", "zos-passw0rd"
    path = tmp_path / "qm.qm"
    create_queue_manager(path, name).close()
    qm = open_embedded(path, principal=admin)
    for q in ("APP.IN", "APP.IN.BOQ"):
        qm.define_queue(QueueAttrs(name=q))
    qm.close()
    config = tmp_path / "config.yaml"
    config.write_text(f"""profiles:
  - name: zos
    backend:
      type: mq
      queue_manager: {name}
      channel: DEV.APP.SVRCONN
      connection_name: mvshost(1414)
      user: {admin}
      password_env: ZOS_PASSWORD
      queues: "APP.*"
""")
    spec = {"name": name, "path": str(path), "admin": admin, "password": password,
            "default_user": "mqm", **ZOS}
    base = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    base.update(MQCONSOLE_HOME=str(tmp_path / "home"), ZOS_PASSWORD=password)
    env = standin.child_env([spec], base)

    def run(*args: str) -> subprocess.CompletedProcess:
        return standin.run_cli(["--config", str(config), "--profile", "zos", *args], env)

    r = run("queues")
    assert r.returncode == 0 and "APP.IN.BOQ" in r.stdout, r.stderr
    assert "command server" not in r.stderr, r.stderr  # PCF answered: no fallback note
    r = run("queue", "set", "APP.IN", "--boqname", "APP.IN.BOQ", "--bothresh", "3", "--yes")
    assert r.returncode == 0, r.stderr
    r = run("doctor")
    assert r.returncode in (0, 1) and "APP.IN" in r.stdout, r.stderr
    assert "queues judged on QMZC" in r.stderr, r.stderr
    qm = open_embedded(path, principal=admin)
    try:
        assert qm.inquire_queue("APP.IN").bothresh == 3
    finally:
        qm.close()


def test_a_missing_command_queue_is_named_and_queues_are_still_inquired(make_qmgr) -> None:
    """A profile naming SYSTEM.ADMIN.COMMAND.QUEUE for a z/OS queue manager that has none:
    MQPUT1 answers 2085 for the command queue, not for the queue asked about — the sentence
    says which, and queues are looked up with MQINQ instead (before: "'APP.IN' does not
    exist", and a listing came back empty)."""
    qmgr = make_qmgr("QMZOS", **ZOS)
    q = qmgr.queue(max_depth=9)
    qm = qmgr.connect(command_queue="SYSTEM.ADMIN.COMMAND.QUEUE", queues=q)
    assert qm.inquire_queue(q).max_depth == 9
    assert "the command queue SYSTEM.ADMIN.COMMAND.QUEUE does not exist on QMZOS" in (
        qm.pcf_unavailable or "")
    other = qmgr.connect(command_queue="SYSTEM.ADMIN.COMMAND.QUEUE", queues=q)
    assert [x.name for x in other.list_queues("*")] == [q]
    assert "command_queue" in (other.last_listing_note or "")
    with pytest.raises(MQError) as info:
        qmgr.connect(command_queue="SYSTEM.ADMIN.COMMAND.QUEUE").delete_queue(q)
    assert "the command queue SYSTEM.ADMIN.COMMAND.QUEUE does not exist" in str(info.value)

"""Issue 14 item 10, the smaller things: model queues are not browsed or moved from (an
MQOPEN of a model queue creates a dynamic queue, which the stand-in does too), and a plan
says which messages ask for a confirm-on-arrival report."""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer

MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"


def test_a_model_queue_is_refused_not_opened(qmgr, qm) -> None:
    other = qmgr.queue()
    for call in (lambda: qm.browse(MODEL), lambda: qm.browse(MODEL, for_get=True),
                 lambda: qm.get(MODEL, syncpoint=False),
                 lambda: transfer(qm, MODEL, other, Selection.build(all_=True))):
        with pytest.raises(MQError) as info:
            call()
        assert info.value.reason == 2045 and "model queue" in str(info.value)
    assert qmgr.qdef.dynamic == {} or all(
        not n.startswith("AMQ.") for n in qmgr.qdef.dynamic)  # none left behind


def test_a_plan_says_which_messages_ask_for_coa(qmgr, qm) -> None:
    src, dst = qmgr.queue(), qmgr.queue()
    qm.put(src, Message(MQMD(format="MQSTR   ", report=0x100, reply_to_q="APP.REPLY"), b"a"),
           context=Context.SET_ALL, syncpoint=False)
    qm.put(src, Message(MQMD(format="MQSTR   "), b"b"), context=Context.SET_ALL,
           syncpoint=False)
    plan = transfer(qm, src, dst, Selection.build(all_=True), dry_run=True)
    assert [p.get("reports") for p in plan.plan] == [["COA"], None]
    assert any("confirm-on-arrival" in w for w in plan.warnings)
    done = transfer(qm, src, dst, Selection.build(all_=True))
    assert done.done == 2 and any("1 message asked for a confirm-on-arrival" in w
                                  for w in done.warnings)


@pytest.mark.parametrize("encoding", [273, 546])
def test_the_encoding_of_a_unix_queue_manager_is_asked(make_qmgr, encoding) -> None:
    """AIX (273) and Linux (546) are both MQPL_UNIX: the encoding comes from the queue
    manager (a ping's reply), not from this client."""
    qm = make_qmgr(f"QME{encoding}", encoding=encoding).connect()
    info = qm.inquire_qmgr()
    assert (info.platform, info.encoding) == ("UNIX", encoding)


def test_a_silent_command_server_leaves_the_clients_guess(make_qmgr) -> None:
    qm = make_qmgr("QMS2", encoding=273, command_server=False).connect(
        response_wait_interval=100)
    assert qm.inquire_qmgr().encoding == 546
    assert qm.inquire_qmgr().encoding == 546  # asked once


def test_a_permanent_dynamic_queue_is_not_left_behind(make_qmgr) -> None:
    """A DEFTYPE(PERMDYN) model makes a permanent dynamic queue that a plain MQCLOSE keeps
    (the stand-in does that too): refusing the model must delete what the MQOPEN made.
    Failed before (closed without MQCO_DELETE_PURGE: one queue left per refusal)."""
    model = "APP.PERM.MODEL"
    qmgr = make_qmgr(model_queues=("SYSTEM.DEFAULT.MODEL.QUEUE", model),
                     permanent_models={model})
    qm = qmgr.connect()
    with pytest.raises(MQError) as info:
        qm.browse(model)
    assert info.value.reason == 2045
    assert [n for n in qmgr.qdef.dynamic if not n.startswith("MQCONSOLE.")] == []


def test_a_model_queue_is_refused_before_it_is_opened(make_qmgr, engine, tmp_path) -> None:
    """Every operation looks its queues up first (PCF): a model queue named as a source or
    a destination is refused there, so no MQOPEN (or MQPUT1) makes a dynamic queue of it.
    Before, the look-up passed and the backend's MQOPEN made one (and deleted it again);
    a destination's MQPUT1 would have put the message on a queue deleted at once."""
    import os

    import standin

    from mqconsole.mq.queue import QueueAttrs, QueueType
    from mqconsole.ops.operation import OperationError
    from mqconsole.ops.operation.kinds import Transfer, check_queue

    model = "APP.MODEL"
    qmgr = make_qmgr(model_queues=("SYSTEM.DEFAULT.MODEL.QUEUE", model))
    qmgr.admin().define_queue(QueueAttrs(name=model, type=QueueType.MODEL))
    src = qmgr.queue()
    qm = qmgr.connect()
    qm.put(src, Message(MQMD(format="MQSTR   "), b"m"), context=Context.NEW, syncpoint=False)
    engine.clear_calls()
    everything = Selection.build(all_=True)
    for op in (Transfer(model, src, everything), Transfer(src, model, everything)):
        with pytest.raises(OperationError) as info:
            op.validate(qm)
        assert "is a model queue" in str(info.value)
    check_queue(qm, model, "")  # queue set may change a model queue
    assert all(c.info.get("name") != model for c in engine.calls_named("MQOPEN"))
    assert not any(c.info.get("queue") == model for c in engine.calls_named("MQPUT1"))
    assert qm.inquire_queue(src).depth == 1

    config = tmp_path / "config.yaml"
    config.write_text(f"""profiles:
  - name: real
    backend: {{type: mq, queue_manager: {qmgr.name}, channel: DEV.APP.SVRCONN,
              connection_name: mqhost(1414), user: mqadmin, password_env: PW}}
""")
    spec = {"name": qmgr.name, "path": str(qmgr.path), "admin": "mqadmin",
            "password": qmgr.settings.password, "encoding": 546, "default_user": "mqm"}
    base = {k: v for k, v in os.environ.items() if not k.startswith("MQCONSOLE_")}
    base.update(MQCONSOLE_HOME=str(tmp_path / "home"), PW=qmgr.settings.password or "")
    env = standin.child_env([spec], base)
    for args in (["browse", model], ["move", src, model, "--all", "--yes"]):
        r = standin.run_cli(["--config", str(config), "--profile", "real", *args], env)
        assert r.returncode == 2 and "is a model queue" in r.stderr, (args, r.stderr)
    assert qm.inquire_queue(src).depth == 1

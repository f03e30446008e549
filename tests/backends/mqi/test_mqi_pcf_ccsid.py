"""Issue 14 item 4, issue 22 item 3: PCF strings are encoded in the CCSID they are labelled
with, and labelled MQCCSI_DEFAULT: in the CCSID of the request's MQMD, which says 1208.

The command server reads a PCF string in its CodedCharSetId, or (MQCCSI_DEFAULT) in the
request message's CCSID, which a client's MQCCSI_Q_MGR makes the client's own. The stand-in
does that, and sends its replies in its own CCSID, converted by MQGMO_CONVERT. mqconsole
once encoded names in the queue manager's CCSID but labelled them as the client's: on a
z/OS queue manager (CCSID 500 here) every queue name in a command arrived as garbage. It
then labelled them 1208 in a request whose MQMD said MQCCSI_Q_MGR: a queue manager of CCSID
819 (or 500) that does not convert the request — bindings, or a client of its own CCSID —
answers such a string 3049 (MQRCCF_CCSID_ERROR), as the stand-in now does.
"""

from __future__ import annotations

import pytest

from mqconsole.mq.queue import QueueAttrs


@pytest.mark.parametrize("how", ["client", "client of the same CCSID", "bindings"])
@pytest.mark.parametrize("ccsid", [500, 37, 1047, 819, 1208])
def test_admin_commands_reach_a_queue_manager_of_any_ccsid(make_qmgr, monkeypatch, ccsid,
                                                           how) -> None:
    qmgr = make_qmgr(f"QM{ccsid}", ccsid=ccsid)
    if how == "client of the same CCSID":
        monkeypatch.setenv("MQCCSID", str(ccsid))  # the client's CCSID (MQ reads MQCCSID)
    qm = qmgr.connect(bindings=how == "bindings")
    name = qmgr.queue("ORDERS")
    assert qm.inquire_qmgr().ccsid == ccsid
    assert [q.name for q in qm.list_queues(name)] == [name]
    assert qm.inquire_queue(name).name == name
    qm.change_queue(name, description="Café orders")
    assert qmgr.admin().inquire_queue(name).description == "Café orders"
    assert qm.inquire_queue(name).description == "Café orders"
    qm.define_queue(QueueAttrs(name=name + ".NEW", max_depth=7))
    assert qmgr.admin().inquire_queue(name + ".NEW").max_depth == 7
    assert qm.queue_status(name).depth == 0
    qm.delete_queue(name + ".NEW")


def test_every_string_is_labelled_mqccsi_default_in_a_1208_request(qmgr, qm, engine) -> None:
    pcf = qm._pcf()
    structures = pcf.parameters({1: b"NAME", 2: [b"A", b"B"], 3: 4, 4: [5, 6]})
    assert [int(s.CodedCharSetId) for s in structures[:2]] == [0, 0]  # MQCCSI_DEFAULT
    engine.clear_calls()
    qm.list_queues("*")
    requests = [c for c in engine.calls_named("MQPUT1")
                if c.info.get("queue") == "SYSTEM.ADMIN.COMMAND.QUEUE"]
    assert requests and all(c.info["ccsid"] == 1208 for c in requests)

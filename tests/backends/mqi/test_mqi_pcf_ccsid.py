"""Issue 14 item 4: PCF strings are encoded in the CCSID they are labelled with.

The command server reads a PCF string in its CodedCharSetId, or (MQCCSI_DEFAULT) in the
request message's CCSID, which a client's MQCCSI_Q_MGR makes the client's own. The stand-in
does that, and sends its replies in its own CCSID, converted by MQGMO_CONVERT. mqconsole
once encoded names in the queue manager's CCSID but labelled them as the client's: on a
z/OS queue manager (CCSID 500 here) every queue name in a command arrived as garbage.
"""

from __future__ import annotations

import pytest

from mqconsole.mq.queue import QueueAttrs


@pytest.mark.parametrize("ccsid", [500, 37, 1047, 819, 1208])
def test_admin_commands_reach_a_queue_manager_of_any_ccsid(make_qmgr, ccsid) -> None:
    qmgr = make_qmgr(f"QM{ccsid}", ccsid=ccsid)
    qm = qmgr.connect()
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


def test_every_string_is_labelled_1208(qmgr, qm) -> None:
    pcf = qm._pcf()
    structures = pcf.parameters({1: b"NAME", 2: [b"A", b"B"], 3: 4, 4: [5, 6]})
    assert [int(s.CodedCharSetId) for s in structures[:2]] == [1208, 1208]

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

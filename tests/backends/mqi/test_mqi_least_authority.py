"""Issue 14 item 7: least authority.

An operator granted +connect, +dsp/+browse on the application's queues and nothing on the
queue manager object: no command needs +inq on the queue manager (its configured name is
used), and a listing asks with the operator's pattern, so the queue manager's log gets no
AMQ8245 for every queue the operator may not display (the stand-in writes those).
"""

from __future__ import annotations

import standin

from mqconsole.ops.queues import queue_rows


def _operator(qmgr, qmgr_auth=frozenset({"connect", "dsp"})):
    app1, app2 = qmgr.queue("APP.ONE"), qmgr.queue("APP.TWO")
    other = qmgr.queue("PAYROLL")
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    prefix = app1.rsplit(".", 2)[0] + ".APP.*"
    admin.set_authority("ops", prefix, {"dsp", "browse", "inq"})
    standin.grant_pcf(admin, "ops", set(qmgr_auth))
    return qmgr.connect(user="ops"), prefix, (app1, app2, other)


def test_no_command_needs_inq_on_the_queue_manager(qmgr) -> None:
    qm, prefix, (app1, _, _) = _operator(qmgr)
    info = qm.inquire_qmgr()
    assert info.name == qmgr.name
    assert [r["name"] for r in queue_rows(qm, prefix)][:1] == [app1]


def test_a_listing_asks_with_the_operators_pattern(qmgr) -> None:
    qm, prefix, (app1, app2, _) = _operator(qmgr, {"connect", "dsp", "inq"})
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

    _, prefix, (app1, app2, _) = _operator(qmgr, {"connect", "dsp", "inq"})
    qm = qmgr.connect(user="ops", queues=prefix)
    qmgr.qdef.error_log.clear()
    assert [r["name"] for r in queue_rows(qm)] == [app1, app2]  # the console's list
    assert queue_doc(qm, app1)["name"] == app1
    diagnose(qm)
    assert qmgr.qdef.error_log == []
    assert [r["name"] for r in queue_rows(qm, app2)] == [app2]  # a name asked is asked


def test_the_profile_setting_reaches_the_connection() -> None:
    import pytest

    from mqconsole.cli.backendspec import spec_of
    from mqconsole.config import Profile
    from mqconsole.config.backends import MQBackendConfig

    for queues, setting in (("APP.*", "APP.*"), (["APP.*", "PAY.IN"], "APP.*,PAY.IN")):
        profile = Profile.model_validate({"name": "p", "backend": {
            "type": "mq", "queue_manager": "QM1", "queues": queues}})
        spec = spec_of(profile)
        assert spec.mq is not None and spec.mq.queues == setting
    assert MQBackendConfig(type="mq", queue_manager="QM1").queues == "*"
    for bad in ("APP.*.X", "A B*", "*APP", "X" * 49):
        with pytest.raises(ValueError):
            MQBackendConfig(type="mq", queue_manager="QM1", queues=bad)


# A viewer, an operator and a handler set up from docs/real-mq.md's role table run their
# commands through the CLI in test_mqi_roles.py.

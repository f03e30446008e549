"""Contract: authorities named as MQ names them; a missing one is MQRC_NOT_AUTHORIZED (2035)."""

from __future__ import annotations

import pytest
from contract_support import bodies, mq_error, msg, put_bodies

from mqconsole.backends.base import Context, QueueManager, put_checks
from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueAttrs

USER = "ctuser"


@pytest.fixture
def restricted(backend, queue: str):
    backend.restrict()
    # real MQ: every PCF command needs +connect and +dsp on the queue manager object
    # (IBM, "Authorizations for PCF commands"), +put on the command queue and +dsp +get on
    # the model queue of its replies; the embedded queue manager asks none of these
    backend.grant(USER, "", {"connect", "dsp"}, object_type="qmgr")
    backend.grant(USER, "SYSTEM.ADMIN.COMMAND.QUEUE", {"put"})
    backend.grant(USER, "SYSTEM.DEFAULT.MODEL.QUEUE", {"dsp", "get"})
    return backend


def test_put_needs_put(restricted, connect, queue: str) -> None:
    bob = connect(USER)
    with mq_error(2035):
        bob.put(queue, msg("x"), context=Context.NEW)
    restricted.grant(USER, queue, {"put"})
    bob.put(queue, msg("x"), context=Context.NEW, syncpoint=False)


def test_set_all_context_needs_setall_on_queue_and_qmgr(restricted, connect,
                                                        queue: str) -> None:
    bob = connect(USER)
    restricted.grant(USER, queue, {"put"})
    with mq_error(2035):
        bob.put(queue, msg("x"), context=Context.SET_ALL)
    restricted.grant(USER, queue, {"put", "setall"})
    with mq_error(2035):  # not yet on the queue manager
        bob.put(queue, msg("x"), context=Context.SET_ALL)
    restricted.grant(USER, "", {"connect", "dsp", "setall"}, object_type="qmgr")
    kept = bob.put(queue, msg("x", user_identifier="alice"), context=Context.SET_ALL,
                   syncpoint=False)
    assert kept.md.user_identifier.strip() == "alice"


def test_browse_get_inq_dsp_chg(restricted, connect, qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "a", "b")
    bob = connect(USER)
    for call in (lambda: bob.browse(queue), lambda: bob.get(queue),
                 lambda: bob.get_by_msgid(queue, b"x" * 24), lambda: bob.inquire_queue(queue),
                 lambda: bob.queue_status(queue), lambda: bob.change_queue(queue, max_depth=9),
                 lambda: bob.delete_queue(queue)):
        with mq_error(2035):
            call()
    assert bob.list_queues(queue) == []  # a generic inquiry leaves it out

    restricted.grant(USER, queue, {"browse", "inq", "dsp"})
    assert bodies(bob, queue) == [b"a", b"b"]
    assert bob.inquire_queue(queue).depth == 2
    assert [q.name for q in bob.list_queues(queue)] == [queue]
    assert bob.queue_status(queue).depth == 2
    with bob.browse(queue) as cur:  # browsing needs +browse only
        cur.next()
        with mq_error(2037):  # a browse cursor is not open for input
            cur.get_current()
    with mq_error(2035):  # browsing is not getting: an input open needs +get
        bob.browse(queue, for_get=True)
    restricted.grant(USER, queue, {"browse", "get", "inq", "dsp"})
    assert bob.get(queue, syncpoint=False).body == b"a"
    with mq_error(2035):
        bob.change_queue(queue, max_depth=9)
    restricted.grant(USER, queue, {"chg"})
    assert bob.change_queue(queue, max_depth=9).max_depth == 9


def test_generic_profiles(restricted, connect, make_queue) -> None:
    a = make_queue("GEN.A")
    b = make_queue("GEN.B")
    prefix = a.rsplit(".", 1)[0]
    restricted.grant(USER, prefix + ".*", "+put +inq +dsp")  # PCF lists with +dsp
    bob = connect(USER)
    bob.put(a, msg("x"), context=Context.NEW, syncpoint=False)
    bob.put(b, msg("y"), context=Context.NEW, syncpoint=False)
    assert {q.name for q in bob.list_queues(prefix + ".*")} == {a, b}


def test_define_needs_chg(restricted, connect, make_queue) -> None:
    bob = connect(USER)
    with mq_error(2035):
        bob.define_queue(QueueAttrs(name="CT.NOT.ALLOWED"))


def test_admin_principal_still_works(restricted, qm: QueueManager, queue: str) -> None:
    put_bodies(qm, queue, "ok")
    assert bodies(qm, queue) == [b"ok"]


def test_a_plan_s_open_for_put_refuses_what_the_put_refuses(restricted, connect,
                                                            qm: QueueManager,
                                                            queue: str) -> None:
    """``open_for_put`` (``base.ChecksPuts``, what a dry run asks) opens as the put would
    — its context, its alternate user — and says what the put then does, putting nothing:
    +put; +setall on the queue and the queue manager for set-all context; for an alternate
    user (the handler's PUTAUT(CTX)), +altusr for the connection's user and the put's
    authorities for the alternate one."""
    bob = connect(USER)
    checks = put_checks(bob)
    if checks is None:  # the variant offering no optional capability (tests/support/plain.py)
        assert restricted.id == "embedded-plain"
        return
    puts = 0

    def both(**how: object) -> tuple[int | None, int | None]:
        nonlocal puts
        said = did = None
        try:
            checks.open_for_put(queue, **how)  # type: ignore[arg-type]
        except MQError as e:
            said = e.reason
        try:
            bob.put(queue, msg("x"), syncpoint=False, **how)  # type: ignore[arg-type]
            puts += 1
        except MQError as e:
            did = e.reason
        return said, did

    new, set_all = {"context": Context.NEW}, {"context": Context.SET_ALL}
    as_alice = {"context": Context.SET_ALL, "alt_user": "alice"}
    assert both(**new) == (2035, 2035)
    restricted.grant(USER, queue, {"put"})
    assert both(**new) == (None, None)
    assert both(**set_all) == (2035, 2035)
    restricted.grant(USER, queue, {"put", "setall"})
    restricted.grant(USER, "", {"connect", "dsp", "setall"}, object_type="qmgr")
    assert both(**set_all) == (None, None)
    assert both(**as_alice) == (2035, 2035)  # bob has no +altusr
    restricted.grant(USER, "", {"connect", "dsp", "setall", "altusr"}, object_type="qmgr")
    assert both(**as_alice) == (2035, 2035)  # alice may not put there
    restricted.grant("alice", queue, {"put", "setall"})
    restricted.grant("alice", "", {"setall"}, object_type="qmgr")
    assert both(**as_alice) == (None, None)
    assert qm.inquire_queue(queue).depth == puts == 3  # the checks put nothing

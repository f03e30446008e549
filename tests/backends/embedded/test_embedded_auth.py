"""The embedded queue manager's authority records (setmqaut/dspmqaut-like admin API)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import AUTHORITY_NAMES, EmbeddedQueueManager
from mqconsole.backends.embedded.auth import matches, normalize
from mqconsole.backends.open import open_embedded
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message


@pytest.fixture
def qm(make_qm, tmp_path: Path) -> EmbeddedQueueManager:
    return make_qm("APP.IN", "APP.OUT", "OTHER", path=tmp_path / "qm", principal="admin")


def test_names_as_mq_names_them() -> None:
    assert {"browse", "get", "put", "inq", "set", "chg", "dsp", "passall", "setall",
            "altusr"} <= AUTHORITY_NAMES
    assert normalize("+put +browse") == {"put", "browse"}
    assert normalize(["+GET", "inq"]) == {"get", "inq"}
    assert normalize("all") == AUTHORITY_NAMES
    assert normalize("none") == frozenset()
    with pytest.raises(ValueError, match="unknown authority 'fly'"):
        normalize({"fly"})


def test_generic_profile_matching() -> None:
    assert matches("*", "ANY.THING")
    assert matches("APP.*", "APP.IN") and not matches("APP.*", "APPX")
    assert matches("APP.IN", "APP.IN") and not matches("APP.IN", "APP.INX")


def test_nobody_is_checked_until_a_record_exists(qm: EmbeddedQueueManager) -> None:
    assert qm.authorities() == []
    assert qm.effective_authorities("anyone", "APP.IN") is None
    with qm.new_connection(principal="stranger") as other:
        other.put("APP.IN", Message(MQMD(), b"x"), syncpoint=False)


def test_records_and_effective_authorities(qm: EmbeddedQueueManager) -> None:
    qm.set_authority("bob", "APP.*", {"+put", "inq"})
    qm.set_authority("bob", "APP.IN", "browse")
    qm.set_authority("bob", "", "setall", object_type="qmgr")
    recs = qm.authorities("bob")
    assert [(r.object_type, r.profile, r.authorities) for r in recs] == [
        ("qmgr", qm.name, frozenset({"setall"})),
        ("queue", "APP.*", frozenset({"put", "inq"})),
        ("queue", "APP.IN", frozenset({"browse"})),
    ]
    assert qm.effective_authorities("bob", "APP.IN") == {"put", "inq", "browse"}
    assert qm.effective_authorities("bob", "OTHER") == frozenset()
    assert qm.effective_authorities("bob", "", object_type="qmgr") == {"setall"}
    assert qm.effective_authorities("carol", "APP.IN") == frozenset()
    qm.set_authority("bob", "APP.IN", set())  # replaces: defined, but nothing
    assert qm.effective_authorities("bob", "APP.IN") == {"put", "inq"}
    assert qm.delete_authority("bob", "APP.IN")
    assert not qm.delete_authority("bob", "APP.IN")
    qm.clear_authorities()
    assert qm.authorities() == []


def test_refusal_names_the_authority_and_object(qm: EmbeddedQueueManager) -> None:
    qm.set_authority("admin", "*", "all")
    qm.set_authority("bob", "APP.IN", "put")
    with qm.new_connection(principal="bob") as bob:
        with pytest.raises(MQError) as info:
            bob.put("APP.OUT", Message(MQMD(), b"x"), context=Context.NEW)
        assert info.value.reason == 2035
        assert "'bob' lacks +put on queue 'APP.OUT'" in str(info.value)
        with pytest.raises(MQError) as info:
            bob.put("APP.IN", Message(MQMD(), b"x"), context=Context.SET_ALL)
        assert "+setall on queue 'APP.IN'" in str(info.value)
        with pytest.raises(MQError) as info:
            bob.change_qmgr(description="nope")
        assert "+chg on queue manager" in str(info.value)


def test_set_identity_needs_setid(qm: EmbeddedQueueManager) -> None:
    qm.set_authority("bob", "APP.IN", "put setid")
    with qm.new_connection(principal="bob") as bob:
        with pytest.raises(MQError, match=r"\+setid on queue manager"):
            bob.put("APP.IN", Message(MQMD(), b"x"), context=Context.SET_IDENTITY)
        qm.set_authority("bob", "", "setid", object_type="qmgr")
        bob.put("APP.IN", Message(MQMD(), b"x"), context=Context.SET_IDENTITY,
                syncpoint=False)


def test_bad_admin_arguments(qm: EmbeddedQueueManager) -> None:
    with pytest.raises(ValueError):
        qm.set_authority("", "APP.IN", "put")
    with pytest.raises(ValueError):
        qm.set_authority("bob", "bad name!", "put")
    with pytest.raises(ValueError):
        qm.set_authority("bob", "APP.IN", "put", object_type="topic")


def test_records_are_shared_by_processes_of_one_file(qm: EmbeddedQueueManager,
                                                     tmp_path: Path) -> None:
    qm.set_authority("bob", "APP.IN", "put")
    with open_embedded(tmp_path / "qm", principal="bob") as bob:
        assert bob.effective_authorities("bob", "APP.IN") == {"put"}
        with pytest.raises(MQError):
            bob.inquire_queue("APP.IN")

"""Issue 22 item 1: every PCF command needs +connect and +dsp on the queue manager object
(IBM, "Authorizations for PCF commands"), +put on the command queue and +dsp +get on the
model queue its replies come on, besides the object's own authority. The stand-in's command
server refuses a request without +dsp on the queue manager (2035 in the reply), and a 2035
names the object that refused: the queue manager, the command queue, the model queue, or
the queue itself."""

from __future__ import annotations

import pytest
import standin

from mqconsole.mq.errors import MQError


def _user(qmgr, queue_auth: set[str]):
    q = qmgr.queue()
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("bob", q, queue_auth)
    standin.grant_pcf(admin, "bob")
    return admin, q


def _refusal(call) -> str:
    with pytest.raises(MQError) as err:
        call()
    assert err.value.reason == 2035
    return str(err.value)


def test_without_dsp_on_the_queue_manager_the_sentence_names_it(qmgr) -> None:
    admin, q = _user(qmgr, {"dsp", "chg"})
    admin.set_authority("bob", "", {"connect"}, object_type="qmgr")
    bob = qmgr.connect(user="bob")
    # (inquire_queue then falls back to MQINQ, which needs +inq: the sentence names both)
    for call in (lambda: bob.inquire_queue(q), lambda: bob.change_queue(q, max_depth=9),
                 lambda: bob.queue_status(q)):
        text = _refusal(call)
        assert "+dsp on the queue manager object" in text, text
        assert f"+dsp on {q!r}" not in text and f"+chg on {q!r}" not in text, text
    admin.set_authority("bob", "", {"connect", "dsp"}, object_type="qmgr")
    assert bob.change_queue(q, max_depth=9).max_depth == 9


def test_the_command_queue_and_the_model_queue_are_named(qmgr) -> None:
    admin, q = _user(qmgr, {"dsp"})
    admin.set_authority("bob", "SYSTEM.ADMIN.COMMAND.QUEUE", set())
    text = _refusal(lambda: qmgr.connect(user="bob").inquire_queue(q))
    assert "+put on the command queue SYSTEM.ADMIN.COMMAND.QUEUE" in text, text
    admin.set_authority("bob", "SYSTEM.ADMIN.COMMAND.QUEUE", {"put"})
    admin.set_authority("bob", "SYSTEM.DEFAULT.MODEL.QUEUE", {"get"})
    text = _refusal(lambda: qmgr.connect(user="bob").inquire_queue(q))
    assert "the model queue SYSTEM.DEFAULT.MODEL.QUEUE" in text, text
    admin.set_authority("bob", "SYSTEM.DEFAULT.MODEL.QUEUE", {"get", "dsp"})
    assert qmgr.connect(user="bob").inquire_queue(q).name == q


def test_the_queue_itself_is_named_when_it_refused(qmgr) -> None:
    _, q = _user(qmgr, {"browse"})
    bob = qmgr.connect(user="bob")
    text = _refusal(lambda: bob.inquire_queue(q))
    assert f"needs +dsp on {q!r}" in text, text
    assert "queue manager object" not in text

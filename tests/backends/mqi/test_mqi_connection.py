"""Connecting (client, TLS, CCDT, MQSERVER, bindings, user and password), reporting
failures (2003, 2549, 2035 with the authority named, 2033 from a silent command server), and
what the stand-in refuses the way MQ does."""

from __future__ import annotations

import dataclasses
import gc
import logging

import pytest
import standin

from mqconsole.backends.base import Context
from mqconsole.backends.mqi import MQConnectSettings
from mqconsole.backends.open import open_backend
from mqconsole.backends.spec import BackendSpec, PasswordUnavailable
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message

ADMIN = "mqadmin"


def _msg(body: str, **md: object) -> Message:
    fields: dict[str, object] = {"format": "MQSTR", **md}
    return Message(MQMD(**fields), body.encode())  # type: ignore[arg-type]


def _last_connx(engine):
    return engine.calls_named("MQCONNX")[-1].info


# -- connection modes ----------------------------------------------------------------------

def test_client_connection_with_tls(qmgr, engine) -> None:
    qm = qmgr.connect(cipher_spec="TLS_AES_128_GCM_SHA256", key_repository="/var/mqm/key",
                      certificate_label="ibmwebspheremqapp")
    info = _last_connx(engine)
    C = qmgr.lib.CMQC
    assert info["options"] & C.MQCNO_CLIENT_BINDING
    assert info["options"] & C.MQCNO_HANDLE_SHARE_BLOCK
    assert info["cd"]["ChannelName"] == "DEV.APP.SVRCONN"
    assert info["cd"]["ConnectionName"] == "mqhost(1414),mqhost2(1414)"  # a list
    assert info["cd"]["SSLCipherSpec"] == "TLS_AES_128_GCM_SHA256"
    assert info["sco"]["KeyRepository"] == "/var/mqm/key"
    assert info["sco"]["CertificateLabel"] == "ibmwebspheremqapp"
    assert (info["user"], info["password_given"]) == (ADMIN, True)
    assert qm.name == "QMT" and qm.inquire_qmgr().name == "QMT"


def test_tls_without_key_repository_is_refused(qmgr, monkeypatch) -> None:
    monkeypatch.delenv("MQSSLKEYR", raising=False)
    with pytest.raises(MQError) as info:
        qmgr.connect(cipher_spec="TLS_AES_128_GCM_SHA256")
    assert info.value.reason == 2381


def test_cipher_spec_longer_than_32_is_refused_before_connecting(qmgr, engine) -> None:
    engine.clear_calls()
    with pytest.raises(MQError) as info:
        qmgr.connect(cipher_spec="TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384_X")
    assert info.value.reason == 2393 and "32" in str(info.value)
    assert engine.calls_named("MQCONNX") == []


def test_ccdt(qmgr, engine, library, monkeypatch) -> None:
    """A CCDT URL goes with its connection (MQCNO.CCDTUrl), never into os.environ (issue 14
    item 9): pymqi, whose MQCNO has no CCDTUrl, is refused in one sentence instead."""
    import os

    monkeypatch.delenv("MQCCDTURL", raising=False)
    if library.name != "ibmmq":
        with pytest.raises(MQError) as refused:
            qmgr.connect(channel=None, connection_name=None,
                         ccdt_url="file:///etc/mq/ccdt.json")
        assert "MQCCDTURL" in str(refused.value) and "MQCCDTURL" not in os.environ
        return
    qmgr.connect(channel=None, connection_name=None, ccdt_url="file:///etc/mq/ccdt.json")
    info = _last_connx(engine)
    assert "cd" not in info
    assert info["options"] & library.CMQC.MQCNO_CLIENT_BINDING
    assert info["ccdt_url"] == "file:///etc/mq/ccdt.json"  # MQCNO.CCDTUrl
    assert "MQCCDTURL" not in os.environ


def test_mqserver_from_the_environment(qmgr, engine, library, monkeypatch) -> None:
    for var in ("MQSERVER", "MQCCDTURL", "MQCHLLIB"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(MQError) as info:
        qmgr.connect(channel=None, connection_name=None)
    assert info.value.reason == 2058  # no channel definition anywhere
    monkeypatch.setenv("MQSERVER", "DEV.APP.SVRCONN/TCP/mqhost(1414)")
    qm = qmgr.connect(channel=None, connection_name=None)
    assert qm.settings.mode == "environment"
    assert _last_connx(engine)["options"] & library.CMQC.MQCNO_CLIENT_BINDING


def test_bindings(qmgr, engine, library) -> None:
    qm = qmgr.connect(channel=None, connection_name=None, bindings=True, user=None,
                      password=None)
    info = _last_connx(engine)
    assert info["options"] & library.CMQC.MQCNO_LOCAL_BINDING
    assert not info["options"] & library.CMQC.MQCNO_CLIENT_BINDING
    assert "cd" not in info
    assert qm.settings.mode == "bindings"


def test_wrong_password_is_2035_and_never_shown(qmgr, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(MQError) as info:
        qmgr.connect(password="not-the-password")
    assert info.value.reason == 2035
    text = str(info.value) + repr(qmgr.settings) + caplog.text
    assert "not-the-password" not in text and "s3cret-pw" not in text
    good = qmgr.connect()
    assert "s3cret-pw" not in repr(good) + repr(good.settings) + str(good.settings.to_spec())


def test_unknown_queue_manager(qmgr) -> None:
    with pytest.raises(MQError) as info:
        qmgr.connect(queue_manager="QMNONE")
    assert info.value.reason == 2058 and "QMNONE" in str(info.value)


def test_open_backend_reads_the_password_from_the_environment(qmgr, monkeypatch) -> None:
    monkeypatch.setenv("MQT_PW", "s3cret-pw")
    spec = MQConnectSettings(queue_manager="QMT", channel="DEV.APP.SVRCONN",
                             connection_name="mqhost(1414)", user=ADMIN, password_env="MQT_PW",
                             library=qmgr.lib.name).to_spec()
    assert "password" not in spec and spec["backend"] == "mq"
    qm = open_backend(spec)
    try:
        assert qm.inquire_qmgr().name == "QMT"
    finally:
        qm.close()


def _spec(qmgr, **kw: object) -> BackendSpec:
    settings = MQConnectSettings(queue_manager="QMT", channel="DEV.APP.SVRCONN",
                                 connection_name="mqhost(1414)", user=ADMIN,
                                 library=qmgr.lib.name)
    prompt = bool(kw.pop("password_prompt", False))
    return BackendSpec(kind="mq", profile="test", password_prompt=prompt,
                       mq=dataclasses.replace(settings, **kw))  # type: ignore[arg-type]


@pytest.mark.parametrize("how", ["env", "prompt"])
def test_open_backend_with_a_password(qmgr, engine, monkeypatch, how) -> None:
    """The password comes from password_env's variable, else from ask_password (the
    prompt names the user and the profile); it reaches MQCONNX's MQCSP."""
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return "s3cret-pw"

    if how == "env":
        monkeypatch.setenv("MQT_PROFILE_PW", "s3cret-pw")
        spec = _spec(qmgr, password_env="MQT_PROFILE_PW", password_prompt=True)
    else:
        spec = _spec(qmgr, password_prompt=True)
    qm = open_backend(spec, ask_password=ask)
    try:
        assert qm.name == "QMT" and qm.backend == "mq"
        assert (_last_connx(engine)["user"], _last_connx(engine)["password_given"]) == (
            ADMIN, True)
    finally:
        qm.close()
    assert asked == ([] if how == "env" else [f"MQ password for {ADMIN} (profile test): "])


@pytest.mark.parametrize(("prompt", "ask", "words"), [
    (True, None, "nothing here can ask"),
    (True, lambda prompt: None, "no password given for profile test"),
    (False, None, "MQT_UNSET_PW named by password_env (profile test) is not set"),
])
def test_no_password_is_said_before_connecting(qmgr, engine, monkeypatch, prompt, ask,
                                               words) -> None:
    monkeypatch.delenv("MQT_UNSET_PW", raising=False)
    engine.clear_calls()
    with pytest.raises(PasswordUnavailable) as info:
        open_backend(_spec(qmgr, password_env="MQT_UNSET_PW", password_prompt=prompt),
                     ask_password=ask)
    assert info.value.reason == 2035 and words in str(info.value)
    assert not engine.calls_named("MQCONNX")


# -- units of work -------------------------------------------------------------------------

def test_commit_2003_is_reported_and_the_work_backed_out(qmgr, qm, engine) -> None:
    q = qmgr.queue()
    qm.put(q, _msg("a"), syncpoint=False)
    assert qm.get(q).body == b"a"
    qm.put(q, _msg("b"))
    engine.fail_next("MQCMIT", 2003, effect="backout")
    with pytest.raises(MQError) as info:
        qm.commit()
    assert info.value.reason == 2003 and "backed out" in str(info.value)
    assert not qm.in_unit_of_work
    m = qm.get(q, syncpoint=False)
    assert (m.body, m.md.backout_count) == (b"a", 1)
    with pytest.raises(MQError):
        qm.get(q, syncpoint=False)  # b was never committed


@pytest.mark.parametrize("outcome", ["commit", "backout"])
@pytest.mark.parametrize("reason", [2009, 2018, 2548, 2549])
def test_commit_outcome_unknown_is_reported_never_guessed(qmgr, qm, engine, reason, outcome
                                                          ) -> None:
    """2009, 2018, 2548, 2549 on MQCMIT: it may have committed (IBM, 2009: "for client
    applications, it is possible that the call did complete successfully")."""
    from mqconsole.cli.errors import describe, exit_code_for_mq
    from mqconsole.cli.exit_codes import ExitCode
    from mqconsole.mq.errors import CommitOutcomeUnknown

    q = qmgr.queue()
    qm.put(q, _msg("x"))
    engine.fail_next("MQCMIT", reason, effect=outcome)
    with pytest.raises(CommitOutcomeUnknown) as info:
        qm.commit()
    assert info.value.reason == reason and "cannot tell" in str(info.value)
    assert not qm.in_unit_of_work
    assert exit_code_for_mq(info.value) == ExitCode.UNKNOWN_OUTCOME  # never 3 for 2009
    text, code = describe(info.value)
    assert code == ExitCode.UNKNOWN_OUTCOME and "outcome is unknown" in text
    assert qmgr.admin().inquire_queue(q).depth == (1 if outcome == "commit" else 0)
    assert not engine.calls_named("MQBACK")  # nothing to back out: never guessed


def test_2009_breaks_the_connection_in_the_stand_in(qmgr, qm, engine) -> None:
    """After a 2009 every call on the connection answers 2009; what it left open is backed
    out by the queue manager, unless the lost reply was of a commit that completed."""
    q = qmgr.queue()
    qm.put(q, _msg("x"))
    engine.fail_next("MQCMIT", 2009, effect="commit")
    with pytest.raises(MQError):
        qm.commit()
    with pytest.raises(MQError) as info:
        qm.put(q, _msg("y"), syncpoint=False)
    assert info.value.reason == 2009
    assert qmgr.admin().inquire_queue(q).depth == 1


@pytest.mark.parametrize("reason", [2102, 2195, 2071, 2162])
def test_another_commit_failure_is_backed_out(qmgr, qm, engine, reason) -> None:
    """MQ leaves the unit of work open after any other MQCMIT failure: MQBACK, then raise."""
    from mqconsole.mq.errors import CommitOutcomeUnknown

    q = qmgr.queue()
    qm.put(q, _msg("x"))
    engine.clear_calls()
    engine.fail_next("MQCMIT", reason)
    with pytest.raises(MQError) as info:
        qm.commit()
    assert info.value.reason == reason and not isinstance(info.value, CommitOutcomeUnknown)
    assert "backed out" in str(info.value)
    assert [c.name for c in engine.calls if c.name in ("MQCMIT", "MQBACK")] == \
        ["MQCMIT", "MQBACK"]
    assert not qm.in_unit_of_work and qmgr.admin().inquire_queue(q).depth == 0


def test_a_unit_of_work_stays_open_until_mqback_succeeds(qmgr, qm, engine) -> None:
    from mqconsole.mq.errors import CommitOutcomeUnknown

    q = qmgr.queue()
    qm.put(q, _msg("x"))
    engine.fail_next("MQCMIT", 2102)
    engine.fail_next("MQBACK", 2102)
    with pytest.raises(CommitOutcomeUnknown) as info:
        qm.commit()
    assert info.value.reason == 2102 and "still open" in str(info.value)
    assert qm.in_unit_of_work
    engine.fail_next("MQBACK", 2195)
    with pytest.raises(MQError):
        qm.backout()
    assert qm.in_unit_of_work  # a failed MQBACK does not close it
    qm.backout()
    assert not qm.in_unit_of_work and qmgr.admin().inquire_queue(q).depth == 0


def test_close_backs_out_although_mqdisc_would_commit(qmgr, qm) -> None:
    q = qmgr.queue()
    other = qmgr.connect()
    other.put(q, _msg("lost"))
    other.close()
    assert qmgr.admin().inquire_queue(q).depth == 0


def test_a_dropped_connection_is_backed_out(qmgr) -> None:
    q = qmgr.queue()
    other = open_backend(BackendSpec(kind="mq", mq=qmgr.settings))  # (held by nothing else)
    other.put(q, _msg("lost"))
    del other
    gc.collect()
    assert qmgr.admin().inquire_queue(q).depth == 0


def test_mqdisc_commits_in_the_stand_in(qmgr, library) -> None:
    """Why close() backs out first: a plain MQDISC commits (distributed MQ)."""
    q = qmgr.queue()
    qm = qmgr.connect()
    qm.put(q, _msg("kept"))
    qm._qmgr.disconnect()  # MQDISC without MQBACK
    qm._closed = True
    assert qmgr.admin().inquire_queue(q).depth == 1


# -- errors named as MQ names them ---------------------------------------------------------

def test_set_all_2035_names_setall_and_new_context(qmgr, qm) -> None:
    q = qmgr.queue()
    admin = qmgr.admin()
    admin.set_authority(ADMIN, "*", "all")
    admin.set_authority(ADMIN, "", "all", object_type="qmgr")
    admin.set_authority("bob", q, {"put"})
    bob = qmgr.connect(user="bob")
    with pytest.raises(MQError) as info:
        bob.put(q, _msg("x", user_identifier="alice"), context=Context.SET_ALL)
    assert info.value.reason == 2035
    assert "+setall" in str(info.value) and "--new-context" in str(info.value)
    bob.put(q, _msg("x"), context=Context.NEW, syncpoint=False)


def test_put_with_alternate_user_authority(qmgr, engine) -> None:
    """PUTAUT(CTX)'s put: MQPUT1 with MQPMO_ALTERNATE_USER_AUTHORITY and AlternateUserId;
    the connection needs +altusr, the alternate user the put authorities."""
    q = qmgr.queue()
    admin = qmgr.admin()
    admin.set_authority(ADMIN, "*", "all")
    admin.set_authority(ADMIN, "", "all", object_type="qmgr")
    admin.set_authority("bob", q, {"put", "setall", "inq"})
    admin.set_authority("bob", "", {"connect", "setall", "altusr", "inq"}, object_type="qmgr")
    admin.set_authority("alice", q, {"put", "setall"})
    admin.set_authority("alice", "", {"setall"}, object_type="qmgr")
    bob = qmgr.connect(user="bob")
    engine.clear_calls()
    bob.put(q, _msg("as alice", user_identifier="alice"), alt_user="alice", syncpoint=False)
    [put1] = engine.calls_named("MQPUT1")
    assert put1.info["alt_user"] == "alice"
    with pytest.raises(MQError) as info:
        bob.put(q, _msg("as carol", user_identifier="carol"), alt_user="carol",
                syncpoint=False)
    assert info.value.reason == 2035 and "'carol'" in str(info.value)
    admin.set_authority("bob", "", {"connect", "setall", "inq"}, object_type="qmgr")
    with pytest.raises(MQError) as info:
        bob.put(q, _msg("as alice", user_identifier="alice"), alt_user="alice",
                syncpoint=False)
    assert info.value.reason == 2035 and "+altusr" in str(info.value)
    assert admin.inquire_queue(q).depth == 1


def test_browse_without_get_authority(qmgr) -> None:
    q = qmgr.queue()
    admin = qmgr.admin()
    admin.set_authority(ADMIN, "*", "all")
    admin.set_authority("bob", q, {"browse"})
    qmgr.connect().put(q, _msg("x"), context=Context.NEW, syncpoint=False)
    bob = qmgr.connect(user="bob")
    with bob.browse(q) as cur:  # browsing needs +browse only
        assert cur.next().body == b"x"
    with pytest.raises(MQError) as info:  # an input open needs +get
        bob.browse(q, for_get=True)
    assert info.value.reason == 2035 and "+get" in str(info.value)


def test_silent_command_server_is_2033_with_a_hint(make_qmgr) -> None:
    qmgr = make_qmgr("QMS", command_server=False)
    # a wait of ten minutes: the stand-in answers a reply it knows will never come with
    # the WaitInterval's 2033 at once (a stand-in passing it in real time hangs here)
    qm = qmgr.connect(response_wait_interval=600_000)
    with pytest.raises(MQError) as info:
        qm.queue_status("ANY")  # PCF only (a listing falls back: issue 22 item 2)
    assert info.value.reason == 2033 and "command server" in str(info.value)


def test_closed_connection_is_2018(qmgr) -> None:
    qm = qmgr.connect()
    qm.close()
    qm.close()
    with pytest.raises(MQError) as info:
        qm.get("ANY")
    assert info.value.reason == 2018


def test_queue_status_handles(qmgr, qm) -> None:
    q = qmgr.queue()
    qm.put(q, _msg("a"), syncpoint=False)
    with qm.browse(q, for_get=True) as cur:
        cur.next()
        st = qm.queue_status(q)
    assert st.open_input_count >= 1
    assert any(h["browse"] and h["input"] and h["user_id"] == ADMIN for h in st.handles)
    assert st.depth == 1 and st.oldest_message_age is not None
    with pytest.raises(MQError) as info:
        qm.queue_status("NO.SUCH.Q")
    assert info.value.reason == 2085


def test_change_without_display_authority(qmgr) -> None:
    q = qmgr.queue()
    admin = qmgr.admin()
    admin.set_authority(ADMIN, "*", "all")
    admin.set_authority("bob", q, {"chg"})
    standin.grant_pcf(admin, "bob")
    bob = qmgr.connect(user="bob")
    assert bob.change_queue(q, max_depth=9).max_depth == 9
    assert admin.inquire_queue(q).max_depth == 9

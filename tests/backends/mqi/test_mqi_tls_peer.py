"""Issue 22 item 10: TLS settings an administrator checks. ``ssl_peer_name`` travels in the
MQCD (SSLPeerName, version 7 on) and the stand-in matches it against the queue manager's
certificate as SSLPEER is matched (2398 when it does not match); ``cipher_spec`` with a
client channel definition table is refused before anything, in one sentence (the CCDT
decides the channel's TLS: a cipher_spec given with it was silently ignored)."""

from __future__ import annotations

import pytest

from mqconsole.mq.errors import MQError

CIPHER = "TLS_AES_128_GCM_SHA256"


def _connx(engine):
    return engine.calls_named("MQCONNX")[-1].info


@pytest.mark.parametrize("peer", ["CN=QMGR,O=Example", "CN=QM*", "o=Example, CN=QMGR"])
def test_ssl_peer_name_travels_in_the_mqcd(qmgr, engine, peer) -> None:
    qm = qmgr.connect(cipher_spec=CIPHER, key_repository="/var/mqm/key", ssl_peer_name=peer)
    info = _connx(engine)
    assert info["cd"]["SSLPeerName"] == peer and info["cd"]["Version"] >= 7
    assert qm.inquire_qmgr().name == qmgr.name


def test_a_certificate_that_does_not_match_is_refused_with_its_reason(qmgr) -> None:
    with pytest.raises(MQError) as info:
        qmgr.connect(cipher_spec=CIPHER, key_repository="/var/mqm/key",
                     ssl_peer_name="CN=OTHER,O=Example")
    assert info.value.reason == 2398
    assert "does not match ssl_peer_name" in str(info.value)


@pytest.mark.parametrize("setting", [{"cipher_spec": CIPHER},
                                     {"ssl_peer_name": "CN=QMGR"}])
def test_tls_settings_with_a_ccdt_are_refused_before_connecting(qmgr, engine, setting) -> None:
    engine.clear_calls()
    with pytest.raises(MQError) as info:
        qmgr.connect(channel=None, connection_name=None, ccdt_url="file:///etc/ccdt.json",
                     **setting)
    name = next(iter(setting))
    assert f"{name} is not used with ccdt_url" in str(info.value)
    assert "decides the channel's TLS" in str(info.value)
    assert engine.calls_named("MQCONNX") == []

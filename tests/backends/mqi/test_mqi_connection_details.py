"""Issue 14 item 9: connection details a real queue manager and MQ client care about.

The stand-in reads MQCD.CertificateLabel only from an MQCD of version 11 (as MQ does),
MQCNO.ApplName from an MQCNO of version 7, MQSCO.KeyRepoPassword from an MQSCO of version
6, can answer MQCONNX with a warning (``QMgrDef.connect_warning``) and check +connect
(``QMgrDef.check_connect``).
"""

from __future__ import annotations

import pytest

from mqconsole.mq.errors import MQError


def _connx(engine):
    return engine.calls_named("MQCONNX")[-1].info


def test_certificate_label_goes_in_an_mqcd_of_version_11(qmgr, engine) -> None:
    qmgr.connect(cipher_spec="TLS_AES_128_GCM_SHA256", key_repository="/var/mqm/key",
                 certificate_label="ibmwebspheremqapp")
    info = _connx(engine)
    assert info["cd"]["Version"] >= 11
    assert info["cd"]["CertificateLabel"] == "ibmwebspheremqapp"


def test_the_application_names_itself(qmgr, engine, library) -> None:
    qmgr.connect()
    if library.name == "ibmmq":
        assert _connx(engine)["appl_name"] == "mqconsole"  # DIS CONN shows APPLTAG
    # pymqi cannot send an MQCNO of version 7: the MQ client names it after the program


def test_a_connect_warning_is_a_connection(make_qmgr, engine) -> None:
    qmgr = make_qmgr(connect_warning=2391)  # MQRC_SSL_ALREADY_INITIALIZED
    qm = qmgr.connect()
    assert qm.connect_warning == 2391
    assert qm.inquire_qmgr().name == qmgr.name  # and it works


def test_key_repository_password(qmgr, engine, library) -> None:
    if library.name != "ibmmq":
        with pytest.raises(MQError) as info:
            qmgr.connect(key_repository="/var/mqm/key.p12", key_repository_password="pw")
        assert "KeyRepoPassword" in str(info.value)
        return
    qm = qmgr.connect(key_repository="/var/mqm/key.p12", key_repository_password="kpw")
    assert _connx(engine)["sco"]["KeyRepoPassword"] == "kpw"
    assert "kpw" not in repr(qm.settings) and "kpw" not in str(qm.settings.to_spec())


def test_2035_at_connect_names_the_usual_causes(make_qmgr) -> None:
    qmgr = make_qmgr(check_connect=True)
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "", "all", object_type="qmgr")
    admin.set_authority("nobody", "", {"inq"}, object_type="qmgr")
    with pytest.raises(MQError) as info:
        qmgr.connect(user="nobody")
    text = str(info.value)
    assert info.value.reason == 2035
    assert "CHLAUTH" in text and "BLOCKUSER(*MQADMIN)" in text and "+connect" in text
    assert "CONNAUTH" in text

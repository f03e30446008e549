"""Against a real queue manager (IBM's developer container): only when MQCONSOLE_TEST_QMGR is
set (docs/real-mq.md). The whole contract suite runs there too: ``pytest tests/contract -k
realmq`` (its ``realmq`` backend appears when the variable is set). This is the only test of
mqconsole that is skipped, and only when no queue manager is given.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import standin

from mqconsole.backends.embedded import create_queue_manager

needs_real_qmgr = pytest.mark.skipif(
    not os.environ.get("MQCONSOLE_TEST_QMGR"),
    reason="set MQCONSOLE_TEST_QMGR (and the connection settings of docs/real-mq.md) to test "
           "against a real queue manager")


@pytest.mark.realmq
@needs_real_qmgr
def test_real_queue_manager_answers() -> None:
    from mqconsole.backends.mqi import MQConnectSettings
    from mqconsole.backends.open import open_backend
    from mqconsole.backends.spec import BackendSpec

    env = os.environ
    user, _, password = env.get("MQCONSOLE_TEST_USERS", "").split(",")[0].partition("=")[2] \
        .partition(":")
    settings = MQConnectSettings(
        queue_manager=env["MQCONSOLE_TEST_QMGR"], channel=env.get("MQCONSOLE_TEST_CHANNEL"),
        connection_name=env.get("MQCONSOLE_TEST_CONNECTION"),
        cipher_spec=env.get("MQCONSOLE_TEST_CIPHER"),
        key_repository=env.get("MQCONSOLE_TEST_KEYR"), user=user or None,
        password=password or None)
    qm = open_backend(BackendSpec(kind="mq", mq=settings))
    try:
        info = qm.inquire_qmgr()
        assert info.name == env["MQCONSOLE_TEST_QMGR"]
        assert info.command_level >= 800
        assert any(q.name == info.dead_letter_queue for q in qm.list_queues("SYSTEM.*")) \
            or not info.dead_letter_queue
    finally:
        qm.close()


@pytest.mark.slow
def test_the_realmq_contract_backend_on_the_stand_in(tmp_path: Path) -> None:
    """The contract suite's ``realmq`` backend (tests/contract/mqi_backend.py) is code that
    only runs against a real queue manager; here it runs against the stand-in, reached the
    way a real one is (MQCONSOLE_TEST_* settings, client connection, users and passwords,
    authorities granted with PCF MQCMD_SET_AUTH_REC), so that code is known to work.
    Like a real queue manager, this one checks authorities from the start."""
    path = tmp_path / "real.qm"
    with create_queue_manager(path, "QMREAL") as qm:
        qm.set_authority("ctadmin", "*", "all")
        qm.set_authority("ctadmin", "", "all", object_type="qmgr")
    spec = {"name": "QMREAL", "path": str(path), "admin": "ctadmin", "password": "pw",
            "encoding": 546, "default_user": "mqm"}
    env = standin.child_env([spec])
    env.pop("MQCONSOLE_CT_PASSWORD", None)
    env.pop("CPU_PROFILE_OUT", None)  # the child's tests are this test's CPU: not twice
    env.update(MQCONSOLE_TEST_QMGR="QMREAL", MQCONSOLE_TEST_CHANNEL="DEV.ADMIN.SVRCONN",
               MQCONSOLE_TEST_CONNECTION="localhost(1414)",
               MQCONSOLE_TEST_USERS="ctadmin=ctadmin:pw,ctuser=ctuser:pw,ctdlq=ctdlq:pw")
    r = subprocess.run([sys.executable, "-m", "pytest", "tests/contract", "-k", "realmq",
                        "-q", "-p", "no:cacheprovider", "-o", "addopts="],
                       cwd=standin.ROOT, env=env, capture_output=True, text=True, timeout=600)
    tail = "\n".join(r.stdout.splitlines()[-15:])
    assert r.returncode == 0, tail + r.stderr[-2000:]
    assert " passed" in tail and "failed" not in tail

"""The real-MQ backend (mqconsole/backends/mqi) in the contract suite.

* ``mqi-ibmmq``: IBM's ibmmq package from PyPI — its real Python code — on the stand-in for
  its C extension (tests/backends/mqi/fake_ibmmqc.py), which implements MQI and a command
  server over an embedded queue manager file. Connections are client connections (channel,
  connection name, user and password), so the whole connect path runs.
* ``mqi-pymqi``: the same with pymqi's Python code from its sdist, when the sdist is at hand
  (``python tests/backends/mqi/standin.py --fetch-pymqi``; see docs/real-mq.md).
* ``realmq``: a real queue manager, only when ``MQCONSOLE_TEST_QMGR`` is set (docs/real-mq.md,
  "Running the tests against a real queue manager").

Both stand-in backends accept connections from child processes (the stand-in is found there
through PYTHONPATH), so the multi-process contract tests run too. Granting authorities is
setmqaut: for the stand-in, on the embedded queue manager underneath; for a real queue
manager, PCF MQCMD_SET_AUTH_REC.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contract_support import ADMIN

from mqconsole.backends.base import QueueManager
from mqconsole.backends.embedded.connection import open_embedded
from tests.support.templates import empty_queue_manager

_MQI_TESTS = Path(__file__).resolve().parents[1] / "backends" / "mqi"
if str(_MQI_TESTS) not in sys.path:
    sys.path.insert(0, str(_MQI_TESTS))

try:  # the stand-in needs ibmmq's constant files (ibmmq is a [dev] dependency)
    import standin
except ImportError:  # pragma: no cover - without ibmmq only a real queue manager is tried
    standin = None  # type: ignore[assignment]

QMGR_NAME = "QMCT"
PASSWORD = "ct-passw0rd"
PASSWORD_ENV = "MQCONSOLE_CT_PASSWORD"
CHANNEL = "CT.SVRCONN"
CONNECTION_NAME = "localhost(1414)"


class StandInBackend:
    """The MQI backend over a library on the stand-in (duck-types conftest.Backend)."""

    id = "mqi-ibmmq"
    library = "ibmmq"
    qmgr_name = QMGR_NAME
    multiprocess = True

    def __init__(self, tmp_path: Path) -> None:
        from mqconsole.backends.mqi import MQConnectSettings

        self._install()
        self.path = tmp_path / "contract.qm"
        empty_queue_manager(self.path, QMGR_NAME)  # create_queue_manager(...).close(), copied
        self.engine = standin.ENGINE
        self.qdef = self.engine.register(standin.QMgrDef.for_file(
            QMGR_NAME, self.path, ADMIN, password=PASSWORD))
        self._admin: Any = None
        self._saved_env = {k: os.environ.get(k) for k in
                           ("PYTHONPATH", standin.ENV_QMGRS, PASSWORD_ENV)}
        # children (conftest's _spawn) inherit these: they find the stand-in and the password
        env = standin.child_env([standin.qmgr_spec(self.qdef, str(self.path))])
        os.environ["PYTHONPATH"] = env["PYTHONPATH"]
        os.environ[standin.ENV_QMGRS] = env[standin.ENV_QMGRS]
        os.environ[PASSWORD_ENV] = PASSWORD
        self.settings = MQConnectSettings(
            queue_manager=QMGR_NAME, channel=CHANNEL, connection_name=CONNECTION_NAME,
            user=ADMIN, password_env=PASSWORD_ENV, library=self.library)

    def _install(self) -> None:
        standin.install_ibmmq()

    def connect(self, principal: str | None = None) -> QueueManager:
        from dataclasses import replace

        from mqconsole.backends.open import open_backend
        from mqconsole.backends.spec import BackendSpec

        return open_backend(BackendSpec(kind="mq", mq=replace(self.settings,
                                                              user=principal or ADMIN)))

    def _admin_qm(self):  # setmqaut on the queue manager underneath
        if self._admin is None:
            self._admin = open_embedded(self.path, principal=ADMIN)
        return self._admin

    def grant(self, principal: str, object_name: str, authorities: set[str] | str, *,
              object_type: str = "queue") -> None:
        self._admin_qm().set_authority(principal, object_name, authorities,
                                       object_type=object_type)

    def restrict(self) -> None:
        self.grant(ADMIN, "*", "all")
        self.grant(ADMIN, "", "all", object_type="qmgr")

    def spec(self) -> dict[str, object]:
        return self.settings.to_spec()

    def close(self) -> None:
        if self._admin is not None:
            self._admin.close()
        self.engine.unregister(QMGR_NAME)
        for k, v in self._saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        errors, self.engine.internal_errors[:] = list(self.engine.internal_errors), []
        assert not errors, f"the stand-in failed inside: {errors}"


class PymqiStandInBackend(StandInBackend):
    id = "mqi-pymqi"
    library = "pymqi"

    def _install(self) -> None:
        assert standin.install_pymqi() is not None


class RealQueueManager:
    """A real queue manager (IBM's developer container, say): see docs/real-mq.md.

    ``MQCONSOLE_TEST_QMGR`` names it; ``MQCONSOLE_TEST_CHANNEL``,
    ``MQCONSOLE_TEST_CONNECTION`` (``host(port)``), ``MQCONSOLE_TEST_CIPHER``,
    ``MQCONSOLE_TEST_KEYR`` give the client connection (or MQSERVER / a CCDT in the
    environment); ``MQCONSOLE_TEST_USERS`` maps the suite's principals to real users and
    passwords: ``ctadmin=admin:passw0rd,ctuser=app:passw0rd``.
    """

    id = "realmq"
    multiprocess = True
    outlives_the_test = True  # (conftest.Backend)

    def __init__(self, tmp_path: Path) -> None:
        from mqconsole.backends.mqi import MQConnectSettings

        env = os.environ
        self.qmgr_name = env["MQCONSOLE_TEST_QMGR"]
        self.users: dict[str, tuple[str, str]] = {}
        for item in filter(None, env.get("MQCONSOLE_TEST_USERS", "").split(",")):
            principal, _, cred = item.partition("=")
            user, _, password = cred.partition(":")
            self.users[principal.strip()] = (user.strip(), password)
        self.settings = MQConnectSettings(
            queue_manager=self.qmgr_name, channel=env.get("MQCONSOLE_TEST_CHANNEL"),
            connection_name=env.get("MQCONSOLE_TEST_CONNECTION"),
            cipher_spec=env.get("MQCONSOLE_TEST_CIPHER"),
            key_repository=env.get("MQCONSOLE_TEST_KEYR"))
        self._admin: Any = None

    def _settings(self, principal: str | None):
        from dataclasses import replace

        user, password = self.users.get(principal or ADMIN, (None, None))
        return replace(self.settings, user=user, password=password)

    def connect(self, principal: str | None = None) -> QueueManager:
        from mqconsole.backends.open import open_backend
        from mqconsole.backends.spec import BackendSpec

        return open_backend(BackendSpec(kind="mq", mq=self._settings(principal)))

    def grant(self, principal: str, object_name: str, authorities: set[str] | str, *,
              object_type: str = "queue") -> None:
        """setmqaut through PCF MQCMD_SET_AUTH_REC (replacing what the user had)."""
        from mqconsole.backends.embedded.auth import normalize

        if self._admin is None:
            self._admin = self.connect(ADMIN)
        lib = self._admin.lib
        C, F = lib.CMQC, lib.CMQCFC
        user = self.users.get(principal, (principal, ""))[0]
        names = {"browse": F.MQAUTH_BROWSE, "get": F.MQAUTH_INPUT, "put": F.MQAUTH_OUTPUT,
                 "set": F.MQAUTH_SET, "connect": F.MQAUTH_CONNECT,
                 "inq": F.MQAUTH_INQUIRE, "dsp": F.MQAUTH_DISPLAY,
                      "chg": F.MQAUTH_CHANGE, "dlt": F.MQAUTH_DELETE, "clr": F.MQAUTH_CLEAR,
                      "crt": F.MQAUTH_CREATE, "setall": F.MQAUTH_SET_ALL_CONTEXT,
                      "setid": F.MQAUTH_SET_IDENTITY_CONTEXT, "ctrl": F.MQAUTH_CONTROL,
                      "ctrlx": F.MQAUTH_CONTROL_EXTENDED, "altusr": F.MQAUTH_ALT_USER_AUTHORITY,
                      "passall": F.MQAUTH_PASS_ALL_CONTEXT,
                 "passid": F.MQAUTH_PASS_IDENTITY_CONTEXT}
        wanted = [names[a] for a in normalize(authorities) if names.get(a) is not None]
        pcf = self._admin._pcf()
        profile = object_name if object_type == "queue" else self.qmgr_name
        pcf.command("MQCMD_SET_AUTH_REC", {
            F.MQCACF_AUTH_PROFILE_NAME: profile.encode(),
            F.MQIACF_OBJECT_TYPE: C.MQOT_Q if object_type == "queue" else C.MQOT_Q_MGR,
            F.MQCACF_PRINCIPAL_ENTITY_NAMES: [user.encode()],
            F.MQIACF_AUTH_REMOVE_AUTHS: [F.MQAUTH_ALL],
        })
        if wanted:
            pcf.command("MQCMD_SET_AUTH_REC", {
                F.MQCACF_AUTH_PROFILE_NAME: profile.encode(),
                F.MQIACF_OBJECT_TYPE: C.MQOT_Q if object_type == "queue" else C.MQOT_Q_MGR,
                F.MQCACF_PRINCIPAL_ENTITY_NAMES: [user.encode()],
                F.MQIACF_AUTH_ADD_AUTHS: wanted,
            })

    def restrict(self) -> None:
        """A real queue manager always checks authorities; the admin user is mqm-like."""

    def spec(self) -> dict[str, object]:
        user, password = self.users.get(ADMIN, (None, None))
        if password:
            os.environ["MQCONSOLE_TEST_ADMIN_PASSWORD"] = password
        out = self.settings.to_spec()
        out.update(user=user, password_env="MQCONSOLE_TEST_ADMIN_PASSWORD")
        return out

    def close(self) -> None:
        if self._admin is not None:
            self._admin.close()


def _backends() -> dict[str, Callable[[Path], Any]]:
    out: dict[str, Callable[[Path], Any]] = {}
    if standin is not None:
        out["mqi-ibmmq"] = StandInBackend
        if standin.pymqi_source() is not None:
            out["mqi-pymqi"] = PymqiStandInBackend
    if os.environ.get("MQCONSOLE_TEST_QMGR"):
        out["realmq"] = RealQueueManager
    return out


MQI_BACKENDS = _backends()

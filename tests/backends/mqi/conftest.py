"""Fixtures of the MQI backend tests: the stand-in, a queue manager behind it, connections.

``library`` runs a test once per Python MQ library that can be loaded here: ibmmq (always:
it is a dev dependency) and pymqi (when its sdist is at hand: tests/backends/mqi/standin.py).
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import standin
from fake_ibmmqc import ENGINE, Engine, QMgrDef

from mqconsole.backends.embedded.connection import open_embedded
from mqconsole.backends.mqi import MQConnectSettings, MQIQueueManager
from mqconsole.backends.mqi import shim as shim_mod
from mqconsole.backends.open import open_backend
from mqconsole.backends.spec import BackendSpec
from tests.support.templates import RAM, empty_queue_manager

ADMIN = "mqadmin"
PASSWORD = "s3cret-pw"

LIBRARIES = ["ibmmq"] + (["pymqi"] if standin.pymqi_source() is not None else [])


def load_library(name: str) -> shim_mod.MQLibrary:
    if name == "ibmmq":
        standin.install_ibmmq()
    else:
        assert standin.install_pymqi() is not None
    return shim_mod.load(name)


@pytest.fixture(params=LIBRARIES)
def library(request: pytest.FixtureRequest) -> shim_mod.MQLibrary:
    return load_library(request.param)


@pytest.fixture
def ibmmq_lib() -> shim_mod.MQLibrary:
    return load_library("ibmmq")


@pytest.fixture
def engine() -> Iterator[Engine]:
    ENGINE.clear_calls()
    yield ENGINE
    errors, ENGINE.internal_errors[:] = list(ENGINE.internal_errors), []
    ENGINE.faults.clear()
    assert not errors, f"the stand-in failed inside: {errors}"


class QMgr:
    """A queue manager behind the stand-in: its definition, its file, and connections."""

    def __init__(self, folder: Path, engine: Engine, lib: shim_mod.MQLibrary,
                 name: str, **qdef: Any) -> None:
        self.name = name
        self.path = folder / f"{name}.qm"
        empty_queue_manager(self.path, name)  # create_queue_manager(...).close(), copied
        qdef.setdefault("password", PASSWORD)
        self.qdef = engine.register(QMgrDef.for_file(name, self.path, ADMIN, **qdef))
        self.engine = engine
        self.lib = lib
        self.settings = MQConnectSettings(
            queue_manager=name, channel="DEV.APP.SVRCONN",
            connection_name="mqhost(1414),mqhost2(1414)", user=ADMIN, password=PASSWORD,
            library=lib.name)
        self.opened: list[MQIQueueManager] = []
        self._admin: Any = None
        self._token = uuid.uuid4().hex[:6].upper()
        self._count = 0

    def connect(self, **changes: Any) -> MQIQueueManager:
        # the one opener (backends/open.py): settings.library names this stand-in's library
        qm = open_backend(BackendSpec(kind="mq", mq=replace(self.settings, **changes)))
        assert isinstance(qm, MQIQueueManager)
        self.opened.append(qm)
        return qm

    def admin(self):
        """The embedded queue manager underneath (setmqaut, and looking behind the scenes)."""
        if self._admin is None:
            self._admin = open_embedded(self.path, principal=ADMIN)
        return self._admin

    def queue(self, label: str = "Q", **attrs: Any) -> str:
        from mqconsole.mq.queue import QueueAttrs

        self._count += 1
        name = f"T.{self._token}.{label}" if label != "Q" else f"T.{self._token}.Q{self._count}"
        self.admin().define_queue(QueueAttrs(name=name, **attrs))
        return name

    def close(self) -> None:
        for qm in self.opened:
            qm.close()
        if self._admin is not None:
            self._admin.close()
        self.engine.unregister(self.name)


@pytest.fixture
def make_qmgr(engine: Engine, library: shim_mod.MQLibrary) -> Iterator[Callable[..., QMgr]]:
    """Queue managers behind the stand-in, their files in RAM (``RAM``, as ``make_qm``'s
    copies: no fsync at a checkpoint or a last close), removed when the test ends."""
    made: list[QMgr] = []
    folder = Path(tempfile.mkdtemp(prefix="mqconsole-mqi-", dir=RAM))

    def _make(name: str = "QMT", lib: shim_mod.MQLibrary | None = None, **qdef: Any) -> QMgr:
        q = QMgr(folder, engine, lib or library, name, **qdef)
        made.append(q)
        return q

    yield _make
    for q in made:
        q.close()
    shutil.rmtree(folder, ignore_errors=True)
    # every connection is closed: a dynamic queue left now stays for good on a real queue
    # manager (a PERMDYN model's reply queue closed without MQCO_DELETE_PURGE)
    left = {q.name: engine.leftovers(q.qdef) for q in made if engine.leftovers(q.qdef)}
    assert not left, f"dynamic queues left behind: {left}"


@pytest.fixture
def qmgr(make_qmgr: Callable[..., QMgr]) -> QMgr:
    return make_qmgr()


@pytest.fixture
def qm(qmgr: QMgr) -> MQIQueueManager:
    return qmgr.connect()

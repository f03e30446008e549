"""The contract suite's one backend fixture.

Every test in ``tests/contract`` talks to a queue manager only through the
``QueueManager`` protocol (``mqconsole/backends/base.py``). What a test needs beyond the
protocol — connecting as another principal, granting authorities, telling a child process
how to connect — comes from the ``backend`` fixture, one small class per backend.

A backend joins the suite by adding one class and one entry to ``BACKENDS`` (a real queue
manager: a class reading ``MQCONSOLE_TEST_QMGR`` and the connection settings, marked
``realmq`` and skipped when the variable is unset). Tests make their own queues with
``make_queue`` (unique names, deleted afterwards), so a long-lived queue manager can be
shared between runs.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from contract_support import ADMIN, drain

from mqconsole.backends.base import QueueManager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.errors import MQError
from mqconsole.mq.queue import QueueAttrs, QueueType
from tests.support.templates import RAM, empty_queue_manager

QMGR_NAME = "QMCT"


class Backend:
    """What the suite needs from a backend besides the protocol."""

    id = "?"
    qmgr_name = QMGR_NAME
    #: the queue manager accepts connections from another process (``spec()`` is set)
    multiprocess = False
    #: the queue manager outlives the test (a real one, shared between runs): the queues a
    #: test made are emptied and deleted after it (``make_queue``); a queue manager made
    #: for the test alone (the embedded ones, the stand-in's) is simply dropped with them
    outlives_the_test = False

    def connect(self, principal: str | None = None) -> QueueManager:
        raise NotImplementedError

    def grant(self, principal: str, object_name: str, authorities: set[str] | str, *,
              object_type: str = "queue") -> None:
        """setmqaut: give ``principal`` exactly ``authorities`` on an object or profile."""
        raise NotImplementedError

    def restrict(self) -> None:
        """Turn authority checking on, with the suite's own principal allowed everything."""
        raise NotImplementedError

    def spec(self) -> dict[str, object]:
        """A picklable description from which another process connects as ADMIN."""
        raise NotImplementedError

    def close(self) -> None:
        pass


class _Embedded(Backend):
    def __init__(self) -> None:
        self._admin: QueueManager | None = None

    def _admin_qm(self):  # the embedded admin API (setmqaut-like), not the protocol
        if self._admin is None:
            self._admin = self.connect(ADMIN)
        return self._admin

    def grant(self, principal: str, object_name: str, authorities: set[str] | str, *,
              object_type: str = "queue") -> None:
        self._admin_qm().set_authority(principal, object_name, authorities,
                                       object_type=object_type)

    def restrict(self) -> None:
        self.grant(ADMIN, "*", "all")
        self.grant(ADMIN, "", "all", object_type="qmgr")

    def close(self) -> None:
        if self._admin is not None:
            self._admin.close()


class EmbeddedFile(_Embedded):
    id = "embedded-file"
    multiprocess = True

    def __init__(self, tmp_path: Path) -> None:
        super().__init__()
        self.path = tmp_path / "contract.qm"
        empty_queue_manager(self.path, QMGR_NAME)  # create_queue_manager(...).close(), copied

    def connect(self, principal: str | None = None) -> QueueManager:
        return open_embedded(self.path, principal=principal or ADMIN)

    def spec(self) -> dict[str, object]:
        return {"backend": "embedded", "path": str(self.path), "principal": ADMIN}


class EmbeddedMemory(_Embedded):
    id = "embedded-memory"

    def __init__(self, tmp_path: Path) -> None:
        super().__init__()
        self._first = open_embedded(":memory:", name=QMGR_NAME, principal=ADMIN)

    def connect(self, principal: str | None = None) -> QueueManager:
        # the only way into a private :memory: queue manager: another connection to it
        return self._first.new_connection(principal=principal or ADMIN)

    def close(self) -> None:
        super().close()
        self._first.close()


class EmbeddedPlain(EmbeddedFile):
    """The embedded queue manager with every optional capability of backends/base.py
    switched off (tests/support/plain.py): the fallback paths the MQI backend always takes,
    proven by the same tests (issue 22 item 12)."""

    id = "embedded-plain"

    def connect(self, principal: str | None = None) -> QueueManager:
        from tests.support.plain import plain

        return plain(super().connect(principal))


BACKENDS: dict[str, Callable[[Path], Backend]] = {
    "embedded-file": EmbeddedFile,
    "embedded-memory": EmbeddedMemory,
    "embedded-plain": EmbeddedPlain,
}

# -- the real-MQ backend (ibmmq/pymqi on the stand-in; a real queue manager when
# MQCONSOLE_TEST_QMGR is set): tests/contract/mqi_backend.py --------------------------------
from mqi_backend import MQI_BACKENDS  # noqa: E402

BACKENDS.update(MQI_BACKENDS)  # type: ignore[arg-type]


@pytest.fixture(params=list(BACKENDS))
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """Each backend of the contract, a file-backed one's file in RAM (``RAM``, as
    ``make_qm``'s copies: no fsync at a checkpoint or a last close), removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="mqconsole-contract-", dir=RAM))
    try:
        b = BACKENDS[request.param](folder)
        try:
            yield b
        finally:
            b.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def connect(backend: Backend) -> Iterator[Callable[..., QueueManager]]:
    """Open more connections (``connect("bob")`` connects as principal bob); closed after."""
    opened: list[QueueManager] = []

    def _connect(principal: str | None = None) -> QueueManager:
        qm = backend.connect(principal)
        opened.append(qm)
        return qm

    yield _connect
    for qm in opened:
        qm.close()


@pytest.fixture
def qm(backend: Backend) -> Iterator[QueueManager]:
    """The connection a test works on (as the suite's admin principal)."""
    conn = backend.connect()
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def qm2(qm: QueueManager) -> Iterator[QueueManager]:
    """A second connection to the same queue manager, made through the protocol."""
    conn = qm.new_connection()
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def make_queue(qm: QueueManager, backend: Backend) -> Iterator[Callable[..., str]]:
    """Define a queue with a unique name: ``make_queue("IN", max_depth=3)`` → its name.

    On a queue manager that outlives the test (``Backend.outlives_the_test``: a real one)
    the queues are emptied and deleted after the test (in reverse order, so aliases go
    first); every other backend's queue manager is the test's own and goes with its
    ``backend`` (draining its queues message by message, one MQGET each, was a fifth of
    tests/contract's CPU).
    """
    token = uuid.uuid4().hex[:6].upper()
    made: list[str] = []

    def _make(label: str = "Q", **attrs: object) -> str:
        name = f"CT.{token}.{label}"
        qm.define_queue(QueueAttrs(name=name, **attrs))  # type: ignore[arg-type]
        made.append(name)
        return name

    yield _make
    if not getattr(backend, "outlives_the_test", False):
        return
    cleanup = backend.connect()
    try:
        for name in reversed(made):
            try:
                attrs = cleanup.inquire_queue(name)
                if attrs.type is QueueType.LOCAL:
                    if attrs.get_inhibited:
                        cleanup.change_queue(name, get_inhibited=False)
                    drain(cleanup, name)
                cleanup.delete_queue(name)
            except MQError:
                pass
    finally:
        cleanup.close()


@pytest.fixture
def queue(make_queue: Callable[..., str]) -> str:
    """One local queue with default attributes."""
    return make_queue()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that need a second process exist only for backends that have one to offer.

    A private in-RAM queue manager is reachable from its own process only, so two-process
    tests are not generated for it (deselected, rather than run and skipped).
    """
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        name = callspec.params.get("backend") if callspec is not None else None
        cls = BACKENDS.get(name) if isinstance(name, str) else None
        if ("multiprocess" in getattr(item, "fixturenames", ()) and cls is not None
                and not getattr(cls, "multiprocess", True)):
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep

"""The embedded queue manager's files: create, open, refuse, ``:memory:``."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from mqconsole.backends.embedded import (
    SCHEMA_VERSION,
    EmbeddedQueueManager,
    QueueManagerExistsError,
    create_file,
    create_queue_manager,
)
from mqconsole.backends.embedded.schema import APPLICATION_ID
from mqconsole.backends.open import open_backend, open_embedded
from mqconsole.mq.errors import MQError


def test_create_queue_manager_returns_a_connection(tmp_path: Path) -> None:
    with create_queue_manager(tmp_path / "qm", "QMC", description="made here") as qm:
        assert isinstance(qm, EmbeddedQueueManager)
        assert (qm.name, qm.inquire_qmgr().description) == ("QMC", "made here")
    with create_queue_manager(":memory:", "QMM") as qm:
        assert qm.is_memory and qm.name == "QMM"
    with pytest.raises(QueueManagerExistsError):
        create_queue_manager(tmp_path / "qm", "QMC")


def test_create_then_open(tmp_path: Path) -> None:
    path = create_file(tmp_path / "sub" / "qm.sqlite", "QMA")
    with open_embedded(path) as qm:
        info = qm.inquire_qmgr()
        assert (info.name, info.dead_letter_queue, info.platform) == \
            ("QMA", "SYSTEM.DEAD.LETTER.QUEUE", "UNIX")
        assert [q.name for q in qm.list_queues()] == ["SYSTEM.DEAD.LETTER.QUEUE"]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == \
        str(SCHEMA_VERSION)
    db.close()


def test_create_without_dead_letter_queue(tmp_path: Path) -> None:
    path = create_file(tmp_path / "qm", "QMB", dead_letter_queue="")
    with open_embedded(path) as qm:
        assert qm.inquire_qmgr().dead_letter_queue == ""
        assert qm.list_queues() == []


def test_create_refuses_an_existing_file(tmp_path: Path) -> None:
    path = create_file(tmp_path / "qm", "QM1")
    before = path.read_bytes()
    with pytest.raises(QueueManagerExistsError) as info:
        create_file(path, "QM2")
    assert isinstance(info.value, MQError) and isinstance(info.value, FileExistsError)
    assert info.value.reason == 2100 and str(path) in str(info.value)
    assert path.read_bytes() == before
    other = tmp_path / "notes.txt"
    other.write_text("precious")
    with pytest.raises(FileExistsError):
        create_file(other)
    assert other.read_text() == "precious"


def test_create_rejects_bad_names(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an MQ name"):
        create_file(tmp_path / "qm", "bad name")
    assert not (tmp_path / "qm").exists()


def test_open_missing_file_2058(tmp_path: Path) -> None:
    with pytest.raises(MQError) as info:
        open_embedded(tmp_path / "nope.sqlite")
    assert info.value.reason == 2058
    assert "init" in str(info.value) and "nope.sqlite" in str(info.value)
    assert not (tmp_path / "nope.sqlite").exists()


def test_open_create_makes_it(tmp_path: Path) -> None:
    with open_embedded(tmp_path / "new.qm", create=True, name="QMNEW") as qm:
        assert qm.name == "QMNEW"
    with open_embedded(tmp_path / "new.qm", create=True, name="IGNORED") as qm:
        assert qm.name == "QMNEW"


@pytest.mark.parametrize("content,reason", [(b"", 2058), (b"not a database at all" * 50, 2058)],
                         ids=["empty", "text"])
def test_open_foreign_file(tmp_path: Path, content: bytes, reason: int) -> None:
    path = tmp_path / "foreign"
    path.write_bytes(content)
    with pytest.raises(MQError) as info:
        open_embedded(path)
    assert info.value.reason == reason and "not an mqconsole" in str(info.value)


def test_open_foreign_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(MQError) as info:
        open_embedded(path)
    assert info.value.reason == 2058 and "SQLite file but not" in str(info.value)


def test_open_directory(tmp_path: Path) -> None:
    with pytest.raises(MQError) as info:
        open_embedded(tmp_path)
    assert info.value.reason == 2058 and "directory" in str(info.value)


def test_open_newer_schema_2059(tmp_path: Path) -> None:
    path = create_file(tmp_path / "qm")
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(MQError) as info:
        open_embedded(path)
    assert info.value.reason == 2059 and "newer mqconsole" in str(info.value)


def test_open_backend_from_a_spec_or_its_mapping(tmp_path: Path) -> None:
    from mqconsole.backends.spec import BackendSpec

    path = create_file(tmp_path / "qm", "QMS")
    with open_backend({"backend": "embedded", "path": str(path), "principal": "zed"}) as qm:
        assert (qm.name, qm.principal) == ("QMS", "zed")
    with open_backend(BackendSpec.embedded(str(path), principal="amy")) as qm:
        assert (qm.name, qm.principal) == ("QMS", "amy")
    with pytest.raises(ValueError, match="unknown backend"):
        open_backend({"backend": "carrier-pigeon"})


def test_an_embedded_file_must_exist_unless_created(tmp_path: Path) -> None:
    """The one check that an embedded file exists (the store's): 2058 with how to make
    one, and nothing created; ``create`` makes it."""
    from mqconsole.backends.spec import BackendSpec

    missing = tmp_path / "nope.qm"
    with pytest.raises(MQError) as info:
        open_backend(BackendSpec.embedded(str(missing)))
    assert info.value.reason == 2058 and f"--embedded {missing} init" in str(info.value)
    assert not missing.exists()
    with open_backend(BackendSpec.embedded(str(missing), create=True, name="QMNEW")) as qm:
        assert qm.name == "QMNEW"


def test_memory_queue_managers_are_private_and_vanish(tmp_path: Path) -> None:
    one = open_embedded(":memory:", name="QMONE")
    two = open_embedded(":memory:", name="QMTWO")
    assert isinstance(one, EmbeddedQueueManager) and one.is_memory
    assert one.path != two.path and one.location == ":memory:"
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        assert str(one.path).startswith("/dev/shm/")
    from mqconsole.mq.queue import QueueAttrs

    one.define_queue(QueueAttrs("ONLY.IN.ONE"))
    assert [q.name for q in two.list_queues("ONLY*")] == []
    again = one.new_connection()
    assert [q.name for q in again.list_queues("ONLY*")] == ["ONLY.IN.ONE"]
    folder = one.path.parent
    one.close()
    assert folder.exists()  # `again` still uses it
    again.close()
    assert not folder.exists()
    two.close()
    assert not two.path.parent.exists()


@pytest.mark.subprocess
def test_memory_queue_manager_removed_at_exit(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = ("from mqconsole.backends.open import open_embedded\n"
            "qm = open_embedded(':memory:')\n"
            "print(qm.path.parent, flush=True)\n")
    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=60, check=True).stdout.strip()
    assert out and not Path(out).exists()


def test_stale_memory_folders_of_dead_processes_are_swept(tmp_path: Path, monkeypatch) -> None:
    from mqconsole.backends.embedded import store

    monkeypatch.setattr(store, "_ram_dir", lambda: str(tmp_path))
    monkeypatch.setattr(store, "_swept", False)
    dead = tmp_path / "mqconsole-mem-999999999-abc"
    dead.mkdir()
    (dead / "qm.sqlite").write_bytes(b"x")
    mine = tmp_path / f"mqconsole-mem-{os.getpid()}-def"
    mine.mkdir()
    qm = open_embedded(":memory:")
    try:
        assert not dead.exists() and mine.exists()
        assert qm.path.parent.parent == tmp_path
    finally:
        qm.close()


def test_closed_cursor_and_connection(tmp_path: Path) -> None:
    qm = create_queue_manager(tmp_path / "qm")
    cur = qm.browse("SYSTEM.DEAD.LETTER.QUEUE")
    cur.close()
    with pytest.raises(MQError) as info:
        cur.next()
    assert info.value.reason == 2019
    cur2 = qm.browse("SYSTEM.DEAD.LETTER.QUEUE")
    qm.close()
    cur2.close()  # after the connection: harmless
    with pytest.raises(MQError) as info:
        cur2.next()
    assert info.value.reason in (2018, 2019)


def test_opening_slower_than_the_idle_flush_is_not_flushed_under_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection registering itself for longer than IDLE_FLUSH (a loaded machine; seen
    under valgrind) is not COMMITted under it by the idle flusher, which made the open
    fail with 'cannot commit - no transaction is active'."""
    from mqconsole.backends.embedded import session
    from mqconsole.backends.embedded.storage import Storage

    path = tmp_path / "qm.sqlite"
    open_embedded(path, create=True).close()
    real = Storage._purge_stale_in

    def slow(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(0.3)  # the flusher wakes every IDLE_FLUSH / 2 meanwhile
        return real(self, *args, **kwargs)

    monkeypatch.setattr(session, "IDLE_FLUSH", 0.05)
    monkeypatch.setattr(Storage, "_purge_stale_in", slow)
    for _ in range(2):  # (the first open wakes the flusher, if no test did)
        with open_embedded(path) as qm:
            rows = qm._db.execute("SELECT count(*) FROM connections WHERE id = ?",
                                  (qm._conn_id,)).fetchone()
            assert rows[0] == 1

"""The embedded queue manager's parts: one job each, no import circle among them."""

from __future__ import annotations

import inspect
from pathlib import Path

from mqconsole.backends.embedded import EmbeddedQueueManager
from mqconsole.backends.embedded.admin import Admin
from mqconsole.backends.embedded.authorities import Authorities
from mqconsole.backends.embedded.browsing import Browsing
from mqconsole.backends.embedded.messages import Messages
from mqconsole.backends.embedded.resolution import Resolution
from mqconsole.backends.embedded.storage import Storage
from mqconsole.backends.embedded.units import UnitsOfWork
from tests.tui.test_imports import circles, import_graph

EMBEDDED = Path(__file__).resolve().parents[3] / "mqconsole" / "backends" / "embedded"


def test_no_import_circle_in_the_embedded_backend() -> None:
    found = circles(import_graph(EMBEDDED))
    assert found == [], "; ".join(" <-> ".join(c) for c in found)


def test_no_part_imports_the_connection_module() -> None:
    graph = import_graph(EMBEDDED)
    name = "mqconsole.backends.embedded.connection"
    assert sorted(m for m, deps in graph.items() if name in deps) == [
        "mqconsole.backends.embedded"]  # the package's __init__ re-exports it


def test_the_queue_manager_is_made_of_its_parts() -> None:
    for part in (Storage, Authorities, Resolution, Admin, Messages, Browsing, UnitsOfWork):
        assert issubclass(EmbeddedQueueManager, part)
    # each part says what it does in its own module, none is a grab bag
    for part in (Admin, Messages, Browsing, UnitsOfWork, Resolution, Authorities, Storage):
        source = inspect.getsourcefile(part)
        assert source is not None
        assert len(Path(source).read_text(encoding="utf-8").splitlines()) < 350, part


def test_a_finalizer_closing_a_file_inside_file_for_does_not_deadlock(tmp_path) -> None:
    """A garbage collection inside ``_file_for`` (which holds the files lock) may run a
    dropped connection's finalizer that ends its file in the same thread: that must not
    wait for the lock its own thread holds (it hung test runs)."""
    import threading

    from mqconsole.backends.embedded import session as S

    def as_a_finalizer_would() -> None:
        with S._files_lock:  # as _file_for holds it when the collection runs
            f = S._file_for(tmp_path / "other.sqlite", False)
            S._file_done(f)

    t = threading.Thread(target=as_a_finalizer_would, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive()
    assert str(tmp_path / "other.sqlite") not in S._files


def test_a_finalizer_run_inside_an_owners_work_leaves_its_transaction_alone(tmp_path) -> None:
    """A collection in the middle of a connection's own work on this thread (holding its
    lock, its transaction open, e.g. while it is being opened) may run a dropped
    connection's finalizer, which begins a transaction on the same file: it must not flush
    (COMMIT) the owner's transaction under its feet ("cannot commit - no transaction is
    active" when the owner ends it) but wait for it on a thread of its own (SelfDeadlock)."""
    import sqlite3

    import pytest

    from mqconsole.backends.embedded.session import SelfDeadlock, Session

    path = tmp_path / "qm.sqlite"
    a_db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    b_db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    a = Session(a_db, path, 5.0, flags=False)
    b = Session(b_db, path, 5.0, flags=False)
    try:
        with a.lock:  # the owner's work: its lock held, no call depth counted
            a.begin()
            a_db.execute("CREATE TABLE t (x)")
            with pytest.raises(SelfDeadlock):
                b.begin()  # what the dropped connection's finalizer does here
            assert a.held and a_db.in_transaction
            a.end(commit=True)  # no "cannot commit - no transaction is active"
        assert a_db.execute("SELECT count(*) FROM t").fetchone() == (0,)
    finally:
        a.close()
        b.close()
        a_db.close()
        b_db.close()

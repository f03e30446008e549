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

"""The real-MQ backend's parts (issue 26 item 8): one job each, as the embedded queue
manager's are, no import circle among them, no part importing the module that puts them
together."""

from __future__ import annotations

import inspect
from pathlib import Path

from mqconsole.backends.mqi import MQIQueueManager
from mqconsole.backends.mqi.admin import Admin
from mqconsole.backends.mqi.calls import Calls
from mqconsole.backends.mqi.connecting import Connecting
from mqconsole.backends.mqi.inquiry import Inquiry
from mqconsole.backends.mqi.messages import Messages
from mqconsole.backends.mqi.units import UnitsOfWork
from tests.tui.test_imports import circles, import_graph

MQI = Path(__file__).resolve().parents[3] / "mqconsole" / "backends" / "mqi"
PARTS = (Calls, Connecting, Inquiry, Admin, Messages, UnitsOfWork)


def test_no_import_circle_in_the_mqi_backend() -> None:
    found = circles(import_graph(MQI))
    assert found == [], "; ".join(" <-> ".join(c) for c in found)


def test_no_part_imports_the_connection_module() -> None:
    graph = import_graph(MQI)
    name = "mqconsole.backends.mqi.connection"
    assert sorted(m for m, deps in graph.items() if name in deps) == ["mqconsole.backends.mqi"]


def test_the_queue_manager_is_made_of_its_parts() -> None:
    for part in PARTS:
        assert issubclass(MQIQueueManager, part)
        source = inspect.getsourcefile(part)
        assert source is not None
        assert len(Path(source).read_text(encoding="utf-8").splitlines()) < 400, part

"""Helpers for plugin authors' tests (and ours): register plugins for one test.

    from mqconsole.plugins.testing import plugin_host

    def test_my_check():
        host = plugin_host(my_plugin)          # a module or any object with hookimpls
        assert host.check_put("move", message, "APP.Q") == "refused by plugin my_plugin: ..."

``plugin_host`` takes modules/objects (named after the module, or the object's class) or
``(name, object)`` pairs, and never loads entry points or folders. ``run_operation``
registers plugins and runs one operation on an embedded queue manager in memory (the
queues it is given, filled), returning the summary, the journal entries and the queues to
look at.
``import_plugin(path)`` imports a plugin's module from its file without installing it (as
``plugins.paths`` does).

Per test, as a pytest fixture (our ``tests/conftest.py`` and ``plugins/conftest.py`` make
one of :func:`register_plugins`)::

    register_plugins = pytest.fixture(mqconsole.plugins.testing.register_plugins)

    def test_my_check(register_plugins):
        host = register_plugins(my_plugin, settings={"my_plugin": {"days": 3}})
        ...                                  # unregistered when the test ends
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .discovery import FOLDER_MODULE_PREFIX, import_file
from .host import PluginHost


def _name_of(plugin: object) -> str:
    name = getattr(plugin, "__name__", None) or type(plugin).__name__
    return str(name).rsplit(".", 1)[-1].removeprefix(FOLDER_MODULE_PREFIX)


def plugin_host(*plugins: object,
                settings: Mapping[str, Mapping[str, Any]] | None = None) -> PluginHost:
    """A host with exactly these plugins registered (raises if one is refused)."""
    host = PluginHost(settings)
    for plugin in plugins:
        if isinstance(plugin, tuple):
            name, obj = plugin
        else:
            name, obj = _name_of(plugin), plugin
        if not host.register(obj, name, source="registered in test"):
            raise ValueError(host.infos()[-1].status if host.infos() else f"{name} refused")
    return host


@contextmanager
def registered(*plugins: object, settings: Mapping[str, Mapping[str, Any]] | None = None
               ) -> Iterator[PluginHost]:
    """:func:`plugin_host` for a block (a test): every plugin is unregistered when it ends,
    whatever happened in it."""
    host = plugin_host(*plugins, settings=settings)
    try:
        yield host
    finally:
        for info in host.infos():
            host.unregister(info.name)


def register_plugins() -> Iterator[Callable[..., PluginHost]]:
    """The body of a pytest fixture (``pytest.fixture(register_plugins)``): gives
    ``register(*plugins, settings=None) -> PluginHost``, each host's plugins registered for
    the test and unregistered at its end."""
    with ExitStack() as stack:
        def register(*plugins: object,
                     settings: Mapping[str, Mapping[str, Any]] | None = None) -> PluginHost:
            return stack.enter_context(registered(*plugins, settings=settings))

        yield register


# -- running an operation with plugins, on an embedded queue manager --------------------------

@dataclass
class OperationRun:
    """What :func:`run_operation` did: the operation's summary, the queue manager (to look
    at the queues afterwards: ``messages(queue)``), the journal's entries, the host."""

    summary: Any  # mqconsole.ops.operation.Summary
    qm: Any  # the embedded queue manager (in memory; closed by ``close``)
    host: PluginHost
    journal: list[Any] = field(default_factory=list)  # mqconsole.ops.journal.JournalEntry

    def messages(self, queue: str) -> list[Any]:
        """Every message on ``queue``, in browse order."""
        out = []
        with self.qm.browse(queue) as cursor:
            while (m := cursor.next()) is not None:
                out.append(m)
        return out

    def close(self) -> None:
        self.qm.close()


def run_operation(kind: Any, *plugins: object,
                  queues: Mapping[str, Iterable[Any]] | None = None,
                  dry_run: bool = False, qm: Any = None,
                  settings: Mapping[str, Mapping[str, Any]] | None = None,
                  journal_path: str | os.PathLike | None = None) -> OperationRun:
    """Register ``plugins``, then run one operation of ``kind`` (an
    ``mqconsole.ops.operation`` kind: ``Move(...)``, ``Resubmit(...)``, …) on an embedded
    queue manager in memory with ``queues`` defined and filled (a queue name -> messages:
    ``Message`` objects, or bytes/str bodies); ``qm``: use that queue manager instead.
    The journal is written to ``journal_path`` (default: a temporary file, read back into
    ``OperationRun.journal``). Errors that stop the operation are raised, as for a face::

        from mqconsole.ops.operation import Move
        from mqconsole.ops.selection import Selection
        from mqconsole.plugins.testing import run_operation

        run = run_operation(Move("IN", "OUT", Selection(all=True)), my_check_plugin,
                            queues={"IN": [b"old", b"new"], "OUT": []})
        assert run.summary.counts["failed"] == 1 and len(run.messages("IN")) == 1
    """
    import tempfile

    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.message import Message
    from mqconsole.mq.queue import QueueAttrs
    from mqconsole.ops.journal import Journal
    from mqconsole.ops.operation import Operation

    host = plugin_host(*plugins, settings=settings)
    if qm is None:
        qm = open_embedded(":memory:")
    for name, messages in (queues or {}).items():
        qm.define_queue(QueueAttrs(name=name, max_depth=1_000_000))
        for i, m in enumerate(messages):
            if not isinstance(m, Message):
                body = m.encode() if isinstance(m, str) else bytes(m)
                m = Message(MQMD(format="MQSTR", ccsid=1208,
                                 msg_id=b"TEST" + i.to_bytes(20, "big")), body)
            qm.put(name, m, syncpoint=True)
        qm.commit()
    with tempfile.TemporaryDirectory() as tmp:
        path = journal_path if journal_path is not None else os.path.join(tmp, "journal.jsonl")
        journal = Journal(path)
        op = Operation(kind, journal=journal, profile="test", plugins=host)
        op.validate(qm)
        summary = op.run(qm, dry_run=dry_run)
        return OperationRun(summary, qm, host, list(journal.read()))


def import_plugin(path: str | Path) -> ModuleType:
    """Import a plugin module (a ``.py`` file or a package's folder) from where it lies, as
    ``plugins.paths`` would: no install, no change to ``sys.path`` (a folder on ``sys.path``
    would also expose any ``*.egg-info`` a local build left there as an entry point)."""
    path = Path(path)
    if path.is_dir():
        return import_file(path.name, path / "__init__.py")  # type: ignore[return-value]
    return import_file(path.stem, path)  # type: ignore[return-value]

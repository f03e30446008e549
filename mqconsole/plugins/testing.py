"""Helpers for plugin authors' tests (and ours): register plugins for one test.

    from mqconsole.plugins.testing import plugin_host

    def test_my_check():
        host = plugin_host(my_plugin)          # a module or any object with hookimpls
        assert host.check_put("move", message, "APP.Q") == "refused by plugin my_plugin: ..."

``plugin_host`` takes modules/objects (named after the module, or the object's class) or
``(name, object)`` pairs, and never loads entry points or folders. To run one operation
with plugins on an embedded queue manager in memory, see
``mqconsole.ops.operation.testing.run_operation`` (it sits with the operations: this room
lies below them).
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

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
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


def import_plugin(path: str | Path) -> ModuleType:
    """Import a plugin module (a ``.py`` file or a package's folder) from where it lies, as
    ``plugins.paths`` would: no install, no change to ``sys.path`` (a folder on ``sys.path``
    would also expose any ``*.egg-info`` a local build left there as an entry point)."""
    path = Path(path)
    name, file = (path.name, path / "__init__.py") if path.is_dir() else (path.stem, path)
    # the module already imported from this very file is the one: test modules importing
    # one example each would otherwise replace it in sys.modules, and what the first made
    # no longer pickles by name (as Spark ships an audit column's function to executors)
    loaded = sys.modules.get(FOLDER_MODULE_PREFIX + name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "") == file:
        return loaded
    return import_file(name, file)  # type: ignore[return-value]

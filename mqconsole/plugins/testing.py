"""Helpers for plugin authors' tests (and ours): register plugins for one test.

    from mqconsole.plugins.testing import plugin_host

    def test_my_check():
        host = plugin_host(my_plugin)          # a module or any object with hookimpls
        assert host.check_put("move", message, "APP.Q") == "refused by plugin my_plugin: ..."

``plugin_host`` takes modules/objects (named after the module, or the object's class) or
``(name, object)`` pairs, and never loads entry points or folders.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .host import PluginHost


def _name_of(plugin: object) -> str:
    name = getattr(plugin, "__name__", None) or type(plugin).__name__
    return str(name).rsplit(".", 1)[-1]


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

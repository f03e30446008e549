"""Site plugins: pluggy hook specifications, the values they exchange, discovery.

``from mqconsole.plugins import hookimpl`` is all a plugin needs to implement hooks; the
contract (hook names, arguments, discovery, settings) is ``docs/plugins.md``. This package
sits just above ``mq/``: ops, model, audit and the faces import it; it imports none of them.
"""

from __future__ import annotations

from .discovery import (
    API_VERSION,
    ENTRY_POINT_GROUP,
    NO_PLUGINS_ENV,
    PluginsSettings,
    folder_refusal,
    load_plugins,
    plugins_switched_off,
)
from .hookspecs import hookimpl, hookspec
from .host import HOOK_NAMES, PluginHost, plugin_settings
from .types import (
    Action,
    ActionContext,
    ActionSummary,
    AuditColumn,
    Decoded,
    DecodedResult,
    PluginInfo,
    RegisteredAction,
    RegisteredColumn,
)

NO_PLUGINS = PluginHost()
"""A host with no plugin: what code gets when it is given none (shared; never register
plugins on it)."""

__all__ = [
    "API_VERSION",
    "ENTRY_POINT_GROUP",
    "HOOK_NAMES",
    "NO_PLUGINS",
    "NO_PLUGINS_ENV",
    "Action",
    "ActionContext",
    "ActionSummary",
    "AuditColumn",
    "Decoded",
    "DecodedResult",
    "PluginHost",
    "PluginInfo",
    "PluginsSettings",
    "RegisteredAction",
    "RegisteredColumn",
    "folder_refusal",
    "hookimpl",
    "hookspec",
    "load_plugins",
    "plugin_settings",
    "plugins_switched_off",
]

"""Finding and loading plugins: entry points in the group ``mqconsole`` and folders.

A plugin's name is its entry point's name, or its file's or package's name without
``.py``. ``enabled`` (empty: every plugin found) and ``disabled`` choose; a plugin that fails
to import, declares another plugin API or whose hooks pluggy refuses is reported and
skipped, and the others load. A folder that others can write to is refused as a whole; a
plugin one of whose files or folders others can write to is refused alone (``layout``: which
entries of a folder are plugins and what each loads).
"""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from .host import PluginHost, describe, operators_stop
from .layout import folder_plugins, path_refusal, plugin_refusal

API_VERSION = 1
ENTRY_POINT_GROUP = "mqconsole"
NO_PLUGINS_ENV = "MQCONSOLE_NO_PLUGINS"
FOLDER_MODULE_PREFIX = "mqconsole_site_plugin_"


@dataclass(frozen=True)
class PluginsSettings:
    """The ``plugins`` section of the config, as plain values."""

    paths: list[Path] = field(default_factory=list)
    enabled: list[str] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def chooses(self, name: str) -> bool:
        if name in self.disabled:
            return False
        return not self.enabled or name in self.enabled


def plugins_switched_off(flag: bool = False) -> bool:
    """``--no-plugins`` or ``MQCONSOLE_NO_PLUGINS=1`` (any value but empty/0/false/no)."""
    env = os.environ.get(NO_PLUGINS_ENV, "").strip().lower()
    return flag or env not in ("", "0", "false", "no")


def folder_refusal(folder: Path) -> str | None:
    """Why a plugin folder may not be loaded from, or None: it must be a directory owned by
    this user (or root) that nobody else can write to."""
    try:
        st = folder.stat()
    except FileNotFoundError:
        return f"plugin folder {folder} does not exist"
    except OSError as e:
        return f"plugin folder {folder} cannot be read ({e.strerror or e})"
    if not stat.S_ISDIR(st.st_mode):
        return f"plugin folder {folder} is not a folder"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (f"plugin folder {folder} is writable by others (mode "
                f"{stat.S_IMODE(st.st_mode):04o}): not loaded; chmod go-w it")
    uid = os.getuid() if hasattr(os, "getuid") else None
    if uid is not None and st.st_uid not in (uid, 0):
        return f"plugin folder {folder} belongs to another user (uid {st.st_uid}): not loaded"
    if folder.is_symlink():  # the folder its target sits in may let others swap it
        problem = path_refusal(folder)
        if problem is not None:
            return f"{problem}: not loaded"
    return None


def _version_problem(name: str, module: object) -> str | None:
    wanted = getattr(module, "MQCONSOLE_API_VERSION", API_VERSION)
    if wanted != API_VERSION:
        return (f"plugin {name} needs plugin API {wanted!r}; this mqconsole offers "
                f"{API_VERSION}")
    return None


def _load_entry_points(host: PluginHost, settings: PluginsSettings) -> None:
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        version = dist.version if dist is not None else ""
        source = f"{dist.name} (entry point {ep.value})" if dist is not None else ep.value
        if ep.name in host._infos:
            host.record(ep.name + f" ({source})", version=version, source=source,
                        status=f"error: a plugin named {ep.name} is already loaded")
            continue
        if not settings.chooses(ep.name):
            host.record(ep.name, version=version, source=source, status="disabled")
            continue
        try:
            module = ep.load()
        except BaseException as e:  # its sys.exit at import too: that plugin is broken
            if operators_stop(e):
                raise
            host.record(ep.name, version=version, source=source,
                        status=f"error: plugin {ep.name} failed to import: {describe(e)}")
            continue
        _register(host, module, ep.name, version, source)


def _register(host: PluginHost, module: object, name: str, version: str, source: str) -> None:
    problem = _version_problem(name, module)
    if problem is not None:
        host.record(name, version=version, source=source, status=f"error: {problem}")
        return
    version = version or str(getattr(module, "__version__", ""))
    host.register(module, name, version=version, source=source)


def import_file(name: str, file: Path) -> object:
    """Import one plugin file as the module ``mqconsole_site_plugin_<name>``."""
    module_name = FOLDER_MODULE_PREFIX + name
    package = file.name == "__init__.py"
    spec = importlib.util.spec_from_file_location(
        module_name, file, submodule_search_locations=[str(file.parent)] if package else None)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _load_folders(host: PluginHost, settings: PluginsSettings) -> None:
    for folder in settings.paths:
        folder = Path(folder).expanduser()
        refusal = folder_refusal(folder)
        if refusal is not None:
            host.record(f"({folder})", source=str(folder), status=f"error: {refusal}")
            continue
        for plugin in folder_plugins(folder):
            name, file, version = plugin.name, plugin.file, plugin.version
            source = str(file)
            if name in host._infos:
                host.record(f"{name} ({file})", version=version, source=source,
                            status=f"error: a plugin named {name} is already loaded "
                                   f"(from {host._infos[name].source})")
                continue
            if not settings.chooses(name):
                host.record(name, version=version, source=source, status="disabled")
                continue
            refusal = plugin_refusal(plugin)
            if refusal is not None:
                host.record(name, version=version, source=source, status=f"error: {refusal}")
                continue
            try:
                module = import_file(name, file)
            except BaseException as e:  # its sys.exit at import too: that plugin is broken
                if operators_stop(e):
                    raise
                host.record(name, version=version, source=source,
                            status=f"error: plugin {name} ({file}) failed to import: "
                                   f"{describe(e)}")
                continue
            _register(host, module, name, version, source)


def load_plugins(settings: PluginsSettings | None = None, *, switched_off: bool = False,
                 extra: Iterable[tuple[str, object]] = ()) -> PluginHost:
    """Load the plugins ``settings`` choose (none when switched off), plus ``extra``
    (name, module) pairs registered as they are (tests, embedding applications)."""
    settings = settings or PluginsSettings()
    host = PluginHost(settings.settings)
    if not plugins_switched_off(switched_off):
        _load_entry_points(host, settings)
        _load_folders(host, settings)
    for name, module in extra:
        _register(host, module, name, "", "registered in process")
    return host

"""Which entries of a plugin folder (``plugins.paths``) are plugins, which files each loads,
and whether those files are safe to load.

In a plugin folder, each of these is one plugin:

- ``NAME.py``: a module;
- ``NAME/`` with ``__init__.py``: a package;
- ``NAME/`` with ``pyproject.toml`` beside ``NAME/NAME.py`` (or a package ``NAME/NAME/``):
  a plugin project laid out to be ``pip install``-ed, as the examples in the repository's
  ``plugins/`` are (its version is the project's).

Never a plugin: names starting with ``_`` or ``.``, ``conftest.py``, ``setup.py``,
``test_*.py``, ``*_test.py``, and folders named ``tests`` or ``test``.

Every file and folder a plugin loads (its module, a package's whole tree, a project's folder,
bytecode Python would read from ``__pycache__``) is held to the rule the plugin folder is:
owned by this user or root and writable by nobody else; for a symbolic link, its target and
the folder the target sits in too (else whoever can write there can swap what is loaded).
"""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

NOT_PLUGINS = frozenset({"conftest.py", "setup.py"})
NOT_PLUGIN_FOLDERS = frozenset({"tests", "test", "__pycache__"})


@dataclass(frozen=True)
class FolderPlugin:
    """One plugin of a plugin folder: the file to import and what it loads."""

    name: str
    file: Path  # NAME.py, or a package's __init__.py
    loads: tuple[Path, ...]  # every file and folder held to the permission rule
    version: str = ""


def _skipped(child: Path) -> bool:
    name = child.name
    if name.startswith(("_", ".")) or name in NOT_PLUGINS:
        return True
    if child.is_dir():
        return name in NOT_PLUGIN_FOLDERS
    return name.startswith("test_") or name.endswith("_test.py")


def _bytecode(file: Path) -> list[Path]:
    """The ``__pycache__`` folder beside ``file`` and its bytecode of ``file``, when there:
    Python would read them instead of the source."""
    cache = file.parent / "__pycache__"
    if not cache.is_dir():
        return []
    return [cache, *sorted(cache.glob(f"{file.stem}.*.pyc"))]


def _tree(folder: Path) -> list[Path]:
    """Every folder and file under ``folder`` (itself included), following symbolic links
    once (a package may import any of them)."""
    out = [folder]
    seen = {os.path.realpath(folder)}
    for root, dirs, files in os.walk(folder, followlinks=True):
        keep = []
        for d in sorted(dirs):
            real = os.path.realpath(os.path.join(root, d))
            out.append(Path(root, d))
            if real not in seen:
                seen.add(real)
                keep.append(d)
        dirs[:] = keep
        out.extend(Path(root, f) for f in sorted(files))
    return out


def _project_version(project: Path) -> str:
    try:
        data = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    version = data.get("project", {}).get("version", "")
    return version if isinstance(version, str) else ""


def folder_plugins(folder: Path) -> list[FolderPlugin]:
    """The plugins of one plugin folder, by name (see the module doc for the layouts)."""
    found: list[FolderPlugin] = []
    for child in sorted(folder.iterdir()):
        if _skipped(child):
            continue
        if child.is_file() and child.suffix == ".py":
            found.append(FolderPlugin(child.stem, child, (child, *_bytecode(child))))
        elif child.is_dir() and (child / "__init__.py").is_file():
            found.append(FolderPlugin(child.name, child / "__init__.py",
                                      tuple(_tree(child))))
        elif child.is_dir() and (child / "pyproject.toml").is_file():
            module, package = child / f"{child.name}.py", child / child.name
            version = _project_version(child)
            if module.is_file():
                found.append(FolderPlugin(child.name, module,
                                          (child, module, *_bytecode(module)), version))
            elif (package / "__init__.py").is_file():
                found.append(FolderPlugin(child.name, package / "__init__.py",
                                          (child, *_tree(package)), version))
    return found


def _owner_or_mode(path: Path, st: os.stat_result) -> str | None:
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (f"is writable by others (mode {stat.S_IMODE(st.st_mode):04o}); "
                f"chmod go-w it")
    uid = os.getuid() if hasattr(os, "getuid") else None
    if uid is not None and st.st_uid not in (uid, 0):
        return f"belongs to another user (uid {st.st_uid})"
    return None


def path_refusal(path: Path) -> str | None:
    """Why ``path`` (a file or folder a plugin loads) may not be loaded, as the end of a
    sentence naming it ("plugin file X is writable by others ..."), or None."""
    kind = "folder" if path.is_dir() else "file"
    try:
        st = path.stat()
    except OSError as e:
        return f"plugin {kind} {path} cannot be read ({e.strerror or e})"
    problem = _owner_or_mode(path, st)
    if problem is not None:
        return f"plugin {kind} {path} {problem}"
    if path.is_symlink():
        target = path.resolve()
        where = target.parent
        try:
            problem = _owner_or_mode(where, where.stat())
        except OSError as e:
            problem = f"cannot be read ({e.strerror or e})"
        if problem is not None:
            return (f"plugin {kind} {path} links to {target}, whose folder {where} "
                    f"{problem.replace('; chmod go-w it', '')}")
    return None


def plugin_refusal(plugin: FolderPlugin) -> str | None:
    """The first file or folder of ``plugin`` that may not be loaded, as one sentence."""
    for path in plugin.loads:
        problem = path_refusal(path)
        if problem is not None:
            return f"plugin {plugin.name} not loaded: {problem}"
    return None


__all__ = ["FolderPlugin", "folder_plugins", "path_refusal", "plugin_refusal"]

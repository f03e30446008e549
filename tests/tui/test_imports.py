"""The console's modules import each other without a circle.

Every import counts, wherever it stands (top of the file, inside a function, under
``TYPE_CHECKING``): a lazy import hides a circle from Python but not from a reader. Screens
and actions reach the app through :class:`~mqconsole.tui.context.ConsoleContext` and the
messages of :mod:`mqconsole.tui.requests`, so nothing imports ``mqconsole.tui.app``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TUI = Path(__file__).resolve().parents[2] / "mqconsole" / "tui"


def module_name(path: Path, top: Path) -> str:
    """The dotted name of ``path``; ``top`` is the folder names start from (on sys.path)."""
    parts = list(path.relative_to(top).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, top: Path, modules: set[str], package_name: str) -> set[str]:
    """The modules of ``modules`` that ``path`` imports (``from pkg import mod`` counts as
    ``pkg.mod``; the package's own ``__init__`` does not count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = module_name(path, top)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            # the longest console module the name is or lies in
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != here and name != package_name:
                found.add(name)
    return found


def import_graph(root: Path = TUI) -> dict[str, set[str]]:
    """Who imports whom among the modules of the package in ``root``."""
    top = root
    while (top / "__init__.py").exists():
        top = top.parent
    files = {module_name(p, top): p for p in root.rglob("*.py")}
    package_name = module_name(root / "__init__.py", top)
    return {name: imports_of(path, top, set(files), package_name)
            for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_console_has_no_import_circle() -> None:
    found = circles(import_graph())
    assert found == [], "import circles in mqconsole/tui: " + "; ".join(
        " <-> ".join(c) for c in found)


def test_nothing_in_the_console_imports_the_app() -> None:
    graph = import_graph()
    assert "mqconsole.tui.app" in graph
    assert sorted(m for m, deps in graph.items() if "mqconsole.tui.app" in deps) == []


@pytest.mark.parametrize("source, expected", [
    # a lazy import inside a function and one under TYPE_CHECKING count as much as any other
    ({"a.py": "from pkg.b import B\n",
      "b.py": "def f():\n    from pkg import a\n"}, [["pkg.a", "pkg.b"]]),
    ({"a.py": "from pkg.b import B\n",
      "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n",
      "c.py": "import pkg.a\n"}, [["pkg.a", "pkg.b", "pkg.c"]]),
    ({"a.py": "from pkg.b import B\n", "b.py": "import os\n"}, []),
])
def test_the_check_sees_every_kind_of_import(tmp_path: Path, source, expected) -> None:
    """The check itself: it finds circles made by lazy and type-only imports."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in source.items():
        (pkg / name).write_text(text)
    assert circles(import_graph(pkg)) == expected

"""The console uses Textual's public API only (issue 26 item 4): no ``textual._*`` module is
imported, no private attribute of Textual's is read or set, and no private method of a
Textual class is overridden — so a Textual bump breaks the snapshots, not the console in
ways no test sees. Two overrides stay, said here with their reasons."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from functools import cache
from pathlib import Path

import textual

import mqconsole.tui

TUI = Path(mqconsole.tui.__file__).parent
MQCONSOLE = TUI.parent
# (class, name): why the console overrides or reads a private name of Textual's
ALLOWED = {
    ("MQConsoleApp", "_fatal_error"): "Textual has no public hook for an unhandled exception; "
    "the console's report hides frames' locals (payloads) and is given to the public panic()",
    ("PayloadView", "_build_highlight_map"): "TextArea takes highlights only from tree-sitter "
    "in public; its public get_line is styled under the cursor line's style, which carries a "
    "colour and would hide the JSON/XML marks on that line (tests/tui/test_payload_view.py)",
}
# ... and where it reads one (file relative to mqconsole/, attribute)
ALLOWED_READS = {
    ("tui/widgets/payload.py", "_highlight_query"): "PayloadView (above)",
    ("tui/widgets/payload.py", "_line_cache"): "PayloadView (above)",
    ("tui/widgets/payload.py", "_highlights"): "PayloadView (above)",
}
NOT_TEXTUAL = {"os", "sys"}  # os._exit is the standard library's


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _textual_private_names(wanted: frozenset[str]) -> frozenset[str]:
    """Of the private names ``wanted``, those Textual defines: functions, methods, and
    attributes it sets. Only Textual's files that spell one of them are parsed (a name
    defined in a file is spelt in it; a file that is not all ASCII is parsed anyway, for
    an identifier written in other characters): a fifth of its files, a second of CPU less
    than parsing them all."""
    names: set[str] = set()
    for file in Path(textual.__file__).parent.rglob("*.py"):
        text = file.read_text(encoding="utf-8")
        if text.isascii() and not any(name in text for name in wanted):
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and _private(node.attr):
                names.add(node.attr)
    return frozenset(names & wanted)


def _files() -> list[Path]:
    return sorted(p for p in MQCONSOLE.rglob("*.py"))


@cache
def _nodes(file: Path) -> tuple[ast.AST, ...]:
    """Every node of ``file``'s syntax tree: each file of mqconsole parsed once for the
    three tests (a parse of the package is a second of CPU)."""
    return tuple(ast.walk(ast.parse(file.read_text(encoding="utf-8"))))


def test_no_textual_private_module_is_imported() -> None:
    found = []
    for file in _files():
        for node in _nodes(file):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if parts[0] == "textual" and (any(p.startswith("_") for p in parts)
                                              or any(a.name.startswith("_")
                                                     for a in node.names)):
                    found.append(f"{file.relative_to(MQCONSOLE)}:{node.lineno}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "textual" and any(p.startswith("_") for p in parts):
                        found.append(f"{file.relative_to(MQCONSOLE)}:{node.lineno}")
    assert not found, f"Textual internals imported at {found}"


def _own_private_names() -> set[str]:
    """Private names mqconsole defines itself (its own attributes may be read anywhere)."""
    own: set[str] = set()
    for file in _files():
        for node in _nodes(file):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) \
                    and _private(node.name):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and _private(node.attr):
                own.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                    and _private(node.id):
                own.add(node.id)
    return own


def _tui_classes() -> list[type]:
    out = []
    for info in pkgutil.walk_packages([str(TUI)], "mqconsole.tui."):
        module = importlib.import_module(info.name)
        out += [c for _n, c in inspect.getmembers(module, inspect.isclass)
                if c.__module__ == module.__name__]
    return out


def _textual_bases(cls: type) -> list[type]:
    return [b for b in cls.__mro__ if b.__module__.split(".")[0] == "textual"]


def test_no_private_name_of_a_textual_class_is_overridden() -> None:
    """A console class (screen, widget, the app, the driver) defines no private name its
    Textual bases define — methods and class attributes (``_fatal_error``, ``_button``), and
    attributes it sets on itself (``self._bindings = ...``)."""
    found = []
    for cls in _tui_classes():
        bases = _textual_bases(cls)
        if not bases:
            continue
        made = set(vars(type(cls)("Probe", (bases[0],), {})))  # what Textual sets on each
        theirs = {n for b in bases for n in vars(b) if _private(n)} - made
        theirs |= {n for b in bases for n in _instance_attributes(b)}
        ours = {n for n in vars(cls) if _private(n)} | _instance_attributes(cls)
        found += [(cls.__name__, n) for n in sorted(ours & theirs)
                  if (cls.__name__, n) not in ALLOWED]
    assert not found, f"private names of Textual overridden: {found}"


@cache
def _instance_attributes(cls: type) -> frozenset[str]:
    """The private attributes ``cls``'s own methods set on ``self``."""
    tree = _class_node(cls)
    if tree is None:
        try:
            source = inspect.getsource(cls)
        except (OSError, TypeError):
            return frozenset()
        tree = ast.parse(inspect.cleandoc("\n" + source) if source[:1].isspace() else source)
    return frozenset(node.attr for node in ast.walk(tree)
                     if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                     and isinstance(node.value, ast.Name) and node.value.id == "self"
                     and _private(node.attr))


def _class_node(cls: type) -> ast.ClassDef | None:
    """``cls``'s definition in its module's syntax tree, found as ``inspect.getsource``
    finds it (the first class of that qualified name) — but each module parsed once, not
    tokenized and parsed again for each of its classes (most of this test's CPU); None when
    the module's source cannot be had or holds no such class."""
    try:
        file = inspect.getsourcefile(cls)
    except TypeError:
        return None
    if file is None:
        return None
    return _classes(file).get(cls.__qualname__)


@cache
def _classes(file: str) -> dict[str, ast.ClassDef]:
    """The classes defined in ``file`` by qualified name (the first of each name, with
    ``<locals>`` for a class in a function, as ``__qualname__`` has it)."""
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return {}
    found: dict[str, ast.ClassDef] = {}

    def visit(node: ast.AST, stack: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, (*stack, child.name, "<locals>"))
            elif isinstance(child, ast.ClassDef):
                name = (*stack, child.name)
                found.setdefault(".".join(name), child)
                visit(child, name)
            else:
                visit(child, stack)

    visit(tree, ())
    return found


def test_no_private_attribute_of_textual_is_read() -> None:
    """``app._loop``, ``screen._bindings``, ``app._exit_renderables``...: a private name of
    Textual's read anywhere in mqconsole (one it also defines itself is its own)."""
    own = _own_private_names()
    read = [(file, node) for file in _files() for node in _nodes(file)
            if isinstance(node, ast.Attribute) and _private(node.attr)
            and node.attr not in own
            and not (isinstance(node.value, ast.Name) and node.value.id in NOT_TEXTUAL)]
    theirs = _textual_private_names(frozenset(node.attr for _file, node in read))
    found = []
    for file, node in read:
        if node.attr not in theirs:
            continue
            where = file.relative_to(MQCONSOLE).as_posix()
            if (where, node.attr) not in ALLOWED_READS:
                found.append(f"{where}:{node.lineno} .{node.attr}")
    assert not found, f"private attributes of Textual used at {found}"

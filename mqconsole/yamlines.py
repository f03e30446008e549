"""YAML read safely into plain data, keeping the line of every mapping key and list item.

The one YAML reader of the configuration (``config/``) and the delivery-model scenarios
(``model/``); it imports nothing of mqconsole, so both rooms can use it.

``yaml.compose`` keeps the marks that ``safe_load`` throws away; :func:`read` walks the node
tree and returns a :class:`Document` whose ``lines[("queues", 0, "bothresh")]`` is the
1-based line of that key. Only plain YAML types are built (no tags, no Python objects). A key
that appears twice in one mapping is not silently dropped as YAML would: every such key is
listed in ``Document.duplicates`` (the first value is kept), and the caller says so.
Everything else unusable raises :class:`YamlProblem` with the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

Loc = tuple[Any, ...]

_TAG = "tag:yaml.org,2002:"
_PLAIN = ("null", "bool", "int", "float", "str")


class YamlProblem(Exception):
    """Text that is not usable YAML: ``problem``, its 1-based ``line`` (or None) and the
    dotted ``setting`` it concerns when known."""

    def __init__(self, problem: str, line: int | None = None, setting: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.setting = setting


@dataclass(frozen=True)
class Duplicate:
    """A key given twice in one mapping: where (``loc``), on which line, and the first line."""

    loc: Loc
    line: int
    first: int


@dataclass
class Document:
    """Plain data (None for an empty document), the line of every key and list item, the
    repeated keys in line order, and the line where the document starts."""

    data: Any
    lines: dict[Loc, int] = field(default_factory=dict)
    duplicates: list[Duplicate] = field(default_factory=list)
    line: int | None = None


def dotted(loc: Loc) -> str:
    """``profiles[0].backend``: a location as written in messages."""
    out = ""
    for el in loc:
        if isinstance(el, int) and not isinstance(el, bool):
            out += f"[{el}]"
        else:
            out += ("." if out else "") + str(el)
    return out


def read(
    text: str, *, merge_keys: bool = False, timestamps: bool = False, max_nodes: int = 2_000_000
) -> Document:
    """Parse ``text``. ``merge_keys`` allows ``<<: *anchor``; ``timestamps`` builds dates.

    Raises :class:`YamlProblem` for text that is not YAML, unsupported tags, merges when
    not allowed, and documents of more than ``max_nodes`` nodes (alias bombs).
    """
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "is not valid YAML"
        if exc.context and exc.problem and "found" in exc.problem:
            problem = f"{exc.context}, {exc.problem}"
        raise YamlProblem(f"is not valid YAML: {' '.join(problem.split())}",
                          None if mark is None else mark.line + 1) from None
    except yaml.reader.ReaderError as exc:
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise YamlProblem(
            f"is not valid YAML: it contains a character YAML does not allow (U+{char:04X})",
            text[: exc.position].count("\n") + 1,
        ) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(f"is not valid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise YamlProblem("is not usable YAML: nested too deeply") from None
    if root is None:
        return Document(None)
    builder = _Builder(merge_keys=merge_keys, timestamps=timestamps, max_nodes=max_nodes)
    try:
        data = builder.build(root, ())
    except RecursionError:
        raise YamlProblem("is not usable YAML: nested too deeply") from None
    builder.lines.setdefault((), _line(root))
    duplicates = sorted(builder.duplicates, key=lambda d: d.line)
    return Document(data, builder.lines, duplicates, _line(root))


class _Builder:
    """Turns a composed node tree into plain data plus a map from locations to lines."""

    def __init__(self, *, merge_keys: bool, timestamps: bool, max_nodes: int) -> None:
        self.merge_keys = merge_keys
        self.max_nodes = max_nodes
        plain = (*_PLAIN, "timestamp") if timestamps else _PLAIN
        self.scalar_tags = {f"{_TAG}{t}" for t in plain}
        self.lines: dict[Loc, int] = {}
        self.duplicates: list[Duplicate] = []
        self.nodes = 0
        self.constructor = yaml.constructor.SafeConstructor()

    def build(self, node: yaml.Node, loc: Loc) -> Any:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise YamlProblem("is too large (aliases nested too deeply?)", _line(node))
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != f"{_TAG}seq":
                raise YamlProblem(f"unsupported YAML tag {_tag(node.tag)}", _line(node),
                                  dotted(loc))
            items = []
            for index, child in enumerate(node.value):
                self.lines.setdefault((*loc, index), _line(child))
                items.append(self.build(child, (*loc, index)))
            return items
        if isinstance(node, yaml.MappingNode):
            if node.tag != f"{_TAG}map":
                raise YamlProblem(f"unsupported YAML tag {_tag(node.tag)}", _line(node),
                                  dotted(loc))
            return self.mapping(node, loc)
        raise YamlProblem("unsupported YAML node", _line(node))  # pragma: no cover

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag not in self.scalar_tags:
            raise YamlProblem(f"unsupported YAML tag {_tag(node.tag)}", _line(node))
        construct = self.constructor.yaml_constructors[node.tag]
        try:
            return construct(self.constructor, node)
        except (yaml.YAMLError, ValueError) as exc:
            raise YamlProblem(getattr(exc, "problem", None) or "cannot be read",
                              _line(node)) from None

    def key(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise YamlProblem("a key must be a plain name, not a list or mapping", _line(node))
        return self.scalar(node)

    def merged(self, node: yaml.Node, loc: Loc) -> list[tuple[Any, yaml.Node, yaml.Node]]:
        """The keys a ``<<:`` brings in (a mapping, or a list of them: the first wins)."""
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        out = []
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                raise YamlProblem("a merge (<<) needs a mapping or a list of mappings",
                                  _line(node), dotted(loc))
            for k_node, v_node in source.value:
                if k_node.tag == f"{_TAG}merge":
                    raise YamlProblem("nested merges (<<) are not supported", _line(k_node))
                out.append((self.key(k_node), k_node, v_node))
        return out

    def mapping(self, node: yaml.MappingNode, loc: Loc) -> dict[Any, Any]:
        merged: list[tuple[Any, yaml.Node, yaml.Node]] = []
        explicit: list[tuple[Any, yaml.Node, yaml.Node]] = []
        first_line: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == f"{_TAG}merge":
                if not self.merge_keys:
                    raise YamlProblem("merge keys (<<) are not supported here", _line(key_node))
                merged.extend(self.merged(value_node, loc))
                continue
            key = self.key(key_node)
            line = _line(key_node)
            if key in first_line:
                self.duplicates.append(Duplicate((*loc, key), line, first_line[key]))
                continue
            first_line[key] = line
            explicit.append((key, key_node, value_node))
        result: dict[Any, Any] = {}
        done: set[Any] = set(first_line)
        for key, key_node, value_node in merged:
            # explicit keys win over merged ones, and the first merged mapping over later ones
            if key in done:
                continue
            done.add(key)
            self.lines[(*loc, key)] = _line(key_node)
            result[key] = self.build(value_node, (*loc, key))
        for key, key_node, value_node in explicit:
            self.lines[(*loc, key)] = _line(key_node)
            result[key] = self.build(value_node, (*loc, key))
        return result


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _tag(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag

"""YAML read safely into plain data, keeping the line of every mapping key and list item.

``yaml.compose`` keeps the marks that ``safe_load`` throws away; :func:`load` walks the node
tree and returns ``(data, lines)`` where ``lines[("queues", 0, "bothresh")]`` is the 1-based
line of that key. Only plain YAML types are built (no tags, no Python objects); a key that
appears twice in one mapping is an error (YAML would silently keep the last one).
"""

from __future__ import annotations

from typing import Any

import yaml

Loc = tuple[Any, ...]

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_TAG}{t}" for t in ("null", "bool", "int", "float", "str")}
_MAX_NODES = 2_000_000


class YamlProblem(Exception):
    """A document that is not usable YAML: ``line`` (1-based or None) and ``problem``."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


class _Builder:
    def __init__(self) -> None:
        self.lines: dict[Loc, int] = {}
        self.nodes = 0
        self.constructor = yaml.constructor.SafeConstructor()

    def build(self, node: yaml.Node, loc: Loc) -> Any:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise YamlProblem("is too large (aliases nested too deeply?)", _line(node))
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != f"{_TAG}seq":
                raise YamlProblem(f"unsupported YAML tag {node.tag}", _line(node))
            out = []
            for i, child in enumerate(node.value):
                self.lines.setdefault((*loc, i), _line(child))
                out.append(self.build(child, (*loc, i)))
            return out
        if isinstance(node, yaml.MappingNode):
            if node.tag != f"{_TAG}map":
                raise YamlProblem(f"unsupported YAML tag {node.tag}", _line(node))
            out_map: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == f"{_TAG}merge":
                    raise YamlProblem("merge keys (<<) are not supported here", _line(key_node))
                if not isinstance(key_node, yaml.ScalarNode):
                    raise YamlProblem("a key must be a plain name", _line(key_node))
                key = self.scalar(key_node)
                if key in out_map:
                    first = self.lines.get((*loc, key))
                    raise YamlProblem(f"{key!s} appears twice in one mapping (first at line "
                                      f"{first}); YAML would keep only the last", _line(key_node))
                self.lines[(*loc, key)] = _line(key_node)
                out_map[key] = self.build(value_node, (*loc, key))
            return out_map
        raise YamlProblem("unsupported YAML node", _line(node))  # pragma: no cover

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag not in _SCALAR_TAGS:
            raise YamlProblem(f"unsupported YAML tag {node.tag}", _line(node))
        try:
            return self.constructor.yaml_constructors[node.tag](self.constructor, node)
        except (yaml.YAMLError, ValueError) as exc:
            raise YamlProblem(getattr(exc, "problem", None) or "cannot be read",
                              _line(node)) from None


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def load(text: str) -> tuple[Any, dict[Loc, int]]:
    """Parse ``text``: plain data and the line of every key and item. Raises YamlProblem."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "is not valid YAML").split())
        raise YamlProblem(f"is not valid YAML: {problem}",
                          None if mark is None else mark.line + 1) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(f"is not valid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise YamlProblem("is not usable YAML: nested too deeply") from None
    if root is None:
        return None, {}
    builder = _Builder()
    try:
        data = builder.build(root, ())
    except RecursionError:
        raise YamlProblem("is not usable YAML: nested too deeply") from None
    builder.lines.setdefault((), _line(root))
    return data, builder.lines

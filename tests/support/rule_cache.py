"""Which CSS rules apply to a node, worked out once per test process (issue 26).

Textual matches every rule of the stylesheet against each node it styles (its path from
the app down, each selector checked against each node of it) whenever the node is mounted,
its classes or pseudo classes change, a screen comes back or the theme changes: a fifth of
a pilot test's CPU. Its own cache lives for one styling pass (keyed on the parent node
object). The console styles the same widgets in the same places in each of the suite's
apps, so :func:`install` keeps what Textual worked out for the process, keyed on all that a
match can depend on: the stylesheet's rules (the same parsed rule sets, css_cache.py), and
for every node of the path its class (the CSS type names), id, classes and each pseudo class
those rules name. As Textual's own cache, a node whose rules name a pseudo class that
depends on its siblings or descendants (first-child, odd, focus-within, empty, ...) is
matched afresh every time; the styles it finds are handed out as Textual hands out its
own cached ones (the same rules map, replaced into the node's styles).

Textual 8.2's ``Stylesheet.apply`` (its ``cache`` argument) and ``replace_rules``,
``_process_component_classes`` (private: Textual is pinned to one minor); when they are
not there, nothing is installed and every app matches its own, as before.
"""

from __future__ import annotations

import functools
from typing import Any

_SIZE = 50_000


def install() -> bool:
    """Share the rules matched for a node between this process's apps; False if Textual
    has no such methods (or it is installed already)."""
    from textual.cache import LRUCache
    from textual.css.stylesheet import Stylesheet

    original = getattr(Stylesheet, "apply", None)
    if original is None or getattr(original, "shared_rules", False) or not all(
            hasattr(Stylesheet, name) for name in (
                "replace_rules", "_process_component_classes",
                "_EXCLUDE_PSEUDO_CLASSES_FROM_CACHE")):
        return False
    excluded = frozenset(Stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE)
    # the rules a kind of node may match: (rules, node's class, id, classes) ->
    # (the rules in Textual's order, the pseudo classes they name, sorted)
    candidates: dict[tuple[Any, ...], tuple[Any, tuple[str, ...]]] = {}
    matched: LRUCache[tuple[Any, ...], Any] = LRUCache(_SIZE)
    tokens: dict[int, tuple[Any, int]] = {}  # id(rules list) -> (the list, its token)
    interned: dict[tuple[int, ...], int] = {}

    def token(rules: list[Any]) -> int:
        """A small number for a list of rule sets (the same rule set objects: the same
        number)."""
        known = tokens.get(id(rules))
        if known is not None and known[0] is rules:
            return known[1]
        number = interned.setdefault(tuple(map(id, rules)), len(interned))
        tokens[id(rules)] = (rules, number)  # (kept: its id stays its own)
        return number

    @functools.wraps(original)
    def apply(self: Stylesheet, node: Any, *, animate: bool = False,
              cache: dict[tuple[Any, ...], Any] | None = None) -> None:
        rules = self.rules
        kind = (token(rules), type(node), node._id, node.classes)
        found = candidates.get(kind)
        if found is None:
            rules_map = self.rules_map
            limit = {rule for name in rules_map.keys() & node._selector_names
                     for rule in rules_map[name]}
            applicable = [rule for rule in reversed(rules) if rule in limit]
            names = set().union(*[rule.pseudo_classes for rule in applicable])
            found = candidates[kind] = (names, tuple(sorted(names)))
        names, pseudo = found
        if not names.isdisjoint(excluded):
            original(self, node, animate=animate, cache=cache)
            return
        path = tuple((type(n), n._id, n.classes,
                      tuple([n.has_pseudo_class(p) for p in pseudo]) if pseudo else ())
                     for n in node.css_path_nodes)
        key = (kind[0], path)
        rules_map_found = matched.get(key)
        if rules_map_found is None:
            probe = _Probe(cache)
            original(self, node, animate=animate, cache=probe)
            if probe.result is not None:
                matched[key] = probe.result
            return
        # as Textual's apply does before its own cache, then with what it found
        node._has_hover_style = "hover" in names
        node._has_focus_within = "focus-within" in names
        node._has_order_style = not names.isdisjoint(
            {"first-of-type", "last-of-type", "first-child", "last-child", "empty"})
        node._has_odd_or_even = "odd" in names or "even" in names
        self.replace_rules(node, rules_map_found, animate=animate)
        self._process_component_classes(node)

    apply.shared_rules = True  # type: ignore[attr-defined]
    Stylesheet.apply = apply  # type: ignore[method-assign]
    return True


class _Probe(dict):  # type: ignore[type-arg]
    """The cache argument given to Textual's apply: the caller's cache (if any) as it was,
    and the rules map Textual found or worked out for the node, kept."""

    def __init__(self, inner: dict[tuple[Any, ...], Any] | None) -> None:
        super().__init__()
        self.inner = inner
        self.result: Any = None

    def get(self, key: Any, default: Any = None) -> Any:
        found = None if self.inner is None else self.inner.get(key)
        if found is not None:
            self.result = found
        return found if found is not None else default

    def __setitem__(self, key: Any, value: Any) -> None:
        self.result = value
        if self.inner is not None:
            self.inner[key] = value

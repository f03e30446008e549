"""One parse of each piece of Textual CSS per test process, not one per app (issue 26).

Textual parses the console's stylesheet and every widget's DEFAULT_CSS again for each App
it starts (its parse cache belongs to the app's Stylesheet): a tenth of a pilot test's CPU.
The console starts one app per process, so it gains nothing there; the suite starts one
per test. :func:`install` gives every Stylesheet of this process one shared cache, keyed
as Textual keys its own (the CSS, where it was read, default or not, tie breaker, scope)
and on the variables (the theme) it was parsed with. A rule set is read, never changed,
once parsed: Textual's own cache already hands the same lists out again within an app.

Textual 8.2's ``Stylesheet._parse_rules`` (a private method: Textual is pinned to one minor,
tests/tui/test_no_textual_internals.py keeps the console itself off such names); when it is
not there, nothing is installed and every app parses its own, as before.
"""

from __future__ import annotations

import functools
from typing import Any

_CACHE: dict[tuple[Any, ...], Any] = {}
# a number for each set of variables (a theme's): the key of a parse holds the number, not
# the variables (sorting and hashing a theme's 168 variables at each of an app's parses,
# 105 µs a key, was most of what this cache cost; 11 µs with the number)
_VARIABLES: dict[tuple[tuple[str, str], ...], int] = {}
# the last variables dicts seen, a copy of each as it was, and their numbers: a dict seen
# before and equal to its copy (a comparison of the same string objects) is not sorted again
_SEEN: dict[int, tuple[dict[str, str], dict[str, str], int]] = {}
_SEEN_MAX = 16


def install() -> bool:
    """Share parsed CSS between this process's apps; False if Textual has no such method."""
    from textual.css.stylesheet import Stylesheet

    original = getattr(Stylesheet, "_parse_rules", None)
    if original is None or getattr(original, "shared_cache", False):
        return False

    @functools.wraps(original)
    def parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                    tie_breaker: int = 0, scope: str = "") -> Any:
        key = (css, read_from, is_default_rules, tie_breaker, scope,
               _variables_number(getattr(self, "_variables", {})))
        try:
            return _CACHE[key]
        except KeyError:
            pass
        rules = original(self, css, read_from, is_default_rules, tie_breaker, scope)
        _CACHE[key] = rules
        return rules

    parse_rules.shared_cache = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = parse_rules  # type: ignore[method-assign]
    return True


def _variables_number(variables: dict[str, str]) -> int:
    """The number of this set of variables (the same variables: the same number)."""
    seen = _SEEN.get(id(variables))
    if seen is not None and seen[0] is variables and variables == seen[1]:
        return seen[2]
    items = tuple(sorted(variables.items()))
    number = _VARIABLES.setdefault(items, len(_VARIABLES))
    if len(_SEEN) >= _SEEN_MAX:
        _SEEN.clear()
    _SEEN[id(variables)] = (variables, dict(variables), number)  # (kept: its id stays its own)
    return number

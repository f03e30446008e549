"""Push-down: the part of a ``--where`` comparison a backend can test on the facts it keeps
(``mq.facts.FactTest``), where the messages are, before any is browsed. Each test is a
necessary condition of the predicate; None leaves it all to the predicate."""

from __future__ import annotations

from typing import Any

from mqconsole.mq.facts import FactTest

from ..textsearch import Pattern
from .fields import Field

# fields a backend keeps as facts (mq.facts), and the fact each is
_FACT_OF = {"reason": "reason", "dest_q": "dest_q", "original_format": "format",
            "backout_count": "backout_count", "length": "length", "priority": "priority"}


def _fact_value(field: Field, value: Any) -> bool:
    """Whether a backend's comparison of the fact with ``value`` is the field's own."""
    if isinstance(value, str):
        return not (field.kind.glob and ("*" in value or "?" in value))
    # SQLite's integers are 64-bit: a number past them is left to the predicate
    return (isinstance(value, int) and not isinstance(value, bool)
            and _SQLITE_MIN <= value <= _SQLITE_MAX)


_SQLITE_MIN, _SQLITE_MAX = -(2 ** 63), 2 ** 63 - 1


def fact_cmp(field: Field, op: str, value: Any) -> FactTest | None:
    fact = _FACT_OF.get(field.name)
    if fact is None or not _fact_value(field, value):
        return None
    if isinstance(value, str) and op not in ("=", "!="):
        return None  # text order: left to the predicate
    return ("cmp", fact, op, value)


def fact_in(field: Field, values: list[Any]) -> FactTest | None:
    fact = _FACT_OF.get(field.name)
    if fact is None or not values or not all(_fact_value(field, v) for v in values):
        return None
    return ("in", fact, tuple(values))


def fact_contains(pattern: Pattern) -> FactTest | None:
    """What a body must contain for its payload to hold a match (the pattern's literal in
    every CCSID), as a test a backend can run where the messages are."""
    forms = pattern.body_forms()
    return None if forms is None else ("contains", "body", forms)

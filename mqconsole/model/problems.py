"""A scenario's problems: each one sentence naming the file, the line and the field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqconsole.mq.payload import first_of, located


@dataclass(frozen=True, slots=True)
class Problem:
    field: str
    problem: str
    line: int | None = None
    file: str | None = None

    def sentence(self) -> str:
        return located(self.problem, file=self.file, line=self.line, subject=self.field)


class ScenarioError(ValueError):
    """A scenario (or endpoints file) that cannot be used; ``str()`` is one sentence."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        first = problems[0]
        self.field = first.field
        self.line = first.line
        self.file = first.file
        super().__init__(first_of([p.sentence() for p in problems]))


def type_name(v: Any) -> str:
    """What YAML gave, as the sentence names it: ``text ('three')``, ``a list``, ..."""
    if v is None:
        return "nothing (null)"
    if isinstance(v, bool):
        return f"a true/false value ({str(v).lower()})"
    if isinstance(v, int):
        return f"a number ({v})"
    if isinstance(v, float):
        return f"a decimal number ({v})"
    if isinstance(v, str):
        return f"text ({v!r})"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a mapping"
    return type(v).__name__

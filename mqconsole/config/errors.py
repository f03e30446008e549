"""Configuration problems: each one sentence naming the file, the line and the setting."""

from __future__ import annotations

import os
from dataclasses import dataclass

from mqconsole.mq.payload import first_of, located


@dataclass(frozen=True)
class ConfigProblem:
    """One problem found in a configuration file."""

    problem: str
    file: str | None = None
    line: int | None = None
    setting: str | None = None

    def sentence(self) -> str:
        return located(self.problem, file=self.file, line=self.line, subject=self.setting)


class ConfigError(Exception):
    """A configuration that cannot be used. ``str()`` is one sentence for the operator.

    ``problems`` holds every problem found (first in file order is the one in the message);
    ``file``, ``line``, ``setting`` and ``problem`` describe that first one.
    """

    def __init__(
        self,
        problem: str | list[ConfigProblem],
        *,
        file: str | os.PathLike[str] | None = None,
        line: int | None = None,
        setting: str | None = None,
    ) -> None:
        if isinstance(problem, list):
            problems = problem
        else:
            problems = [ConfigProblem(problem, None if file is None else str(file), line, setting)]
        if not problems:
            raise ValueError("ConfigError needs at least one problem")
        self.problems: list[ConfigProblem] = problems
        first = problems[0]
        self.file = first.file
        self.line = first.line
        self.setting = first.setting
        self.problem = first.problem
        super().__init__(first_of([p.sentence() for p in problems]))

    def __str__(self) -> str:
        return str(self.args[0])

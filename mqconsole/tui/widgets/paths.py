"""Completion of file paths in an ``Input`` (``→`` or ``end`` accepts it, as Textual's
suggestions do): the first entry of the folder typed so far whose name starts with what
follows the last ``/``; a folder gets its ``/`` so the next one completes on.

Reading a folder is one ``os.scandir`` of at most :data:`MAX_ENTRIES` names, cached by
Textual per value; a folder that cannot be read suggests nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from textual.suggester import Suggester

MAX_ENTRIES = 2_000


def complete_path(value: str, *, base: Path | None = None) -> str | None:
    """The completion of ``value`` (a path as typed, ``~`` allowed), or None."""
    if not value:
        return None
    head, sep, tail = value.rpartition("/")
    folder = Path(os.path.expanduser(head + sep if sep else "."))
    if not folder.is_absolute():
        folder = (base or Path.cwd()) / folder
    try:
        with os.scandir(folder) as entries:
            names = []
            for n, entry in enumerate(entries):
                if n >= MAX_ENTRIES:
                    break
                if entry.name.startswith(tail) and (tail.startswith(".")
                                                    or not entry.name.startswith(".")):
                    names.append((entry.name, entry.is_dir()))
    except OSError:
        return None
    if not names:
        return None
    name, is_dir = min(names)
    return head + sep + name + ("/" if is_dir else "")


class PathSuggester(Suggester):
    """Suggests the completion of a file path (see the module doc)."""

    def __init__(self, base: Path | None = None) -> None:
        super().__init__(use_cache=True, case_sensitive=True)
        self.base = base

    async def get_suggestion(self, value: str) -> str | None:
        found = complete_path(value, base=self.base)
        return None if found == value else found


__all__ = ["PathSuggester", "complete_path"]

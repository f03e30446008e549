"""docs/plugins.md documents every hook of the hook specifications, with its arguments."""

from __future__ import annotations

import inspect
from pathlib import Path

from mqconsole.plugins import HOOK_NAMES, hookspecs

DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def test_every_hook_has_a_section_with_its_signature() -> None:
    text = DOC.read_text()
    for name in HOOK_NAMES:
        args = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
        assert f"### `{name}({args})" in text, f"docs/plugins.md lacks {name}({args})"

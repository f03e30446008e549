"""docs/plugins.md documents every hook of the hook specifications: its signature, when
it is called, and an example implementing it."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from mqconsole.plugins import HOOK_NAMES, hookspecs

DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def sections(text: str) -> dict[str, str]:
    """Each ``### `hook(args)``` section's text, by its heading."""
    parts = re.split(r"(?m)^### ", text)[1:]
    return {part.split("\n", 1)[0]: part for part in parts}


def test_every_hook_has_a_section_with_its_signature_when_and_an_example() -> None:
    found = sections(DOC.read_text())
    for name in HOOK_NAMES:
        args = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
        heading = next((h for h in found if h.startswith(f"`{name}({args})")), None)
        assert heading is not None, f"docs/plugins.md lacks a section for {name}({args})"
        body = found[heading]
        assert "Called " in body, f"docs/plugins.md does not say when {name} is called"
        assert re.search(rf"```python\n(?:.*\n)*?def {name}\(", body), \
            f"docs/plugins.md has no example implementing {name}"


def test_the_check_fails_for_a_hook_left_out() -> None:
    """The test above would fail were a section missing (not a test that passes on
    anything)."""
    text = DOC.read_text()
    cut = re.sub(r"(?ms)^### `mqconsole_operation_done.*?(?=^## |\Z)", "", text)
    assert not any(h.startswith("`mqconsole_operation_done(") for h in sections(cut))
    assert any(h.startswith("`mqconsole_operation_done(summary)") for h in sections(text))

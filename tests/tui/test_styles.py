"""The console's styles live in tui/styles/*.tcss (issue 15 item 8): loaded by the app, so a
rule that does not parse stops it at start-up instead of silently not applying. No screen
or widget carries styles of its own (DEFAULT_CSS or CSS in Python)."""

from __future__ import annotations

import ast
from pathlib import Path

import mqconsole.tui
from mqconsole.tui.context import STYLES

TUI = Path(mqconsole.tui.__file__).resolve().parent


def test_no_screen_or_widget_carries_its_own_styles():
    found = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    targets = item.targets if isinstance(item, ast.Assign) else []
                    for t in targets:
                        if isinstance(t, ast.Name) and t.id in ("DEFAULT_CSS", "CSS"):
                            found.append(f"{path.relative_to(TUI)}: {node.name}.{t.id}")
    assert found == []


async def test_every_tcss_file_is_loaded_and_parses():
    from textual.app import App

    assert sorted(p.name for p in STYLES) == sorted(p.name for p in (TUI / "styles").glob(
        "*.tcss"))

    class Styled(App[None]):
        CSS_PATH = STYLES

    app = Styled()
    async with app.run_test(size=(80, 24)):  # a rule that does not parse: an error here
        sources = {Path(path).name for path, _ in app.stylesheet.source}
        assert {p.name for p in STYLES} <= sources

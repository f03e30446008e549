"""The parts of the docs made from the code are what the code makes (tools/gen_docs.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "tools" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_made_from_the_code_are_up_to_date():
    assert _gen_docs().stale() == [], "run python tools/gen_docs.py"


def test_a_changed_key_makes_the_docs_stale(monkeypatch):
    from mqconsole.tui import keys as K

    gen = _gen_docs()
    monkeypatch.setattr(K, "markdown_table", lambda: "| a table of other keys |\n")
    assert gen.stale() == ["docs/tui.md (keys)"]

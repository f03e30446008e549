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


def test_every_exit_code_has_its_meaning_and_the_help_names_it():
    from click.testing import CliRunner

    from mqconsole.cli.main import cli
    from mqconsole.ops.exit_codes import MEANINGS, ExitCode

    assert set(MEANINGS) == set(ExitCode)
    shown = CliRunner().invoke(cli, ["--help"]).output
    missing = [int(c) for c in ExitCode if c != ExitCode.INTERNAL and f"{int(c)} " not in shown]
    assert not missing, missing


def test_the_readmes_command_list_is_every_command_of_the_cli():
    """Each line of the README's list is a command --help lists, and none is left out."""
    import re

    from click.testing import CliRunner

    from mqconsole.cli.main import COMMANDS, cli

    readme = (ROOT / "README.md").read_text()
    listed = set(re.findall(r"^\| `mqconsole ([a-z-]+)` \|", readme, re.M))
    assert listed == set(COMMANDS)
    shown = CliRunner().invoke(cli, ["--help"]).output
    assert all(re.search(rf"^  {re.escape(name)}\s", shown, re.M) for name in listed)

"""The parts of the docs made from the code are what the code makes (tools/gen_docs.py)."""

from __future__ import annotations

import importlib.util
import re
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


def test_the_readme_names_the_commands_without_json_as_the_cli_has_them():
    """The README's --json sentence names exactly the commands with no --json option, read
    here from the click tree (it named ``config path``, which has one, and not ``config
    show``, which has none)."""
    import click

    from mqconsole.cli.main import cli

    def leaves(group: click.Group, prefix: str, ctx: click.Context):
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if isinstance(command, click.Group):
                yield from leaves(command, f"{prefix}{name} ", click.Context(command, parent=ctx))
            elif command is not None and not command.hidden:
                yield f"{prefix}{name}", command

    without = {name for name, command in leaves(cli, "", click.Context(cli))
               if not any("--json" in p.opts for p in command.params)}
    assert {"config show", "tui"} <= without and "config path" not in without
    readme = (ROOT / "README.md").read_text()
    [sentence] = re.findall(r"<!-- json: [^\n]*-->\n(.*?)<!-- json:end -->", readme, re.S)
    named = set(re.findall(r"`([a-z -]+)`", sentence)) - {"--json"}
    assert named == without, sentence


def test_a_command_losing_its_json_option_makes_the_readme_stale(monkeypatch):
    from mqconsole.cli.commands.config_cmd import path

    gen = _gen_docs()
    monkeypatch.setattr(path, "params", [p for p in path.params if "--json" not in p.opts])
    assert "config path" in gen.without_json()
    assert gen.stale() == ["README.md (json)"]


# -- the docs stand alone in a clone ---------------------------------------------------------

_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
_HTML = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.I)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_UP_PATH = re.compile(r"(?<![\w/.])((?:\.\./)+[\w.@-][\w./@-]*)")


def _links(text: str) -> list[str]:
    prose = _CODE.sub("", _FENCE.sub("", text))
    return [*_LINK.findall(prose), *_REFERENCE.findall(prose), *_HTML.findall(prose)]


def link_problems(page: Path, root: Path = ROOT) -> list[str]:
    """Each link of ``page`` that leaves the repository or names nothing in it; each path
    its text names (a ``../`` path, ``shared/spec``) that lies outside it."""
    def inside(path: Path) -> bool:
        return path.resolve().is_relative_to(root.resolve())

    text = page.read_text(encoding="utf-8")
    name = page.relative_to(root)
    problems = []
    for target in _links(text):
        if _SCHEME.match(target):
            if not target.lower().startswith(("http://", "https://", "mailto:")):
                problems.append(f"{name}: {target} is not a web link nor a file of the repository")
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        if not path:
            continue  # a heading of the same page
        resolved = page.parent / path
        if not inside(resolved):
            problems.append(f"{name}: {target} leaves the repository")
        elif not resolved.exists():
            problems.append(f"{name}: {target} names nothing in the repository")
    for path in _UP_PATH.findall(text):
        if not any(inside(p) and p.exists() for p in (page.parent / path, root / path)):
            problems.append(f"{name}: {path} is no file of the repository")
    if "shared/spec" in text:
        problems.append(f"{name}: names shared/spec, which a clone does not have")
    return problems


def test_every_link_of_the_docs_stays_in_the_repository_and_resolves():
    """README.md and docs/*.md stand alone in a clone: no link (nor a path in the text)
    leaves the repository, and every relative link names a file or folder in it."""
    problems = [p for page in _PAGES for p in link_problems(page)]
    assert problems == []


def test_the_link_check_finds_a_dead_link_and_one_leaving_the_repository(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "where.md").write_text("# where\n", encoding="utf-8")
    page = tmp_path / "docs" / "_link_check_probe.md"
    page.write_text("[a](../../shared/spec/audit.md) [b](nothing-here.md) [c](where.md#x) "
                    "[d](https://example.com) `../../outside/file.md` [e](../docs/where.md) "
                    "`../shared/spec/x.md`\n",
                    encoding="utf-8")
    assert link_problems(page, tmp_path) == [
        "docs/_link_check_probe.md: ../../shared/spec/audit.md leaves the repository",
        "docs/_link_check_probe.md: nothing-here.md names nothing in the repository",
        "docs/_link_check_probe.md: ../../shared/spec/audit.md is no file of the repository",
        "docs/_link_check_probe.md: ../../outside/file.md is no file of the repository",
        "docs/_link_check_probe.md: ../shared/spec/x.md is no file of the repository",
        "docs/_link_check_probe.md: names shared/spec, which a clone does not have",
    ]


# -- the contracts the docs state are the code's ---------------------------------------------

def test_replay_format_names_every_field_and_event_of_the_code():
    """docs/replay-format.md is the scenario's and the result's contract: every field the
    scenario's models take, every event type and every summary key is on the page."""
    from mqconsole.model import schema
    from mqconsole.model.result import EVENT_TYPES, STOPPED_BY, SUMMARY_COUNTS

    page = (ROOT / "docs" / "replay-format.md").read_text(encoding="utf-8")
    models = [schema.ScenarioIn, schema.QueueManagerIn, schema.QueueIn, schema.AuthorityIn,
              schema.MessageIn, schema.EndpointIn, schema.FailureIn, schema.ActionIn,
              schema.LimitsIn]
    fields = {f for m in models for f in m.model_fields}
    missing = sorted(f for f in fields if not re.search(rf"(?m)^\s*(- )?{f}:", page))
    assert missing == [], "fields not in the scenario example of docs/replay-format.md"
    words = [*EVENT_TYPES, *SUMMARY_COUNTS, *STOPPED_BY]
    assert sorted(w for w in words if f"`{w}`" not in page) == []


def test_audit_md_lists_the_snapshot_columns_of_the_code_in_order():
    source = (ROOT / "mqconsole" / "audit" / "columns.py").read_text(encoding="utf-8")
    fixed = source[source.index("_FIXED"):source.index("PAYLOAD =")]
    code = re.findall(r'^\s*\("(\w+)", "([^"]+)"', fixed, re.M)
    page = (ROOT / "docs" / "audit.md").read_text(encoding="utf-8")
    table = page[page.index("## The snapshot's columns"):page.index("## The report")]
    documented = re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", table, re.M)
    assert [name for name, _ in documented] == [name for name, _ in code]
    for (name, kind), (_, shown) in zip(code, documented, strict=True):
        assert shown.startswith(kind), f"{name}: {kind} in the code, {shown} in docs/audit.md"

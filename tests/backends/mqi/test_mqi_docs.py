"""docs/real-mq.md as other texts rely on it (issue 14 items 10 and "must show"): every
reference to one of its sections resolves, it names the library, and its authority table
has a row for every command that reaches a queue manager."""

from __future__ import annotations

import re
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "real-mq.md").read_text(encoding="utf-8")
# ``real-mq.md, "Title"`` or ``real-mq.md``, "Title" (line breaks allowed), and
# ``real-mq.md ..., portability rule N``
REF = re.compile(r'real-mq\.md`{0,2}\)?,?\s*"([^"]+)"')
RULE = re.compile(r"real-mq\.md[^\n]{0,40}?portability\s+rule\s+(\d+)", re.S)


def _titles() -> set[str]:
    heads = {m.group(1).strip() for m in re.finditer(r"^#+\s+(.+)$", DOC, re.M)}
    bold = {m.group(1).strip() for m in re.finditer(r"\*\*([^*]+?)\.?\*\*", DOC)}
    return heads | {b.rstrip(".") for b in bold}


def _texts() -> list[tuple[Path, str]]:
    files = [*(ROOT / "docs").glob("*.md"), ROOT / "README.md",
             *(ROOT / "mqconsole").rglob("*.py")]
    return [(f, f.read_text(encoding="utf-8")) for f in files if f.name != "real-mq.md"]


def test_every_reference_to_a_section_resolves() -> None:
    titles = _titles()
    rules = len(re.findall(r"^\d+\. ", DOC.split("## Portability rules")[1].split("\n## ")[0],
                           re.M))
    found, dangling = 0, []
    for path, text in _texts():
        flat = re.sub(r"\s+", " ", text.replace("#", " "))
        for m in REF.finditer(flat):
            found += 1
            if m.group(1).strip().rstrip(".") not in titles:
                dangling.append(f"{path.relative_to(ROOT)}: {m.group(1)!r}")
        for m in RULE.finditer(flat):
            found += 1
            if not 1 <= int(m.group(1)) <= rules:
                dangling.append(f"{path.relative_to(ROOT)}: portability rule {m.group(1)}")
    assert found >= 5  # the pattern still finds the references there are
    assert dangling == []


def test_it_names_the_library() -> None:
    which = DOC.split("## Which library")[1].split("\n## ")[0]
    assert "`ibmmq`" in which and "successor of pymqi" in which
    assert "`pymqi`** still works" in which


def test_every_command_that_reaches_a_queue_manager_has_its_authorities() -> None:
    from mqconsole.cli.main import cli

    table = DOC.split("## Authorities")[1].split("\n## ")[0]
    first_cells = " ".join(line.split("|")[1] for line in table.splitlines()
                           if line.startswith("| "))
    offline = {"config", "init", "journal", "plugins", "tui"}  # the console: its actions
    assert isinstance(cli, click.Group)
    names = cli.list_commands(click.Context(cli))  # a lazy group: listed, not loaded
    assert "move" in names and "put" in names
    missing = [name for name in names if name not in offline and f"`{name}" not in first_cells]
    assert missing == []

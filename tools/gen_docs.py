"""Write the parts of the docs that are made from the code (a test checks they are equal).

    python tools/gen_docs.py          # rewrite them
    python tools/gen_docs.py --check  # exit 1 when one differs

Each part sits between ``<!-- NAME: ... -->`` and ``<!-- NAME:end -->`` in its file.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import click

ROOT = Path(__file__).resolve().parents[1]


def _keys() -> str:
    from mqconsole.tui.keys import markdown_table

    return markdown_table()


def _exit_codes() -> str:
    from mqconsole.ops.exit_codes import MEANINGS

    rows = [f"| {int(code)} | {text} |" for code, text in sorted(MEANINGS.items())]
    return "\n".join(["| code | meaning |", "|---|---|", *rows]) + "\n"


def _leaves() -> list[tuple[str, click.Command]]:
    """Every command and sub-command the CLI lists (not hidden), by its full name, in
    ``--help``'s order, groups included."""
    import click

    from mqconsole.cli.main import cli

    found: list[tuple[str, click.Command]] = []

    def walk(group: click.Group, prefix: str, ctx: click.Context) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            found.append((f"{prefix}{name}", command))
            if isinstance(command, click.Group):
                walk(command, f"{prefix}{name} ", click.Context(command, parent=ctx))

    walk(cli, "", click.Context(cli))
    return found


def _commands() -> str:
    """Every command and sub-command with the first sentence of its help (from click)."""
    rows = [f"| `mqconsole {name}` | {command.get_short_help_str(500)} |"
            for name, command in _leaves()]
    return "\n".join(["| command | what it does |", "|---|---|", *rows]) + "\n"


def without_json() -> list[str]:
    """The commands (not groups) that have no ``--json`` option, by their full names."""
    import click

    return [name for name, command in _leaves() if not isinstance(command, click.Group)
            and not any("--json" in p.opts for p in command.params)]


def _json() -> str:
    """The sentence saying which commands take ``--json``: all but :func:`without_json`."""
    names = [f"`{name}`" for name in without_json()]
    but = (" but " + (", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1
                      else names[0])) if names else ""
    return (f"Every command{but} takes `--json` (JSON on stdout, narration on stderr).\n")


PARTS: list[tuple[str, str, Callable[[], str]]] = [
    ("docs/tui.md", "keys", _keys),
    ("README.md", "exit-codes", _exit_codes),
    ("README.md", "commands", _commands),
    ("README.md", "json", _json),
]


def render(text: str, name: str, body: str) -> str:
    """``text`` with the part ``name`` replaced by ``body``."""
    pattern = re.compile(rf"(<!-- {name}: [^\n]*-->\n)(.*?)(<!-- {name}:end -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"no <!-- {name}: ... --> ... <!-- {name}:end --> in the file")
    return pattern.sub(lambda m: m.group(1) + body + m.group(3), text, count=1)


def stale() -> list[str]:
    """The files whose made parts differ from the code."""
    out = []
    for rel, name, make in PARTS:
        path = ROOT / rel
        text = path.read_text()
        if render(text, name, make()) != text:
            out.append(f"{rel} ({name})")
    return out


def main(argv: list[str]) -> int:
    if "--check" in argv:
        differ = stale()
        for what in differ:
            print(f"{what} differs from the code: run python tools/gen_docs.py", file=sys.stderr)
        return 1 if differ else 0
    for rel, name, make in PARTS:
        path = ROOT / rel
        path.write_text(render(path.read_text(), name, make()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""``mqconsole init``: create an embedded queue manager (optionally with a demo scene)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.output import emit_json, say

from .common import json_option, session_of


@click.command("init")
@click.option("--name", default="QM1", show_default=True, help="Queue manager name.")
@click.option("--demo", is_flag=True, help="Add a realistic scene: application, backout and "
              "dead-letter queues holding poison messages.")
@json_option
@click.pass_context
def init(ctx: click.Context, name: str, demo: bool, as_json: bool) -> None:
    """Create a new embedded queue manager (refuses to overwrite an existing file)."""
    from mqconsole.backends.embedded import create_queue_manager

    session = session_of(ctx)
    path = session.embedded_file()
    there = path != ":memory:" and (Path(path).exists() or Path(path).is_symlink())
    if path != ":memory:":  # not a store's side file, the journal, a backup... (exit 2)
        from mqconsole.ops.outputs import STORE, check_output

        check_output(path, "--embedded", session.state_files(), allow=(STORE,))
    if there:
        raise CliError(f"{path} already exists: init never overwrites a queue manager "
                       "(choose another --embedded path or remove the file)")
    qm = create_queue_manager(path, name=name)
    summary: dict[str, Any] = {"path": path, "queue_manager": name, "demo": None}
    try:
        if demo:
            from mqconsole.ops.demo import build_demo

            summary["demo"] = build_demo(qm)
    finally:
        qm.close()
    if as_json:
        emit_json(summary)
    else:
        say(f"created queue manager {name} at {path}")
        if demo:
            d = summary["demo"]
            say(f"demo scene: {d['queues']} queues, {d['messages']} messages "
                f"({d['dead_letter']} on the dead-letter queue)")


COMMANDS = [init]

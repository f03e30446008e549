"""``mqconsole plugins``: which site plugins were found, where from, and their state."""

from __future__ import annotations

import click

from mqconsole.cli.output import emit_json, safe, say, table

from .common import json_option, session_of


@click.command("plugins")
@json_option
@click.pass_context
def plugins(ctx: click.Context, as_json: bool) -> None:
    """List the site plugins: name, version, source, hooks and status.

    Status is 'loaded', 'disabled' (by plugins.enabled/disabled) or 'error: <why>'.
    A report, not a check: it exits 0 whatever the plugins' state.
    """
    from mqconsole.plugins import plugins_switched_off

    session = session_of(ctx)
    host = session.plugins
    infos = host.infos()
    if as_json:
        emit_json([info.to_json() for info in infos])
        return
    if plugins_switched_off(session.no_plugins):
        say("plugins are switched off (--no-plugins or MQCONSOLE_NO_PLUGINS)")
        return
    if not infos:
        say("no plugin found (entry points in the group 'mqconsole', or plugins.paths in "
            "the config)")
        return
    rows = [[i.name, i.version or "-", _short(i.status),
             ", ".join(h.removeprefix("mqconsole_") for h in i.hooks) or "-", i.source]
            for i in infos]
    click.echo(table(["NAME", "VERSION", "STATUS", "HOOKS", "SOURCE"], rows,
                     max_width={4: 60}))
    # An error's sentence is what the operator acts on: whole, on a line of its own, never
    # cut to a table column (the table says only "error").
    for i in infos:
        if i.status.startswith("error: "):
            click.echo(f"{safe(i.name)}: {safe(i.status.removeprefix('error: '))}")


def _short(status: str) -> str:
    return "error (below)" if status.startswith("error: ") else status


COMMANDS = [plugins]

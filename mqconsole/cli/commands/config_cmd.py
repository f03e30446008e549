"""``mqconsole config path|show|validate``."""

from __future__ import annotations

import click

from mqconsole.cli.output import emit_json, say

from .common import json_option, session_of


@click.group("config")
def config() -> None:
    """Where the configuration is, what it says, and whether it is valid."""


@config.command("path")
@json_option
@click.pass_context
def path(ctx: click.Context, as_json: bool) -> None:
    """Print the configuration file in use and why it was chosen."""
    from mqconsole.config import config_path

    found, source = config_path(session_of(ctx).config_file)
    if as_json:
        emit_json({"path": str(found) if found else None, "source": source})
    else:
        click.echo(str(found) if found else "(none)")
        say(f"from {source}")


@config.command("show")
@click.pass_context
def show(ctx: click.Context) -> None:
    """Print the effective configuration (passwords are never shown)."""
    from mqconsole.config import dump_config

    click.echo(dump_config(session_of(ctx).config), nl=False)


@config.command("validate")
@json_option
@click.pass_context
def validate(ctx: click.Context, as_json: bool) -> None:
    """Check the configuration; exit code 2 with the setting and line when it is wrong."""
    from mqconsole.config import config_path

    session = session_of(ctx)
    cfg = session.config
    found, _ = config_path(session.config_file)
    names = [p.name for p in cfg.profiles]
    if as_json:
        emit_json({"valid": True, "path": str(found) if found else None, "profiles": names})
    else:
        say(f"{found or 'built-in defaults'}: valid ({len(names)} profile(s): {', '.join(names)})")


COMMANDS = [config]

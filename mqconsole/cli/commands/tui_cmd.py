"""``mqconsole tui`` (also what plain ``mqconsole`` runs): the terminal console."""

from __future__ import annotations

import click

from mqconsole.cli.session import Session

from .common import session_of


def run_tui(session: Session) -> None:
    from mqconsole.tui.app import run_app

    run_app(session)


@click.command("tui")
@click.pass_context
def tui(ctx: click.Context) -> None:
    """Open the terminal console."""
    run_tui(session_of(ctx))


COMMANDS = [tui]

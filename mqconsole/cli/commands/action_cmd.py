"""``mqconsole action ID QUEUE``: run a site plugin's action on messages of QUEUE (the
:class:`~mqconsole.ops.operation.PluginAction` operation, driven by ``cli.operate``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.operate import drive, operation

from .common import (
    build_selection,
    operation_options,
    selection_given,
    selection_options,
    session_of,
)

if TYPE_CHECKING:
    from mqconsole.ops.selection import Selection


def selection_for(action_id: str, scope: str, msgids: tuple[str, ...],
                  msgids_from: str | None, where: str | None, limit: int | None,
                  all_: bool) -> Selection:
    """What the command line chose; a ``queue`` action takes no selection option (the
    whole queue). ``PluginAction.validate`` holds each scope to what it may be given."""
    from mqconsole.ops.selection import Selection

    if scope != "queue":
        return build_selection(msgids, msgids_from, where, limit, all_)
    if selection_given(msgids, msgids_from, where, all_) or limit is not None:
        raise CliError(f"action {action_id} works on the whole queue: give no selection")
    return Selection(all=True)


@click.command("action")
@click.argument("action_id", metavar="ID")
@click.argument("queue")
@selection_options
@operation_options
def action(ctx: click.Context, action_id: str, queue: str, msgids: tuple[str, ...],
           msgids_from: str | None, where: str | None, limit: int | None, all_: bool,
           dry_run: bool, yes: bool, as_json: bool) -> None:
    """Run the site plugins' action ID on messages of QUEUE ('mqconsole plugins' lists
    the plugins; docs/plugins.md says how to write one).

    What the action is given follows its scope: a 'message' action one --msgid, a
    'selection' action the selected messages (--msgid, --msgids-from, --where, --all,
    --limit), a 'queue' action every message of QUEUE. A dangerous action is confirmed
    (--yes without a terminal) and is not available in a read-only profile. --dry-run
    lists the messages it would be given without running it. The run is journaled.

    Exit codes: 0 done, 1 the action reported failures (or raised), 2 unknown action or
    bad selection, 4 not confirmed.
    """
    from mqconsole.ops.operation import PluginAction

    session = session_of(ctx)
    try:
        found = session.plugins.offered_action(action_id, read_only=session.read_only,
                                               profile=session.profile.name)
    except LookupError as e:
        raise CliError(str(e)) from None
    selection = selection_for(found.id, found.action.scope, msgids, msgids_from, where,
                              limit, all_)
    op = operation(session, PluginAction(found, queue, selection,
                                         read_only=session.read_only))
    drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json,
          confirm=found.action.dangerous)


COMMANDS = [action]

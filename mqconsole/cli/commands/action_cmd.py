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
    from mqconsole.cli.session import Session
    from mqconsole.ops.selection import Selection
    from mqconsole.plugins import RegisteredAction


def available(session: Session) -> list[RegisteredAction]:
    """The actions of this profile: a dangerous one is absent from a read-only profile."""
    actions = session.plugins.actions()
    return [a for a in actions if not (session.read_only and a.action.dangerous)]


def find(session: Session, action_id: str) -> RegisteredAction:
    """The action ``action_id`` of this profile, or one sentence naming the known ones."""
    actions = available(session)
    found = next((a for a in actions if a.id == action_id), None)
    if found is not None:
        return found
    known = ", ".join(sorted(a.id for a in actions))
    known = f"known actions: {known}" if known else "no plugin offers an action here " \
        "(see 'mqconsole plugins')"
    if any(a.id == action_id for a in session.plugins.actions()):
        raise CliError(f"action {action_id!r} is not available in profile "
                       f"{session.profile.name}: it is dangerous and the profile is "
                       f"read-only; {known}")
    raise CliError(f"no action {action_id!r}; {known}")


def selection_for(found: RegisteredAction, msgids: tuple[str, ...], msgids_from: str | None,
                  where: str | None, limit: int | None, all_: bool) -> Selection:
    """The action's scope decides what it may be given: ``message`` one --msgid,
    ``selection`` a selection as for move, ``queue`` every message (nothing to choose)."""
    from mqconsole.ops.selection import Selection

    scope, aid = found.action.scope, found.id
    if scope == "queue":
        if selection_given(msgids, msgids_from, where, all_) or limit is not None:
            raise CliError(f"action {aid} works on the whole queue: give no selection")
        return Selection(all=True)
    selection = build_selection(msgids, msgids_from, where, limit, all_)
    if scope == "message" and (len(selection.msgids) + len(selection.marks) != 1
                               or selection.where is not None or selection.all
                               or selection.all_duplicates):
        raise CliError(f"action {aid} works on one message: give one --msgid (with "
                       "--position when several carry it) or one --token")
    return selection


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
    found = find(session, action_id)
    selection = selection_for(found, msgids, msgids_from, where, limit, all_)
    op = operation(session, PluginAction(found, queue, selection,
                                         read_only=session.read_only))
    drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json,
          confirm=found.action.dangerous)


COMMANDS = [action]

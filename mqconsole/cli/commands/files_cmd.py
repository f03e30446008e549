"""``mqconsole save`` and ``mqconsole load``: queues to dmpmqmsg files and back."""

from __future__ import annotations

from pathlib import Path

import click

from mqconsole.cli.errors import CliError

from .common import (
    batch_option,
    build_selection,
    confirm_change,
    dry_run_option,
    journal_result,
    json_option,
    progress_control,
    selection_options,
    session_of,
    yes_option,
)
from .delete_cmd import file_errors, finish, interruptible


@click.command("save")
@click.argument("queue")
@click.argument("file", type=click.Path(dir_okay=False))
@selection_options
@click.option("--remove", is_flag=True, help="Remove the saved messages from QUEUE once the "
              "file is on disk (needs a selection or --all).")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@batch_option
@dry_run_option
@yes_option
@json_option
@click.pass_context
def save(ctx: click.Context, queue: str, file: str, msgids: tuple[str, ...],
         msgids_from: str | None, where: str | None, limit: int | None, all_: bool,
         remove: bool, force: bool, batch: int, dry_run: bool, yes: bool,
         as_json: bool) -> None:
    """Save messages of QUEUE to FILE in IBM's dmpmqmsg format (qload and dmpmqmsg read it).

    Without a selection every message is saved (saving only browses). The file is written
    completely and synced to disk under a temporary name, then given its name; an existing
    FILE is refused unless --force. With --remove the saved messages are then removed from
    the queue, as 'mqconsole delete' does; that needs --msgid/--where/--all.
    """
    from mqconsole.ops.selection import Selection

    explicit = bool(msgids or msgids_from or where or all_)
    if remove and not explicit:
        raise CliError("save --remove needs a selection (--msgid, --msgids-from, --where) or "
                       "--all: it removes what it saves")
    if explicit:
        selection = build_selection(msgids, msgids_from, where, limit, all_)
    else:
        selection = Selection(all=True, limit=limit)
    from mqconsole.ops.savefile import refuse_unsafe_target

    file_errors(lambda: refuse_unsafe_target(file))  # before any prompt or connection
    if not force and not dry_run and Path(file).exists():
        raise CliError(f"{file} exists (give --force to overwrite it)")
    session = session_of(ctx)
    if remove:
        confirm_change(session, f"saving {selection.describe()} of {queue} to {file} and "
                                "removing them", yes=yes, dry_run=dry_run)
    qm = session.connect()
    if remove:
        from mqconsole.ops.delete import delete_messages

        with interruptible() as control:
            result = file_errors(lambda: delete_messages(
                qm, queue, selection, backup=file, force=force, dry_run=dry_run, batch=batch,
                control=control, operation="save"))
        journal_result(session, result, details={"selection": selection.describe(),
                                                 "remove": True, "file": file})
        if dry_run:
            text = f"would save {result.selected} message(s) of {queue} to {file} and " \
                   "remove them"
        elif result.selected == 0:
            text = f"no message of {queue} matched: nothing saved or removed"
        else:
            text = f"saved {result.selected} message(s) of {queue} to {result.backup}; " \
                   f"removed {result.done}"
    else:
        from mqconsole.ops.savefile import save_queue

        result = file_errors(lambda: save_queue(qm, queue, file, selection, force=force,
                                                dry_run=dry_run, control=progress_control()))
        if dry_run:
            text = f"would save {result.selected} message(s) of {queue} to {file}"
        else:
            text = f"saved {result.done} message(s) of {queue} to {result.backup}"
    finish(ctx, result, as_json=as_json, done_text=text)


@click.command("load")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("queue")
@click.option("--new-context", is_flag=True, help="Put with a new context (this user, now) "
              "instead of the saved one.")
@batch_option
@dry_run_option
@yes_option
@json_option
@click.pass_context
def load(ctx: click.Context, file: str, queue: str, new_context: bool, batch: int,
         dry_run: bool, yes: bool, as_json: bool) -> None:
    """Put every message of FILE on QUEUE: a dmpmqmsg/qload file or amqsbcg output.

    The whole file is checked first: a malformed file is refused, naming the line, before
    anything is put. Messages keep the saved descriptor — MsgId and context included
    (set-all context) unless --new-context — except BackoutCount, which every put starts
    at 0. Units of work of --batch messages are committed as the load goes; a message the
    queue refuses stays out and is reported, and the load stops after 10 refusals in a row.
    """
    from mqconsole.ops.savefile import load_to_queue

    if not Path(file).is_file():
        raise CliError(f"{file} is not a file")
    session = session_of(ctx)
    confirm_change(session, f"loading {file} onto {queue}", yes=yes, dry_run=dry_run)
    qm = session.connect()
    with interruptible() as control:
        result = file_errors(lambda: load_to_queue(qm, file, queue, new_context=new_context,
                                                   dry_run=dry_run, batch=batch,
                                                   control=control))
    journal_result(session, result, details={"file": str(Path(file).absolute()),
                                             "context": "new" if new_context else "set_all"})
    if dry_run:
        text = f"would put {result.selected} message(s) of {file} on {queue}"
    else:
        text = f"loaded {result.done} of {result.selected} message(s) of {file} onto {queue}"
    finish(ctx, result, as_json=as_json, done_text=text)


COMMANDS = [save, load]

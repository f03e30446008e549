"""``mqconsole save`` and ``mqconsole load``: queues to dmpmqmsg files and back (the
:class:`~mqconsole.ops.operation.Save`, ``Delete`` (``save --remove``) and ``Load``
operations, driven by ``cli.operate``)."""

from __future__ import annotations

from pathlib import Path

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.operate import drive, operation
from mqconsole.ops.outputs import SAVED

from .common import (
    OutputPath,
    batch_bytes_option,
    batch_option,
    build_selection,
    context_option,
    new_context_of,
    operation_options,
    selection_given,
    selection_options,
    session_of,
)


@click.command("save")
@click.argument("queue")
@click.argument("file", type=OutputPath(allow=(SAVED,)))
@selection_options
@click.option("--remove", is_flag=True, help="Remove the saved messages from QUEUE once the "
              "file is on disk (needs a selection or --all).")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@batch_option
@batch_bytes_option
@operation_options
def save(ctx: click.Context, queue: str, file: str, msgids: tuple[str, ...],
         msgids_from: str | None, where: str | None, limit: int | None, all_: bool,
         remove: bool, force: bool, batch: int, batch_bytes: int, dry_run: bool, yes: bool,
         as_json: bool) -> None:
    """Save messages of QUEUE to FILE in IBM's dmpmqmsg format (qload and dmpmqmsg read it).

    Without a selection every message is saved (saving only browses). The file is written
    completely and synced to disk under a temporary name, then given its name; an existing
    FILE is refused unless --force. With --remove the saved messages are then removed from
    the queue, as 'mqconsole delete' does; that needs --msgid/--where/--all.
    """
    from mqconsole.ops.operation import Delete, Save
    from mqconsole.ops.selection import Selection

    explicit = selection_given(msgids, msgids_from, where, all_)
    if remove and not explicit:
        raise CliError("save --remove needs a selection (--msgid, --msgids-from, --token, "
                       "--where) or --all: it removes what it saves")
    selection = (build_selection(msgids, msgids_from, where, limit, all_) if explicit
                 else Selection(all=True, limit=limit))
    session = session_of(ctx)
    kind = (Delete(queue, selection, backup=file, force=force, batch=batch,
                   remove_after_save=True, batch_bytes=batch_bytes) if remove
            else Save(queue, file, selection, force=force))
    drive(session, operation(session, kind), yes=yes, dry_run=dry_run, as_json=as_json,
          confirm=remove)


@click.command("load")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("queue")
@click.option("--new-context", is_flag=True, help="Put with a new context (this user, now) "
              "instead of the saved one.")
@click.option("--resolve-in-doubt", is_flag=True,
              help="Instead: settle the last load of FILE onto QUEUE that ended in doubt (the "
              "journal says so before the question): say which of its in-doubt messages are "
              "on QUEUE.")
@click.option("--range", "span", metavar="N-M",
              help="Only the file's messages so numbered (from 1, as save and dmpmqmsg "
              "number them): 5-10, 5- (to the end), -10 or 5.")
@click.option("--skip-present", is_flag=True,
              help="Do not put a message whose MsgId and body are already on QUEUE (one for "
              "each copy there): resumes a load that ended in doubt without duplicates.")
@batch_option
@batch_bytes_option
@context_option
@operation_options
def load(ctx: click.Context, file: str, queue: str, new_context: bool,
         resolve_in_doubt: bool, span: str | None, skip_present: bool, batch: int,
         batch_bytes: int, context: str | None, dry_run: bool, yes: bool,
         as_json: bool) -> None:
    """Put every message of FILE on QUEUE: a dmpmqmsg/qload file or amqsbcg output.

    The whole file is checked first: a malformed file is refused, naming the line, before
    anything is put. Messages keep the saved descriptor — MsgId and context included
    (set-all context) unless --context default or --new-context — except BackoutCount,
    which every put starts at 0. Units of work of --batch messages are committed as the
    load goes; a message the queue refuses stays out and is reported, and the load stops
    after 10 refusals in a row.
    A load whose last commit MQ could not confirm (exit 5) names the command that loads
    the rest without duplicates (--range and --skip-present).
    """
    from mqconsole.ops.operation import Load, ResolveInDoubt
    from mqconsole.ops.savefile.load import parse_range

    if context == "pass":
        raise CliError("--context pass passes the context of a message got from a queue, "
                       "and a file's messages are not got: use --context set-all (each "
                       "keeps the context saved with it) or default")
    new_context = new_context_of(new_context, context)
    first, last = 1, None
    if span is not None:
        if resolve_in_doubt:
            raise CliError("--resolve-in-doubt takes no --range")
        try:
            first, last = parse_range(span)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    session = session_of(ctx)
    if resolve_in_doubt:
        path = str(Path(file).absolute())  # as the load's journal record names it
        op = operation(session, ResolveInDoubt("load", path, queue, session.journal(),
                                               batch=batch))
        drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json)
        return
    op = operation(session, Load(file, queue, new_context=new_context, batch=batch,
                                 first=first, last=last, skip_present=skip_present,
                                 batch_bytes=batch_bytes))
    drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json)


COMMANDS = [save, load]

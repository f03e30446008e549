"""``mqconsole move``, ``mqconsole copy`` and ``mqconsole resubmit``: build the operation
(``ops.operation``) from the arguments and drive it (``cli.operate``: confirm, run with a
progress line and Ctrl-C as "stop at the next commit", render, exit 0 / 1 / 5)."""

from __future__ import annotations

from typing import Any

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.operate import drive, operation

from .common import (
    InputPath,
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


def _transfer_options(fn):
    opts = [
        click.argument("source"),
        click.argument("destination"),
        selection_options,
        batch_option,
        batch_bytes_option,
        context_option,
        click.option("--new-context", is_flag=True,
                     help="Give the messages mqconsole's context (user, time, application) "
                     "instead of keeping theirs."),
        click.option("--strip-dlh", is_flag=True,
                     help="Remove a dead-letter header and restore Format, Encoding and "
                     "CCSID from it (messages without one go unchanged)."),
        click.option("--dest-embedded", metavar="PATH", type=InputPath(),
                     help="The destination is on another embedded queue manager (not "
                     "atomic: see above)."),
        click.option("--dest-profile", metavar="NAME",
                     help="The destination is on the queue manager of this profile (not "
                     "atomic: see above)."),
        click.option("--resolve-in-doubt", is_flag=True,
                     help="Instead: settle the last run from SOURCE to DESTINATION that "
                     "ended in doubt (the journal says so before the question): a move's "
                     "in-doubt messages found on DESTINATION (MsgId and body) are removed "
                     "from SOURCE; a copy's are looked for. No selection."),
        operation_options,
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def _run_transfer(ctx: click.Context, *, copy: bool, source: str, destination: str,
                  msgids: tuple[str, ...], msgids_from: str | None, where: str | None,
                  limit: int | None, all_: bool, batch: int, batch_bytes: int,
                  context: str | None, new_context: bool,
                  strip_dlh: bool, dest_embedded: str | None, dest_profile: str | None,
                  resolve_in_doubt: bool, dry_run: bool, yes: bool, as_json: bool) -> None:
    from mqconsole.ops.operation import ResolveInDoubt, Transfer
    from mqconsole.ops.operation.kinds import pass_problem

    passing = context == "pass"
    problem = pass_problem(passing, new_context, copy=copy,
                           cross=bool(dest_embedded or dest_profile))
    if problem is not None:
        raise CliError(problem)
    new_context = new_context_of(new_context, context)
    if resolve_in_doubt:
        if selection_given(msgids, msgids_from, where, all_) or new_context or strip_dlh \
                or passing:
            raise CliError("--resolve-in-doubt takes no selection and no --new-context, "
                           "--context pass or --strip-dlh: it settles the in-doubt "
                           "messages of the last run")
        session = session_of(ctx)
        dest_qm = session.open_destination(dest_embedded, dest_profile,
                                           "copying" if copy else "moving")
        op = operation(session, ResolveInDoubt("copy" if copy else "move", source,
                                               destination, session.journal(),
                                               dest_qm=dest_qm, batch=batch))
        drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json)
        return
    selection = build_selection(msgids, msgids_from, where, limit, all_)
    session = session_of(ctx)
    dest_qm = session.open_destination(dest_embedded, dest_profile,
                                       "copying" if copy else "moving")
    op = operation(session, Transfer(source, destination, selection, copy=copy, batch=batch,
                                     new_context=new_context, strip_dlh=strip_dlh,
                                     dest_qm=dest_qm, batch_bytes=batch_bytes,
                                     pass_context=passing))
    drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json)


@click.command("move")
@_transfer_options
def move(ctx: click.Context, **kw: Any) -> None:
    """Move the selected messages from SOURCE to DESTINATION.

    Each message is put to DESTINATION under syncpoint and only then got from SOURCE
    (the very message browsed, even among duplicate MsgIds), committing every --batch
    messages: a message that DESTINATION refuses (full, put-inhibited, not authorized, too
    long) stays on SOURCE with the reason reported, and after 10 refusals in a row
    DESTINATION is not tried again (the rest are skipped). A failed get or commit is backed
    out and redone once. The messages keep their context (set-all) unless --context
    default (or --new-context) gives them yours; --context pass gets each first and passes
    its context (+passall, a unit of work per message; a refused put leaves it on SOURCE
    with its BackoutCount one higher).
    Messages of a group move together or not at all. A site plugin's put check may refuse
    a message: it stays on SOURCE, failed with the plugin's sentence.

    To another queue manager (--dest-embedded, --dest-profile) a move is NEVER atomic:
    each batch is committed on the destination first and then removed from the source, so
    a crash or failure in between leaves duplicates (on both queues, reported), never a
    loss.

    Ctrl-C stops at the next commit. Exit codes: 0 all selected messages moved (or none
    matched), 1 some failed or were skipped (they stayed on SOURCE), 5 a commit's outcome
    is unknown (check both queues).
    """
    _run_transfer(ctx, copy=False, **kw)


@click.command("copy")
@_transfer_options
def copy(ctx: click.Context, **kw: Any) -> None:
    """Copy the selected messages from SOURCE to DESTINATION (SOURCE is not changed).

    The copies keep MsgId and context (set-all) unless --context default (or --new-context;
    a copy cannot pass context: it never gets); --strip-dlh copies
    them without their dead-letter header. Puts are committed every --batch messages; a
    refused put is reported and the copy goes on (after 10 refusals in a row DESTINATION
    is not tried again). Copying to another queue manager is committed there only.
    Exit codes as for move.
    """
    _run_transfer(ctx, copy=True, **kw)


@click.command("resubmit")
@click.argument("queue")
@selection_options
@click.option("--to", "to", metavar="QUEUE",
              help="Where messages without a dead-letter header go (needed when several "
              "queues, or none, name QUEUE as their BOQNAME).")
@batch_option
@batch_bytes_option
@context_option
@operation_options
def resubmit_command(ctx: click.Context, queue: str, msgids: tuple[str, ...],
                     msgids_from: str | None, where: str | None, limit: int | None,
                     all_: bool, to: str | None, batch: int, batch_bytes: int,
                     context: str | None, dry_run: bool, yes: bool, as_json: bool) -> None:
    """Send the selected messages of QUEUE back where they were going.

    From a dead-letter queue: each message to the destination queue (and queue manager)
    of its dead-letter header, with the header removed and Format, Encoding and CCSID
    restored, context kept (--context chooses it). A message dead-lettered off a
    transmission queue (header Format MQXMIT) is unwrapped and sent to the queue its
    transmission header names.
    From a backout queue: to the queue whose BOQNAME names QUEUE (--to when several do).
    A message whose destination cannot take it stays where it is, with the reason.
    Same units of work as move. Exit codes as for move.
    """
    from mqconsole.ops.operation import Resubmit

    selection = build_selection(msgids, msgids_from, where, limit, all_)
    session = session_of(ctx)
    op = operation(session, Resubmit(queue, selection, to=to, batch=batch,
                                     batch_bytes=batch_bytes,
                                     new_context=context == "default",
                                     pass_context=context == "pass"))
    drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json)


COMMANDS = [move, copy, resubmit_command]

"""``mqconsole delete``: save the selected messages to a backup file, then remove them
(the :class:`~mqconsole.ops.operation.Delete` operation, driven by ``cli.operate``)."""

from __future__ import annotations

import click

from mqconsole.cli.operate import drive, operation
from mqconsole.ops.outputs import SAVED

from .common import (
    OutputPath,
    batch_bytes_option,
    batch_option,
    build_selection,
    operation_options,
    selection_options,
    session_of,
)


@click.command("delete")
@click.argument("queue")
@selection_options
@click.option("--backup", metavar="FILE", type=OutputPath(allow=(SAVED,)),
              help="Save to FILE (never overwritten) instead of a new file in the backup "
              "folder.")
@batch_option
@batch_bytes_option
@operation_options
def delete(ctx: click.Context, queue: str, msgids: tuple[str, ...], msgids_from: str | None,
           where: str | None, limit: int | None, all_: bool, backup: str | None, batch: int,
           batch_bytes: int, dry_run: bool, yes: bool, as_json: bool) -> None:
    """Delete the selected messages from QUEUE, saving them to a backup file first.

    The messages are written to a dmpmqmsg file (by default a new file
    <qmgr>-<queue>-<UTC time>.dmp in the backup folder of the state directory), synced to
    disk, and only then removed: each is got under a browse cursor in units of work of
    --batch messages, so only the messages saved are removed. If the file cannot be
    written nothing is removed. Load the file back with 'mqconsole load FILE QUEUE'.

    Ctrl-C stops at the next commit. Exit codes as for move.
    """
    from mqconsole.ops.operation import Delete

    selection = build_selection(msgids, msgids_from, where, limit, all_)
    session = session_of(ctx)
    op = operation(session, Delete(queue, selection, backup=backup,
                                   backup_dir=session.backup_dir, batch=batch,
                                   batch_bytes=batch_bytes))
    drive(session, op, yes=yes, dry_run=dry_run, as_json=as_json)


COMMANDS = [delete]

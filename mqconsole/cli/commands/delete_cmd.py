"""``mqconsole delete``: save the selected messages to a backup file, then remove them."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.exit_codes import ExitCode
from mqconsole.cli.output import emit_json, safe, say

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

if TYPE_CHECKING:
    from mqconsole.cli.session import Session
    from mqconsole.ops.result import OperationResult


def backup_dir_of(session: Session) -> Path:
    """Where deletes save messages: the config's ``backup_dir`` (--embedded: the default)."""
    from mqconsole import paths

    if session.embedded_path is not None:
        return paths.default_backup_dir()
    return Path(session.config.backup_dir)


def file_errors(fn):
    """Run ``fn`` turning file-format and target-exists errors into one-sentence usage errors."""
    from mqconsole.ops.dmpfile import DmpFileError, DmpWriteError
    from mqconsole.ops.savefile import TargetExistsError

    try:
        return fn()
    except (DmpFileError, DmpWriteError, TargetExistsError) as e:
        raise CliError(str(e)) from None


def exit_code_of(result: OperationResult) -> ExitCode:
    """As for move/copy: 5 unknown outcome; 1 when a selected message was not handled
    (failed, skipped, or left by a cancel); else 0 (a dry run always 0)."""
    if result.outcome_unknown:
        return ExitCode.UNKNOWN_OUTCOME
    if result.dry_run:
        return ExitCode.OK
    if result.failed or result.skipped or result.cancelled:
        return ExitCode.PARTIAL
    return ExitCode.OK


def interruptible():
    """A progress Control whose first Ctrl-C stops the operation at the next unit-of-work
    boundary (the result is still printed and journaled); a second Ctrl-C aborts at once."""
    import signal
    import threading

    control = progress_control()
    if threading.current_thread() is not threading.main_thread():
        return contextlib.nullcontext(control)

    @contextlib.contextmanager
    def installed():
        def handler(signum, frame):
            if control.cancelled:
                raise KeyboardInterrupt
            control.cancel.set()
            say("\nstopping after the current unit of work (Ctrl-C again to abort)")

        previous = signal.signal(signal.SIGINT, handler)
        try:
            yield control
        finally:
            signal.signal(signal.SIGINT, previous)

    return installed()


def finish(ctx: click.Context, result: OperationResult, *, as_json: bool, done_text: str,
           extra: dict[str, Any] | None = None) -> None:
    """Print the summary (JSON on stdout, or plan on stdout and narration on stderr) and set
    the exit code: 0 all handled, 1 some failed (and stayed where they were), 5 unknown."""
    if as_json:
        doc = result.to_json()
        if result.dry_run:
            doc["plan"] = result.plan
        doc.update(extra or {})
        emit_json(doc)
    else:
        if result.dry_run:
            for step in result.plan:
                click.echo(safe(f"{step.get('position', '-'):>6}  {step.get('msgid', '')}  "
                                f"{step.get('action', '')}"))
            say(f"dry run: {done_text}; nothing was changed")
        else:
            say(done_text)
        for f in result.failed:
            say(safe(f"  failed: {f.msgid} at position {f.position}: {f.reason_name} "
                     f"({f.reason}){' - ' + f.detail if f.detail else ''}"))
        for w in result.warnings:
            say(safe(f"warning: {w}"))
        if result.cancelled:
            say("cancelled: what was committed stays committed")
    code = exit_code_of(result)
    if code != ExitCode.OK:
        # SystemExit, not ctx.exit: main() runs click with standalone_mode=False, where
        # click turns ctx.exit's code into a return value that main() does not use
        raise SystemExit(int(code))


@click.command("delete")
@click.argument("queue")
@selection_options
@click.option("--backup", metavar="FILE", type=click.Path(dir_okay=False),
              help="Save to FILE (never overwritten) instead of a new file in the backup "
              "folder.")
@batch_option
@dry_run_option
@yes_option
@json_option
@click.pass_context
def delete(ctx: click.Context, queue: str, msgids: tuple[str, ...], msgids_from: str | None,
           where: str | None, limit: int | None, all_: bool, backup: str | None, batch: int,
           dry_run: bool, yes: bool, as_json: bool) -> None:
    """Delete the selected messages from QUEUE, saving them to a backup file first.

    The messages are written to a dmpmqmsg file (by default a new file
    <qmgr>-<queue>-<UTC time>.dmp in the backup folder of the state directory), synced to
    disk, and only then removed: each is got under a browse cursor in units of work of
    --batch messages, so only the messages saved are removed. If the file cannot be
    written nothing is removed. Load the file back with 'mqconsole load FILE QUEUE'.
    """
    from mqconsole.ops.delete import delete_messages

    selection = build_selection(msgids, msgids_from, where, limit, all_)
    if backup is not None:
        from mqconsole.ops.savefile import refuse_unsafe_target

        file_errors(lambda: refuse_unsafe_target(backup))  # before any prompt
    session = session_of(ctx)
    confirm_change(session, f"deleting {selection.describe()} from {queue}", yes=yes,
                   dry_run=dry_run)
    qm = session.connect()
    with interruptible() as control:
        result = file_errors(lambda: delete_messages(
            qm, queue, selection, backup=backup, backup_dir=backup_dir_of(session),
            dry_run=dry_run, batch=batch, control=control))
    journal_result(session, result, details={"selection": selection.describe()})
    if result.selected == 0:
        text = f"no message of {queue} matched ({selection.describe()}): nothing deleted"
    elif dry_run:
        text = f"would save {result.selected} message(s) of {queue} to a backup file and " \
               "delete them"
    else:
        text = f"deleted {result.done} of {result.selected} message(s) from {queue}; " \
               f"backup: {result.backup}"
    finish(ctx, result, as_json=as_json, done_text=text)


COMMANDS = [delete]

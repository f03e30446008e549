"""``mqconsole move``, ``mqconsole copy`` and ``mqconsole resubmit``.

Thin: check the queues exist, ask (or require --yes), run ``ops.transfer`` /
``ops.resubmit`` with a progress line and Ctrl-C as "stop at the next commit", record the
result in the journal, print a summary (or ``--json``), and exit 0 (all selected messages
handled, or none matched), 1 (some failed or were skipped: they stayed where they were) or
5 (a commit's outcome is unknown).
"""

from __future__ import annotations

import contextlib
import gc
from collections import defaultdict
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
    from mqconsole.backends.base import QueueManager
    from mqconsole.cli.session import Session
    from mqconsole.ops.result import Control, OperationResult


# -- helpers ---------------------------------------------------------------------------------

def _check_queue(qm: QueueManager, name: str, role: str) -> None:
    """One sentence and exit 2 for a queue that is not there (before anything changes)."""
    from mqconsole.mq.errors import MQError

    try:
        qm.inquire_queue(name)
    except MQError as e:
        if e.reason == 2085:
            raise CliError(f"the {role} queue {name} does not exist on {qm.name}") from None
        raise


def _open_destination(session: Session, embedded: str | None, profile: str | None
                      ) -> QueueManager | None:
    if embedded and profile:
        raise CliError("give --dest-embedded or --dest-profile, not both")
    if embedded:
        from pathlib import Path

        from mqconsole.backends.open import open_embedded

        if embedded != ":memory:" and not Path(embedded).expanduser().exists():
            raise CliError(f"no embedded queue manager at {embedded}", ExitCode.UNAVAILABLE)
        return open_embedded(str(Path(embedded).expanduser()))
    if profile:
        from mqconsole.backends.open import open_profile

        prof = session.config.profile(profile)
        if prof.read_only:
            raise CliError(f"profile {prof.name} is read-only: moving messages to it refused",
                           ExitCode.REFUSED)
        return open_profile(prof)
    return None


@contextlib.contextmanager
def _ctrl_c_cancels(control: Control):
    """The first Ctrl-C stops at the next commit (what is committed stays); a second one
    interrupts at once (the open unit of work is backed out)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        if control.cancel.is_set():
            raise KeyboardInterrupt
        control.cancel.set()
        say("\nstopping at the next commit (Ctrl-C again to stop at once)")

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _fewer_collections():
    """A move allocates a few short-lived objects per message and keeps little; the cyclic
    collector running every 700 allocations, its older generations walking everything
    imported at start-up, is time lost. Freeze what exists (gc.freeze) and collect the
    young generation less often, for the operation only."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(threshold[0], 20_000), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def exit_code_of(result: OperationResult) -> ExitCode:
    from mqconsole.ops.transfer import stopped_early

    if result.outcome_unknown:
        return ExitCode.UNKNOWN_OUTCOME
    if result.dry_run:
        return ExitCode.OK
    if result.failed or result.skipped or stopped_early(result):
        return ExitCode.PARTIAL
    return ExitCode.OK


def summary_lines(result: OperationResult, verb: str) -> list[str]:
    """What went where and what failed why, for a human (failures grouped by reason)."""
    src = result.source or "?"
    lines = []
    if result.selected == 0:
        lines.append(f"no message on {src} matched the selection: nothing was {verb}")
        return lines
    if result.dry_run:
        lines.append(f"dry run: {len(result.plan)} of {result.selected} selected message(s) "
                     f"would be {verb}; nothing was changed")
        would = defaultdict(int)
        for step in result.plan:
            if "would_fail" in step:
                w = step["would_fail"]
                would[(w["reason_name"], w["reason"], step["destination"])] += 1
        for (name, code, dest), n in sorted(would.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {n} would likely fail on {dest}: {name} ({code})")
        return lines
    lines.append(f"{verb} {result.done} of {result.selected} selected message(s) from {src}")
    width = max((len(q) for q in result.moved_to), default=0)
    for queue, n in sorted(result.moved_to.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  -> {queue.ljust(width)}  {n}")
    if result.failed:
        stayed = "outcome unknown" if result.outcome_unknown else f"they stayed on {src}"
        lines.append(f"failed: {len(result.failed)} ({stayed})")
        groups: dict[tuple[str, int, str | None], list] = defaultdict(list)
        for f in result.failed:
            groups[(f.reason_name, f.reason, f.destination)].append(f)
        for (name, code, dest), fs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            where = f" on {dest}" if dest else ""
            example = fs[0]
            lines.append(f"  {len(fs)} x {name} ({code}){where}, e.g. {example.msgid} at "
                         f"position {example.position}")
    if result.skipped:
        lines.append(f"skipped: {result.skipped} (they stayed on {src}; see the warnings)")
    for w in result.warnings:
        lines.append(f"warning: {w}")
    if result.cancelled:
        lines.append("cancelled: what was committed stays committed")
    return lines


def finish(result: OperationResult, *, as_json: bool, verb: str) -> None:
    if as_json:
        doc: dict[str, Any] = result.to_json()
        if result.dry_run:
            doc["plan"] = result.plan
        emit_json(doc)
    elif result.dry_run:
        for step in result.plan:
            note = ""
            if "would_fail" in step:
                note = f"  (would likely fail: {step['would_fail']['reason_name']})"
            changes = "; ".join(step["changes"])
            click.echo(safe(f"{step['position']:>7}  {step['msgid']}  -> {step['destination']}"
                            f"{'  ' + changes if changes else ''}{note}"))
    for line in summary_lines(result, verb):
        say(safe(line))
    code = exit_code_of(result)
    if code != ExitCode.OK:
        # SystemExit, not ctx.exit: main() runs click with standalone_mode=False
        raise SystemExit(int(code))


# -- move and copy -----------------------------------------------------------------------------

def _transfer_options(fn):
    opts = [
        click.argument("source"),
        click.argument("destination"),
        selection_options,
        batch_option,
        click.option("--new-context", is_flag=True,
                     help="Give the messages mqconsole's context (user, time, application) "
                     "instead of keeping theirs."),
        click.option("--strip-dlh", is_flag=True,
                     help="Remove a dead-letter header and restore Format, Encoding and "
                     "CCSID from it (messages without one go unchanged)."),
        click.option("--dest-embedded", metavar="PATH",
                     help="The destination is on another embedded queue manager (not "
                     "atomic: see above)."),
        click.option("--dest-profile", metavar="NAME",
                     help="The destination is on the queue manager of this profile (not "
                     "atomic: see above)."),
        dry_run_option,
        yes_option,
        json_option,
        click.pass_context,
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def _run_transfer(ctx: click.Context, *, copy: bool, source: str, destination: str,
                  msgids: tuple[str, ...], msgids_from: str | None, where: str | None,
                  limit: int | None, all_: bool, batch: int, new_context: bool,
                  strip_dlh: bool, dest_embedded: str | None, dest_profile: str | None,
                  dry_run: bool, yes: bool, as_json: bool) -> None:
    from mqconsole.ops.transfer import TransferError, transfer

    verb = "copied" if copy else "moved"
    selection = build_selection(msgids, msgids_from, where, limit, all_)
    session = session_of(ctx)
    qm = session.connect()
    dest_qm = _open_destination(session, dest_embedded, dest_profile)
    try:
        _check_queue(qm, source, "source")
        _check_queue(dest_qm or qm, destination, "destination")
        if dest_qm is None and source == destination:
            raise CliError(f"{source} is both the source and the destination")
        where_to = destination if dest_qm is None else f"{destination} on {dest_qm.name}"
        confirm_change(session, f"{'copying' if copy else 'moving'} {selection.describe()} "
                       f"from {source} to {where_to}", yes=yes, dry_run=dry_run)
        control = progress_control(not as_json)
        try:
            with _ctrl_c_cancels(control), _fewer_collections():
                result = transfer(qm, source, destination, selection, copy=copy, batch=batch,
                                  new_context=new_context, strip_dlh=strip_dlh,
                                  dry_run=dry_run, control=control, dest_qm=dest_qm)
        except TransferError as e:
            raise CliError(str(e)) from None
        details = {"selection": selection.describe(), "batch": batch,
                   "new_context": new_context, "strip_dlh": strip_dlh}
        if dest_qm is not None:
            details["destination_qmgr"] = dest_qm.name
        journal_result(session, result, details=details)
    finally:
        if dest_qm is not None:
            with contextlib.suppress(Exception):
                dest_qm.close()
    finish(result, as_json=as_json, verb=verb)


@click.command("move")
@_transfer_options
def move(ctx: click.Context, **kw: Any) -> None:
    """Move the selected messages from SOURCE to DESTINATION.

    Each message is put to DESTINATION under syncpoint and only then got from SOURCE
    (the very message browsed, even among duplicate MsgIds), committing every --batch
    messages: a message that DESTINATION refuses (full, put-inhibited, not authorized, too
    long) stays on SOURCE with the reason reported, and after 10 refusals in a row
    DESTINATION is not tried again (the rest are skipped). A failed get or commit is backed
    out and redone once. The messages keep their context (set-all) unless --new-context.
    Messages of a group move together or not at all.

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

    The copies keep MsgId and context (set-all) unless --new-context; --strip-dlh copies
    them without their dead-letter header. Puts are committed every --batch messages; a
    refused put is reported and the copy goes on (after 10 refusals in a row DESTINATION
    is not tried again). Copying to another queue manager is committed there only.
    Exit codes as for move.
    """
    _run_transfer(ctx, copy=True, **kw)


# -- resubmit ----------------------------------------------------------------------------------

@click.command("resubmit")
@click.argument("queue")
@selection_options
@click.option("--to", "to", metavar="QUEUE",
              help="Where messages without a dead-letter header go (needed when several "
              "queues, or none, name QUEUE as their BOQNAME).")
@batch_option
@dry_run_option
@yes_option
@json_option
@click.pass_context
def resubmit_command(ctx: click.Context, queue: str, msgids: tuple[str, ...],
                     msgids_from: str | None, where: str | None, limit: int | None,
                     all_: bool, to: str | None, batch: int, dry_run: bool, yes: bool,
                     as_json: bool) -> None:
    """Send the selected messages of QUEUE back where they were going.

    From a dead-letter queue: each message to the destination queue (and queue manager)
    of its dead-letter header, with the header removed and Format, Encoding and CCSID
    restored, context kept. A message dead-lettered off a transmission queue (header
    Format MQXMIT) is unwrapped and sent to the queue its transmission header names.
    From a backout queue: to the queue whose BOQNAME names QUEUE (--to when several do).
    A message whose destination cannot take it stays where it is, with the reason.
    Same units of work as move. Exit codes as for move.
    """
    from mqconsole.ops.resubmit import OriginError, resubmit
    from mqconsole.ops.transfer import TransferError

    selection = build_selection(msgids, msgids_from, where, limit, all_)
    session = session_of(ctx)
    qm = session.connect()
    _check_queue(qm, queue, "source")
    if to is not None:
        _check_queue(qm, to, "--to")
    confirm_change(session, f"resubmitting {selection.describe()} from {queue}", yes=yes,
                   dry_run=dry_run)
    control = progress_control(not as_json)
    destinations: dict[str, str] = {}
    try:
        with _ctrl_c_cancels(control):
            result = resubmit(qm, queue, selection, to=to, batch=batch, dry_run=dry_run,
                              control=control, done_destinations=destinations)
    except (OriginError, TransferError) as e:
        raise CliError(str(e)) from None
    journal_result(session, result, details={"selection": selection.describe(),
                                             "batch": batch, "to": to},
                   done_destinations=destinations)
    finish(result, as_json=as_json, verb="resubmitted")


COMMANDS = [move, copy, resubmit_command]

"""Driving an operation from the command line, once for every command: refuse on a
read-only profile, report bad input, confirm (or require --yes), run in the foreground with
a progress line and Ctrl-C as cancel, render the summary, exit with its code.

A command module only builds the :class:`~mqconsole.ops.operation.Operation` from its
arguments and calls :func:`drive`.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.output import safe, say
from mqconsole.ops.exit_codes import ExitCode

if TYPE_CHECKING:
    from mqconsole.backends.base import QueueManager
    from mqconsole.cli.session import Session
    from mqconsole.ops.operation import Operation, Summary
    from mqconsole.ops.result import ProgressFn


def confirm_change(session: Session, what: str, *, yes: bool, dry_run: bool,
                   cautions: Sequence[str] = ()) -> None:
    """Refuse on a read-only profile; without a terminal require --yes; else ask, the
    ``cautions`` repeated in the question. A dry run changes nothing, so it is neither
    refused nor asked."""
    if dry_run:
        return
    session.refuse_if_read_only(what)
    if yes:
        return
    if not sys.stdin.isatty():
        raise CliError(f"{what}: without a terminal a change needs --yes (or --dry-run)",
                       ExitCode.REFUSED)
    notes = "".join(f" (note: {safe(c)})" for c in cautions)
    if not click.confirm(f"{what}?{notes}", err=True, default=False):
        raise CliError(f"{what}: not confirmed, nothing changed", ExitCode.REFUSED)


def progress_line(enabled: bool = True) -> ProgressFn | None:
    """A progress line on stderr when it is a terminal (None otherwise)."""
    if not enabled or not sys.stderr.isatty():
        return None
    last = [0.0]
    ended = [False]  # the full bar and its line end are written once

    def draw(done: int, total: int | None) -> None:
        now = time.monotonic()
        if ended[0] or (now - last[0] < 0.1 and (total is None or done < total)):
            return
        last[0] = now
        if total:
            width = 30
            filled = int(width * min(done, total) / total)
            sys.stderr.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {done}/{total}")
        else:
            sys.stderr.write(f"\r{done} message{'' if done == 1 else 's'}")
        if total is not None and done >= total:
            sys.stderr.write("\n")
            ended[0] = True
        sys.stderr.flush()

    return draw


STOPPING = "stopping at the next commit (Ctrl-C again to stop at once)"


class Interrupted(KeyboardInterrupt):
    """The operator's Ctrl-C (exit 130): marked so that it passes through a plugin's call,
    where a plugin's own KeyboardInterrupt is that plugin's failure
    (``mqconsole.plugins.host.operators_stop``)."""

    mqconsole_stop = True


class Terminated(Interrupted):
    """SIGTERM, stopping at once: a second one, or the first while a plugin's code runs
    (it may never return); the open unit of work is backed out (exit 143)."""

    code = ExitCode.TERMINATED


class HungUp(Terminated):
    """A second SIGHUP: stop at once, the open unit of work backed out (exit 129)."""

    code = ExitCode.HANGUP


SIGHUP = getattr(signal, "SIGHUP", None)  # not on Windows
_NAMES = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}
if SIGHUP is not None:
    _NAMES[SIGHUP] = "SIGHUP"


@dataclass
class StopRequest:
    """Which signal asked the operation to stop at the next commit (None: none did);
    ``service``: SIGTERM is the command's normal end (see :func:`ctrl_c_cancels`)."""

    signum: int | None = None
    service: bool = False

    @property
    def exit_code(self) -> ExitCode | None:
        """The code a stop by this signal gives (None: the summary's own): 143 after SIGTERM,
        129 after SIGHUP (the terminal went away: never a service's normal end), a single
        Ctrl-C the summary's own (1); for a service (the dead-letter handler) SIGTERM and
        Ctrl-C are its normal end: 0, in every WAIT mode alike."""
        if SIGHUP is not None and self.signum == SIGHUP:
            return ExitCode.HANGUP
        if self.service and self.signum in (signal.SIGTERM, signal.SIGINT):
            return ExitCode.OK
        if self.signum == signal.SIGTERM:
            return ExitCode.TERMINATED
        return None


@contextlib.contextmanager
def ctrl_c_cancels(cancel: threading.Event, *, sigterm: bool = False,
                   note: str = STOPPING,
                   on_stop: Callable[[str], None] | None = None) -> Iterator[StopRequest]:
    """The CLI's one Ctrl-C, SIGTERM and SIGHUP path: the first Ctrl-C, SIGTERM or SIGHUP
    (a terminal closed: as SIGTERM, exit 129; a second SIGHUP stops at once) sets ``cancel``
    (the operation stops at the next commit; what is committed stays, the journal and the
    summary are written, and after SIGTERM the exit code is 143); a second one stops at
    once, the open unit of work backed out (KeyboardInterrupt: exit 130; a second SIGTERM
    :class:`Terminated`: exit 143). ``sigterm``: SIGTERM is the command's normal end (a
    long-lived command ended by its service manager, the dead-letter handler): it exits with
    its summary's code, and a second SIGTERM changes nothing. ``on_stop(name)`` is told
    which signal asked to stop ("Ctrl-C", "SIGTERM", "SIGHUP"): the journal's end record
    says it."""
    stop = StopRequest(service=sigterm)
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum, frame):
        from mqconsole.plugins.host import plugin_running

        if stop.signum is not None:
            if SIGHUP is not None and signum == SIGHUP:
                raise HungUp
            if signum != signal.SIGTERM:
                raise Interrupted
            if not sigterm or plugin_running() is not None:
                raise Terminated
            return  # a service already stopping: a second SIGTERM changes nothing
        stop.signum = signum
        if on_stop is not None:
            on_stop(_NAMES.get(signum, str(signum)))
        cancel.set()
        if plugin_running() is not None and signum != signal.SIGINT:
            # a plugin's check may never return to reach the next commit: stop at once
            raise HungUp if SIGHUP is not None and signum == SIGHUP else Terminated
        with contextlib.suppress(OSError):  # after a hangup the terminal may be gone
            if signum == signal.SIGINT:
                say(f"\n{note}")
            elif SIGHUP is not None and signum == SIGHUP:
                say("\nSIGHUP: stopping at the next commit (SIGHUP again to stop at once)")
            elif not sigterm:
                say("\nSIGTERM: stopping at the next commit (SIGTERM again to stop at once)")

    caught = [signal.SIGINT, signal.SIGTERM, *([SIGHUP] if SIGHUP is not None else [])]
    previous = {sig: signal.signal(sig, handler) for sig in caught}
    try:
        yield stop
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """An operation allocates a few short-lived objects per message and keeps little; the
    cyclic collector running every 700 allocations, its older generations walking
    everything imported at start-up, is time lost. Freeze what exists (gc.freeze) and
    collect the young generation less often, for the operation only (a one-shot process)."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(threshold[0], 20_000), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def run_here(op: Operation, qm: QueueManager, *, dry_run: bool, progress: bool = True,
             sigterm: bool = False, note: str = STOPPING) -> Summary:
    """Run ``op`` in the foreground: a progress line, Ctrl-C (and with ``sigterm``
    SIGTERM) as cancel."""
    cancel = threading.Event()

    def stopped_by(name: str) -> None:
        op.face_details["stopped_by"] = name  # in the end record's details

    with ctrl_c_cancels(cancel, sigterm=sigterm, note=note, on_stop=stopped_by) as stop, \
            fewer_collections():
        summary = op.run(qm, progress=progress_line(progress), cancel=cancel, dry_run=dry_run)
    if stop.exit_code is not None and summary.exit_code not in (ExitCode.UNKNOWN_OUTCOME,
                                                                ExitCode.JOURNAL_FAILED):
        summary.exit_code = stop.exit_code
    return summary


Renderer = Callable[["Summary"], None]


def drive(session: Session, op: Operation, *, yes: bool, dry_run: bool, as_json: bool,
          qm: QueueManager | None = None, render: Renderer | None = None,
          sigterm: bool = False, note: str = STOPPING, confirm: bool = True,
          ask: bool = True) -> Summary:
    """Refuse (read-only), validate, confirm, run, render, exit: a command's whole life.
    ``render``: a command's own rendering of the summary (default ``cli.summary.render``);
    ``sigterm`` and ``note``: see :func:`ctrl_c_cancels`; ``confirm=False`` for what
    changes no queue (a save) or what its author says is safe (an action that is not
    dangerous): neither refused on a read-only profile nor asked; ``ask=False`` for what
    only adds (a put, a queue define): refused on a read-only profile, never asked."""
    from mqconsole.cli import summary as summaries

    qm = _ready(session, op, qm, yes=yes, dry_run=dry_run, confirm=confirm, ask=ask)
    summary = run_here(op, qm, dry_run=dry_run, progress=not as_json, sigterm=sigterm,
                       note=note)
    if render is None:
        summaries.render(summary, as_json=as_json)
    else:
        render(summary)
        summaries.say_journal_problem(summary)
    if summary.exit_code != ExitCode.OK:
        # SystemExit, not ctx.exit: main() runs click with standalone_mode=False
        raise SystemExit(int(summary.exit_code))
    return summary


def _ready(session: Session, op: Operation, qm: QueueManager | None, *, yes: bool,
           dry_run: bool, confirm: bool, ask: bool = True) -> QueueManager:
    """Refuse (read-only), connect, validate, warn, confirm: everything before a change."""
    if confirm and not dry_run:
        session.refuse_if_read_only(op.describe().what)
    qm = qm or session.connect()
    op.validate(qm)
    cautions = op.cautions(qm)
    for caution in cautions:
        say(f"warning: {safe(caution)}")
    if confirm and ask:  # validation may have resolved what it works on
        what = op.describe().what
        if not (yes or dry_run):
            what += _count_of_all(op, qm)
        confirm_change(session, what, yes=yes, dry_run=dry_run, cautions=cautions)
    return qm


def _count_of_all(op: Operation, qm: QueueManager) -> str:
    """For the question about --all: how many messages that is now (the depth)."""
    selection = getattr(op.spec, "selection", None)
    source = op.describe().source
    if selection is None or not selection.all or not selection.everything or not source:
        return ""
    try:
        depth = qm.inquire_queue(source).depth
    except Exception:  # the question is asked anyway; the count is a courtesy
        return ""
    limit = selection.limit
    if limit is not None and limit < depth:
        return f" (the first {limit:,} of the {depth:,} messages on {source})"
    return f" ({depth:,} message{'' if depth == 1 else 's'} on {source} now)"


def drive_cycles(session: Session, op: Operation, *, yes: bool, as_json: bool,
                 render: Renderer, note: str = STOPPING) -> None:
    """A long-lived operation (the dead-letter handler's WAIT(YES) or WAIT(n)): made ready
    as :func:`drive` does, then one operation per cycle of work
    (``ops.operation.keep_running``), each rendered as it ends (``--json``: one line per
    cycle) until SIGTERM or Ctrl-C, its normal end, or the cycles end by themselves; exits
    with the run's code (``ops.exit_codes.exit_code_of_run``)."""
    import json

    from mqconsole.ops.exit_codes import exit_code_of_run
    from mqconsole.ops.operation import keep_running

    qm = _ready(session, op, None, yes=yes, dry_run=False, confirm=True)

    def show(summary: Summary) -> None:
        if as_json:
            click.echo(json.dumps(summary.to_json(), ensure_ascii=True, default=str))
        else:
            render(summary)

    cancel = threading.Event()

    def stopped_by(name: str) -> None:
        op.face_details["stopped_by"] = name  # the end record of the cycle in hand says it

    with ctrl_c_cancels(cancel, sigterm=True, note=note, on_stop=stopped_by) as stop:
        summaries = keep_running(op, qm, cancel=cancel, on_summary=show,
                                 progress=progress_line(not as_json))
    # stopped: by a signal (a journal that failed sets ``cancel`` too, and is exit 6)
    code = exit_code_of_run([s.exit_code for s in summaries], stopped=stop.signum is not None)
    if stop.exit_code is not None and code not in (ExitCode.UNKNOWN_OUTCOME,
                                                   ExitCode.JOURNAL_FAILED):
        code = stop.exit_code
    if code != ExitCode.OK:
        raise SystemExit(int(code))


def operation(session: Session, kind, *, details: dict | None = None) -> Operation:
    """The operation of ``kind`` for this session: its journal, profile and plugins."""
    from mqconsole.ops.operation import Operation

    return Operation(kind, journal=session.journal(), profile=session.profile.name,
                     plugins=session.plugins, details=details)


__all__ = ["HungUp", "Interrupted", "StopRequest", "Terminated", "confirm_change",
           "ctrl_c_cancels", "drive",
           "drive_cycles", "fewer_collections", "operation", "progress_line", "run_here"]

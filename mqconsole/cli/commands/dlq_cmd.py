"""``mqconsole dlq-handler``: a dead-letter queue processed by a runmqdlq rules table
(docs/dlq-handler.md). A thin driver: the table is read here, the run is the
:class:`~mqconsole.ops.operation.DlqPass` operation driven by ``cli.operate`` (confirm, run
with SIGTERM/SIGINT as stop, journal, plugins, exit code; a long-lived one cycle by cycle),
the report laid out by ``cli.dlq_report``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from mqconsole.cli.dlq_report import render_report, show_check
from mqconsole.cli.errors import CliError
from mqconsole.cli.exit_codes import ExitCode
from mqconsole.ops.outputs import SQLITE

from .common import (
    InputPath,
    OutputPath,
    batch_bytes_option,
    batch_option,
    json_option,
    session_of,
    yes_option,
)

if TYPE_CHECKING:
    from mqconsole.ops.dlq.rules import RulesTable

STOPPING = ("stopping: the open unit of work is backed out at the next message (its "
            "messages stay on the queue); Ctrl-C again to stop at once")


def load_rules(path: str, *, every: bool = False) -> RulesTable:
    """The parsed table, or a CliError (exit 2) with the first problem's sentence (and how
    many more); ``every`` (--check): then each further problem on a line of its own."""
    from mqconsole.ops.dlq.rules import RulesError, read_table

    try:
        return read_table(path)
    except RulesError as e:
        more = "".join(f"\n  {p.sentence(path)}" for p in e.problems[1:]) if every else ""
        raise CliError(str(e) + more, ExitCode.USAGE) from None
    except OSError as e:
        raise CliError(f"cannot read the rules table {path}: {e.strerror or e}",
                       ExitCode.USAGE) from None


@click.command("dlq-handler")
@click.option("--rules", "rules_file", required=True, metavar="FILE", type=InputPath(),
              help="The rules table (runmqdlq's syntax: docs/dlq-handler.md).")
@click.option("--check", is_flag=True, help="Only validate the table; touch no queue.")
@click.option("--input", "input_q", metavar="QUEUE",
              help="The queue to process (else the table's INPUTQ, else the queue "
              "manager's dead-letter queue).")
@click.option("--once", is_flag=True, help="One pass over the queue, then end (whatever "
              "WAIT says).")
@click.option("--wait", "wait_seconds", type=click.IntRange(min=0), default=None,
              metavar="SECONDS", help="Instead of the table's WAIT: keep going until nothing "
              "is processable for SECONDS (0: WAIT(NO)).")
@click.option("--retry-interval", type=click.IntRange(min=0), default=None,
              metavar="SECONDS", help="Instead of the table's RETRYINT.")
@click.option("--attempts-file", metavar="FILE", default=None,
              type=OutputPath(allow=(SQLITE,)),
              help="Where attempt counts are kept (default: dlq-attempts.sqlite in the "
              "state folder; never a queue manager's or another of mqconsole's files).")
@click.option("--dry-run", is_flag=True, help="List each message, the rule that applies "
              "and what would happen; change nothing.")
@batch_option
@batch_bytes_option
@yes_option
@json_option
@click.pass_context
def dlq_handler(ctx: click.Context, rules_file: str, check: bool, input_q: str | None,
                once: bool, wait_seconds: int | None, retry_interval: int | None,
                attempts_file: str | None, dry_run: bool, batch: int, batch_bytes: int,
                yes: bool, as_json: bool) -> None:
    """Process a dead-letter queue by a runmqdlq rules table.

    \b
    mqconsole dlq-handler --rules FILE --check [--json]
    mqconsole dlq-handler --rules FILE [--input Q] [--once | --wait SECONDS] [--dry-run]
                          [--retry-interval SECONDS] [--batch N] [--batch-bytes SIZE]
                          [--yes] [--json]

    Rules are tried top-down; a rule applies when its pattern matches and the RETRY values
    of the matching rules so far exceed the attempts already made for the message. Attempt
    counts are kept in a file and survive a restart. Each message is put and got in one
    unit of work. SIGTERM or SIGINT ends the handler cleanly: the open unit of work is
    backed out. --check validates the table without connecting (exit 2 naming the line,
    column and what was expected). Exit codes: 0 done (or stopped by SIGTERM or Ctrl-C, in
    every WAIT mode), 1 some messages failed (they stayed on the queue), 2 bad table or
    input, 5 a commit's outcome unknown, 6 the journal could not be written, 129 stopped
    by SIGHUP.
    """
    rules_table = load_rules(rules_file, every=check)
    if check:
        show_check(rules_file, rules_table, as_json)
        return
    if once and wait_seconds is not None:
        raise CliError("--once and --wait go one at a time: one pass, or passes until "
                       "nothing is processable for SECONDS")
    from mqconsole.cli.operate import drive, drive_cycles, operation
    from mqconsole.ops.dlq.attempts import default_path
    from mqconsole.ops.operation import DlqPass

    session = session_of(ctx)
    kind = DlqPass(rules_table, rules_file, input_q=input_q, once=once,
                   wait=-1 if wait_seconds is None else wait_seconds,
                   retry_interval=retry_interval, batch=batch, batch_bytes=batch_bytes,
                   attempts_file=attempts_file or str(default_path()))
    if kind.long_lived and not dry_run:
        kind.cycle = True
        drive_cycles(session, operation(session, kind), yes=yes, as_json=as_json,
                     render=lambda s: render_report(s, rules_table, as_json=False),
                     note=STOPPING)
        return
    # a dry run changes nothing: a read-only profile plans, as the console's DLQ screen does
    drive(session, operation(session, kind), yes=yes, dry_run=dry_run, as_json=as_json,
          render=lambda s: render_report(s, rules_table, as_json=as_json), sigterm=True,
          note=STOPPING, confirm=not dry_run)


COMMANDS = [dlq_handler]

"""``mqconsole dlq-handler``: a dead-letter queue processed by a runmqdlq rules table
(docs/dlq-handler.md)."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.exit_codes import ExitCode
from mqconsole.cli.output import emit_json, safe, say, table

from .common import batch_option, confirm_change, json_option, session_of, yes_option

ATTEMPTS_FILE_NAME = "dlq-attempts.sqlite"


def load_rules(path: str):
    """The parsed table, or a CliError (exit 2) with the first problem's sentence."""
    from mqconsole.ops.dlq.rules import RulesError, read_table

    try:
        return read_table(path)
    except RulesError as e:
        raise CliError(str(e), ExitCode.USAGE) from None
    except OSError as e:
        raise CliError(f"cannot read the rules table {path}: {e.strerror or e}",
                       ExitCode.USAGE) from None


def default_attempts_file() -> str:
    from mqconsole.paths import user_state_dir

    return str(user_state_dir() / ATTEMPTS_FILE_NAME)


@contextlib.contextmanager
def stop_on_signals(cancel) -> Iterator[None]:
    """SIGTERM and SIGINT set ``cancel`` (the handler backs out its open unit of work and
    ends) instead of killing the process mid-call."""
    def handler(signum, frame) -> None:
        cancel.set()

    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)


def _show_check(rules_file: str, rules_table, as_json: bool) -> None:
    if as_json:
        emit_json(rules_table.to_dict())
        return
    control = rules_table.control
    wait = "YES" if control.wait is None else "NO" if control.wait == 0 else control.wait
    n = len(rules_table.rules)
    say(f"{rules_file}: a valid rules table: {n} rule{'s' if n != 1 else ''}, "
        f"RETRYINT({control.retry_interval}) WAIT({wait})")
    rows = [[r.number, r.line, r.pattern or "*", r.describe(), r.retry, r.put_aut]
            for r in rules_table.rules]
    click.echo(table(["RULE", "LINE", "PATTERN", "ACTION", "RETRY", "PUTAUT"], rows,
                     max_width={2: 60}))


def show_report(report, *, as_json: bool) -> None:
    """The report: JSON, or the per-rule table on stdout and the story on stderr."""
    if as_json:
        doc = report.to_json()
        doc["result"] = report.result.to_json()
        emit_json(doc)
        return
    res = report.result
    if report.settings.dry_run:
        rows = [[m.msg_id, m.rule or "-", m.action or "-", m.attempts, m.outcome]
                for m in report.messages]
        click.echo(table(["MSGID", "RULE", "ACTION", "ATTEMPTS", "WHAT WOULD HAPPEN"], rows,
                         max_width={4: 80}))
    else:
        by_rule = {r.number: r for r in report.table.rules}
        rows = [[n, by_rule[n].line, by_rule[n].describe(), c.matched, c.done, c.failed]
                for n, c in sorted(report.rules.items())]
        click.echo(table(["RULE", "LINE", "ACTION", "MATCHED", "DONE", "FAILED"], rows,
                         max_width={2: 60}))
    counts: dict[str, int] = {}
    for m in report.messages:  # "would retry to APP.IN (header removed) — …" → "would retry"
        what = m.outcome.split(" — ")[0].split(" (")[0].split(":")[0]
        what = what.split(" to ")[0]
        counts[what] = counts.get(what, 0) + 1
    parts = ", ".join(f"{n} {what}" for what, n in sorted(counts.items(), key=lambda x: -x[1]))
    passes = f"{report.passes} pass{'es' if report.passes != 1 else ''}"
    say(f"dlq-handler: {safe(report.settings.queue)} on {safe(report.qmgr)}: {passes}"
        + (f" (dry run): {parts}" if report.settings.dry_run else f": {parts or 'nothing'}"))
    groups: dict[tuple[str, str], list[str]] = {}
    for f in res.failed:
        groups.setdefault((f.destination or "-", f.reason_name), []).append(f.msgid)
    for (destination, reason), ids in sorted(groups.items(), key=lambda x: -len(x[1])):
        say(f"  {len(ids)} failed -> {safe(destination)}: {reason} (stayed on the queue; "
            f"first {ids[0]})")
    for w in res.warnings:
        say(f"warning: {safe(w)}")


def exit_code_of(report) -> ExitCode:
    res = report.result
    if res.outcome_unknown:
        return ExitCode.UNKNOWN_OUTCOME
    if report.settings.dry_run:
        return ExitCode.OK
    if res.failed or res.stopped_early:
        return ExitCode.PARTIAL
    return ExitCode.OK


@click.command("dlq-handler")
@click.option("--rules", "rules_file", required=True, metavar="FILE",
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
              help="Where attempt counts are kept (default: dlq-attempts.sqlite in the "
              "state folder).")
@click.option("--dry-run", is_flag=True, help="List each message, the rule that applies "
              "and what would happen; change nothing.")
@batch_option
@yes_option
@json_option
@click.pass_context
def dlq_handler(ctx: click.Context, rules_file: str, check: bool, input_q: str | None,
                once: bool, wait_seconds: int | None, retry_interval: int | None,
                attempts_file: str | None, dry_run: bool, batch: int, yes: bool,
                as_json: bool) -> None:
    """Process a dead-letter queue by a runmqdlq rules table.

    \b
    mqconsole dlq-handler --rules FILE --check [--json]
    mqconsole dlq-handler --rules FILE [--input Q] [--once | --wait SECONDS] [--dry-run]
                          [--retry-interval SECONDS] [--batch N] [--yes] [--json]

    Rules are tried top-down; a rule applies when its pattern matches and the RETRY values
    of the matching rules so far exceed the attempts already made for the message. Attempt
    counts are kept in a file and survive a restart. Each message is put and got in one
    unit of work. SIGTERM or SIGINT ends the handler cleanly: the open unit of work is
    backed out. --check validates the table without connecting (exit 2 naming the line,
    column and what was expected). Exit codes: 0 done, 1 some messages failed (they stayed
    on the queue), 2 bad table or input, 5 a commit's outcome unknown.
    """
    rules_table = load_rules(rules_file)
    if check:
        _show_check(rules_file, rules_table, as_json)
        return
    if once and wait_seconds is not None:
        raise CliError("--once and --wait go one at a time: one pass, or passes until "
                       "nothing is processable for SECONDS")
    from mqconsole.ops.dlq.handler import (
        HandlerError,
        resolve_queue,
        run_handler,
        settings_for,
    )
    from mqconsole.ops.result import Control

    session = session_of(ctx)
    qm = session.connect()
    try:
        queue = resolve_queue(qm, rules_table, input_q)
    except HandlerError as e:
        raise CliError(str(e)) from None
    settings = settings_for(rules_table, queue, once=once,
                            wait=-1 if wait_seconds is None else wait_seconds,
                            retry_interval=retry_interval, batch=batch, dry_run=dry_run)
    confirm_change(session, f"processing {queue} by the rules in {rules_file}", yes=yes,
                   dry_run=dry_run)
    control = Control()
    host = session.plugins
    check_put = None
    if host.has_checks:
        def check_put(message, destination: str) -> str | None:
            return host.check_put("dlq-handler", message, destination)
    try:
        with stop_on_signals(control.cancel):
            report = run_handler(qm, rules_table, settings,
                                 store_path=attempts_file or default_attempts_file(),
                                 control=control, check=check_put)
    except HandlerError as e:
        raise CliError(str(e)) from None
    _journal(session, report, rules_file)
    show_report(report, as_json=as_json)
    code = exit_code_of(report)
    if code != ExitCode.OK:
        sys.exit(int(code))


def _journal(session, report, rules_file: str) -> None:
    from .common import journal_result

    details = {"rules": rules_file, "passes": report.passes, "rule_counts": report.rules_json(),
               "batch": report.settings.batch}
    destinations = {m.msg_id: m.destination for m in report.messages
                    if m.outcome in ("retried", "forwarded") and m.destination}
    journal_result(session, report.result, details=details, done_destinations=destinations)


COMMANDS = [dlq_handler]

"""``mqconsole dlq-handler``: a dead-letter queue processed by a runmqdlq rules table
(docs/dlq-handler.md). A thin driver: the table is read here, the run is the
:class:`~mqconsole.ops.operation.DlqPass` operation driven by ``cli.operate`` (confirm, run
with SIGTERM/SIGINT as stop, journal, plugins, exit code); only the report's layout is this
command's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.exit_codes import ExitCode
from mqconsole.cli.output import emit_json, safe, say, table

from .common import batch_option, json_option, session_of, yes_option

if TYPE_CHECKING:
    from mqconsole.ops.dlq.rules import RulesTable
    from mqconsole.ops.operation import Summary

STOPPING = ("stopping: the open unit of work is backed out at the next message (its "
            "messages stay on the queue); Ctrl-C again to stop at once")
FAILURES_SHOWN = 20


def load_rules(path: str) -> RulesTable:
    """The parsed table, or a CliError (exit 2) with the first problem's sentence."""
    from mqconsole.ops.dlq.rules import RulesError, read_table

    try:
        return read_table(path)
    except RulesError as e:
        raise CliError(str(e), ExitCode.USAGE) from None
    except OSError as e:
        raise CliError(f"cannot read the rules table {path}: {e.strerror or e}",
                       ExitCode.USAGE) from None


def _show_check(rules_file: str, rules_table: RulesTable, as_json: bool) -> None:
    if as_json:
        emit_json(rules_table.to_dict())
        return
    control = rules_table.control
    wait = "YES" if control.wait is None else "NO" if control.wait == 0 else control.wait
    n = len(rules_table.rules)
    say(safe(f"{rules_file}: a valid rules table: {n} rule{'s' if n != 1 else ''}, "
             f"RETRYINT({control.retry_interval}) WAIT({wait})"))
    rows = [[r.number, r.line, r.pattern or "*", r.describe(), r.retry, r.put_aut]
            for r in rules_table.rules]
    click.echo(table(["RULE", "LINE", "PATTERN", "ACTION", "RETRY", "PUTAUT"], rows,
                     max_width={2: 60}))


def _what(outcome: str) -> str:
    """"would retry to APP.IN (header removed) — …" → "would retry"."""
    what = outcome.split(" — ")[0].split(" (")[0].split(":")[0]
    return what.split(" to ")[0]


def report_lines(summary: Summary, rules_table: RulesTable) -> list[str]:
    """The story on stderr: what happened to how many, failures by destination and reason
    (with the attempts so far), warnings."""
    extra = summary.extra
    res = summary.result
    messages: list[dict[str, Any]] = extra.get("messages", [])
    counts: dict[str, int] = {}
    for m in messages:
        what = _what(m["outcome"])
        counts[what] = counts.get(what, 0) + 1
    parts = ", ".join(f"{n} {what}" for what, n in sorted(counts.items(), key=lambda x: -x[1]))
    passes = extra.get("passes", 0)
    passes_text = f"{passes} pass{'es' if passes != 1 else ''}"
    head = (f"dlq-handler: {extra.get('queue') or res.source} on {extra.get('qmgr', '?')}: "
            f"{passes_text}")
    lines = [head + (f" (dry run): {parts or 'nothing'}" if res.dry_run
                     else f": {parts or 'nothing'}")]
    last: dict[str, dict[str, Any]] = {m["msg_id"]: m for m in messages}
    groups: dict[tuple[str, str], list[str]] = {}
    for f in res.failed:
        groups.setdefault((f.destination or "-", f.reason_name), []).append(f.msgid)
    for (destination, reason), ids in sorted(groups.items(), key=lambda x: -len(x[1])):
        tried = sorted({last[i]["attempts"] for i in ids if i in last})
        attempts = ""
        if tried:
            span = str(tried[0]) if len(tried) == 1 else f"{tried[0]}-{tried[-1]}"
            attempts = f", {span} attempt{'s' if tried[-1] != 1 else ''} so far"
        lines.append(f"  {len(ids)} failed -> {destination}: {reason} (stayed on the queue; "
                     f"first {ids[0]}{attempts})")
    for w in res.warnings:
        lines.append(f"warning: {w}")
    if extra.get("attempts_file") and not res.dry_run:
        lines.append(f"attempt counts are kept in {extra['attempts_file']}: a restart "
                     "continues them")
    if summary.journal_problem:
        lines.append(f"mqconsole: the journal could not be written: {summary.journal_problem}")
    return lines


def emit_report_json(doc: dict[str, Any]) -> None:
    """The report's JSON on stdout: indented, but each of ``messages`` on one line — a
    100,000-message run's list written by the C encoder (``indent`` makes json use its
    pure-Python one, several times slower), and a line per message to grep."""
    import json
    import sys

    messages = doc.pop("messages", [])
    encode = json.JSONEncoder(ensure_ascii=True, default=str).encode
    head = json.dumps(doc, indent=2, ensure_ascii=True, default=str)
    out = sys.stdout
    if not messages:
        out.write('{\n  "messages": [],' + head[1:] + "\n")
        return
    out.write('{\n  "messages": [\n    ')
    out.write(",\n    ".join([encode(m) for m in messages]))
    out.write("\n  ]," + head[1:] + "\n")


def render_report(summary: Summary, rules_table: RulesTable, *, as_json: bool) -> None:
    """JSON (the spec's ``messages`` and ``rules``, with the summary's counts and exit
    code), or the table on stdout — per message for a dry run, per rule otherwise, then the
    messages that failed with their attempts — and the story on stderr."""
    if as_json:
        emit_report_json(summary.to_json())
        return
    extra = summary.extra
    if summary.dry_run:
        rows = [[m["msg_id"], m["rule"] or "-", m["action"] or "-", m["attempts"],
                 m["outcome"]] for m in extra.get("messages", [])]
        click.echo(table(["MSGID", "RULE", "ACTION", "ATTEMPTS", "WHAT WOULD HAPPEN"], rows,
                         max_width={4: 80}))
    else:
        by_rule = {r.number: r for r in rules_table.rules}
        rows = [[c["rule"], by_rule[c["rule"]].line, by_rule[c["rule"]].describe(),
                 c["matched"], c["done"], c["failed"]] for c in extra.get("rules", [])]
        click.echo(table(["RULE", "LINE", "ACTION", "MATCHED", "DONE", "FAILED"], rows,
                         max_width={2: 60}))
        last = {m["msg_id"]: m for m in extra.get("messages", [])}
        failed = [last[f.msgid] for f in summary.result.failed if f.msgid in last]
        if failed:
            click.echo("")
            rows = [[m["msg_id"], m["rule"] or "-", m["attempts"], m["destination"] or "-",
                     m["reason"] or "-"] for m in failed[:FAILURES_SHOWN]]
            click.echo(table(["FAILED MSGID", "RULE", "ATTEMPTS", "DESTINATION", "REASON"],
                             rows, max_width={4: 70}))
            if len(failed) > FAILURES_SHOWN:
                click.echo(f"(and {len(failed) - FAILURES_SHOWN} more: --json lists every "
                           "message)")
    for line in report_lines(summary, rules_table):
        say(safe(line))


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
    column and what was expected). Exit codes: 0 done (or stopped by a signal), 1 some
    messages failed (they stayed on the queue), 2 bad table or input, 5 a commit's outcome
    unknown.
    """
    rules_table = load_rules(rules_file)
    if check:
        _show_check(rules_file, rules_table, as_json)
        return
    if once and wait_seconds is not None:
        raise CliError("--once and --wait go one at a time: one pass, or passes until "
                       "nothing is processable for SECONDS")
    from mqconsole.cli.operate import drive, operation
    from mqconsole.ops.dlq.attempts import default_path
    from mqconsole.ops.operation import DlqPass

    session = session_of(ctx)
    kind = DlqPass(rules_table, rules_file, input_q=input_q, once=once,
                   wait=-1 if wait_seconds is None else wait_seconds,
                   retry_interval=retry_interval, batch=batch,
                   attempts_file=attempts_file or str(default_path()))
    if kind.long_lived and not dry_run:
        kind.cycle = True
        _keep_running(session, operation(session, kind), rules_table, yes=yes,
                      as_json=as_json)
        return
    drive(session, operation(session, kind), yes=yes, dry_run=dry_run, as_json=as_json,
          render=lambda s: render_report(s, rules_table, as_json=as_json), sigterm=True,
          note=STOPPING)


def _keep_running(session: Any, op: Any, rules_table: RulesTable, *, yes: bool,
                  as_json: bool) -> None:
    """WAIT(YES) or WAIT(n): a cycle of work per operation (``ops.operation.keep_running``),
    each rendered as it ends — with --json one line per cycle — until SIGTERM/SIGINT or the
    wait runs out."""
    import json
    import threading

    from mqconsole.cli.operate import confirm_change, ctrl_c_cancels, progress_line
    from mqconsole.ops.operation import exit_code_of_run, keep_running

    what = op.describe().what
    session.refuse_if_read_only(what)
    qm = session.connect()
    op.validate(qm)
    confirm_change(session, op.describe().what, yes=yes, dry_run=False)

    def show(summary: Summary) -> None:
        if as_json:
            click.echo(json.dumps(summary.to_json(), ensure_ascii=True, default=str))
        else:
            render_report(summary, rules_table, as_json=False)

    cancel = threading.Event()
    with ctrl_c_cancels(cancel, sigterm=True, note=STOPPING):
        summaries = keep_running(op, qm, cancel=cancel, on_summary=show,
                                 progress=progress_line(not as_json))
    code = exit_code_of_run(summaries, stopped=cancel.is_set())
    if code != ExitCode.OK:
        raise SystemExit(int(code))


COMMANDS = [dlq_handler]

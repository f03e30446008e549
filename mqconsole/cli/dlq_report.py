"""The dead-letter handler's report on the command line: the checked table, each pass's
table (per message for a dry run, per rule otherwise, then the failed messages with their
attempts) and the story on stderr, or the spec's JSON (dlq-rules.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from mqconsole.cli.output import emit_json, safe, say, table
from mqconsole.mq.names import reason_label

if TYPE_CHECKING:
    from mqconsole.ops.dlq.rules import RulesTable
    from mqconsole.ops.operation import Summary

FAILURES_SHOWN = 20


def show_check(rules_file: str, rules_table: RulesTable, as_json: bool) -> None:
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
        if res.dry_run and " — would fail now" in m["outcome"]:
            continue  # counted apart, first: what would fail is not what would be done
        what = _what(m["outcome"])
        counts[what] = counts.get(what, 0) + 1
    passes = extra.get("passes", 0)
    several = passes > 1 and not res.dry_run  # a message has a line per pass it was in
    parts = ", ".join(f"{n} {what}" for what, n in sorted(counts.items(), key=lambda x: -x[1]))
    if several and counts.get("failed"):
        parts += (f" ({len(res.failed)} message{'s' if len(res.failed) != 1 else ''} still "
                  "failing: they stayed on the queue)" if res.failed
                  else " (none still failing)")
    passes_text = f"{passes} pass{'es' if passes != 1 else ''}" + (
        ", counted per pass" if several else "")
    head = (f"dlq-handler: {extra.get('queue') or res.source} on {extra.get('qmgr', '?')}: "
            f"{passes_text}")
    failing = res.would_fail() if res.dry_run else 0
    if failing:
        from mqconsole.cli.summary import would_fail_lines

        lines = [head + f" (dry run): {failing:,} would fail now (the destinations say so "
                 "today):", *would_fail_lines(res.would_fail_groups()),
                 f"  then: {parts or 'nothing else'}"]
    else:
        lines = [head + (f" (dry run): {parts or 'nothing'}" if res.dry_run
                         else f": {parts or 'nothing'}")]
    last: dict[str, dict[str, Any]] = {m["msg_id"]: m for m in messages}
    groups: dict[tuple[str, str], list[str]] = {}
    for f in res.failed:  # the reason as every face says it: MQRC_Q_FULL (2053)
        said = reason_label(f.reason) if f.reason else f.reason_name
        groups.setdefault((f.destination or "-", said), []).append(f.msgid)
    for (destination, reason), ids in sorted(groups.items(), key=lambda x: -len(x[1])):
        tried = sorted({last[i]["attempts"] for i in ids if i in last})
        attempts = ""
        if tried:
            span = str(tried[0]) if len(tried) == 1 else f"{tried[0]}-{tried[-1]}"
            attempts = f", {span} attempt{'s' if tried[-1] != 1 else ''} so far"
        lines.append(f"  {len(ids)} failed -> {destination}: {reason} (stayed on the queue; "
                     f"first {ids[0]}{attempts})")
    if res.not_tried and not res.dry_run:  # a stop: never tried, a count of their own
        lines.append(f"not tried: {res.not_tried:,} ({res.not_tried_why()})")
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
        from mqconsole.ops.dlq.handler import first_the_failure

        # what would fail first: on a terminal the column is cut at 80 (never into a file)
        rows = [[m["msg_id"], m["rule"] or "-", m["action"] or "-", m["attempts"],
                 first_the_failure(m["outcome"])] for m in extra.get("messages", [])]
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

"""``mqconsole queues`` and ``mqconsole queue define|set|show``."""

from __future__ import annotations

from typing import Any

import click

from mqconsole.cli.operate import drive, operation
from mqconsole.cli.output import emit_json, safe, say, table

from .common import dry_run_option, json_option, session_of, yes_option


@click.command("queues")
@click.argument("pattern", default="*", required=False)
@json_option
@click.pass_context
def queues(ctx: click.Context, pattern: str, as_json: bool) -> None:
    """List queues (those matching PATTERN such as 'APP.*' when given) with depth and backout
    settings."""
    from mqconsole.ops.queues import queue_rows

    qm = session_of(ctx).connect()
    rows = queue_rows(qm, pattern)
    note = getattr(qm, "last_listing_note", None)  # a listing without the command server
    if note:
        click.echo(f"mqconsole: {safe(note)}", err=True)
    if as_json:
        emit_json(rows)
        return
    info = qm.inquire_qmgr()
    say(f"queue manager {safe(info.name)}, dead-letter queue {safe(info.dead_letter_queue) or '-'}")
    body = []
    for r in rows:
        marks = []
        if r["is_dead_letter_queue"]:
            marks.append("DLQ")
        if r["backout_queue_for"]:
            marks.append("BOQ for " + ",".join(r["backout_queue_for"]))
        inhibit = ("P" if r["put_inhibited"] else "-") + ("G" if r["get_inhibited"] else "-")
        depth = "" if r["depth"] is None else f"{r['depth']}/{r['max_depth']}"
        body.append([r["name"], r["type"], depth, inhibit, r["bothresh"], r["boqname"] or "-",
                     "Y" if r["hardenbo"] else "N", " ".join(marks)])
    click.echo(table(["QUEUE", "TYPE", "DEPTH", "INH", "BOTHRESH", "BOQNAME", "HARDENBO", ""],
                     body))


@click.group("queue")
def queue() -> None:
    """Define, change and show one queue."""


def _attr_options(fn):
    opts = [
        click.option("--max-depth", type=click.IntRange(min=0), help="MAXDEPTH."),
        click.option("--max-msg-length", type=click.IntRange(min=0), help="MAXMSGL (bytes)."),
        click.option("--bothresh", type=click.IntRange(min=0),
                     help="BOTHRESH: backout threshold (0 = none)."),
        click.option("--boqname", help="BOQNAME: the backout requeue queue."),
        click.option("--hardenbo/--no-hardenbo", default=None, help="HARDENBO."),
        click.option("--put-inhibited/--put-enabled", default=None, help="PUT(DISABLED|ENABLED)."),
        click.option("--get-inhibited/--get-enabled", default=None, help="GET(DISABLED|ENABLED)."),
        click.option("--description", help="DESCR."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def _changes(**kw: Any) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


@queue.command("define")
@click.argument("name")
@_attr_options
@dry_run_option
@json_option
@click.pass_context
def define(ctx: click.Context, name: str, dry_run: bool, as_json: bool, **attrs: Any) -> None:
    """Define a local queue NAME.

    Not asked (a define only adds), refused on a read-only profile; warns when BOQNAME
    names a queue that does not exist. Journaled as queue-define. --json prints the new
    queue (as 'queue show --json' does) with the operation's summary.
    """
    from mqconsole.ops.operation import QueueDefine

    session = session_of(ctx)
    drive(session, operation(session, QueueDefine(name, _changes(**attrs))), yes=True,
          dry_run=dry_run, as_json=as_json, ask=False)


@queue.command("set")
@click.argument("name")
@_attr_options
@dry_run_option
@yes_option
@json_option
@click.pass_context
def set_(ctx: click.Context, name: str, dry_run: bool, yes: bool, as_json: bool,
         **attrs: Any) -> None:
    """Change attributes of queue NAME (only the options given).

    Asks first, as every change does (--yes in scripts; without a terminal and without
    --yes: exit 4); warns when BOQNAME names a queue that does not exist. Journaled as
    queue-set with each attribute before and after. --json prints the operation's
    summary (its "changes": each attribute before and after; "warnings").
    """
    from mqconsole.ops.operation import QueueSet

    session = session_of(ctx)
    drive(session, operation(session, QueueSet(name, _changes(**attrs))), yes=yes,
          dry_run=dry_run,
          as_json=as_json)


@queue.command("show")
@click.argument("name")
@json_option
@click.pass_context
def show(ctx: click.Context, name: str, as_json: bool) -> None:
    """Show every attribute and the status of queue NAME, by their MQSC names (MAXDEPTH,
    BOTHRESH, PUT ENABLED, ...; --json: the keys of the JSON)."""
    from mqconsole.ops.queues import attribute_lines, queue_doc

    doc = queue_doc(session_of(ctx).connect(), name)
    if as_json:
        emit_json(doc)
        return
    lines = attribute_lines(doc)
    width = max(len(label) for label, _ in lines)
    for label, value in lines:
        click.echo(f"{label.ljust(width)}  {safe(value)}")


COMMANDS = [queues, queue]

"""``mqconsole journal``: show the change journal (who changed what, when, with what outcome)."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mqconsole.cli.errors import CliError
from mqconsole.cli.output import emit_json, safe, say

from .common import json_option, session_of

if TYPE_CHECKING:
    from mqconsole.ops.journal import JournalEntry


def entry_line(entry: JournalEntry) -> str:
    """One line: time, operator, operation, source → destinations, counts, backup."""
    from mqconsole.ops.journal import format_time

    who = entry.operator or "?"
    if entry.sudo_user:
        who += f" (sudo: {entry.sudo_user})"
    dests = ", ".join(entry.destinations) or "-"
    parts = [format_time(entry.time), who, entry.operation]
    if entry.profile:
        parts.append(f"[{entry.profile}]")
    parts.append(f"{entry.source or '-'} → {dests}")
    details = entry.details or {}
    changes = details.get("changes")
    if entry.operation == "queue-set" and isinstance(changes, dict):
        parts.append(", ".join(
            f"{k} {_show(v.get('before'))}→{_show(v.get('after'))}" if isinstance(v, dict)
            else f"{k} {_show(v)}" for k, v in changes.items()))
    else:
        counts = entry.counts()
        selected = details.get("selected")
        text = f"done {counts['done']} failed {counts['failed']} skipped {counts['skipped']}"
        if isinstance(selected, int):
            text = f"selected {selected} " + text
        not_tried = details.get("not_tried")  # a stop early: never tried, they stayed
        if isinstance(not_tried, int) and not isinstance(not_tried, bool) and not_tried:
            text += f" not tried {not_tried}"
            why = details.get("not_tried_why")  # and why, with where they are
            if isinstance(why, str) and why:
                text += f" ({why})"
        parts.append(text)
    if entry.backup:
        parts.append(f"backup {entry.backup}")
    if entry.dry_run:
        parts.append("(dry run)")
    stopped = entry.stopped() if entry.state != "interrupted" else None
    if stopped is not None:
        parts.append(f"STOPPED early ({stopped}): what it committed stays; the rest of its "
                     "selection was not handled")
    if entry.state == "interrupted":
        text = "INTERRUPTED: no end record (killed or stopped); the messages above were " \
               "committed"
        if entry.in_doubt:
            text += f", and {len(entry.in_doubt)} more may have been (their unit's commit " \
                    "was not recorded: check the queues; --ids lists them)"
        parts.append(text)
    return safe("  ".join(parts))


def id_lines(entry: JournalEntry) -> list[str]:
    """Every message id of ``entry`` with its outcome (``--ids``), the ids in doubt last."""
    lines = []
    for o in entry.outcomes:
        what = o.outcome
        if o.reason_name or o.reason is not None:
            what += f" {o.reason_text()}"
        lines.append(f"    {o.msgid}  {what}" + (f"  -> {o.destination}" if o.destination
                                                   else ""))
    lines.extend(f"    {m}  in doubt (its unit's commit was not recorded)"
                 for m in entry.in_doubt)
    return [safe(line) for line in lines]


def counted_dict(entry: JournalEntry) -> dict[str, Any]:
    """``journal --json`` without ``--ids``: a record's fields with its ids counted, not
    listed (``msgid_count``, the done/failed/skipped ``counts``, ``in_doubt_count``)."""
    d = entry.to_dict(outcomes=False)
    d.pop("msgids", None)
    d["msgid_count"] = len(entry.msgids) + entry.unlisted_done
    d["counts"] = entry.counts()
    if "in_doubt" in d:
        d["in_doubt_count"] = len(d.pop("in_doubt"))
    return d


def _unreadable(path: Path) -> str | None:
    """Why the live journal at ``path`` cannot be read (a folder in its place, no
    permission); None when it can, or when there is none yet (no change recorded)."""
    try:
        if path.is_dir():
            return "a folder is in its place"
        with open(path, "rb"):
            return None
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.strerror or str(exc)


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


@click.command("journal")
@json_option
@click.option("--since", metavar="WHEN", help="Only entries since WHEN: 2h, 30m, 3d, "
              "today, 2026-11-01 or an ISO time.")
@click.option("--operation", metavar="NAME", help="Only this operation (move, delete, edit, "
              "load, queue-set, …).")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the last N entries.")
@click.option("--ids", is_flag=True, help="Under each change, every message id with its "
              "outcome (with --json: each record's lists of ids and outcomes, which are "
              "otherwise given only with --limit or --since: a count per record).")
@click.pass_context
def journal(ctx: click.Context, as_json: bool, since: str | None, operation: str | None,
            limit: int | None, ids: bool) -> None:
    """Show the journal of changes: one line per change, oldest first (rotated files
    included).

    Every change (move, copy, resubmit, delete, edit, load, save --remove, queue set) is
    recorded as it commits, with its time (UTC), operator, profile, queue manager, queues,
    message ids and the outcome of each message, and the backup file of a delete. A change
    that never ended (killed) is shown as INTERRUPTED with what it had committed. A line
    that is not a record (torn by a crash) is reported on stderr and skipped.
    """
    from mqconsole.ops.journal import parse_since

    when = None
    if since is not None:
        try:
            when = parse_since(since)
        except ValueError as e:
            raise CliError(str(e)) from None
    j = session_of(ctx).journal()
    unreadable = _unreadable(j.path)
    if unreadable is not None:  # not "no journal entries" and 0: a script would trust it
        raise CliError(f"the journal {j.path} cannot be read: {unreadable}")
    # the lists of ids only when asked for, or bounded (a 200,000-message handler run is
    # 35 MB of ids): else a count per record, the ids never kept
    lists = ids or (as_json and (limit is not None or since is not None))
    read = j.read(since=when, operation=operation, ids=lists)
    entries = list(read) if limit is None else list(deque(read, maxlen=limit))
    for problem in j.problems:
        say(f"warning: {problem}")
    if as_json:
        emit_json([e.to_dict() if lists else counted_dict(e) for e in entries])
        return
    if not entries:
        say(f"no journal entries{' matching' if (since or operation) else ''} in {j.path}")
        return
    for entry in entries:
        click.echo(entry_line(entry))
        if ids:
            for line in id_lines(entry):
                click.echo(line)


COMMANDS = [journal]

"""The CLI's one rendering of an operation's summary: the plan of a dry run on stdout, what
went where and what failed why on stderr (or the summary's JSON on stdout with --json).
Every value that may come from message bytes or a plugin is made safe first."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import click

from mqconsole.cli.output import emit_json, safe, say
from mqconsole.ops.changes import change_lines
from mqconsole.ops.result import REFUSED_BY_PLUGIN
from mqconsole.ops.words import counted

if TYPE_CHECKING:
    from mqconsole.ops.operation import Summary
    from mqconsole.ops.result import Failure


def _failure_groups(failures: list[Failure]) -> list[tuple[tuple, list[Failure]]]:
    """Failures by reason and destination, most first (a plugin's sentence is its reason)."""
    groups: dict[tuple, list[Failure]] = defaultdict(list)
    for f in failures:
        detail = f.detail if f.reason_name == REFUSED_BY_PLUGIN else ""
        groups[(f.reason_name, f.reason, f.destination, detail)].append(f)
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))


def would_fail_lines(groups: list[dict]) -> list[str]:
    """A plan's predicted failures, one line a destination and reason, the most first."""
    lines = []
    for g in groups:
        on = f" on {g['destination']}" if g["destination"] else ""
        lines.append(f"  {g['count']:,} would be refused{on}: {g.get('detail', '')}"
                     if g["reason_name"] == REFUSED_BY_PLUGIN
                     else f"  {g['count']:,}{on}: {g['reason_name']} ({g['reason']})")
    return lines


def _plan_lines(summary: Summary) -> list[str]:
    """What would fail first (grouped by destination and reason), then what would be done."""
    r = summary.result
    failing = r.would_fail()
    lines = []
    if failing:
        lines.append(f"dry run: {counted(failing, 'message', grouped=True)} would fail now "
                     f"(the destination says so today):")
        lines += would_fail_lines(r.would_fail_groups())
    # a step may stand for many alike messages (``count``: a put's copies past the first)
    ok = sum(int(step.get("count", 1)) for step in r.plan) - failing
    lines.append(f"{'then ' if failing else 'dry run: '}{ok:,} of "
                 f"{counted(r.selected, 'selected message', grouped=True)} would be "
                 f"{summary.verb}; nothing was changed")
    if r.present:
        lines.append(f"  {r.present:,} already on {r.destination} (same MsgId and body) "
                     "would not be put again")
    return lines


def summary_lines(summary: Summary) -> list[str]:
    """What went where and what failed why, for a human (failures grouped by reason)."""
    r = summary.result
    verb = summary.verb
    src = r.source or "?"
    if summary.kind == "queue-set":
        changes = summary.extra.get("changes", {})
        lines = [f"{src}: {line}" for line in change_lines(changes, arrow="->")]
        return ([f"dry run: {summary.description.what}; nothing was changed", *lines]
                if r.dry_run else lines)
    if summary.kind == "queue-define":
        return [f"dry run: {summary.description.what}; nothing was changed" if r.dry_run
                else f"defined queue {r.destination}"]
    if summary.kind == "put" and not r.dry_run:
        head = (f"put {counted(r.done)} on {r.destination}" if r.done == r.selected
                else f"put {r.done} of {counted(r.selected)} on {r.destination}")
        return [head, *_after_lines(summary)]
    if r.selected == 0:
        return [f"no message on {src} matched the selection: nothing was {verb}"]
    if summary.kind == "edit":
        return _edit_lines(summary) + _outcome_lines(summary)
    return _outcome_lines(summary)


def _edit_lines(summary: Summary) -> list[str]:
    """Which message (its position), each MQMD field before and after, the body's length."""
    plan = summary.result.plan
    msgid = summary.extra.get("msgid") or (plan[0].get("msgid") if plan else None) or "?"
    lines = [f"message {msgid} at position {summary.extra.get('position')} of "
             f"{summary.result.source}"]
    lines += [f"  {line}" for line in change_lines(summary.details.get("changes", {}),
                                                   arrow="->")]
    length = summary.extra.get("body_length")
    if length and summary.details.get("payload_changed"):
        lines.append(f"  body: {length['before']} -> {length['after']} bytes")
    lines.append("  (the edited message is put anew: it is now at the end of the queue)"
                 if not summary.result.dry_run else
                 "  (the edited message would be put anew, at the end of the queue)")
    return lines


def _outcome_lines(summary: Summary) -> list[str]:
    r = summary.result
    verb = summary.verb
    if summary.kind == "save" and summary.description.options.get("remove"):
        verb = "saved and removed"
    src = r.source or "?"
    if r.dry_run:
        return _plan_lines(summary) + [f"warning: {w}" for w in r.warnings]
    lines = [f"{verb} {r.done} of {counted(r.selected, 'selected message')} from {src}"]
    if r.selected == 1 and r.done == 1 and len(r.done_msgids) == 1:  # name the one message
        lines[0] += f" (MsgId {next(iter(r.done_msgids))})"
    width = max((len(q) for q in r.moved_to), default=0)
    for queue, n in sorted(r.moved_to.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  -> {queue.ljust(width)}  {n}")
    return lines + _after_lines(summary)


def _after_lines(summary: Summary) -> list[str]:
    """After what went where: the file, the plugin's sentence, failures, skips, warnings."""
    r = summary.result
    lines: list[str] = []
    if r.backup:
        lines.append(f"{'file' if summary.kind == 'save' else 'backup'}: {r.backup}")
    if summary.extra.get("sentence"):
        lines.append(str(summary.extra["sentence"]))
    for path in summary.extra.get("files", []):
        lines.append(f"  wrote {path}")
    if r.failed or r.unlisted_failures:
        lines.append(f"failed: {len(r.failed) + r.unlisted_failures} ({r.failed_why()})")
        for (name, code, dest, detail), fs in _failure_groups(r.failed):
            where = f" on {dest}" if dest else ""
            why = f": {detail}" if detail else f" ({code})"
            first = fs[0]
            lines.append(f"  {len(fs)} x {name}{why}{where}, e.g. {first.msgid} at position "
                         f"{first.position}" + (f" ({first.detail})" if len(fs) == 1
                                                and first.detail and not detail else ""))
    if r.present:
        lines.append(f"already on {r.destination}: {r.present} (same MsgId and body: not "
                     "put again)")
    if r.skipped:
        stayed = f"they stayed on {r.source}" if r.source else f"not {summary.verb}"
        lines.append(f"skipped: {r.skipped} ({stayed}; see the warnings)")
    if r.not_tried:  # stopped early: never tried (a count of their own)
        lines.append(f"not tried: {r.not_tried} ({r.not_tried_why()})")
    for w in r.warnings:
        lines.append(f"warning: {w}")
    if r.cancelled and summary.kind == "save" and not summary.description.options.get("remove"):
        lines.append("cancelled: the file holds what was saved before the stop")
    elif r.cancelled:
        lines.append("cancelled: what was committed stays committed")
    return lines


def render(summary: Summary, *, as_json: bool) -> None:
    """Print the summary: JSON on stdout, or the plan on stdout and the rest on stderr."""
    if as_json:
        emit_json(summary.to_json())
    elif summary.result.dry_run:
        for step in summary.result.plan:
            if "msgid" not in step:
                continue
            w = step.get("would_fail")
            note = ""
            if w:
                note = (f"  (would be refused: {w.get('detail')})"
                        if w["reason_name"] == REFUSED_BY_PLUGIN
                        else f"  (would fail now: {w['reason_name']} ({w['reason']}))")
            changes = "; ".join(step.get("changes") or [])
            where = step.get("destination") or step.get("action") or ""
            click.echo(safe(f"{step['position']:>7}  {step['msgid']}  -> {where}"
                            f"{'  ' + changes if changes else ''}{note}"))
    if not as_json:
        for line in summary_lines(summary):
            say(safe(line))
    say_journal_problem(summary)


def say_journal_problem(summary: Summary) -> None:
    """The journal's failure, naming its file, after the summary (stderr, even with
    --json, whose document says it as ``journal_problem``)."""
    if summary.journal_problem:
        done = "nothing was changed" if summary.result.dry_run else "what is said above was done"
        say(safe(f"mqconsole: {summary.journal_problem} ({done}; exit code "
                 f"{int(summary.exit_code)})"))


__all__ = ["render", "say_journal_problem", "summary_lines"]

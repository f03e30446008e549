"""The console's one rendering of an operation's :class:`~mqconsole.ops.operation.Summary`:
what went where, what failed and why, and the plan a confirmation shows.

Every value that may come from message bytes, a queue manager or a plugin is made safe
(:mod:`.safe`) before it reaches a ``Text``; nothing here is parsed as markup.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rich.text import Text

from mqconsole.mq.names import reason_label
from mqconsole.ops.result import REFUSED_BY_PLUGIN
from mqconsole.tui.safe import clean

if TYPE_CHECKING:
    from mqconsole.ops.operation import Summary
    from mqconsole.ops.result import OperationResult

MAX_FAILURES = 20  # failures listed one by one; the rest are counted (the journal has all)
MAX_DESTINATIONS = 12
# the operations on a queue's selected messages (a result of none selected is said so)
SELECTING = frozenset({"move", "copy", "resubmit", "delete", "save", "edit"})


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def change_lines(changes: dict) -> list[str]:
    """``HARDENBO: NOHARDENBO → HARDENBO`` of each field a queue set or an edit changed
    (MQ's names and values: ``ops.changes``)."""
    from mqconsole.ops.changes import change_lines as said

    return [clean(line) for line in said(changes)]


def summary_text(summary: Summary) -> Text:
    """What an operation did, for its result dialog (or notification)."""
    out = Text()
    r = summary.result
    if r.dry_run:
        out.append("Dry run — nothing changed.\n", "bold")
    if summary.kind == "queue-set":
        out.append(f"{clean(r.source)}: ", "bold")
        out.append(", ".join(change_lines(summary.extra.get("changes", {}))) + "\n")
        _tail(out, summary)
        return out
    if summary.kind == "queue-define":
        out.append(f"Queue {clean(r.destination)} " + ("would be defined" if r.dry_run
                                                       else "defined") + "\n", "bold")
        _tail(out, summary)
        return out
    if not r.selected and not r.dry_run and summary.kind in SELECTING:
        # nothing was selected (marks whose messages left, a filter matching none): said,
        # with the warnings below saying why, never "Deleted 0 of 0" alone (issue 24)
        out.append(f"Nothing was {summary.verb}: no message of {clean(r.source)} was "
                   "selected\n", "bold")
        _tail(out, summary)
        return out
    out.append(f"{summary.verb.capitalize()} {r.done:,} of {r.selected:,} message{_s(r.selected)}",
               "bold")
    if r.source:
        out.append(f" from {clean(r.source)}")
    if r.selected == 1 and r.done == 1 and len(r.done_msgids) == 1:  # name the one message
        out.append(f" (MsgId {clean(next(iter(r.done_msgids)))})")
    elif summary.kind == "put":
        out.append(f" on {clean(r.destination)}")
    out.append("\n")
    if summary.kind == "edit":
        for line in change_lines(summary.details.get("changes", {})):
            out.append(f"  {line}\n")
        length = summary.extra.get("body_length")
        if length and summary.details.get("payload_changed"):
            out.append(f"  payload: {length['before']:,} → {length['after']:,} bytes\n")
    for dest, n in sorted(r.moved_to.items()):
        out.append(f"  → {clean(dest)}: {n:,}\n")
    if summary.extra.get("sentence"):
        out.append(clean(summary.extra["sentence"]) + "\n")
    for path in summary.extra.get("files", []):
        out.append(f"  wrote {clean(path)}\n")
    failed = len(r.failed) + r.unlisted_failures
    if failed:
        out.append(f"Failed: {failed:,} ({clean(r.failed_why())})\n", "bold red")
        if len(r.failed) == 1:  # the one message, named with its own detail
            f = r.failed[0]
            where = f" → {clean(f.destination)}" if f.destination else ""
            why = (clean(f.detail) if f.reason_name == REFUSED_BY_PLUGIN
                   else reason_label(f.reason)
                   + (f": {clean(f.detail)}" if f.detail else ""))
            out.append(f"  #{f.position} {f.msgid[-16:]} {why}{where}\n")
        else:  # one line a destination and reason, however many (the journal has each)
            groups = r.failure_groups()
            for g in groups[:MAX_FAILURES]:
                out.append(_group_line(g, "") + "\n")
            if len(groups) > MAX_FAILURES:
                out.append(f"  … {len(groups) - MAX_FAILURES:,} more groups (see the "
                           "journal)\n")
    if r.present:
        out.append(f"Already on {clean(r.destination)}: {r.present:,} (same MsgId and body: "
                   "not put again)\n")
    if r.skipped:
        out.append(f"Skipped: {r.skipped:,} (they stayed on {clean(r.source)})\n")
    if r.not_tried:  # stopped early: never tried (a count of their own)
        out.append(f"Not tried: {r.not_tried:,} ({clean(r.not_tried_why())})\n", "bold")
    if r.backup:
        out.append(f"Saved to {clean(r.backup)}\n")
    if r.cancelled:
        out.append("Stopped by the operator after the unit of work in progress.\n", "bold")
    if r.outcome_unknown:
        out.append("The outcome of the last commit is UNKNOWN: browse the queues to see "
                   "where those messages are.\n", "bold red")
    _tail(out, summary)
    return out


def _tail(out: Text, summary: Summary) -> None:
    for w in summary.result.warnings:
        out.append(f"Warning: {clean(w)}\n", "yellow")
    if summary.journal_problem:
        problem = clean(summary.journal_problem)
        out.append(f"{problem[:1].upper()}{problem[1:]} (what is said above was done)\n",
                   "bold red")


def _group_line(g: dict, verb: str) -> str:
    """``  ✗ 45,927 would fail on APP.PAYMENTS: MQRC_Q_FULL (2053), e.g. …ab12``."""
    why = (str(g.get("detail", "")) if g.get("reason_name") == REFUSED_BY_PLUGIN
           else f"{g.get('reason_name')} ({g.get('reason')})")
    on = f" on {clean(g['destination'])}" if g.get("destination") else ""
    example = f", e.g. …{clean(g['examples'][0])[-12:]}" if g.get("examples") else ""
    return f"  ✗ {g['count']:,}{verb}{on}: {clean(why)}{example}"


def would_fail_text(result: OperationResult) -> Text:
    """``N would fail now:`` and a line a destination and reason, the most first."""
    out = Text()
    out.append(f"{result.would_fail():,} would fail now:\n", "bold red")
    groups = result.would_fail_groups()
    for g in groups[:MAX_DESTINATIONS]:
        out.append(_group_line(g, "") + "\n", "red")
    if len(groups) > MAX_DESTINATIONS:
        out.append(f"  … and {len(groups) - MAX_DESTINATIONS} more\n", "red")
    return out


def plan_text(summary: Summary) -> Text:
    """A dry run's plan for a confirmation: first how many would fail now and why (by
    destination and reason), then how many go where."""
    out = Text()
    r = summary.result
    dests: Counter[str] = Counter()
    for step in r.plan:
        if not step.get("would_fail"):  # a put's step may stand for many alike copies
            dests[str(step.get("destination") or step.get("action") or "?")] += int(
                step.get("count", 1))
    failing = r.would_fail()
    if failing:
        out.append_text(would_fail_text(r))
        if dests:
            out.append(f"{sum(dests.values()):,} would succeed:\n", "bold")
    for dest, n in dests.most_common(MAX_DESTINATIONS):
        out.append(f"  → {clean(dest)}: {n:,}\n")
    if len(dests) > MAX_DESTINATIONS:
        out.append(f"  … and {len(dests) - MAX_DESTINATIONS} more destinations\n")
    for f in r.failed[:10]:
        out.append(f"  ✗ #{f.position} {f.reason_name}: {clean(f.detail)}\n", "red")
    if r.skipped:
        out.append(f"  {r.skipped:,} would be skipped\n", "yellow")
    for w in r.warnings:
        out.append(f"Warning: {clean(w)}\n", "yellow")
    return out


def is_bad(summary: Summary) -> bool:
    """Whether the result dialog is drawn as a problem (something failed or is unknown)."""
    r = summary.result
    return bool(r.failed or r.unlisted_failures or r.outcome_unknown
                or summary.journal_problem)


__all__ = ["change_lines", "is_bad", "plan_text", "summary_text", "would_fail_text"]

"""Turning an operation's result into its journal record (used by the CLI and the TUI)."""

from __future__ import annotations

from typing import Any

from mqconsole.ops.journal import Journal, JournalEntry, Outcome
from mqconsole.ops.result import OperationResult


def entry_for(result: OperationResult, *, qmgr: str | None, profile: str | None,
              details: dict[str, Any] | None = None,
              done_destinations: dict[str, str] | None = None) -> JournalEntry:
    """One journal line for ``result``: every message id with its outcome.

    ``done_destinations`` maps a done MsgId (hex) to where it went when an operation sends
    messages to several queues (resubmit); otherwise the single destination is used.
    """
    done_destinations = done_destinations or {}
    single = result.destination or (next(iter(result.moved_to)) if len(result.moved_to) == 1
                                    else None)
    outcomes = [Outcome(msgid=m, outcome="done", destination=done_destinations.get(m, single))
                for m in result.done_msgids]
    outcomes += [Outcome(msgid=f.msgid, outcome="failed", reason=f.reason,
                         reason_name=f.reason_name, destination=f.destination)
                 for f in result.failed]
    info = dict(details or {})
    info.update(selected=result.selected, done=result.done, failed=len(result.failed),
                skipped=result.skipped)
    if result.warnings:
        info["warnings"] = list(result.warnings)
    if result.outcome_unknown:
        info["outcome_unknown"] = True
    if result.cancelled:
        info["cancelled"] = True
    return JournalEntry(
        operation=result.operation, qmgr=qmgr, profile=profile, source=result.source,
        destinations=sorted(result.moved_to) or ([result.destination] if result.destination
                                                  else []),
        msgids=[o.msgid for o in outcomes], outcomes=outcomes, backup=result.backup,
        details=info, dry_run=result.dry_run)


def record(journal: Journal, result: OperationResult, *, qmgr: str | None,
           profile: str | None, details: dict[str, Any] | None = None,
           done_destinations: dict[str, str] | None = None) -> JournalEntry:
    entry = entry_for(result, qmgr=qmgr, profile=profile, details=details,
                      done_destinations=done_destinations)
    journal.append(entry)
    return entry

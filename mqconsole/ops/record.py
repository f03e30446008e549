"""Turning an operation's result into its journal record, and the details some records
carry (``queue-set``, ``edit``): written once here for the CLI and the TUI."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import TYPE_CHECKING, Any

from mqconsole.ops.journal import Journal, JournalEntry, Outcome
from mqconsole.ops.result import MsgIdLog, OperationResult

if TYPE_CHECKING:
    from mqconsole.ops.edit import EditOutcome


def entry_for(result: OperationResult, *, qmgr: str | None, profile: str | None,
              details: dict[str, Any] | None = None,
              done_destinations: dict[str, str] | None = None,
              done_journaled: int = 0) -> JournalEntry:
    """One journal line for ``result``: every message id with its outcome.

    ``done_destinations`` maps a done MsgId (hex) to where it went when an operation sends
    messages to several queues (resubmit); otherwise the single destination is used.
    ``done_journaled``: the first so many done messages are in the journal's unit records
    already (``Recorder.reported``) and are left out (the end record stays small).
    """
    done_destinations = done_destinations or {}
    single = result.destination or (next(iter(result.moved_to)) if len(result.moved_to) == 1
                                    else None)
    done_ids = result.done_msgids
    rest = (done_ids.after(done_journaled) if isinstance(done_ids, MsgIdLog)
            else done_ids[done_journaled:])
    outcomes = [Outcome(msgid=m, outcome="done", destination=done_destinations.get(m, single))
                for m in rest]
    outcomes += [Outcome(msgid=f.msgid, outcome="failed", reason=f.reason,
                         reason_name=f.reason_name, destination=f.destination)
                 for f in result.failed]
    info = dict(details or {})
    info.update(selected=result.selected, done=result.done,
                failed=len(result.failed) + result.unlisted_failures, skipped=result.skipped)
    if result.warnings:
        info["warnings"] = list(result.warnings)
    if result.outcome_unknown:
        info["outcome_unknown"] = True
    if result.cancelled:
        info["cancelled"] = True
    if result.stopped_early:
        info["stopped_early"] = result.stopped_early
    if result.not_tried or (result.stopped_early and result.not_tried is not None):
        info["not_tried"] = result.not_tried  # never tried: they stayed (a load: not put)
    if result.not_tried:
        info["not_tried_why"] = result.not_tried_why()
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


def plain(value: Any) -> Any:
    """A field's value as the journal writes it: an enum by its value, bytes in hex, text
    without MQ's blank padding."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex().upper()
    if isinstance(value, str):
        return value.rstrip()
    return value


def field_changes(before: Any, after: Any, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``{field: {"before": …, "after": …}}`` for each of ``keys``, in name order."""
    return {k: {"before": plain(getattr(before, k)), "after": plain(getattr(after, k))}
            for k in sorted(keys)}


def queue_set_entry(*, qmgr: str | None, profile: str | None, queue: str, before: Any,
                    after: Any, keys: Iterable[str],
                    details: dict[str, Any] | None = None) -> JournalEntry:
    """The ``queue-set`` record: before and after of each attribute asked to change."""
    return JournalEntry(operation="queue-set", qmgr=qmgr, profile=profile, source=queue,
                        details={"changes": field_changes(before, after, keys),
                                 **(details or {})})


def edit_details(outcome: EditOutcome, keys: Iterable[str], *,
                 new_context: bool = False) -> dict[str, Any]:
    """What the ``edit`` record says besides its result: the position, each MQMD field
    asked to change (before and after), whether the payload changed, the context, and the
    new MsgId when there is one."""
    original, edited = outcome.original, outcome.edited
    details: dict[str, Any] = {
        "position": outcome.position,
        "changes": (field_changes(original.md, edited.md, keys)
                    if original is not None and edited is not None else {}),
        "payload_changed": bool(original is not None and edited is not None
                                and original.body != edited.body),
        "context": "new" if new_context else "set_all",
    }
    if outcome.new_msgid and outcome.new_msgid != (original.msg_id_hex if original else None):
        details["new_msgid"] = outcome.new_msgid
    return details

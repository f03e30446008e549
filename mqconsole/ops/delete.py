"""Deleting messages: save them to a file first, then remove exactly those.

1. Browse the queue and write every selected message to the backup file (dmpmqmsg
   format), completely, fsynced, published without overwriting anything
   (:func:`mqconsole.ops.savefile.write_messages_file`). If that fails, nothing is removed.
2. Browse again with a cursor; each message that is one of those saved (same MsgId,
   descriptor and body: :func:`~mqconsole.ops.savefile.message_key`; and the same token,
   when the browse names messages by token, so of identical copies exactly the one saved
   goes) is got under the
   cursor under syncpoint, checked to be the one browsed, and the unit of work committed
   every ``batch`` messages. Messages that arrived meanwhile are never touched, even with a
   MsgId that was saved.

A failed get or commit backs the unit of work out (its messages go back, their backout
count one higher) and the batch is redone once, from a fresh cursor; a second failure stops
the delete and reports every message not yet removed as failed — they are still on the
queue, and the backup file holds them all. A saved message another consumer took meanwhile
(2034 under the cursor, or no longer found) is counted as skipped. A commit whose outcome MQ
cannot tell (2009, 2018, 2548, 2549, or one that could not be backed out:
``backends.base.settle_failed_commit``) stops the delete with ``outcome_unknown``.

``save --remove`` is the same operation with a file the operator names.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from mqconsole import paths
from mqconsole.backends.base import (
    BrowseCursor,
    QueueManager,
    finds_messages,
    settle_failed_commit,
)
from mqconsole.mq.errors import MQError
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import MQRC_NO_MSG_UNDER_CURSOR, MQRC_SYNCPOINT_LIMIT_REACHED
from mqconsole.ops.pinpoint import missing_sentence, pinpointable
from mqconsole.ops.result import NOT_RECORDED, Control, Failure, OperationResult
from mqconsole.ops.savedlog import SavedLog, key_digest
from mqconsole.ops.savefile.load import DEFAULT_BATCH
from mqconsole.ops.savefile.publish import new_backup_path
from mqconsole.ops.savefile.save import message_key, save_selected
from mqconsole.ops.selection import Selection
from mqconsole.ops.uowlimit import DEFAULT_BATCH_BYTES, Room, capped_batch
from mqconsole.ops.words import agree, counted


class _WrongMessage(MQError):
    """The message got under the cursor is not the one browsed (never expected)."""

    def __init__(self) -> None:
        super().__init__(MQRC_NO_MSG_UNDER_CURSOR,
                         "the message under the cursor is not the one browsed")


def default_backup(qm: QueueManager, queue: str, folder: str | os.PathLike | None = None
                   ) -> Path:
    """A new file name in ``folder`` (default: the state folder's ``backups``), created."""
    target = Path(folder) if folder is not None else paths.default_backup_dir()
    paths.ensure_dir(target)
    return new_backup_path(target, qm.name, queue)


def delete_messages(qm: QueueManager, queue: str, selection: Selection, *,
                    backup: str | os.PathLike | None = None,
                    backup_dir: str | os.PathLike | None = None, force: bool = False,
                    dry_run: bool = False, batch: int = DEFAULT_BATCH,
                    control: Control | None = None, operation: str = "delete",
                    batch_bytes: int = DEFAULT_BATCH_BYTES) -> OperationResult:
    """Save the selected messages of ``queue`` to ``backup`` (default: a new file in
    ``backup_dir``), then remove exactly those. See the module doc for every outcome.

    ``force`` lets ``backup`` overwrite an existing file (``save --remove --force``).
    Raises before removing anything when the backup cannot be written (OSError,
    DmpWriteError, TargetExistsError) or the queue cannot be browsed (MQError).
    """
    control = control or Control()
    result = OperationResult(operation=operation, source=queue, destination=None,
                             dry_run=dry_run)
    if dry_run:
        report = save_selected(qm, queue, None, selection, control=control, keep=True)
        assert report.saved is not None
        if report.missing:
            result.warnings.append(missing_sentence(report.missing))
        result.selected = report.count
        result.plan = [{"position": position, "msgid": msgid, "action": "delete"}
                       for position, msgid in report.saved]
        report.saved.close()
        _say_cod(result, report.cod, queue, planned=True)
        return result
    if backup is None:
        target = default_backup(qm, queue, backup_dir)
    else:
        target = Path(backup)
    saved, cod, missing = _save_first(qm, queue, target, selection, force=force,
                                      control=control)
    _say_cod(result, cod, queue, planned=False)
    if missing:
        result.warnings.append(missing_sentence(missing))
    try:
        result.selected = len(saved)
        if not saved:
            return result  # nothing matched: no file left behind
        result.backup = str(target.absolute())
        control.backup_written(result.backup)
        if control.cancelled:  # cancelled while saving: the file holds them, nothing removed
            result.cancelled = True
            result.not_tried = len(saved)  # never tried: a count of their own
            return result
        remove_saved(qm, queue, saved, result, batch=batch, control=control,
                     found=pinpointable(selection), batch_bytes=batch_bytes)
    finally:
        saved.close()
    return result


def _save_first(qm: QueueManager, queue: str, target: Path, selection: Selection, *,
                force: bool, control: Control) -> tuple[SavedLog, int, int]:
    """The saved messages, how many of them ask for a COD report, and how many marked
    messages were no longer there."""
    report = save_selected(qm, queue, target, selection, force=force, control=control,
                           keep=True)
    assert report.saved is not None
    if report.count == 0:
        with contextlib.suppress(OSError):
            target.unlink()  # an empty backup says nothing: remove it
    return report.saved, report.cod, report.missing


def _say_cod(result: OperationResult, cod: int, queue: str, *, planned: bool) -> None:
    """A delete's gets are gets: a message asking for a confirm-on-delivery report makes
    the queue manager send one to its ReplyToQ when it is removed (IBM MQ, MQMD Report:
    MQRO_COD is generated when the message is retrieved from the queue and deleted)."""
    if cod:
        result.warnings.append(
            f"{counted(cod, 'selected message')} {agree(cod, 'asks', 'ask')} for a "
            "confirm-on-delivery report (COD): removing "
            f"{agree(cod, 'it', 'them')} from {queue} "
            f"{'would make' if planned else 'makes'} the queue manager send one to the "
            "ReplyToQ, as an application's get would")


def _candidates(cursor: BrowseCursor, saved: SavedLog, found: bool
                ) -> Iterator[tuple[int, Message]]:
    """``(position, message)`` of the messages that may be the saved ones, each under
    ``cursor`` when yielded (the position: in this browse, or where it was saved): every
    message of the queue in order, or (``found``: a few named messages, each saved with its
    token, and a backend that finds a message by it, ``backends.base.FindsMessages``) only
    the saved ones not removed yet, found by their tokens — the messages between them never
    browsed (issue 23: the cost grows with the messages named, not the queue's depth)."""
    finder = finds_messages(cursor) if found and not saved.untokened else None
    if finder is None:
        ordinal = 0
        while (browsed := cursor.next()) is not None:
            ordinal += 1
            yield ordinal, browsed
        return
    for digest, position, token in saved.tokens():
        if saved.left(digest) <= 0:
            continue  # removed already (a unit redone from a fresh cursor)
        m = finder.browse_token(token)
        if m is not None:  # None: it left since it was saved (counted as skipped)
            yield position, m


def remove_saved(qm: QueueManager, queue: str, saved: SavedLog,
                 result: OperationResult, *, batch: int = DEFAULT_BATCH,
                 control: Control | None = None, found: bool = False,
                 batch_bytes: int = DEFAULT_BATCH_BYTES) -> None:
    """Remove from ``queue`` the messages ``saved`` describes, recording into ``result``
    (``found``: find them by their tokens rather than browse the queue, see
    :func:`_candidates`): units of ``batch`` messages at most, and of ``batch_bytes`` bytes
    of bodies at most (one message alone always goes)."""
    control = control or Control()
    batch, lowered = capped_batch(qm, max(1, batch), per_message=1)  # MAXUMSGS: gets only
    if lowered:
        result.warnings.append(lowered)
    room = Room(qm, put=False, get=True)  # a COD report counts in MAXUMSGS too
    total = len(saved)
    redo_left = 1
    stop: MQError | None = None
    while result.done < total and stop is None:
        pending: list[tuple[bytes, str]] = []  # (key digest, msgid) got in the unit of work
        held = 0  # what they hold of MAXUMSGS (their COD reports too)
        size = 0  # ... and their bodies' bytes (--batch-bytes)
        claimed: Counter = Counter()  # key digests got in the open unit of work
        try:
            with qm.browse(queue, for_get=True) as cursor:
                for ordinal, browsed in _candidates(cursor, saved, found):
                    if result.done + len(pending) >= total:
                        break
                    if control.cancelled:
                        result.cancelled = True
                        break
                    key = (message_key(browsed), browsed.token)
                    digest = key_digest(key)
                    if saved.left(digest) - claimed[digest] <= 0:
                        continue
                    if pending and (
                            (room.limit is not None
                             and held + room.need(browsed.report) > room.limit)
                            or size + len(browsed.body) > batch_bytes):
                        # commit what is done rather than hear 2024 from the queue manager
                        # (or pass --batch-bytes)
                        _commit(qm, pending, saved, result, control)
                        pending, held, size = [], 0, 0
                        claimed.clear()
                        redo_left = 1
                    got: Message | None
                    try:
                        got = cursor.get_current(syncpoint=True)
                    except MQError as exc:
                        if exc.reason == MQRC_SYNCPOINT_LIMIT_REACHED:
                            # MAXUMSGS reached (ops.uowlimit: a COD report the get makes
                            # counts): commit what came before, get it in a unit of its own
                            got = _get_alone(qm, cursor, exc, room, held, pending, saved,
                                             result, control, queue)
                            pending, held, size = [], 0, 0
                            claimed.clear()
                            redo_left = 1
                            if got is None:  # it does not fit alone: it stays
                                saved.removed([digest])
                                result.failed.append(Failure(
                                    browsed.msg_id_hex, ordinal, exc.reason, detail=(
                                        "it does not fit in a unit of work of its own "
                                        f"(MAXUMSGS, its COD report counted): it stayed on "
                                        f"{queue}")))
                                continue
                        elif exc.reason != MQRC_NO_MSG_UNDER_CURSOR:
                            raise
                        else:
                            continue  # another consumer took it: found missing at the end
                    if got is None or message_key(got) != key[0]:
                        raise _WrongMessage()
                    pending.append((digest, browsed.msg_id_hex))
                    held += room.need(browsed.report)
                    size += len(browsed.body)
                    claimed[digest] += 1
                    if len(pending) >= batch:
                        _commit(qm, pending, saved, result, control)
                        pending, held, size = [], 0, 0
                        claimed.clear()
                        redo_left = 1
                        control.report(result.done, total)
                if pending:
                    _commit(qm, pending, saved, result, control)
                    pending = []
                    control.report(result.done, total)
        except _NotRecorded:
            result.stopped_early = NOT_RECORDED
            break
        except _CommitUnknown as unknown:
            unknown_error = unknown.error
            result.outcome_unknown = True
            saved.removed(d for d, _ in pending)
            result.warnings.append(
                f"the commit of {len(pending)} removal(s) has an unknown outcome "
                f"({unknown_error.reason_name}): browse {queue} to see which are still there "
                "(the backup file holds them all)")
            break
        except MQError as exc:
            _backout(qm)
            if redo_left > 0:
                redo_left -= 1
                continue  # redo from a fresh cursor
            stop = exc
            break
        except BaseException:
            _backout(qm)
            raise
        else:
            break  # the queue was browsed to its end (or cancelled)
    if stop is not None:
        for position, msgid, count in saved.not_removed():
            for _ in range(count):
                result.failed.append(Failure(msgid, position, stop.reason, detail=stop.detail))
        saved.forget_rest()
    left = saved.total_left()
    if left:
        if result.cancelled or result.outcome_unknown or result.stopped_early:
            # stopped before them: never tried, a count of their own (still on the queue)
            result.not_tried = (result.not_tried or 0) + left
        else:
            result.skipped += left
            result.warnings.append(f"{counted(left, 'saved message')} "
                                   f"{agree(left, 'was', 'were')} no longer on {queue} "
                                   "(another application took them): not removed by this "
                                   "delete")


def _get_alone(qm: QueueManager, cursor, refused: MQError, room: Room, held: int,
               pending: list[tuple[bytes, str]], saved: SavedLog, result: OperationResult,
               control: Control, queue: str) -> Message | None:
    """The get under the cursor was refused with 2024 with ``held`` of MAXUMSGS in the
    unit: learn the limit, commit ``pending`` (nothing backed out: a refused get changes
    nothing) and get the message again in a unit of its own. None: it does not fit even
    alone (the empty unit is left as it was)."""
    room.learn(held)
    said = (f"a unit of work reached the queue manager's limit (MAXUMSGS, "
            f"{refused.reason_name}) at {held} uncommitted messages, the COD reports counted: "
            "units are committed before that from now on")
    if said not in result.warnings:
        result.warnings.append(said)
    if pending:
        _commit(qm, pending, saved, result, control)
        control.report(result.done, len(saved))
    try:
        return cursor.get_current(syncpoint=True)
    except MQError as exc:
        if exc.reason == MQRC_SYNCPOINT_LIMIT_REACHED:
            return None
        raise


class _NotRecorded(Exception):
    """The unit's journal record could not be written: it was backed out, the delete stops."""


class _CommitUnknown(Exception):
    """A commit that may have happened: the delete stops, nothing is redone."""

    def __init__(self, error: MQError) -> None:
        super().__init__(str(error))
        self.error = error


def _commit(qm: QueueManager, pending: list[tuple[bytes, str]], saved: SavedLog,
            result: OperationResult, control: Control) -> None:
    msgids = [msgid for _, msgid in pending]
    if not control.before_commit(msgids, [None] * len(pending)):
        _backout(qm)  # never committed without its record: they stay on the queue
        raise _NotRecorded
    try:
        qm.commit()
    except MQError as exc:
        if not settle_failed_commit(qm, exc):
            raise _CommitUnknown(exc) from exc
        raise
    control.after_commit()
    saved.removed(d for d, _ in pending)
    for msgid in msgids:
        result.record_done(msgid, None)


def _backout(qm: QueueManager) -> None:
    if qm.in_unit_of_work:
        with contextlib.suppress(MQError):
            qm.backout()


__all__ = ["default_backup", "delete_messages", "remove_saved"]

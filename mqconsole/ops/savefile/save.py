"""Saving queues to dmpmqmsg files: browsing (never changing the queue) the selected
messages into a file published by ``publish.py``. Deleting (``ops.delete``) saves first
with the same function and removes only what the file holds (:func:`message_key`).
"""

from __future__ import annotations

import contextlib
import hashlib
import operator
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from mqconsole.backends.base import (
    BrowsesPacked,
    QueueManager,
    finds_messages,
    packed_browse,
)
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import LAYOUT, MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import (
    MQRC_DATA_LENGTH_ERROR,
    MQRO_COD,
)
from mqconsole.ops.dmpfile import header_text, write_message
from mqconsole.ops.files.packed import message_text
from mqconsole.ops.result import (
    Control,
    OperationResult,
)
from mqconsole.ops.savedlog import SavedLog
from mqconsole.ops.selection import Selection
from mqconsole.ops.views import MessageView
from mqconsole.ops.words import counted

from .publish import write_file_safely

BROWSE_BATCH = 200
PACKED_BATCH = 100  # messages save's fast route reads and writes at once

# -- identity of a message ------------------------------------------------------------------

_KEY_FIELDS = operator.attrgetter(*(a for a, *_ in LAYOUT
                                     if a not in ("backout_count", "expiry")))


def message_key(message: Message) -> tuple:
    """What identifies one message between a browse and a later get: its MsgId, every
    descriptor field but those MQ changes meanwhile (BackoutCount rises when a unit of work
    is backed out; Expiry counts down), and a digest of its body."""
    md = message.md
    return md.msg_id, _KEY_FIELDS(md), hashlib.sha256(message.body).digest()


@dataclass(slots=True)
class SaveReport:
    path: Path | None  # None for a dry run
    count: int = 0
    bytes: int = 0  # body bytes written
    saved: SavedLog | None = None  # with ``keep``: what was saved, to remove exactly those
    cod: int = 0  # with ``keep``: how many ask for a COD report (a get makes one)
    missing: int = 0  # marked messages no longer there (found by what names them)


# -- save -----------------------------------------------------------------------------------

def _whole(message: Message, position: int, queue: str) -> Message:
    if message.truncated_from is not None:  # a preview: saving loses data
        raise MQError(MQRC_DATA_LENGTH_ERROR, (
            f"cannot save message {message.msg_id_hex} (position {position} "
            f"of {queue}): only the first {len(message.body)} of its "
            f"{message.truncated_from} bytes come over this channel (its "
            "MAXMSGL is smaller); nothing was saved"))
    return message


def _iter_found(qm: QueueManager, queue: str, selection: Selection, control: Control,
                now: datetime, missing: list[int] | None
                ) -> Iterator[tuple[int, Message]] | None:
    """The selected messages found by what names them (marks, MsgIds: ``ops.pinpoint``),
    never browsing the messages between them; None when the backend cannot find them so
    (the caller browses). ``missing`` gets how many marked messages are no longer there."""
    from mqconsole.ops.pinpoint import pinpoint, pinpointable

    if not pinpointable(selection):
        return None
    cursor = qm.browse(queue)
    try:
        finder = finds_messages(cursor)
        found = None if finder is None else pinpoint(cursor, selection, now)
    except BaseException:
        cursor.close()
        raise
    if finder is None or found is None:
        cursor.close()
        return None

    def walk() -> Iterator[tuple[int, Message]]:
        gone = found.missing
        taken = 0
        try:
            for target in found.targets:
                if selection.limit is not None and taken >= selection.limit:
                    break
                if control.cancelled:
                    break
                m = finder.browse_token(target.token)
                if m is None:  # it left since it was found
                    gone += 1
                    continue
                yield target.position, _whole(m, target.position, queue)
                taken += 1
                control.report(taken, len(found.targets))
        finally:
            cursor.close()
            if missing is not None:
                missing.append(gone)

    return walk()


def iter_selected(qm: QueueManager, queue: str, selection: Selection,
                  control: Control | None = None, *, missing: list[int] | None = None
                  ) -> Iterator[tuple[int, Message]]:
    """Yield ``(position, message)`` of every selected message: found by what names them
    when the selection names them and the backend can (``_iter_found``), else by browsing
    ``queue``. ``missing`` gets how many marked messages were no longer there."""
    control = control or Control()
    now = datetime.now(UTC)
    if selection.limit is not None and selection.limit <= 0:
        return
    found = _iter_found(qm, queue, selection, control, now, missing)
    if found is not None:
        yield from found
        return
    total = None
    with contextlib.suppress(MQError):
        total = qm.inquire_queue(queue).depth
    taken = 0
    position = 0
    with qm.browse(queue) as cursor:
        while True:
            batch = cursor.next_batch(BROWSE_BATCH)
            for message in batch:
                position += 1
                if selection.all or selection.matches(MessageView(position, message, now)):
                    yield position, _whole(message, position, queue)
                    taken += 1
                    if selection.limit is not None and taken >= selection.limit:
                        control.report(position, position)
                        return
            control.report(position, max(total or 0, position))
            if len(batch) < BROWSE_BATCH or control.cancelled:
                return


def _save_all_packed(cursor: BrowsesPacked, fp: IO[str], selection: Selection,
                     control: Control, total: int | None, report: SaveReport) -> int:
    """Save's fast route (``--all``, a cursor that reads messages packed): pages of
    ``(md, body)`` written by ``files.packed.message_text``, no ``Message`` made unless a
    message needs the general route. Returns how many were written."""
    limit = selection.limit
    position = 0
    while True:
        want = PACKED_BATCH if limit is None else min(PACKED_BATCH, limit - position)
        if want <= 0:
            break
        page = cursor.next_packed(want)
        texts = [message_text(md, body) for md, body in page]
        if None in texts:
            for (md, body), text in zip(page, texts, strict=True):
                if text is None:
                    write_message(fp, Message(MQMD.unpack(md, ccsid=819), body))
                else:
                    fp.write(text)
        else:
            fp.write("".join(texts))  # type: ignore[arg-type]  # no None in it
        report.bytes += sum(len(body) for _, body in page)
        position += len(page)
        if limit is not None and position >= limit:
            control.report(position, position)
            break
        control.report(position, max(total or 0, position))
        if len(page) < want or control.cancelled:
            break
    return position


def save_selected(qm: QueueManager, queue: str, path: str | os.PathLike | None,
                  selection: Selection, *, force: bool = False,
                  control: Control | None = None, keep: bool = False) -> SaveReport:
    """Browse ``queue`` and write the selected messages to ``path`` (None: only count them).

    Nothing on the queue changes. The file is complete and on disk when this returns.
    ``keep``: the report's ``saved`` says which were saved (a delete removes those). With
    ``--all`` on a backend whose cursor reads messages packed (``BrowsesPacked``) and
    nothing to keep, the messages are written without a ``Message`` object each.
    """
    control = control or Control()
    report = SaveReport(path=None if path is None else Path(path))
    if keep:
        report.saved = SavedLog()
    if (path is not None and not keep and selection.all
            and (selection.limit is None or selection.limit > 0)):
        total = None
        with contextlib.suppress(MQError):
            total = qm.inquire_queue(queue).depth
        with qm.browse(queue) as cursor:
            packed = packed_browse(cursor)
            if packed is not None:
                def fill(fp: IO[str]) -> int:
                    fp.write(header_text(qmgr=qm.name, queue=queue))
                    return _save_all_packed(packed, fp, selection, control, total, report)

                report.count = write_file_safely(path, fill, force=force)
                return report

    missing: list[int] = []

    def chosen() -> Iterator[tuple[Message, bytes | None]]:
        """Each message chosen, counted in the report, with its MD as stored while still
        packed (``Message.packed_md``: taken before ``message_key`` unpacks it) when a
        file is written."""
        for position, message in iter_selected(qm, queue, selection, control,
                                               missing=missing):
            packed = None if path is None else message.packed_md()
            if report.saved is not None:
                report.saved.add(position, message.msg_id_hex,
                                 (message_key(message), message.token))
                if message.md.report & MQRO_COD:
                    report.cod += 1
            report.count += 1
            report.bytes += len(message.body)
            yield message, packed

    if path is None:
        for _ in chosen():
            pass
    else:
        def fill_from(fp: IO[str]) -> int:
            # what write_messages_file writes; a message still holding its MD packed
            # (``Message.packed_md``) is written from it (``files.packed``), not unpacked
            fp.write(header_text(qmgr=qm.name, queue=queue))
            n = 0
            for message, md in chosen():
                text = None if md is None else message_text(md, message.body)
                if text is None:
                    write_message(fp, message)
                else:
                    fp.write(text)
                n += 1
            return n

        write_file_safely(path, fill_from, force=force)
    report.missing = sum(missing)
    return report


def _not_saved(qm: QueueManager, queue: str, selection: Selection,
               report: SaveReport) -> int | None:
    """After a cancel: how many selected messages the save never reached (a count of
    their own, issue 24) — every message past the stop (the queue's depth; a save changes
    nothing), or the marks left; None when only a browse of the rest could tell (a
    ``--where``: a stop asked for is not made to wait)."""
    room = None if selection.limit is None else max(0, selection.limit - report.count)
    if selection.everything:
        try:
            depth = qm.inquire_queue(queue).depth
        except MQError:
            return None
        if depth is None:
            return None
        n = max(0, depth - report.count)
    elif selection.marks and not selection.msgids and selection.where is None:
        n = max(0, len(selection.marks) - report.count - report.missing)
    else:
        return None
    return n if room is None else min(n, room)


def save_queue(qm: QueueManager, queue: str, path: str | os.PathLike, selection: Selection,
               *, force: bool = False, dry_run: bool = False,
               control: Control | None = None) -> OperationResult:
    """``mqconsole save`` without ``--remove``: browse and write; the queue is unchanged.
    Not journaled, so the result counts the messages saved without listing them."""
    result = OperationResult(operation="save", source=queue, destination=None,
                             dry_run=dry_run)
    if dry_run and not force and Path(path).exists():
        result.warnings.append(f"{path} exists: the save would be refused without --force")
    if dry_run:
        report = save_selected(qm, queue, None, selection, force=force, control=control,
                               keep=True)
        assert report.saved is not None
        result.selected = report.count
        if report.missing:
            from mqconsole.ops.pinpoint import missing_sentence

            result.warnings.append(missing_sentence(report.missing))
        result.plan = [{"position": position, "msgid": msgid, "action": "save"}
                       for position, msgid in report.saved]
        report.saved.close()
        return result
    control = control or Control()
    report = save_selected(qm, queue, path, selection, force=force, control=control)
    result.selected = report.count
    if report.missing:
        from mqconsole.ops.pinpoint import missing_sentence

        result.warnings.append(missing_sentence(report.missing))
    result.backup = str(Path(path).absolute())
    result.done = report.count
    if control.cancelled:  # Ctrl-C, SIGTERM, escape: the file holds what came before
        result.cancelled = True
        result.stopped_early = "cancelled"
        result.not_tried = _not_saved(qm, queue, selection, report)
        result.selected += result.not_tried or 0
        result.warnings.append(
            f"stopped early (cancelled): {path} holds only the {counted(report.count, 'message')}"
            f" saved before the stop, not the rest of {queue}")
    return result

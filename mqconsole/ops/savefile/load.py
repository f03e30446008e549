"""Loading dmpmqmsg files onto queues (on top of ``ops.dmpfile``).

Loading reads the whole file once to check it (a malformed file is rejected, naming the
line, before anything is put), then reads it again and puts each message under syncpoint,
committing every ``batch``. Context is set-all by default: the descriptor in the file goes
on the queue as it is — except BackoutCount, which is an output of MQGET only (every put
starts it at 0), and Priority/Persistence "as queue default" (-1/2), which the queue
resolves.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import shlex
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqconsole.backends.base import (
    Context,
    PutsPacked,
    QueueManager,
    settle_failed_commit,
)
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import OFFSETS
from mqconsole.mq.message import Message
from mqconsole.mq.names import reason_label
from mqconsole.mq.reasons import (
    CONNECTION_REASONS,
    MQRC_SYNCPOINT_LIMIT_REACHED,
)
from mqconsole.ops.dmpfile import DmpReader
from mqconsole.ops.result import (
    NOT_RECORDED,
    Control,
    Failure,
    OperationResult,
    PutCheck,
    refused_by_plugin,
    would_fail_by_plugin,
)
from mqconsole.ops.uowlimit import DEFAULT_BATCH_BYTES, UnitBytes, capped_batch
from mqconsole.ops.words import agree, counted

from .save import BROWSE_BATCH

DEFAULT_BATCH = 100
MAX_REFUSALS_IN_A_ROW = 10  # a queue that refused this many puts in a row is given up on
_MSG_ID_AT = OFFSETS["msg_id"]

# -- load -----------------------------------------------------------------------------------

@dataclass(slots=True)
class FileCheck:
    """What the first reading of a file found: its messages' count and the reader's notes."""

    count: int
    tool: str | None
    qmgr: str | None
    queue: str | None
    warnings: list[str]


def check_file(path: str | os.PathLike) -> FileCheck:
    """Read the whole file (one message in memory at a time); raise DmpFileError if bad."""
    with DmpReader(path) as reader:
        count = reader.count_messages()
        return FileCheck(count, reader.info.tool, reader.info.qmgr, reader.info.queue,
                         list(reader.warnings))


def parse_range(text: str) -> tuple[int, int | None]:
    """``--range``: message numbers of the file as ``save`` (and dmpmqmsg) wrote them, from
    1: ``N-M``, ``N-`` (to the end), ``-M`` or ``N`` (dmpmqmsg's ``N..M`` too). Raises
    ValueError with one sentence."""
    raw = text.strip()
    spec = raw.replace("..", "-")
    start, dash, end = spec.partition("-")
    try:
        if not start.strip() and not end.strip():
            raise ValueError
        first = int(start) if start.strip() else 1
        last = (int(end) if end.strip() else None) if dash else first
    except ValueError:
        raise ValueError(f"--range {raw!r} is not N-M (message numbers from 1, as the file "
                         "numbers them: 5-10, 5- or -10)") from None
    if first < 1 or (last is not None and last < first):
        raise ValueError(f"--range {raw!r}: messages are numbered from 1, and the first "
                         "number cannot be greater than the last")
    return first, last


def range_problem(first: int, last: int | None, count: int, path: str | os.PathLike
                  ) -> str | None:
    """A range the file does not hold, as one sentence (None: it does)."""
    if first > count or (last is not None and last > count):
        return (f"--range {first}-{'' if last is None else last} asks for messages the file "
                f"{path} does not hold: it holds {counted(count)} (1-{count})")
    return None


def resume_command(path: str | os.PathLike, queue: str, first: int, last: int, *,
                   prefix: str = "mqconsole", new_context: bool = False) -> str:
    """The command that loads messages ``first``-``last`` of the file, skipping those
    already on ``queue``: what resumes a load that ended in doubt without duplicates."""
    cmd = (f"{prefix} load {shlex.quote(str(Path(path).absolute()))} {shlex.quote(queue)} "
           f"--range {first}-{last} --skip-present")
    return cmd + (" --new-context" if new_context else "")


def present_on(qm: QueueManager, queue: str, path: str | os.PathLike, first: int,
               last: int | None) -> Counter[tuple[bytes, bytes]]:
    """``--skip-present``: how many copies of each message of the file's range (by MsgId
    and a digest of the body) are on ``queue`` now — one browse of the queue, keeping
    only the MsgIds the range holds."""
    ids: set[bytes] = set()
    with DmpReader(path) as reader:
        for md, _body in itertools.islice(reader.packed(), first - 1, last):
            ids.add(md[_MSG_ID_AT:_MSG_ID_AT + 24])
    ids.discard(bytes(24))  # MQMI_NONE: the put makes a new MsgId, never "the same"
    found: Counter[tuple[bytes, bytes]] = Counter()
    if not ids:
        return found
    with qm.browse(queue) as cursor:
        while True:
            page = cursor.next_batch(BROWSE_BATCH)
            for m in page:
                mid = bytes(m.md.msg_id)
                if mid in ids:
                    found[(mid, hashlib.sha256(m.body).digest())] += 1
            if len(page) < BROWSE_BATCH:
                return found


def load_to_queue(qm: QueueManager, path: str | os.PathLike, queue: str, *,
                  new_context: bool = False, dry_run: bool = False,
                  batch: int = DEFAULT_BATCH, control: Control | None = None,
                  check: PutCheck | None = None,
                  checked: FileCheck | None = None,
                  first: int = 1, last: int | None = None, skip_present: bool = False,
                  command: str = "mqconsole",
                  batch_bytes: int = DEFAULT_BATCH_BYTES) -> OperationResult:
    """Put every message of a dmpmqmsg/qload file (or amqsbcg output) on ``queue``.

    The file is checked completely first (DmpFileError names the line; nothing is put),
    unless ``checked`` says it was (``check_file`` of the unchanged file).
    Each message is put under syncpoint, the unit of work committed every ``batch``. A put
    the queue refuses leaves nothing to undo: that message is recorded as failed and the
    load goes on, until the queue has refused ``MAX_REFUSALS_IN_A_ROW`` in a row. A commit
    certainly backed out (2003, or backed out after another failure) is redone once; a
    commit whose outcome MQ cannot tell (2009, 2018, 2548, 2549, or a failed backout) stops
    the load, sets ``outcome_unknown`` and re-puts nothing; its warning names the command
    that loads the rest without duplicates (:func:`resume_command`).

    A unit is also committed before it would hold more than ``batch_bytes`` bytes of bodies
    (the recovery log: ``ops.uowlimit``; one message alone always goes).

    ``first``/``last``: only the file's messages so numbered (``--range``, from 1).
    ``skip_present``: a message whose MsgId and body are on ``queue`` when the load starts
    is not put (one for each copy there), and counted in ``result.present``.
    """
    control = control or Control()
    batch = max(1, batch)
    checked = checked or check_file(path)
    problem = range_problem(first, last, checked.count, path)
    if problem is not None:
        raise ValueError(problem)
    end = checked.count if last is None else last
    qm.inquire_queue(queue)  # an unknown queue: 2085 before anything is put
    result = OperationResult(operation="load", source=str(Path(path).absolute()),
                             destination=queue, selected=max(0, end - first + 1),
                             dry_run=dry_run)
    result.warnings.extend(checked.warnings)
    present = present_on(qm, queue, path, first, end) if skip_present else Counter()

    def already_there(msg_id: bytes, body: bytes) -> bool:
        """``--skip-present``: one copy of this message on ``queue`` is spoken for."""
        if not present:
            return False
        key = (bytes(msg_id), hashlib.sha256(body).digest())
        if present[key] <= 0:
            return False
        present[key] -= 1
        result.present += 1
        return True

    if dry_run:
        with DmpReader(path) as reader:
            for i, m in itertools.islice(enumerate(reader, 1), first - 1, end):
                if already_there(m.md.msg_id, m.body):
                    continue
                step = {"position": i, "msgid": m.msg_id_hex, "action": f"put to {queue}",
                        "destination": queue}
                refusal = check(m, queue) if check is not None else None
                if refusal is not None:
                    step["would_fail"] = would_fail_by_plugin(refusal)
                result.plan.append(step)
        return result
    batch, lowered = capped_batch(qm, batch, per_message=1)  # MAXUMSGS: puts only
    if lowered:
        result.warnings.append(lowered)
    context = Context.NEW if new_context else Context.SET_ALL
    pending: list[tuple[int, _Item]] = []  # put in the open unit of work
    refused_in_a_row = 0
    stopped: str | None = None
    unknown = [0]  # messages whose commit has an unknown outcome

    def commit() -> bool:
        """Commit the open unit of work (redo it once if it was backed out)."""
        nonlocal pending
        for attempt in (1, 2):
            ids = [_msgid_hex(m) for _, m in pending]
            if not control.before_commit(ids, [queue] * len(pending)):
                _backout_quietly(qm)  # never committed without its record: not loaded
                result.stopped_early = NOT_RECORDED
                pending = []
                return False
            try:
                qm.commit()
            except MQError as exc:
                if not settle_failed_commit(qm, exc):  # it may have committed: never re-put
                    result.outcome_unknown = True
                    again = resume_command(path, queue, pending[0][0], end, prefix=command,
                                           new_context=new_context)
                    result.warnings.append(
                        f"the commit of {counted(len(pending))} has an unknown outcome "
                        f"({exc.reason_name}): loading the file again would double "
                        f"{agree(len(pending), 'it', 'them')}; {again} loads the rest "
                        "without duplicates")
                    unknown[0] = len(pending)
                    pending = []
                    return False
                if attempt == 2:
                    for position, message in pending:
                        result.failed.append(Failure(_msgid_hex(message), position, exc.reason,
                                                     detail=exc.detail, destination=queue))
                    pending = []
                    return False
                if not _reput(qm, queue, pending, context, result):
                    pending = []
                    return False
                continue
            control.after_commit()
            result.record_done_many(ids, [queue] * len(ids))
            pending = []
            control.report(result.done + len(result.failed) + result.present,
                           result.selected)
            return True
        return False  # pragma: no cover - the loop always returns

    in_unit = UnitBytes(batch_bytes)

    def pending_size(entry: tuple[int, _Item]) -> int:
        return _size(entry[1])

    def fits(size: int) -> bool:
        """May ``size`` more bytes go in the open unit (--batch-bytes)?"""
        return not in_unit.full_for(size, pending, pending_size)

    def room_bytes() -> tuple[int, bool]:
        """What is left of --batch-bytes in the open unit, and whether it is empty."""
        return batch_bytes - in_unit.held(pending, pending_size), not pending

    packed = qm if isinstance(qm, PutsPacked) and check is None and not new_context else None
    try:
        with DmpReader(path) as reader:
            if packed is not None:
                puts = _put_packed_each(packed, queue, reader, lambda: batch - len(pending),
                                        control, first, end, already_there, room_bytes)
            else:
                puts = _put_each(qm, queue, reader, context, control, check, first, end,
                                 already_there, fits)
            for position, item, refusal in puts:
                if refusal is _CANCELLED:
                    result.cancelled = True
                    break
                if refusal is _FULL:  # it would pass --batch-bytes: commit first
                    if not commit():
                        stopped = "commit failed"
                        break
                    continue
                if isinstance(refusal, _Lost):
                    # not the queue's refusal: the unit of work is gone (a broken
                    # connection, or 2003 after a reconnection), and with it every
                    # put since the last commit — none of them is loaded
                    exc = refusal.error
                    _backout_quietly(qm)
                    for pos, lost in [*pending, *refusal.items]:
                        result.failed.append(Failure(
                            _msgid_hex(lost), pos, exc.reason, destination=queue,
                            detail=f"not loaded: the unit of work was lost ({exc})"))
                    pending = []
                    stopped = "commit failed"
                    result.warnings.append(f"the connection failed ({exc.reason_name}): "
                                           "the load stopped")
                    break
                if isinstance(refusal, Failure):  # a plugin's check: not put, not counted
                    result.failed.append(refusal)
                    continue
                if refusal is not None and refusal.reason == MQRC_SYNCPOINT_LIMIT_REACHED \
                        and pending:
                    # the unit of work holds MAXUMSGS messages (the reports the messages
                    # ask for count too): not the queue's refusal — commit what is done
                    # and put this one again in a new unit of work
                    if not commit():
                        stopped = "commit failed"
                        break
                    again = [(position, item)]
                    _reput(qm, queue, again, context, result)
                    pending.extend(again)
                    if len(pending) >= batch and not commit():
                        stopped = "commit failed"
                        break
                    continue
                if refusal is not None:
                    result.failed.append(Failure(_msgid_hex(item), position, refusal.reason,
                                                 detail=refusal.detail, destination=queue))
                    refused_in_a_row += 1
                    if refused_in_a_row >= MAX_REFUSALS_IN_A_ROW:
                        stopped = reason_label(refusal.reason)
                        break
                    continue
                refused_in_a_row = 0
                pending.append((position, item))
                if len(pending) >= batch and not commit():
                    stopped = "commit failed"
                    break
            if pending and not commit():
                stopped = stopped or "commit failed"
    except BaseException:
        _backout_quietly(qm)
        raise
    if stopped is not None or result.cancelled:
        # the file's messages after the stop were never tried: a count of their own, said
        # as "N of the file were not put" (issue 24 item 2)
        result.not_tried = max(0, result.selected - result.done - len(result.failed)
                               - unknown[0] - result.present)
        if stopped and stopped != "commit failed" and not result.stopped_early:
            result.stopped_early = (f"{queue} refused {MAX_REFUSALS_IN_A_ROW} puts in a row "
                                    f"({stopped})")
            result.warnings.append(f"{result.stopped_early}: the load stopped")
        elif stopped and not result.stopped_early:
            result.stopped_early = ("a commit's outcome is unknown" if result.outcome_unknown
                                    else "a unit of work failed")
    return result


# what a load puts: a Message, or (md, body) packed for a backend that ``PutsPacked``
_Item = Message | tuple[bytes, bytes]


class _Lost:
    """The unit of work was lost while putting ``items`` (the connection failed)."""

    def __init__(self, error: MQError, items: Sequence[tuple[int, _Item]]) -> None:
        self.error = error
        self.items = items


_CANCELLED = object()  # the operator cancelled: stop before the next put
_FULL = object()  # the open unit cannot take this message's bytes: commit, then it is put


def _size(item: _Item) -> int:
    return len(item[1]) if isinstance(item, tuple) else len(item.body)


def _msgid_hex(item: _Item) -> str:
    if isinstance(item, tuple):
        return item[0][_MSG_ID_AT:_MSG_ID_AT + 24].hex().upper()
    return item.msg_id_hex


_Present = Callable[[bytes, bytes], bool]  # (MsgId, body): skipped as already there


def _put_each(qm: QueueManager, queue: str, reader: DmpReader, context: Context,
              control: Control, check: PutCheck | None, first: int, last: int,
              present: _Present, fits: Callable[[int], bool]
              ) -> Iterator[tuple[int, _Item, Any]]:
    """``(position, message, None | refusal | Failure | _Lost | _CANCELLED)`` for each
    message ``first``-``last`` of the file not ``present``, put one at a time
    (``qm.put``); ``_FULL`` first when the open unit cannot take its bytes (``fits``)."""
    for position, message in itertools.islice(enumerate(reader, 1), first - 1, last):
        if control.cancelled:
            yield position, message, _CANCELLED
            return
        if present(message.md.msg_id, message.body):
            continue
        if check is not None:
            refusal = check(message, queue)
            if refusal is not None:  # not put; not the queue's refusal either
                yield position, message, refused_by_plugin(message.msg_id_hex, position,
                                                           refusal, queue)
                continue
        if not fits(len(message.body)):
            yield position, message, _FULL  # the caller commits; then it is put
        try:
            qm.put(queue, message, context=context, syncpoint=True)
        except MQError as exc:
            if exc.reason in CONNECTION_REASONS:
                yield position, message, _Lost(exc, [(position, message)])
                return
            yield position, message, exc
            continue
        yield position, message, None


def _put_packed_each(qm: PutsPacked, queue: str, reader: DmpReader,
                     room: Callable[[], int], control: Control, first: int, last: int,
                     present: _Present, room_bytes: Callable[[], tuple[int, bool]]
                     ) -> Iterator[tuple[int, _Item, Any]]:
    """What ``_put_each`` gives, putting what is left of a unit of work (``room()``
    messages) in one ``put_packed`` call: the messages read packed (``fastread``), a
    ``Message`` the general reader read packed as ``MQMD.pack(ccsid=819)``. A call stops
    at a refusal, so each refusal is seen before anything after it is put, as one by one."""
    items = ((position, item) for position, item
             in itertools.islice(enumerate(reader.packed(), 1), first - 1, last)
             if not present(item[0][_MSG_ID_AT:_MSG_ID_AT + 24], item[1]))
    carry: tuple[int, tuple[bytes, bytes]] | None = None
    while True:
        if control.cancelled:
            yield 0, (b"", b""), _CANCELLED
            return
        want = max(1, room())
        budget, empty = room_bytes()
        chunk: list[tuple[int, tuple[bytes, bytes]]] = []
        size = 0
        while len(chunk) < want:
            entry = carry if carry is not None else next(items, None)
            carry = None
            if entry is None:
                break
            n = len(entry[1][1])
            if size + n > budget and (chunk or not empty):  # --batch-bytes
                carry = entry
                break
            chunk.append(entry)
            size += n
        if not chunk:
            if carry is None:
                return
            yield carry[0], carry[1], _FULL  # the caller commits; then it goes
            continue
        start = 0
        while start < len(chunk):
            try:
                went, refusal = qm.put_packed(queue, [item for _, item in chunk[start:]])
            except MQError as exc:
                if exc.reason in CONNECTION_REASONS:
                    yield chunk[start][0], chunk[start][1], _Lost(exc, chunk[start:])
                    return
                went, refusal = 0, exc  # as put raises it: this message's refusal
            for position, item in chunk[start:start + went]:
                yield position, item, None
            start += went
            if refusal is not None:
                yield chunk[start][0], chunk[start][1], refusal
                start += 1


def _reput(qm: QueueManager, queue: str, pending: list[tuple[int, _Item]],
           context: Context, result: OperationResult) -> bool:
    """Put again what a backed-out unit of work held; a refusal now fails that message."""
    kept = []
    for position, item in pending:
        try:
            if isinstance(item, tuple):
                _went, refusal = qm.put_packed(queue, [item])  # type: ignore[attr-defined]
                if refusal is not None:
                    raise refusal
            else:
                qm.put(queue, item, context=context, syncpoint=True)
        except MQError as exc:
            result.failed.append(Failure(_msgid_hex(item), position, exc.reason,
                                         detail=exc.detail, destination=queue))
            continue
        kept.append((position, item))
    pending[:] = kept
    return True


def _backout_quietly(qm: QueueManager) -> None:
    if qm.in_unit_of_work:
        with contextlib.suppress(MQError):
            qm.backout()

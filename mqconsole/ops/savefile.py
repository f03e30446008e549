"""Saving queues to dmpmqmsg files and loading files onto queues (on top of ``ops.dmpfile``).

Saving browses (it never changes the queue): the selected messages are written to a
temporary file next to the target, flushed and fsynced, then published under the target's
name with a link that fails when the name exists (so a file is never overwritten unless
``force``, and never seen half-written). Deleting (``ops.delete``) saves first with the same
function and removes only what the file holds.

Loading reads the whole file once to check it (a malformed file is rejected, naming the
line, before anything is put), then reads it again and puts each message under syncpoint,
committing every ``batch``. Context is set-all by default: the descriptor in the file goes
on the queue as it is — except BackoutCount, which is an output of MQGET only (every put
starts it at 0), and Priority/Persistence "as queue default" (-1/2), which the queue
resolves.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import operator
import os
import shlex
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from mqconsole.backends.base import (
    BrowsesPacked,
    Context,
    PutsPacked,
    QueueManager,
    packed_browse,
    settle_failed_commit,
)
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import LAYOUT, MQMD, OFFSETS
from mqconsole.mq.message import Message
from mqconsole.mq.reasons import (
    CONNECTION_REASONS,
    MQRC_DATA_LENGTH_ERROR,
    MQRC_SYNCPOINT_LIMIT_REACHED,
    MQRO_COD,
)
from mqconsole.ops.dmpfile import DmpReader, DmpWriter, header_text, write_message
from mqconsole.ops.files.packed import message_text
from mqconsole.ops.outputs import SAVED, StateFiles, describe, not_regular
from mqconsole.ops.result import (
    NOT_RECORDED,
    Control,
    Failure,
    OperationResult,
    PutCheck,
    refused_by_plugin,
    would_fail_by_plugin,
)
from mqconsole.ops.savedlog import SavedLog
from mqconsole.ops.selection import Selection
from mqconsole.ops.uowlimit import capped_batch
from mqconsole.ops.views import MessageView
from mqconsole.ops.words import agree, counted

DEFAULT_BATCH = 100
MAX_REFUSALS_IN_A_ROW = 10  # a queue that refused this many puts in a row is given up on
BROWSE_BATCH = 200
_MSG_ID_AT = OFFSETS["msg_id"]
PACKED_BATCH = 100  # messages save's fast route reads and writes at once
_WRITE_BUFFER = 1 << 20


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


# -- file names -----------------------------------------------------------------------------

def _safe_part(name: str) -> str:
    out = "".join(c if c.isalnum() or c in "._-" else "_" for c in name.strip())
    return out or "_"


def backup_file_name(qmgr: str, queue: str, when: datetime | None = None) -> str:
    """``QM1-APP.DLQ-20261102T091403.512Z.dmp`` (UTC)."""
    when = (when or datetime.now(UTC)).astimezone(UTC)
    stamp = when.strftime("%Y%m%dT%H%M%S") + f".{when.microsecond // 1000:03d}Z"
    return f"{_safe_part(qmgr)}-{_safe_part(queue)}-{stamp}.dmp"


def new_backup_path(folder: Path, qmgr: str, queue: str, when: datetime | None = None
                    ) -> Path:
    """A name in ``folder`` that does not exist yet (``-2``, ``-3`` … added when needed).

    Publishing still refuses to overwrite, so two processes choosing the same name at once
    cannot overwrite each other (see :func:`write_messages_file`).
    """
    base = backup_file_name(qmgr, queue, when)
    candidate = folder / base
    n = 1
    while candidate.exists():
        n += 1
        candidate = folder / f"{base[:-4]}-{n}.dmp"
    return candidate


# -- writing a file safely ------------------------------------------------------------------

class TargetExistsError(FileExistsError):
    """The file to write exists (and ``force`` was not given)."""


class UnsafeTargetError(TargetExistsError):
    """A file that saving must never replace, ``force`` or not: a database, a journal, a
    device or anything else that is not a regular file."""


def refuse_unsafe_target(path: str | os.PathLike, state: StateFiles | None = None, *,
                         backup: bool = False) -> None:
    """Raise :class:`UnsafeTargetError` when ``path`` must not be written by a save, even
    with ``force``: it is, or links to, one of mqconsole's own files (a queue manager's
    database or its side files, a journal, a delete's backup, a snapshot...: ``state``,
    default the standard places, and :mod:`mqconsole.ops.outputs`), or it is not a regular
    file (``/dev/null``, a FIFO, a folder). ``backup``: a delete writing its own backup in
    the backup folder. Checked before anything is read from a queue."""
    if not os.fspath(path).strip():
        raise UnsafeTargetError("the file name is empty: name the file to write")
    if backup and state is None:
        state = StateFiles()  # a new name in the backup folder: content checks only
    what = describe(path, state, allow=(SAVED,))
    if what is not None:
        raise UnsafeTargetError(f"{path} {what}: a save never overwrites it, even with --force")
    kind = not_regular(path)
    if kind is not None:
        raise UnsafeTargetError(f"{path} is {kind}, not a regular file: a save writes "
                                "only regular files")


def check_new_target(path: str | os.PathLike, *, force: bool = False,
                     exists_hint: str = "give --force to overwrite it",
                     state: StateFiles | None = None) -> None:
    """Bad input before anything is asked: :func:`refuse_unsafe_target`, then an existing
    ``path`` (unless ``force``; ``exists_hint`` says what to do instead) and a folder that
    is missing or cannot be written in, each one sentence naming the path."""
    refuse_unsafe_target(path, state)
    target = Path(path)
    if not force and target.exists():
        raise TargetExistsError(f"{target} exists ({exists_hint})")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, "this folder cannot be written in", str(folder))


NEVER_OVERWRITTEN = "choose another name: files are never overwritten"


def new_target_problem(path: str | os.PathLike, *, force: bool = False,
                       exists_hint: str = NEVER_OVERWRITTEN) -> str | None:
    """:func:`check_new_target` as a sentence, or None: for a face that checks a file name
    as it is typed (the console's dialogs)."""
    if not os.fspath(path).strip():
        return "give a file name"
    try:
        check_new_target(Path(path).expanduser(), force=force, exists_hint=exists_hint)
    except TargetExistsError as e:
        return str(e)
    except OSError as e:
        return f"cannot use {e.filename or path}: {e.strerror or e}"
    return None


def write_new_file(path: str | os.PathLike, data: bytes) -> Path:
    """``data`` to a new file (mode 0600), never over an existing one (a
    :class:`TargetExistsError` naming it): a payload saved by ``show --save`` or the
    console."""
    target = Path(path).expanduser()
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise TargetExistsError(f"{target} exists ({NEVER_OVERWRITTEN})") from None
    with os.fdopen(fd, "wb") as fp:
        fp.write(data)
    return target


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform/file system can sync a folder
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _publish(tmp: Path, target: Path, *, force: bool) -> None:
    if force:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)  # fails with EEXIST: never overwrites, even in a race
    except FileExistsError:
        raise TargetExistsError(f"{target} exists (give --force to overwrite it)") from None
    except OSError:
        # a file system without hard links: the best we can do is check, then rename
        if target.exists():
            raise TargetExistsError(f"{target} exists (give --force to overwrite it)") from None
        os.rename(tmp, target)
        return
    os.unlink(tmp)


def write_messages_file(path: str | os.PathLike, messages, *, qmgr: str | None,
                        queue: str | None, force: bool = False) -> int:
    """Write ``messages`` (an iterable) to a dmpmqmsg file at ``path``, completely or not at all.

    The file is written under a temporary name in the same folder (mode 0600), fsynced,
    then published as ``path``; an existing ``path`` raises :class:`TargetExistsError`
    unless ``force``, and :class:`UnsafeTargetError` always when it is a database, a journal
    or not a regular file (:func:`refuse_unsafe_target`). On any failure the temporary file
    is removed and ``path`` is untouched.
    Returns how many messages were written.
    """
    def fill(fp: IO[str]) -> int:
        writer = DmpWriter(fp, qmgr=qmgr, queue=queue)
        count = writer.write_all(messages)
        writer.close()
        return count

    return write_file_safely(path, fill, force=force)


def write_file_safely(path: str | os.PathLike, fill: Callable[[IO[str]], int], *,
                      force: bool = False) -> int:
    """``fill(fp)`` writes the file (text, latin-1, ``\\n`` line ends) and returns how many
    messages it wrote; published as :func:`write_messages_file` says."""
    target = Path(path)
    refuse_unsafe_target(target, StateFiles())  # the face checked the config's files
    if not force and target.exists():
        raise TargetExistsError(f"{target} exists (give --force to overwrite it)")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(folder))
    remove_stale_partials(folder)
    tmp = folder / f".{target.name}.{os.getpid()}.partial"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o600)
    except OSError as exc:  # the file the operator named, not our temporary name
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    fp = os.fdopen(fd, "w", encoding="latin-1", newline="\n", buffering=_WRITE_BUFFER)
    try:
        with fp:
            count = fill(fp)
            fp.flush()
            os.fsync(fp.fileno())
        _publish(tmp, target, force=force)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if (isinstance(exc, OSError) and exc.errno is not None
                and not isinstance(exc, TargetExistsError)):
            raise OSError(exc.errno, exc.strerror, str(target)) from None
        raise
    _fsync_dir(folder)
    return count


def remove_stale_partials(folder: Path) -> None:
    """Remove the temporary files (``.<name>.<pid>.partial``) that saves and deletes killed
    while writing left in ``folder``: those whose process is gone."""
    try:
        leftovers = list(folder.glob(".*.*.partial"))
    except OSError:
        return
    for tmp in leftovers:
        pid = tmp.name[:-len(".partial")].rsplit(".", 1)[-1]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            tmp.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0  # someone else's, or not a pid: leave it
    return True


# -- save -----------------------------------------------------------------------------------

def iter_selected(qm: QueueManager, queue: str, selection: Selection,
                  control: Control | None = None) -> Iterator[tuple[int, Message]]:
    """Browse ``queue`` and yield ``(position, message)`` of every selected message."""
    control = control or Control()
    now = datetime.now(UTC)
    total = None
    with contextlib.suppress(MQError):
        total = qm.inquire_queue(queue).depth
    taken = 0
    position = 0
    if selection.limit is not None and selection.limit <= 0:
        return
    with qm.browse(queue) as cursor:
        while True:
            batch = cursor.next_batch(BROWSE_BATCH)
            for message in batch:
                position += 1
                if selection.all or selection.matches(MessageView(position, message, now)):
                    if message.truncated_from is not None:  # a preview: saving loses data
                        raise MQError(MQRC_DATA_LENGTH_ERROR, (
                            f"cannot save message {message.msg_id_hex} (position {position} "
                            f"of {queue}): only the first {len(message.body)} of its "
                            f"{message.truncated_from} bytes come over this channel (its "
                            "MAXMSGL is smaller); nothing was saved"))
                    yield position, message
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

    def chosen() -> Iterator[Message]:
        for position, message in iter_selected(qm, queue, selection, control):
            if report.saved is not None:
                report.saved.add(position, message.msg_id_hex,
                                 (message_key(message), message.token))
                if message.md.report & MQRO_COD:
                    report.cod += 1
            report.count += 1
            report.bytes += len(message.body)
            yield message

    if path is None:
        for _ in chosen():
            pass
    else:
        write_messages_file(path, chosen(), qmgr=qm.name, queue=queue, force=force)
    return report


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
        result.plan = [{"position": position, "msgid": msgid, "action": "save"}
                       for position, msgid in report.saved]
        report.saved.close()
        return result
    control = control or Control()
    report = save_selected(qm, queue, path, selection, force=force, control=control)
    result.selected = report.count
    result.backup = str(Path(path).absolute())
    result.done = report.count
    if control.cancelled:  # Ctrl-C, SIGTERM, escape: the file holds what came before
        result.cancelled = True
        result.stopped_early = "cancelled"
        result.warnings.append(
            f"stopped early (cancelled): {path} holds only the {counted(report.count, 'message')}"
            f" saved before the stop, not the rest of {queue}")
    return result


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
                  command: str = "mqconsole") -> OperationResult:
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

    packed = qm if isinstance(qm, PutsPacked) and check is None and not new_context else None
    try:
        with DmpReader(path) as reader:
            if packed is not None:
                puts = _put_packed_each(packed, queue, reader, lambda: batch - len(pending),
                                        control, first, end, already_there)
            else:
                puts = _put_each(qm, queue, reader, context, control, check, first, end,
                                 already_there)
            for position, item, refusal in puts:
                if refusal is _CANCELLED:
                    result.cancelled = True
                    break
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
                        stopped = refusal.reason_name
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
        result.skipped = max(0, result.selected - result.done - len(result.failed)
                             - unknown[0] - result.present)
        if stopped and stopped != "commit failed" and not result.stopped_early:
            result.warnings.append(f"{queue} refused {MAX_REFUSALS_IN_A_ROW} puts in a row "
                                   f"({stopped}): the load stopped")
        if result.skipped:
            result.warnings.append(f"{counted(result.skipped)} of the file "
                                   f"{agree(result.skipped, 'was', 'were')} not put")
    return result


# what a load puts: a Message, or (md, body) packed for a backend that ``PutsPacked``
_Item = Message | tuple[bytes, bytes]


class _Lost:
    """The unit of work was lost while putting ``items`` (the connection failed)."""

    def __init__(self, error: MQError, items: Sequence[tuple[int, _Item]]) -> None:
        self.error = error
        self.items = items


_CANCELLED = object()  # the operator cancelled: stop before the next put


def _msgid_hex(item: _Item) -> str:
    if isinstance(item, tuple):
        return item[0][_MSG_ID_AT:_MSG_ID_AT + 24].hex().upper()
    return item.msg_id_hex


_Present = Callable[[bytes, bytes], bool]  # (MsgId, body): skipped as already there


def _put_each(qm: QueueManager, queue: str, reader: DmpReader, context: Context,
              control: Control, check: PutCheck | None, first: int, last: int,
              present: _Present) -> Iterator[tuple[int, _Item, Any]]:
    """``(position, message, None | refusal | Failure | _Lost | _CANCELLED)`` for each
    message ``first``-``last`` of the file not ``present``, put one at a time
    (``qm.put``)."""
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
                     present: _Present) -> Iterator[tuple[int, _Item, Any]]:
    """What ``_put_each`` gives, putting what is left of a unit of work (``room()``
    messages) in one ``put_packed`` call: the messages read packed (``fastread``), a
    ``Message`` the general reader read packed as ``MQMD.pack(ccsid=819)``. A call stops
    at a refusal, so each refusal is seen before anything after it is put, as one by one."""
    items = ((position, item) for position, item
             in itertools.islice(enumerate(reader.packed(), 1), first - 1, last)
             if not present(item[0][_MSG_ID_AT:_MSG_ID_AT + 24], item[1]))
    while True:
        if control.cancelled:
            yield 0, (b"", b""), _CANCELLED
            return
        chunk = list(itertools.islice(items, max(1, room())))
        if not chunk:
            return
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



__all__ = [
    "DEFAULT_BATCH",
    "FileCheck",
    "SaveReport",
    "TargetExistsError",
    "backup_file_name",
    "check_file",
    "iter_selected",
    "load_to_queue",
    "message_key",
    "new_backup_path",
    "new_target_problem",
    "parse_range",
    "present_on",
    "range_problem",
    "resume_command",
    "save_queue",
    "save_selected",
    "write_messages_file",
    "write_new_file",
]

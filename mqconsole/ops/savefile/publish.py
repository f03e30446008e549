"""Publishing a file an operator names, never half-written and never over another: the
bytes go to a temporary file beside the target, are flushed and fsynced, then published
under the target's name with a link that fails when the name exists (so nothing is
overwritten unless ``force``); the files saving must never replace (a store, a journal, a
device) are refused first. Backups get names of their own that do not exist yet.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from mqconsole.ops.dmpfile import DmpWriter
from mqconsole.ops.outputs import SAVED, StateFiles, describe, not_regular

_WRITE_BUFFER = 1 << 20

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

"""Where a file the operator names for output may go, and writing it there safely.

Every option that makes mqconsole write a file (``audit report --html``, ``audit export
--out``, ``delete --backup``, ``save FILE``, ``show --save-payload``, ``dlq-handler
--attempts-file``, ``init``'s new store, the configuration's ``journal.path``, the console's
dialogs) asks :func:`check_output` first, before anything is read or asked. It refuses, with
one sentence naming the option and the file (exit 2), a path that *is* or *links to* one of
mqconsole's own files:

- a queue manager's store (an SQLite file marked as mqconsole's) or its ``-wal``, ``-shm``,
  ``-journal`` and ``-mqlock`` side files (also when the side file does not exist yet: SQLite
  would take a folder or file of that name as the store's own);
- any other SQLite database (the dead-letter handler's attempts file is one) and its side
  files;
- the change journal and its rotated files, and any file whose first line is a journal
  record;
- a delete's backup (anything in the backups folder) and any file of saved messages;
- an audit snapshot or anything inside one;
- the configuration file and the other state files the face names.

"Links to" follows symbolic links all the way (a dangling link's target too: writing through
it would create the file it names) and compares hard links by device and inode. Each
caller says which kind of file it writes itself (``allow``): the journal may be a journal,
the attempts file an SQLite file that is not a store, ``save --force`` may replace a file of
saved messages that is not a backup, ``audit export --replace`` a snapshot.

:func:`write_private` then writes the file as nothing else may interfere: a temporary file
in the same folder (``O_EXCL | O_NOFOLLOW``, mode 0600), flushed, then ``os.replace``d over
the name (a symbolic link there is replaced, never followed; a reader never sees half a
file). Folders mqconsole creates are 0700 (:func:`mqconsole.paths.ensure_dir`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mqconsole import paths
from mqconsole.ops.exit_codes import ExitCode

SQLITE_MAGIC = b"SQLite format 3\x00"
#: the embedded store's ``PRAGMA application_id`` (backends/embedded/schema.py's, not imported:
#: that would load the whole backend; tests/ops/test_outputs.py checks they agree)
STORE_APPLICATION_ID = 0x4D51434E
#: SQLite's side files (https://www.sqlite.org/tempfiles.html) and the store's lock file
SIDE_FILES = ("-wal", "-shm", "-journal", "-mqlock")
SNAPSHOT_MANIFEST = "manifest.json"
SNAPSHOT_DATA = "messages"
_SAVED_MESSAGES = (b"* DMPMQMSG", b"* QLOAD", b"*DMPMQMSG", b"*QLOAD")

# what a caller may write over (``allow``)
STORE = "store"
SQLITE = "sqlite"  # an SQLite database that is not a store (the attempts file)
JOURNAL = "journal"
SAVED = "saved"  # a file of saved messages that is not a delete's backup
SNAPSHOT = "snapshot"

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


class OutputRefused(ValueError):
    """An output path that is (or links to) one of mqconsole's own files: bad input
    (exit 2), said before anything is asked or changed."""

    code = ExitCode.USAGE


@dataclass(frozen=True)
class StateFiles:
    """mqconsole's own files, as plain values the faces read from the configuration
    (:meth:`defaults`: the standard places under the state and data folders)."""

    stores: tuple[str, ...] = ()
    journal: str | None = None
    backups: str | None = None
    attempts: str | None = None
    others: tuple[tuple[str, str], ...] = ()  # (path, what it is), e.g. the config file

    @classmethod
    def defaults(cls, **given: object) -> StateFiles:
        """The standard places; ``given`` replaces any of them (None values are ignored)."""
        values: dict[str, object] = {
            "stores": (str(paths.default_embedded_path()),),
            "journal": str(paths.default_journal_path()),
            "backups": str(paths.default_backup_dir()),
            "attempts": str(paths.default_attempts_path()),
            "others": ((str(paths.default_config_file()), "is mqconsole's configuration "
                        "file"),),
        }
        values.update({k: v for k, v in given.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def known(self) -> list[tuple[str, str, str]]:
        """``(path, what it is, kind)`` for every file named (not necessarily there)."""
        out = [(s, "is a queue manager database", STORE) for s in self.stores]
        if self.journal:
            out.append((self.journal, "is a change journal (the one mqconsole writes)",
                        JOURNAL))
        if self.attempts:
            out.append((self.attempts, "is the dead-letter handler's attempts file", SQLITE))
        out += [(p, what, "") for p, what in self.others]
        return out


# -- what a path is --------------------------------------------------------------------------

def _head(path: str, size: int = 100) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.pread(fd, size, 0)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _sqlite_kind(path: str) -> str | None:
    """STORE, SQLITE or None, from the file's first 100 bytes (the SQLite header holds
    ``PRAGMA application_id`` at offset 68: https://www.sqlite.org/fileformat.html)."""
    head = _head(path)
    if not head.startswith(SQLITE_MAGIC):
        return None
    if len(head) >= 72 and int.from_bytes(head[68:72], "big") == STORE_APPLICATION_ID:
        return STORE
    return SQLITE


def _is_journal_file(path: str) -> bool:
    from mqconsole.mq import boundedjson

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        with os.fdopen(os.dup(fd), "rb") as fp:
            first = fp.readline(64 * 1024)
    except OSError:
        return False
    finally:
        os.close(fd)
    try:
        record = boundedjson.loads(first)
    except (ValueError, RuntimeError):
        return False
    return isinstance(record, dict) and "time" in record and (
        "operation" in record or ("record" in record and "op" in record))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _snapshot_of(real: str) -> str | None:
    """The audit snapshot folder ``real`` is or is inside, if any."""
    p = Path(real)
    for folder in (p, *p.parents):
        if (folder / SNAPSHOT_MANIFEST).is_file() and (folder / SNAPSHOT_DATA).is_dir():
            return str(folder)
    return None


def _rotated_journal(real: str, journal: str) -> bool:
    j = Path(journal)
    name = Path(real).name
    return (os.path.dirname(real) == str(j.parent) and name.startswith(j.stem + ".")
            and name.endswith(j.suffix) and name != j.name
            and name[len(j.stem) + 1:len(j.stem) + 2].isdigit())


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def describe(path: str | os.PathLike, state: StateFiles | None = None,
             allow: Iterable[str] = ()) -> str | None:
    """What ``path`` is that no output may replace, as the end of a sentence starting
    with the path ("is a queue manager database", "links to X, which is the change
    journal"); None when it may be written. ``allow``: the kinds the caller writes."""
    state = state if state is not None else StateFiles.defaults()
    allowed = set(allow)
    given = os.fspath(path)
    real = os.path.realpath(Path(given).expanduser())
    what = _what(real, state, allowed)
    if what is None:
        return _hard_link(real, state, allowed)
    absolute = os.path.abspath(os.path.expanduser(given))
    plain = os.path.join(os.path.realpath(os.path.dirname(absolute)),
                         os.path.basename(absolute))
    if real != plain:  # the name itself is a symbolic link (not merely a folder above it)
        return f"links to {real}, which {what}"
    return what


def _hard_link(real: str, state: StateFiles, allowed: set[str]) -> str | None:
    """Another name of a state file (same device and inode), or None."""
    try:
        st = os.stat(real)
    except OSError:
        return None
    if st.st_nlink < 2:
        return None
    ident = (st.st_dev, st.st_ino)
    for known, says, kind in state.known():
        if kind not in allowed and _identity(known) == ident:
            return f"is a hard link to {known}, which {says}"
    if state.backups:
        with contextlib.suppress(OSError), os.scandir(state.backups) as entries:
            for entry in entries:
                if entry.is_file(follow_symlinks=False) and \
                        (entry.stat().st_dev, entry.inode()) == ident:
                    return f"is a hard link to {entry.path}, which is a delete's backup"
    return None


def _what(real: str, state: StateFiles, allowed: set[str]) -> str | None:
    for known, says, kind in state.known():
        other = os.path.realpath(known)
        if real == other and kind not in allowed:
            return says
        if kind in (STORE, SQLITE):
            for side in SIDE_FILES:
                if real == other + side:
                    noun = "queue manager database" if kind == STORE else "attempts file"
                    return f"belongs to the {noun} {known}"
        if kind == JOURNAL and _rotated_journal(real, other) and JOURNAL not in allowed:
            return f"is a rotated file of the change journal {known}"
    for side in SIDE_FILES:
        if real.endswith(side):
            base = real[:-len(side)]
            kind_of_base = _sqlite_kind(base)
            if kind_of_base == STORE:
                return f"belongs to the queue manager database {base}"
            if kind_of_base == SQLITE:
                return f"belongs to the SQLite database {base}"
    if state.backups:
        backups = os.path.realpath(state.backups)
        if _inside(real, backups):
            if real == backups:
                return "is the folder of the deletes' backups"
            return ("is a delete's backup" if os.path.lexists(real)
                    else "is in the folder of the deletes' backups")
    snapshot = _snapshot_of(real)
    if snapshot is not None and not (snapshot == real and SNAPSHOT in allowed):
        return "is an audit snapshot" if snapshot == real else \
            f"is inside the audit snapshot {snapshot}"
    sqlite = _sqlite_kind(real)
    if sqlite == STORE and STORE not in allowed:
        return "is a queue manager database"
    if sqlite == SQLITE and SQLITE not in allowed:
        return "is an SQLite database"
    head = _head(real, 16)
    if head.startswith(_SAVED_MESSAGES) and SAVED not in allowed:
        return "is a file of saved messages"
    if JOURNAL not in allowed and _is_journal_file(real):
        return "is a change journal"
    return None


def not_regular(path: str | os.PathLike) -> str | None:
    """"a folder", "a FIFO", ... when ``path`` exists and is not a regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None


def refusal(path: str | os.PathLike, option: str, state: StateFiles | None = None, *,
            allow: Iterable[str] = ()) -> str | None:
    """The one sentence refusing ``path`` given as ``option`` (None: it may be written)."""
    what = describe(path, state, allow)
    if what is None:
        return None
    named = f"{option} {os.fspath(path)}" if option else os.fspath(path)
    return f"{named} {what}: mqconsole never writes over its own files, choose another"


def check_output(path: str | os.PathLike, option: str, state: StateFiles | None = None, *,
                 allow: Iterable[str] = ()) -> None:
    """Raise :class:`OutputRefused` when :func:`refusal` has a sentence for ``path``."""
    sentence = refusal(path, option, state, allow=allow)
    if sentence is not None:
        raise OutputRefused(sentence)


# -- writing ---------------------------------------------------------------------------------

def write_private(path: str | os.PathLike, data: bytes | str, *, option: str,
                  state: StateFiles | None = None, allow: Iterable[str] = ()) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` whole, mode 0600, replacing what is there
    only after :func:`check_output`: a temporary file beside it, then ``os.replace`` (a
    symbolic link at ``path`` is replaced, never followed)."""
    check_output(path, option, state, allow=allow)
    target = Path(path).expanduser()
    kind = not_regular(target) if not target.is_symlink() else None
    if kind is not None:
        named = f"{option} {os.fspath(path)}" if option else os.fspath(path)
        raise OutputRefused(f"{named} is {kind}, not a regular file")
    folder = target.parent
    tmp = folder / f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(tmp, flags, 0o600)
    except OSError as exc:  # the file the operator named, not our temporary name
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
    try:
        with os.fdopen(fd, "wb") as fp:
            fp.write(data.encode("utf-8") if isinstance(data, str) else data)
            fp.flush()
            os.fsync(fp.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return target


__all__ = ["JOURNAL", "SAVED", "SNAPSHOT", "SQLITE", "STORE", "OutputRefused", "StateFiles",
           "check_output", "describe", "not_regular", "refusal", "write_private"]

"""Appending to the journal: one ``os.write`` of a whole line under an exclusive lock,
newline-safe, rotated by size or age; and the :class:`Recorder` an operation writes its
start, units and end through."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqconsole import paths
from mqconsole.ops.exit_codes import ExitCode

from .entry import JournalEntry, Outcome, _dumps, format_time, parse_time

if TYPE_CHECKING:
    from .pages import RecordIds

try:  # not on Windows
    import fcntl
except ImportError:  # pragma: no cover - exercised on Windows only
    fcntl = None  # type: ignore[assignment]

_FIRST_TIME = re.compile(rb'^\s*\{"time":"([^"]{10,40})"')


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back meanwhile (main thread only; elsewhere there is no
    handler to hold): the end record of a change a first Ctrl-C stopped at its commit is
    written whole even when the second comes at once. The handlers in place are called
    just after, as the signals would have called them (a Python handler always runs in
    the main thread, whichever thread the OS handed the signal to)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    before: dict[signal.Signals, Any] = {}
    for held in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(ValueError, OSError):
            before[held] = signal.signal(held, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        for held, handler in before.items():
            signal.signal(held, handler)
        for signum in caught[:1]:
            handler = before.get(signal.Signals(signum))
            if callable(handler):
                handler(signum, None)  # the CLI's second Ctrl-C: KeyboardInterrupt, now
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)


class JournalError(Exception):
    """The journal cannot be written (a folder in its place, a full disk, a file size limit,
    no permission): one sentence naming the file. ``code`` is the exit code it gives."""

    code = ExitCode.JOURNAL_FAILED

    def __init__(self, path: Path, error: BaseException) -> None:
        reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        if isinstance(error, IsADirectoryError):
            reason = "a folder is in its place"
        super().__init__(f"the journal {path} could not be written: {reason}")
        self.path = path


@dataclass(frozen=True)
class Rotation:
    """When the live journal is renamed aside (``journal.<UTC time>.jsonl``, beside it):
    past ``max_bytes``, or when its first record is older than ``max_age``; ``keep``: how
    many rotated files to keep (None: all)."""

    max_bytes: int | None = None
    max_age: timedelta | None = None
    keep: int | None = None

    @property
    def active(self) -> bool:
        return self.max_bytes is not None or self.max_age is not None


def rotated_files(path: Path) -> list[Path]:
    """The rotated files of the journal at ``path``, oldest first (their names sort so)."""
    pattern = re.compile(re.escape(path.stem) + r"\.\d{8}T\d{12}Z(?:-\d+)?"
                         + re.escape(path.suffix) + "$")
    try:
        names = [p for p in path.parent.iterdir() if pattern.match(p.name)]
    except OSError:
        return []
    return sorted(names, key=lambda p: p.name)


class Journal:
    """The journal file at ``path`` (default: :func:`mqconsole.paths.default_journal_path`)
    and its rotated files beside it."""

    def __init__(self, path: str | os.PathLike | None = None, *, fsync: bool = False,
                 rotation: Rotation | None = None) -> None:
        self.path = Path(path) if path is not None else paths.default_journal_path()
        self.fsync = fsync
        self.rotation = rotation or Rotation()
        self.problems: list[str] = []
        self._first_times: dict[tuple[int, int], datetime | None] = {}

    # -- writing -----------------------------------------------------------------------------
    def append(self, entry: JournalEntry) -> None:
        """Append one whole record (a dry run, or a change written in one line)."""
        self.write_line(entry.to_json())

    def begin(self, entry: JournalEntry, *, on_failure: Callable[[JournalError], None]
              | None = None) -> Recorder:
        """Write the start record of a change and return its :class:`Recorder`; a
        :class:`JournalError` here means nothing has been changed yet."""
        recorder = Recorder(self, entry, on_failure=on_failure)
        recorder.start()
        return recorder

    def check(self) -> None:
        """Raise :class:`JournalError` when the journal cannot be opened for appending (a
        folder in its place, no permission), and :class:`~mqconsole.ops.outputs.
        OutputRefused` (exit 2) when ``journal.path`` is, or links to, another of
        mqconsole's files (a queue manager's store or its -wal, a backup...): asked before a
        change starts."""
        from mqconsole.ops.outputs import JOURNAL, StateFiles, check_output

        check_output(self.path, "journal.path", StateFiles.defaults(journal=str(self.path)),
                     allow=(JOURNAL,))
        try:
            if not self.path.parent.is_dir():
                paths.ensure_dir(self.path.parent)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT
                         | getattr(os, "O_CLOEXEC", 0), 0o600)
            os.close(fd)
        except OSError as exc:
            raise JournalError(self.path, exc) from None

    def write_line(self, text: str) -> None:
        """Append ``text`` (one line of ASCII JSON) as one ``os.write`` under an exclusive
        ``flock``. A line left without its line end by a crash is ended first, so it never
        swallows this record; a failed write is cut back off. Raises :class:`JournalError`."""
        line = text.encode("ascii") + b"\n"
        try:
            if not self.path.parent.is_dir():
                paths.ensure_dir(self.path.parent)
            for _ in range(10):  # rotated by another process while we waited: again
                if self._write_once(line):
                    return
            self._write_once(line, final=True)
        except JournalError:
            raise
        except OSError as exc:
            raise JournalError(self.path, exc) from None

    def _write_once(self, line: bytes, *, final: bool = False) -> bool:
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.path, flags, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            st = os.fstat(fd)
            if not final:
                try:
                    now = os.stat(self.path)
                except FileNotFoundError:
                    return False
                if (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):
                    return False  # renamed aside (rotated): write to the new file
                if self.rotation.active and st.st_size and self._due(fd, st):
                    self._rotate()
                    return False
            size = st.st_size
            data = line
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + line  # a torn last line (a crash mid-write): end it first
            try:
                written = os.write(fd, data)
                while written < len(data):  # a short write: finish it under the lock
                    written += os.write(fd, data[written:])
                if self.fsync:
                    os.fsync(fd)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)  # no half record left behind
                raise JournalError(self.path, exc) from None
            return True
        finally:
            os.close(fd)  # closing releases the lock

    # -- rotation ----------------------------------------------------------------------------
    def _due(self, fd: int, st: os.stat_result) -> bool:
        r = self.rotation
        if r.max_bytes is not None and st.st_size >= r.max_bytes:
            return True
        if r.max_age is None:
            return False
        key = (st.st_dev, st.st_ino)
        if key not in self._first_times:
            self._first_times[key] = _first_time(os.pread(fd, 200, 0))
        first = self._first_times[key]
        return first is not None and datetime.now(UTC) - first >= r.max_age

    def _rotate(self) -> None:
        """Rename the live file aside (under its lock), then drop the oldest rotated files
        past ``keep``. A rename that fails leaves the file as it is (the record goes in)."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        target = self.path.with_name(f"{self.path.stem}.{stamp}{self.path.suffix}")
        n = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.stem}.{stamp}-{n}{self.path.suffix}")
            n += 1
        try:
            os.rename(self.path, target)
        except OSError:
            self.rotation = Rotation()  # cannot rotate: keep appending here
            return
        keep = self.rotation.keep
        if keep is not None:
            old = rotated_files(self.path)
            for stale in old[:max(0, len(old) - keep)]:
                with contextlib.suppress(OSError):
                    stale.unlink()

    # -- reading -----------------------------------------------------------------------------
    def files(self) -> list[Path]:
        """Every file of the journal, oldest first: the rotated ones, then the live one."""
        return [*rotated_files(self.path), self.path]

    def read(self, since: datetime | None = None, operation: str | None = None, *,
             ids: bool = True) -> Iterator[JournalEntry]:
        """Changes in the order they started (rotated files included), from ``since`` on
        and of ``operation`` when given; ``ids=False`` counts committed messages without
        keeping their ids. Lines that are not records are described in :attr:`problems`."""
        from .reader import read_entries

        self.problems = []
        yield from read_entries(self.files(), self.problems, since=since,
                                operation=operation, ids=ids)

    def read_tail(self, max_bytes: int, *, ids: bool = False) -> list[JournalEntry]:
        """The changes recorded in the last ``max_bytes`` of the live file, oldest first:
        the newest ones at once, however large the journal (an operation whose start and
        end are both before the tail is left out; :meth:`read` has everything)."""
        from .reader import read_entries

        return list(read_entries(self.files(), [], since=None, operation=None, ids=ids,
                                 tail=max_bytes))

    def read_newest(self, changes: int, *, limit: int | None = None) -> list[JournalEntry] | None:
        """About the newest ``changes`` changes of the live file, oldest first, without
        their ids: found by reading it backwards, however large it is (:meth:`read` has
        everything); None when they are not in its last ``limit`` bytes."""
        from .reader import newest_tail

        tail = newest_tail(self.path, changes, limit=limit)
        return None if tail is None else self.read_tail(tail)

    def ops_mentioning(self, text: str) -> set[str]:
        """The operations (``op`` ids) with a record holding ``text`` (a MsgId or part of
        one, in hex as the journal writes it): found by bytes, no record parsed."""
        from .reader import lines_holding

        needle = text.upper().encode("ascii", "replace")
        found: set[str] = set()
        for path in self.files():
            try:
                with open(path, "rb") as fp:
                    for _, raw in lines_holding(fp, needle, numbered=False):
                        m = _OP_OF_LINE.search(raw)
                        if m is not None:
                            found.add(m.group(1).decode("ascii"))
            except (OSError, ValueError):  # ValueError: mmap of a file that shrank
                continue
        return found

    def read_operation(self, op: str) -> JournalEntry | None:
        """One operation's change with every id, from its records alone (lines that do not
        name it are not parsed); None when none is found."""
        from .reader import read_entries

        found = list(read_entries(self.files(), [], since=None, operation=None, ids=True,
                                  only_op=op))
        return found[-1] if found else None


    def record_ids(self, entry: JournalEntry) -> RecordIds:
        """``entry``'s MsgIds and outcomes to read a page at a time (:class:`RecordIds`):
        its units' records are found, not read."""
        from .pages import RecordIds

        return RecordIds(entry, self.files)


_OP_OF_LINE = re.compile(rb'"op":"([0-9A-Za-z]{1,64})"')


def _first_time(head: bytes) -> datetime | None:
    m = _FIRST_TIME.match(head)
    if m is None:
        return None
    try:
        return parse_time(m.group(1).decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        return None


class Recorder:
    """An operation's records: ``start`` (before anything changes), ``unit`` (the message
    ids of a unit of work, before its commit) and ``commit`` (after it), ``end`` (the
    outcome). A unit record without its commit record is the unit in doubt when nothing of
    the operation follows it (killed between the two), else a unit backed out.

    A record that cannot be written mid-way does not stop the commit in progress: it calls
    ``on_failure`` (the operation cancels: stop at the next commit), and the ids it did not
    record go into the end record (:attr:`unjournaled`)."""

    def __init__(self, journal: Journal, entry: JournalEntry, *,
                 on_failure: Callable[[JournalError], None] | None = None) -> None:
        self.journal = journal
        self.entry = entry
        self.op = secrets.token_hex(8)
        self.on_failure = on_failure
        self.units = 0
        self.journaled = 0  # messages in units with both records written
        self.reported = 0  # messages the engine said it committed
        self.unjournaled: list[Outcome] = []
        self.problem: JournalError | None = None
        self.backup: str | None = None  # a delete's backup file, named in its unit records
        self._pending: tuple[int, list[str], list[str | None], bool] | None = None

    def _head(self, record: str) -> str:
        return f'{{"time":"{format_time(datetime.now(UTC))}","record":"{record}",' \
               f'"op":"{self.op}"'

    def start(self) -> None:
        d = self.entry.to_dict(outcomes=False)
        for key in ("time", "msgids", "backup"):
            d.pop(key, None)
        self.journal.write_line(f"{self._head('start')},{_dumps(d)[1:]}")

    def unit(self, msgids: list[str], destinations: list[str | None]) -> bool:
        """A unit of work is about to be committed with these messages: its record (the
        intent) is written first. False when it could not be (now or by an earlier
        failure): the engine must back the unit out, never commit a unit without a record."""
        if not msgids:
            self._pending = None
            return True
        self.units += 1
        n = self.units
        written = False
        if self.problem is None:
            first = destinations[0] if destinations else None
            if destinations.count(first) == len(destinations):
                where: dict[str, Any] = {"destination": first}
            else:
                where = {"destinations": destinations}
            if self.backup is not None:
                where["backup"] = self.backup
            text = f'{self._head("unit")},"unit":{n},"msgids":{_ids_json(msgids)},' \
                   f'{_dumps(where)[1:]}'
            written = self._write(text)
        self._pending = (n, msgids, destinations, written)
        return written

    def backup_written(self, path: str) -> None:
        """The delete's backup file is complete: the unit records from now on name it."""
        self.backup = str(path)

    def committed(self) -> None:
        """The unit announced last is committed."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        n, msgids, destinations, written = pending
        self.reported += len(msgids)
        if written and self._write(f'{self._head("commit")},"unit":{n}}}'):
            self.journaled += len(msgids)
            return
        self.unjournaled.extend(Outcome(m, "done", destination=d)
                                for m, d in zip(msgids, destinations, strict=True))

    def end(self, entry: JournalEntry, *, reported_left_out: bool = False) -> None:
        """The end record: ``entry`` (the outcome), whose done messages already in unit
        records are left out (``reported_left_out``: ``entry`` has none of the
        :attr:`reported` ones already). Raises :class:`JournalError`."""
        done = [o for o in entry.outcomes if o.outcome == "done"]
        others = [o for o in entry.outcomes if o.outcome != "done"]
        inline = [*self.unjournaled, *(done if reported_left_out else done[self.reported:]),
                  *others]
        entry.outcomes = inline
        entry.msgids = [o.msgid for o in inline]
        entry.time = datetime.now(UTC)
        self.journal.write_line(entry.to_json(head={"record": "end", "op": self.op,
                                                    "committed": self.journaled}))

    def _write(self, text: str) -> bool:
        try:
            self.journal.write_line(text)
        except JournalError as exc:
            if self.problem is None:
                self.problem = exc
                if self.on_failure is not None:
                    self.on_failure(exc)
            return False
        return True


def _ids_json(msgids: list[str]) -> str:
    """A list of hex MsgIds as JSON (nothing to escape in hex)."""
    # one check of them all: ASCII letters and digits need no escape (bytes.isalnum is a
    # table lookup a byte; str.isalnum classifies each character: ten times as long)
    joined = "".join(msgids)
    if joined.isascii() and joined.encode("ascii").isalnum() and all(msgids):
        return '["' + '","'.join(msgids) + '"]'
    return _dumps(msgids)


__all__ = ["Journal", "JournalError", "Recorder", "Rotation", "rotated_files", "signals_held"]

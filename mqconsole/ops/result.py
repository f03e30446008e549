"""The outcome of an operation on messages: what went where, what failed and why.

Every changing operation (move, copy, resubmit, delete, edit, load, save --remove) returns
an ``OperationResult``; the CLI prints ``to_json()`` with ``--json`` and the TUI shows it.
"""

from __future__ import annotations

import itertools
import json
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Protocol

from mqconsole.mq.names import reason_name
from mqconsole.ops.words import agree, counted

if TYPE_CHECKING:
    from mqconsole.mq.message import Message


@dataclass(slots=True)
class Failure:
    """One message that was not handled: it stayed where it was, or (``gone``) another
    process took it from the source meanwhile."""

    msgid: str
    position: int
    reason: int
    reason_name: str = ""
    detail: str = ""
    destination: str | None = None
    gone: bool = False  # not on the source any more: another process took it

    def __post_init__(self) -> None:
        if not self.reason_name:
            self.reason_name = reason_name(self.reason)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"msgid": self.msgid, "position": self.position,
                               "reason": self.reason, "reason_name": self.reason_name,
                               "destination": self.destination}
        if self.detail:
            out["detail"] = self.detail  # e.g. a plugin's refusal sentence: scripts need the why
        if self.gone:
            out["gone"] = True
        return out


REFUSED_BY_PLUGIN = "REFUSED_BY_PLUGIN"  # the reason name of a put a plugin's check refused

PutCheck = Callable[["Message", str], "str | None"]
"""``check(message, destination) -> refusal sentence | None``: the plugins' put checks for
one operation (``PluginHost.check_put`` with the operation's kind). Engines take ``None``
when no plugin checks puts, and then do not look at all (the fast path stays as it is)."""


def refused_by_plugin(msgid: str, position: int, sentence: str,
                      destination: str | None) -> Failure:
    """The failure of a message a plugin's check refused (it stays where it was)."""
    return Failure(msgid=msgid, position=position, reason=0, reason_name=REFUSED_BY_PLUGIN,
                   detail=sentence, destination=destination)


def would_fail_by_plugin(sentence: str) -> dict[str, Any]:
    """A dry-run plan step's ``would_fail`` for a put a plugin's check would refuse."""
    return {"reason": 0, "reason_name": REFUSED_BY_PLUGIN, "detail": sentence}


class MsgIdLog:
    """The ids of the messages an operation handled, in order, in flat memory: the first
    ``keep`` in memory, the rest written to an anonymous temporary file as they come (a
    million ids would take ~100 MB as a list). Iterating gives them all, in order; it
    compares equal to a list of the same ids."""

    __slots__ = ("_file", "_head", "_keep", "_n", "_tail")

    def __init__(self, ids: Iterable[str] = (), *, keep: int = 10_000) -> None:
        self._keep = keep
        self._head: list[str] = []
        self._tail: list[str] = []  # past ``keep``, not written yet
        self._file: IO[str] | None = None
        self._n = 0
        self.extend(ids)

    def append(self, msgid: str) -> None:
        self.extend((msgid,))

    def extend(self, msgids: Iterable[str]) -> None:
        msgids = list(msgids)
        self._n += len(msgids)
        room = self._keep - len(self._head)
        if room > 0:  # nothing was spilled yet
            self._head.extend(msgids[:room])
            msgids = msgids[room:]
        if msgids:
            self._tail.extend(msgids)
            if len(self._tail) >= self._keep:
                self._spill()

    def _spill(self) -> None:
        self._write(_lines(self._tail))
        self._tail = []

    def _write(self, lines: str) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile(  # noqa: SIM115 - closed with the log
                "w+", encoding="utf-8", newline="\n")
        self._file.seek(0, 2)
        self._file.write(lines)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (the dead-letter handler's result, from its process to the console's) as
        the ids kept in memory and the spilled rest as one text in the file's own lines:
        made again, the rest goes straight to a file of its own, never a million strings."""
        spilled = ""
        if self._file is not None:
            self._file.flush()
            with open(self._file.fileno(), encoding="utf-8", newline="\n",
                      closefd=False) as fp:
                fp.seek(0)
                spilled = fp.read()
        return (_log_again, (self._keep, list(self._head), spilled + _lines(self._tail),
                             self._n))

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[str]:
        yield from self._head
        if self._file is not None:
            self._file.flush()
            with open(self._file.fileno(), encoding="utf-8", newline="\n",
                      closefd=False) as fp:
                fp.seek(0)
                for line in fp:
                    line = line[:-1]
                    yield json.loads(line) if line.startswith('"') else line
        yield from list(self._tail)

    def after(self, skip: int) -> Iterator[str]:
        """The ids from the ``skip``-th on (none past the end: the usual end record of a
        move whose units were all journaled, which then reads no spilled id back)."""
        if skip >= self._n:
            return iter(())
        return itertools.islice(self, skip, None)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MsgIdLog | list | tuple):
            return len(self) == len(other) and all(
                a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<MsgIdLog of {self._n} ids>"


def _lines(ids: list[str]) -> str:
    """Ids as a spill file's lines: an id as itself, or its JSON when it is not plain."""
    joined = "".join(ids)  # hex ids, as a rule: checked at once (bytes.isalnum is a
    # table lookup a byte; str.isalnum classifies each character, ten times as long)
    if joined.isascii() and joined.encode("ascii").isalnum() and all(ids):
        return "\n".join(ids) + "\n" if ids else ""
    return "".join(m + "\n" if m.isalnum() and m.isascii() else json.dumps(m) + "\n"
                   for m in ids)


def _log_again(keep: int, head: list[str], spilled: str, n: int) -> MsgIdLog:
    """A pickled :class:`MsgIdLog` made again (its ``__reduce__``)."""
    log = MsgIdLog(head, keep=keep)
    if spilled:
        log._write(spilled)
    log._n = n
    return log


@dataclass(slots=True)
class OperationResult:
    operation: str
    source: str | None
    destination: str | None = None  # None when several
    moved_to: dict[str, int] = field(default_factory=dict)
    selected: int = 0
    done: int = 0
    failed: list[Failure] = field(default_factory=list)
    skipped: int = 0
    dry_run: bool = False
    backup: str | None = None
    warnings: list[str] = field(default_factory=list)
    plan: list[dict[str, Any]] = field(default_factory=list)  # dry run: what would happen
    done_msgids: MsgIdLog = field(default_factory=MsgIdLog)  # in order, memory flat
    outcome_unknown: bool = False  # a commit MQ could not confirm (2549)
    cancelled: bool = False
    stopped_early: str | None = None  # why the operation stopped before every message
    # selected messages never tried because it stopped early (they stayed); in ``selected``
    not_tried: int | None = 0  # None: stopped before they could be counted (a cancel)
    # why messages were not tried while the operation went on: a destination of several (a
    # resubmit's) given up, ``APP.SMALL refused 10 messages in a row (…), so it was given
    # up: 5 of its messages were not tried`` (their count is in ``not_tried``)
    given_up: list[str] = field(default_factory=list)
    unlisted_failures: int = 0  # failed without a message to name (a plugin action's count)
    present: int = 0  # already on the destination, not put again (a load's --skip-present)

    @property
    def complete(self) -> bool:
        """Every selected message was handled: nothing failed, skipped or left unexamined."""
        return (not self.failed and not self.unlisted_failures and not self.skipped
                and not self.not_tried and not self.outcome_unknown
                and not self.cancelled and self.stopped_early is None)

    @property
    def all_done(self) -> bool:
        return not self.failed and not self.unlisted_failures and not self.outcome_unknown

    def failed_why(self) -> str:
        """Where the failed messages are, for a summary: they stayed where they were, or
        another process took them from the source meanwhile (or the outcome is unknown)."""
        if self.outcome_unknown:
            return "outcome unknown"
        gone = sum(1 for f in self.failed if f.gone)
        if not gone:
            return "they stayed where they were"
        took = (f"gone from {self.source or 'the source'} (another process took "
                f"{'it' if gone == 1 else 'them'})")
        stayed = len(self.failed) + self.unlisted_failures - gone
        return took if not stayed else f"{stayed} stayed where they were; {gone} {took}"

    def not_tried_why(self) -> str:
        """Why the ``not_tried`` messages were never tried and where they are, for a
        summary: ``APP.SMALL was given up; they stayed on APP.ORDERS`` — a load's
        ``…; 37 messages of the file were not put`` (they are nowhere else)."""
        stop = self.stopped_early or ("cancelled" if self.cancelled
                                      else "a commit's outcome is unknown"
                                      if self.outcome_unknown else None)
        why = "; ".join([*self.given_up, *([stop] if stop else [])]) or "stopped early"
        n = self.not_tried or 0
        if self.operation == "load":
            return (f"{why}; {counted(n, grouped=True)} of the file "
                    f"{agree(n, 'was', 'were')} not put")
        return f"{why}; {agree(n, 'it', 'they')} stayed on {self.source or 'the source'}"

    def record_done(self, msgid: str, destination: str | None) -> None:
        self.done += 1
        self.done_msgids.append(msgid)
        if destination is not None:
            self.moved_to[destination] = self.moved_to.get(destination, 0) + 1

    def record_done_many(self, msgids: list[str], destinations: list[str]) -> None:
        """``record_done`` of each pair (a unit of work's messages at once)."""
        self.done += len(msgids)
        self.done_msgids.extend(msgids)
        moved = self.moved_to
        if destinations and destinations.count(destinations[0]) == len(destinations):
            first = destinations[0]  # one destination, as a rule: counted at once
            moved[first] = moved.get(first, 0) + len(destinations)
            return
        for destination in destinations:
            moved[destination] = moved.get(destination, 0) + 1

    def would_fail(self) -> int:
        """A dry run: how many planned messages would fail now (``would_fail`` steps)."""
        # a step may stand for many alike messages (``count``: a put's copies past the first)
        return sum(int(step.get("count", 1)) for step in self.plan if step.get("would_fail"))

    def would_fail_groups(self, examples: int = 3) -> list[dict[str, Any]]:
        """A dry run's predicted failures by destination and reason, most first, each with
        its count and the first few MsgIds (the plan lists them all)."""
        groups: dict[tuple[Any, ...], dict[str, Any]] = {}
        for step in self.plan:
            w = step.get("would_fail")
            if not w:
                continue
            key = (step.get("destination"), w.get("reason"), w.get("reason_name"),
                   w.get("detail", ""))
            g = groups.get(key)
            if g is None:
                g = groups[key] = {"destination": key[0], "reason": key[1],
                                   "reason_name": key[2], "count": 0, "examples": []}
                if key[3]:
                    g["detail"] = key[3]
            g["count"] += int(step.get("count", 1))
            if len(g["examples"]) < examples and step.get("msgid"):
                g["examples"].append(step["msgid"])
        return sorted(groups.values(), key=lambda g: (-g["count"], str(g["destination"])))

    def failure_groups(self, examples: int = 3) -> list[dict[str, Any]]:
        """The failures by destination and reason, most first, each with its count and the
        first few MsgIds (``failed`` lists them all)."""
        groups: dict[tuple[Any, ...], dict[str, Any]] = {}
        for f in self.failed:
            detail = f.detail if f.reason_name == REFUSED_BY_PLUGIN else ""
            key = (f.destination, f.reason, f.reason_name, detail)
            g = groups.get(key)
            if g is None:
                g = groups[key] = {"destination": f.destination, "reason": f.reason,
                                   "reason_name": f.reason_name, "count": 0, "examples": []}
                if detail:
                    g["detail"] = detail
            g["count"] += 1
            if len(g["examples"]) < examples:
                g["examples"].append(f.msgid)
        return sorted(groups.values(), key=lambda g: (-g["count"], str(g["destination"])))

    def to_json(self) -> dict[str, Any]:
        dests = list(self.moved_to)
        destination = self.destination
        if destination is None and len(dests) == 1:
            destination = dests[0]
        return {
            "operation": self.operation,
            "source": self.source,
            "destination": destination,
            "moved_to": dict(self.moved_to),
            "selected": self.selected,
            "done": self.done,
            "failed": [f.to_json() for f in self.failed],
            "skipped": self.skipped,
            "present": self.present,
            "dry_run": self.dry_run,
            "backup": self.backup,
            "warnings": list(self.warnings),
            "outcome_unknown": self.outcome_unknown,
            "cancelled": self.cancelled,
            "stopped_early": self.stopped_early,
            "not_tried": self.not_tried,
            "not_tried_why": self.not_tried_why() if self.not_tried else None,
            "failure_groups": self.failure_groups(),
        }


ProgressFn = Callable[[int, int | None], None]  # (messages handled so far, total if known)


NOT_RECORDED = "the journal could not be written"  # why an engine stopped at a unit


class UnitJournal(Protocol):
    """Where an engine says what each unit of work holds before its commit and that it
    committed (the operation's journal: ``ops.journal.Recorder``). ``unit`` answers False
    when the unit's record could not be written: the unit must not be committed."""

    def unit(self, msgids: list[str], destinations: list[str | None]) -> bool: ...

    def committed(self) -> None: ...


@dataclass
class Control:
    """What a caller passes to a long operation: progress reports, a cancel switch, and
    the journal of its units of work.

    Cancelling stops at the next unit-of-work boundary: what is committed stays committed,
    the open unit of work is finished (committed) first, and the result says ``cancelled``.
    An engine calls :meth:`before_commit` with a unit's messages just before its commit and
    :meth:`after_commit` once it is committed. When :meth:`before_commit` answers False the
    unit's record could not be written (a full disk): the engine backs the unit out instead
    of committing it and stops (``stopped_early`` :data:`NOT_RECORDED`), its messages left
    where they were, so no message moves without a record.
    """

    progress: ProgressFn | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    journal: UnitJournal | None = None

    def before_commit(self, msgids: list[str], destinations: list[str | None]) -> bool:
        """Record the unit about to be committed; False: it could not be, back it out."""
        if self.journal is not None:
            return self.journal.unit(msgids, destinations)
        return True

    def after_commit(self) -> None:
        if self.journal is not None:
            self.journal.committed()

    def backup_written(self, path: str) -> None:
        """A delete's backup file is complete (before anything is removed): its unit records
        name it, so a delete killed midway still says where its messages were saved."""
        note = getattr(self.journal, "backup_written", None)
        if note is not None:
            note(path)

    def report(self, done: int, total: int | None, matched: int | None = None) -> None:
        """``done`` of ``total`` read; ``matched``: how many of them the selection took,
        given to a progress function that says it wants it (``wants_matched = True``: it
        is called with a third argument), so the faces can say read and matched."""
        progress = self.progress
        if progress is None:
            return
        if matched is not None and getattr(progress, "wants_matched", False):
            progress(done, total, matched)  # type: ignore[call-arg]
        else:
            progress(done, total)

    @property
    def cancelled(self) -> bool:
        return self.cancel.is_set()

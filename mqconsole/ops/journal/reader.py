"""Reading the journal: records back into changes (:class:`JournalEntry`), an operation's
start, units and end put together, torn and foreign lines reported and skipped."""

from __future__ import annotations

import json
import mmap
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from mqconsole.mq import boundedjson
from mqconsole.ops.words import counted

from .entry import JournalEntry, Outcome, parse_time

_RECORD_START = b'{"time":'
IN_PROGRESS_SECONDS = 5  # a last line younger than this may still be being written
_KINDS = ("start", "unit", "commit", "end")
# A unit record as the writer writes it: its ids counted without parsing them (``lazy``)
_UNIT_HEAD = re.compile(rb'\{"time":"[0-9T:.Z+-]{10,40}","record":"unit",'
                        rb'"op":"([0-9A-Za-z]{1,64})","unit":([0-9]{1,9}),"msgids":\[')
_ID_BYTES = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\","
_NOT_HEAD = (b'"record":"unit"', b'"record":"commit"')  # lines that do not start or end a change
NEWEST_BLOCK = 1 << 18  # bytes read at a time from the end when looking for the newest changes


def _short(exc: Exception) -> str:
    text = str(exc).split("\n")[0]
    return text if len(text) <= 80 else text[:80] + "…"


class LazyIds:
    """A unit record's MsgIds, counted from its bytes; parsed only when listed (an
    interrupted change's unit in doubt), so reading without ids parses no unit's ids."""

    __slots__ = ("count", "raw")

    def __init__(self, raw: bytes, count: int) -> None:
        self.raw = raw
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[str]:
        rec = boundedjson.loads(self.raw, limit=None)
        return iter([str(m) for m in rec["msgids"]])


@dataclass
class UnitLine:
    """A unit record read lazily: its operation, number, ids (counted) and destinations."""

    op: str
    unit: int
    ids: LazyIds
    rest: dict[str, Any]  # the fields after the ids (destination or destinations)


def lazy_unit(raw: bytes) -> UnitLine | None:
    """``raw`` as a :class:`UnitLine` when it is a unit record as the writer writes it (hex
    ids, whole); None otherwise (the line is then parsed and checked as any other)."""
    m = _UNIT_HEAD.match(raw)
    if m is None:
        return None
    start = m.end()
    end = raw.find(b"]", start)
    if end < 0:
        return None
    ids = raw[start:end]
    if ids.translate(None, _ID_BYTES):
        return None  # not only hex ids: parse it
    count = ids.count(b",") + 1 if ids else 0
    if ids and (ids.count(b'"') != 2 * count or not ids.startswith(b'"')
                or not ids.endswith(b'"')):
        return None
    try:
        rest = boundedjson.loads(b"{" + raw[end + 2:], limit=None) if raw[end + 1:end + 2] \
            == b"," else None
    except (ValueError, TypeError):
        return None  # torn: parsed (and reported) as any other line
    if not isinstance(rest, dict):
        return None
    return UnitLine(m.group(1).decode("ascii"), int(m.group(2)), LazyIds(raw, count), rest)


def _line(number: int) -> str:
    return f"line {number}" if number else "a line"


def lines_holding(fp: BinaryIO, needle: bytes, *,
                  numbered: bool = True) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of each line of the open file ``fp`` that holds ``needle``,
    found with ``mmap.find`` instead of reading every line (``numbered=False``: the lines
    are not counted, the numbers are 0)."""
    counted = 0
    number = 1
    for start, line, mm in spans_holding(fp, needle):
        if numbered:
            number += mm[counted:start].count(b"\n")
            counted = start
        yield (number if numbered else 0), line


def spans_holding(fp: BinaryIO, needle: bytes) -> Iterator[tuple[int, bytes, mmap.mmap]]:
    """``(offset, line, the file's map)`` of each line of ``fp`` that holds ``needle``."""
    size = os.fstat(fp.fileno()).st_size
    if not size or not needle:
        return
    with mmap.mmap(fp.fileno(), size, access=mmap.ACCESS_READ) as mm:
        pos = 0
        while (hit := mm.find(needle, pos)) >= 0:
            start = mm.rfind(b"\n", 0, hit) + 1
            end = mm.find(b"\n", hit)
            end = size if end < 0 else end + 1
            yield start, mm[start:end], mm
            pos = end


def parsed_line(raw: bytes) -> tuple[Any, int] | Exception:
    """The record ``raw`` holds and where it starts in it (0, or past a torn record a crash
    left in front of a whole one); the parse error when it holds none."""
    try:
        return boundedjson.loads(raw, limit=None), 0
    except (ValueError, TypeError) as exc:
        error = exc
    cut = raw.rfind(_RECORD_START, 1)
    if cut > 0:
        try:
            return boundedjson.loads(raw[cut:], limit=None), cut
        except (ValueError, TypeError):
            pass
    return error


def records(path: Path, problems: list[str], *, tail: int | None = None,
            needle: bytes | None = None, lazy: bool = False) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed JSON)`` of each line of ``path``. A line that is not JSON is
    reported in ``problems`` and skipped; one that holds a torn record followed by a whole
    one (written before writers ended a torn line first) gives the whole one.

    ``tail``: only the lines that start in the last ``tail`` bytes (numbered from there);
    ``needle``: only lines holding these bytes (the others are not parsed; found by bytes and
    not numbered: 0); ``lazy``: a unit record written as the writer writes it comes as a
    :class:`UnitLine` (ids counted)."""
    try:
        fp = open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        return
    except OSError as exc:
        problems.append(f"{path}: cannot be read ({exc.strerror or exc}), skipped")
        return
    with fp:
        source: Iterator[tuple[int, bytes]]
        if needle is not None and tail is None:
            source = lines_holding(fp, needle, numbered=False)  # by bytes, not line by line
        else:
            if tail is not None:
                size = os.fstat(fp.fileno()).st_size
                if size > tail:
                    fp.seek(size - tail - 1)
                    fp.readline()  # the rest of a line that started before the tail
            source = enumerate(fp, 1)
        for number, raw in source:
            if raw.isspace() or (needle is not None and needle not in raw):
                continue
            if lazy:
                unit = lazy_unit(raw)
                if unit is not None:
                    yield number, unit
                    continue
            got = parsed_line(raw)
            if not isinstance(got, Exception):
                value, cut = got
                if cut:
                    problems.append(f"{path} {_line(number)}: a torn record (cut short by a "
                                    "crash or a full disk) before a whole one, skipped")
                yield number, value
                continue
            error = got
            if not raw.endswith(b"\n"):  # the last line
                if time.time() - os.fstat(fp.fileno()).st_mtime > IN_PROGRESS_SECONDS:
                    problems.append(f"{path} {_line(number)}: the last record is incomplete "
                                    "(cut short by a crash or a full disk), skipped")
                # else a write in progress: not a problem
            elif raw.lstrip().startswith(_RECORD_START) and not raw.rstrip().endswith(b"}"):
                problems.append(f"{path} {_line(number)}: a torn record (cut short by a crash "
                                "or a full disk), skipped")
            else:
                problems.append(f"{path} {_line(number)}: not a journal record "
                                f"({_short(error)}), skipped")


@dataclass
class _Op:
    """The records of one operation found so far."""

    op: str
    start: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    units: dict[int, tuple[list[str], list[str | None]]] = field(default_factory=dict)
    committed: list[int] = field(default_factory=list)
    where: str = ""  # the first record's file and line, for problems
    backup: str | None = None  # a delete's backup file, as its unit records name it

    def add(self, kind: str, rec: dict[str, Any] | UnitLine) -> None:
        if isinstance(rec, UnitLine):  # read without ids: the destinations are not kept
            self.units[rec.unit] = (rec.ids, [])  # type: ignore[assignment]
            self._backup(rec.rest.get("backup"))
        elif kind == "start":
            self.start = rec
        elif kind == "end":
            self.end = rec
        elif kind == "unit":
            self.units[_int(rec.get("unit"), "unit")] = unit_ids(rec)
            self._backup(rec.get("backup"))
        else:  # commit
            n = _int(rec.get("unit"), "unit")
            self.committed.append(n)
            unit = self.units.get(n)
            if unit is not None and isinstance(unit[0], LazyIds):
                unit[0].raw = b""  # committed: only its count is needed without ids

    def _backup(self, value: Any) -> None:
        if isinstance(value, str) and value:
            self.backup = value

    def entry(self, *, ids: bool, problems: list[str]) -> JournalEntry:
        done: list[Outcome] = []
        count = 0
        for n in self.committed:
            unit = self.units.get(n)
            if unit is None:
                problems.append(f"{self.where}: operation {self.op}: the ids of unit {n} "
                                "are missing (rotated away?)")
                continue
            count += len(unit[0])
            if ids:
                done.extend(Outcome(m, "done", destination=d)
                            for m, d in zip(*unit, strict=True))
        base = self.end or self.start
        if base is None:  # its start went with a rotated file that is gone
            base = {"time": "1970-01-01T00:00:00Z", "operation": "unknown"}
        entry = JournalEntry.from_dict(base)
        entry.op = self.op
        if self.start is not None:
            entry.time = parse_time(str(self.start["time"]))
        if self.end is not None:
            entry.ended = parse_time(str(self.end["time"]))
            said = self.end.get("committed")
            if isinstance(said, int) and said != count:
                problems.append(f"{self.where}: operation {self.op}: its end record counts "
                                f"{counted(said)} in units, the units hold {count}")
            details = self.end.get("details")
            last = max(self.units, default=None)
            if isinstance(details, dict) and details.get("outcome_unknown") is True \
                    and last is not None and last not in self.committed:
                # its last commit's outcome MQ could not tell (exit 5): that unit is in doubt
                entry.in_doubt = list(self.units[last][0])
        else:
            entry.state = "interrupted"
            entry.backup = entry.backup or self.backup  # killed midway: where they were saved
            last = max(self.units, default=None)
            if last is not None and last not in self.committed:
                entry.in_doubt = list(self.units[last][0])
        if ids:
            entry.outcomes = [*done, *entry.outcomes]
            entry.msgids = [*(o.msgid for o in done), *entry.msgids]
        else:
            entry.unlisted_done = count
        return entry


def unit_ids(rec: dict[str, Any]) -> tuple[list[str], list[str | None]]:
    """A unit record's MsgIds and the destination of each. Raises ValueError."""
    ids = rec.get("msgids")
    if not isinstance(ids, list):
        raise ValueError("'msgids' is not a list")
    ids = [str(m) for m in ids]
    dests = rec.get("destinations")
    if isinstance(dests, list) and len(dests) == len(ids):
        return ids, [None if d is None else str(d) for d in dests]
    one = rec.get("destination")
    return ids, [None if one is None else str(one)] * len(ids)


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what!r} is not a number")
    return value


def read_entries(files: list[Path], problems: list[str], *, since: datetime | None,
                 operation: str | None, ids: bool, tail: int | None = None,
                 only_op: str | None = None) -> Iterator[JournalEntry]:
    """Every change in ``files`` (oldest first), filtered; see :meth:`Journal.read`.

    ``tail``: only the last ``tail`` bytes of the last file (the newest changes, quickly;
    an operation none of whose start or end records is there is left out); ``only_op``:
    only the records of that operation."""
    if since is not None and since.tzinfo is None:
        since = since.astimezone()
    items: list[JournalEntry | _Op] = []
    ops: dict[str, _Op] = {}
    if tail is not None:
        files = files[-1:]
    needle = None if only_op is None else b'"op":' + json.dumps(only_op).encode("ascii")
    for path in files:
        for number, rec in records(path, problems, tail=tail, needle=needle, lazy=not ids):
            if isinstance(rec, UnitLine):
                op = ops.get(rec.op)
                if op is None:
                    op = ops[rec.op] = _Op(rec.op, where=f"{path} {_line(number)}")
                    items.append(op)
                op.add("unit", rec)
                continue
            if only_op is not None and (not isinstance(rec, dict)
                                        or rec.get("op") != only_op):
                continue
            where = f"{path} {_line(number)}"
            try:
                if not isinstance(rec, dict):
                    raise ValueError("the record is not a JSON object")
                kind = rec.get("record")
                if kind is None:
                    items.append(JournalEntry.from_dict(rec))
                    continue
                if kind not in _KINDS:
                    raise ValueError(f"unknown record kind {str(kind)[:20]!r}")
                op_id = rec.get("op")
                if not isinstance(op_id, str) or not op_id:
                    raise ValueError("the record names no operation")
                if kind in ("start", "end"):
                    JournalEntry.from_dict(rec)  # a record the entry can be read from
                op = ops.get(op_id)
                if op is None:
                    op = _Op(op_id, where=where)
                    op.add(kind, rec)
                    ops[op_id] = op
                    items.append(op)
                else:
                    op.add(kind, rec)
            except (ValueError, TypeError) as exc:
                problems.append(f"{where}: not a journal record ({_short(exc)}), skipped")
    for item in items:
        if isinstance(item, _Op):
            if tail is not None and item.start is None and item.end is None:
                continue  # its start is before the tail: the whole read shows it
            try:
                entry = item.entry(ids=ids, problems=problems)
            except (ValueError, TypeError) as exc:
                problems.append(f"{item.where}: operation {item.op} cannot be read "
                                f"({_short(exc)}), skipped")
                continue
        else:
            entry = item
        if since is not None and entry.time < since:
            continue
        if operation is not None and entry.operation != operation:
            continue
        yield entry


def newest_tail(path: Path, changes: int, *, block: int | None = None,
                limit: int | None = None) -> int | None:
    """How many bytes from the end of ``path`` hold its newest ``changes`` changes (their
    start and end records), read backwards a block at a time without parsing a record;
    the file's size when it holds fewer; None when more than ``limit`` bytes would."""
    block = block or NEWEST_BLOCK
    try:
        fp = open(path, "rb")  # noqa: SIM115
    except OSError:
        return 0
    with fp:
        size = os.fstat(fp.fileno()).st_size
        pos, heads, carry = size, 0, b""
        while pos > 0:
            start = max(0, pos - block)
            fp.seek(start)
            chunk = fp.read(pos - start) + carry
            pos = start
            lines = chunk.split(b"\n")
            carry = lines.pop(0) if pos > 0 else b""  # may have begun before this block
            for line in lines:
                head = line[:120]
                if head.strip() and not any(k in head for k in _NOT_HEAD):
                    heads += 1
            if heads >= 2 * changes:
                return _within(size - pos - len(carry), limit)
            if limit is not None and size - pos > limit:
                return None
        return _within(size, limit)


def _within(tail: int, limit: int | None) -> int | None:
    return tail if limit is None or tail <= limit else None


__all__ = ["LazyIds", "UnitLine", "lazy_unit", "newest_tail", "parsed_line", "read_entries",
           "records", "spans_holding", "unit_ids"]

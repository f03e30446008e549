"""One change's MsgIds a page at a time (issue 23 item 3): where its committed units' records
are (file, offset, how many ids) is found once by bytes, and a page reads only the unit
records it covers — a change of 200,000 messages is never held whole.

The ids come in the order the whole read gives them (:meth:`Journal.read_operation`): each
committed unit in the order of its commit records, then the change's own outcomes (its end
record's failures and done messages no unit holds).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .entry import JournalEntry, Outcome
from .reader import lazy_unit, parsed_line, spans_holding, unit_ids


@dataclass(frozen=True, slots=True)
class UnitAt:
    """Where a unit record is: its file, the offset and length of the record, its ids."""

    path: Path
    offset: int
    length: int
    unit: int
    count: int


class JournalChanged(Exception):
    """A unit record is not where it was found (the journal rotated or was rewritten)."""


def find_units(files: list[Path], op: str) -> tuple[list[UnitAt], int]:
    """The committed units of operation ``op`` in ``files`` (in commit order) and how many
    commits name a unit whose record is not there (rotated away); no id is parsed."""
    needle = b'"op":' + json.dumps(op).encode("ascii")
    units: dict[int, UnitAt] = {}
    committed: list[int] = []
    for path in files:
        try:
            fp = open(path, "rb")  # noqa: SIM115
        except OSError:
            continue
        with fp:
            try:
                for start, raw, _ in spans_holding(fp, needle):
                    lazy = lazy_unit(raw)
                    if lazy is not None:
                        if lazy.op == op:
                            units[lazy.unit] = UnitAt(path, start, len(raw), lazy.unit,
                                                      lazy.ids.count)
                        continue
                    got = parsed_line(raw)
                    if isinstance(got, Exception):
                        continue  # not a record: the whole read reports it
                    rec, cut = got
                    if not isinstance(rec, dict) or rec.get("op") != op:
                        continue
                    n = rec.get("unit")
                    if isinstance(n, bool) or not isinstance(n, int):
                        continue
                    if rec.get("record") == "commit":
                        committed.append(n)
                    elif rec.get("record") == "unit":
                        try:
                            count = len(unit_ids(rec)[0])
                        except ValueError:
                            continue
                        units[n] = UnitAt(path, start + cut, len(raw) - cut, n, count)
            except ValueError:  # mmap of a file that shrank
                continue
    found = [units[n] for n in committed if n in units]
    return found, len(committed) - len(found)


def unit_lists(at: UnitAt) -> tuple[list[str], list[str | None]]:
    """The ids of the unit record at ``at`` and each one's destination. Raises
    :class:`JournalChanged` when that is not the record there any more."""
    try:
        with open(at.path, "rb") as fp:
            fp.seek(at.offset)
            raw = fp.read(at.length)
    except OSError as exc:
        raise JournalChanged(str(exc)) from exc
    got = parsed_line(raw)
    if isinstance(got, Exception) or got[1] or not isinstance(got[0], dict) \
            or got[0].get("unit") != at.unit or got[0].get("record") != "unit":
        raise JournalChanged(f"{at.path}: unit {at.unit} is not where it was")
    try:
        ids, where = unit_ids(got[0])
    except ValueError as exc:
        raise JournalChanged(str(exc)) from exc
    if len(ids) != at.count:
        raise JournalChanged(f"{at.path}: unit {at.unit} changed")
    return ids, where


def read_unit(at: UnitAt) -> list[Outcome]:
    """The done outcomes of the unit record at ``at`` (see :func:`unit_lists`)."""
    ids, where = unit_lists(at)
    return [Outcome(m, "done", destination=d) for m, d in zip(ids, where, strict=True)]


class RecordIds:
    """A change's MsgIds with their outcomes, read a page at a time: the units' places (a few
    numbers each) and the entry's own outcomes are all it keeps."""

    def __init__(self, entry: JournalEntry, files: Callable[[], list[Path]]) -> None:
        self.entry = entry
        self._files = files
        own = list(entry.outcomes)
        known = {o.msgid for o in own}
        # a record of one line may name ids without outcomes (older files)
        self.own = own + [Outcome(m) for m in entry.msgids if m not in known]
        # the last unit read, as plain lists: the next page is mostly in it (a unit of a
        # 200,000-message run holds 10,800 ids, a page 500; parsing its line again for each
        # page took 0.2-0.3 s). One unit: bounded by the writer's unit size.
        self._last: tuple[UnitAt, list[str], list[str | None]] | None = None
        self._find()

    def _find(self) -> None:
        self.units: list[UnitAt] = []
        self.lost_units = 0
        if self.entry.op is not None and self.entry.unlisted_done:
            self.units, self.lost_units = find_units(self._files(), self.entry.op)
        self._ends: list[int] = []  # the running count of ids at the end of each unit
        total = 0
        for unit in self.units:
            total += unit.count
            self._ends.append(total)
        self.in_units = total

    @property
    def total(self) -> int:
        return self.in_units + len(self.own)

    @property
    def missing(self) -> int:
        """Done messages the entry counts whose ids are not in the journal any more."""
        listed = self.in_units + sum(o.outcome == "done" for o in self.own)
        return max(0, self.entry.counts()["done"] - listed)

    def _unit(self, at: UnitAt) -> tuple[list[str], list[str | None]]:
        """The ids and destinations of the unit at ``at``: the last one read is kept."""
        last = self._last  # one read: a page read in another thread may replace it
        if last is not None and last[0] == at:
            return last[1], last[2]
        self._last = None  # never two units held at once
        ids, where = unit_lists(at)
        self._last = (at, ids, where)
        return ids, where

    def page(self, start: int, size: int) -> list[Outcome]:
        """The outcomes ``start`` to ``start + size`` (fewer at the end); reads only the
        unit records they are in (found again once if the journal moved meanwhile)."""
        try:
            return self._page(start, size)
        except JournalChanged:
            self._last = None
            self._find()
            return self._page(start, size)

    def _page(self, start: int, size: int) -> list[Outcome]:
        stop = min(start + size, self.total)
        out: list[Outcome] = []
        if start < self.in_units:
            i = bisect.bisect_right(self._ends, start)
            while i < len(self.units) and len(out) < stop - start:
                first = self._ends[i] - self.units[i].count
                ids, where = self._unit(self.units[i])
                at, to = max(0, start - first), stop - first
                out += [Outcome(m, "done", destination=d)
                        for m, d in zip(ids[at:to], where[at:to], strict=True)]
                i += 1
        if stop > self.in_units:
            out += self.own[max(0, start - self.in_units):stop - self.in_units]
        return out


__all__ = ["JournalChanged", "RecordIds", "UnitAt", "find_units", "read_unit", "unit_lists"]

"""A change's MsgIds read a page at a time (issue 23 item 3): every page is the slice of
what the whole read gives (units in commit order, then the end record's own outcomes), a
page reads only the unit records it covers, and a journal that rotated or grew between
finding the units and reading a page still gives the right ids."""

from __future__ import annotations

from mqconsole.ops.journal import Journal, JournalEntry, Outcome, Rotation, pages
from mqconsole.ops.journal.reader import lazy_unit, parsed_line


def ids(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{n:0{48 - len(prefix)}X}" for n in range(count)]


def move(journal: Journal, source: str, units: list[list[str]], *,
         failed: list[str] = (), dests: list[str] | None = None) -> str:
    """One move journaled as the engines do; its op id."""
    entry = JournalEntry("move", qmgr="QM1", source=source, destinations=["OUT"])
    rec = journal.begin(entry)
    outcomes = []
    for n, unit in enumerate(units):
        where = [dests[n % len(dests)] if dests else "OUT" for n in range(len(unit))]
        rec.unit(unit, where)
        rec.committed()
        outcomes += [Outcome(m, "done", destination=d) for m, d in zip(unit, where, strict=True)]
        del n
    outcomes += [Outcome(m, "failed", reason=2053, reason_name="MQRC_Q_FULL",
                         destination="OUT") for m in failed]
    entry.outcomes = outcomes
    entry.msgids = [o.msgid for o in outcomes]
    rec.end(entry)
    return rec.op


def listed(journal: Journal, source: str) -> JournalEntry:
    """The change as the journal screen has it: read without ids."""
    return next(e for e in journal.read(ids=False) if e.source == source)


def as_tuples(outcomes) -> list[tuple]:
    return [(o.msgid, o.outcome, o.destination, o.reason) for o in outcomes]


def test_every_page_is_a_slice_of_the_whole_read(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    move(journal, "BEFORE", [ids("B0", 30)])
    op = move(journal, "APP.BIG", [ids(f"A{n}", 37 + n) for n in range(8)],
              failed=ids("EE", 5), dests=["OUT", "ELSEWHERE"])
    move(journal, "AFTER", [ids("C0", 30)])
    whole = as_tuples(journal.read_operation(op).outcomes)
    assert len(whole) == sum(37 + n for n in range(8)) + 5
    found = journal.record_ids(listed(journal, "APP.BIG"))
    assert found.total == len(whole) and found.missing == 0
    for size in (1, 7, 50, 500):
        got = []
        for start in range(0, found.total, size):
            page = found.page(start, size)
            assert len(page) == min(size, found.total - start)
            got += as_tuples(page)
        assert got == whole
    assert found.page(found.total, 50) == []


def _units_read(monkeypatch) -> list[int]:
    """The units whose lines are parsed from now on, in order (``pages.unit_lists`` counted)."""
    read: list[int] = []
    real = pages.unit_lists

    def counted(at):
        read.append(at.unit)
        return real(at)

    monkeypatch.setattr(pages, "unit_lists", counted)
    return read


def test_a_page_reads_only_the_units_it_covers(tmp_path, monkeypatch):
    journal = Journal(tmp_path / "journal.jsonl")
    move(journal, "APP.BIG", [ids(f"{n:03X}", 100) for n in range(200)])  # 20,000 ids
    found = journal.record_ids(listed(journal, "APP.BIG"))
    assert found.total == 20_000
    read = _units_read(monkeypatch)
    page = found.page(10_050, 500)
    assert [o.msgid for o in page] == [m for n in range(100, 106) for m in ids(f"{n:03X}", 100)
                                       ][50:550]
    assert read == [101, 102, 103, 104, 105, 106]  # 6 of 200 units, nothing before them
    assert not hasattr(found, "outcomes")  # it keeps where the units are, not their ids


def test_the_next_page_in_the_same_unit_does_not_parse_it_again(tmp_path, monkeypatch):
    """The screen's n: a unit of 10,800 ids (a 200,000-message run's) holds 21 pages; its
    line is parsed once for them, the last unit read kept (one, never more)."""
    journal = Journal(tmp_path / "journal.jsonl")
    units = [ids(f"{n:02X}", 2_000) for n in range(3)]
    move(journal, "APP.BIG", units)
    found = journal.record_ids(listed(journal, "APP.BIG"))
    read = _units_read(monkeypatch)
    got = []
    for start in range(0, found.total, 500):
        got += [o.msgid for o in found.page(start, 500)]
    assert got == [m for unit in units for m in unit]
    assert read == [1, 2, 3]  # each unit once, in order
    assert [o.msgid for o in found.page(1_900, 200)] == units[0][1_900:] + units[1][:100]
    assert read == [1, 2, 3, 1, 2]  # back to the first: read again, one unit kept
    assert found._last is not None and found._last[0].unit == 2


def test_a_rotation_between_finding_and_reading_finds_them_again(tmp_path):
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, rotation=Rotation(max_bytes=40_000))
    op = move(journal, "APP.BIG", [ids(f"{n:02X}", 50) for n in range(6)])
    whole = as_tuples(journal.read_operation(op).outcomes)
    found = journal.record_ids(listed(journal, "APP.BIG"))
    for n in range(40):  # the live file grows past its size: renamed aside, a new one begun
        move(journal, f"LATER{n}", [ids(f"L{n:02X}", 20)])
    assert journal.files()[0] != path  # rotated meanwhile
    got = []
    for start in range(0, found.total, 70):
        got += as_tuples(found.page(start, 70))
    assert got == whole


def test_a_torn_line_and_a_unit_not_as_written_are_read_as_the_whole_read_does(tmp_path):
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    op = move(journal, "APP.BIG", [ids("AA", 10), ids("BB", 10), ids("CC", 10)])
    lines = path.read_text().splitlines()
    unit2 = next(i for i, x in enumerate(lines) if '"unit":2,"msgids"' in x)
    # torn (a crash's half line) in front of it, and an id written with an escape: parsed
    lines[unit2] = '{"time":"2026-11-25T20:57:14.345Z","record":"unit","op":"x' \
        + lines[unit2].replace('"BB0', '"\\u0042B0', 1)
    path.write_text("\n".join(lines) + "\n")
    line = lines[unit2].encode("ascii")
    assert lazy_unit(line) is None and parsed_line(line)[1] > 0  # not read as written
    whole = as_tuples(journal.read_operation(op).outcomes)
    assert len(whole) == 30
    found = journal.record_ids(listed(journal, "APP.BIG"))
    assert as_tuples(found.page(0, 100)) == whole
    assert as_tuples(found.page(12, 5)) == whole[12:17]

"""The journal read for the console's first screen (issue 15 item 12): the newest changes
found by reading the live file backwards, unit records counted from their bytes instead of
parsed — giving the same changes and counts as the full parse, and falling back to it (with
its problems reported) for any line not written as the writer writes it."""

from __future__ import annotations

from mqconsole.ops.journal import Journal, JournalEntry, Outcome, reader
from mqconsole.ops.journal.reader import LazyIds, lazy_unit, newest_tail


def ids(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{n:0{48 - len(prefix)}X}" for n in range(count)]


def move(journal: Journal, source: str, units: list[list[str]], *, end: bool = True,
         commit_last: bool = True) -> None:
    entry = JournalEntry("move", qmgr="QM1", source=source, destinations=["OUT"])
    rec = journal.begin(entry)
    outcomes = []
    for n, unit in enumerate(units):
        rec.unit(unit, ["OUT"] * len(unit))
        if commit_last or n < len(units) - 1:
            rec.committed()
            outcomes += [Outcome(m, "done", destination="OUT") for m in unit]
    if end:
        entry.outcomes = outcomes
        entry.msgids = [o.msgid for o in outcomes]
        rec.end(entry)


def summary(entries) -> list[tuple]:
    return [(e.source, e.state, e.counts()["done"], list(e.in_doubt)) for e in entries]


def test_counted_units_read_as_parsed_ones(tmp_path, monkeypatch):
    journal = Journal(tmp_path / "j.jsonl")
    for n in range(5):
        move(journal, f"Q{n}", [ids(f"{n}A", 7), ids(f"{n}B", 3)])
    move(journal, "CUT", [ids("CA", 4), ids("CB", 5)], end=False, commit_last=False)
    lazy = summary(journal.read(ids=False))
    monkeypatch.setattr(reader, "lazy_unit", lambda raw: None)  # every line parsed
    parsed = summary(journal.read(ids=False))
    assert lazy == parsed
    assert lazy[0] == ("Q0", "complete", 10, [])
    assert lazy[-1] == ("CUT", "interrupted", 4, ids("CB", 5))  # its unit in doubt, listed


def test_a_unit_line_not_as_written_is_parsed_and_checked():
    good = (b'{"time":"2026-11-25T20:57:14.345Z","record":"unit","op":"ab12","unit":3,'
            b'"msgids":["AA","BB","CC"],"destination":"OUT"}\n')
    unit = lazy_unit(good)
    assert unit is not None and (unit.op, unit.unit, len(unit.ids)) == ("ab12", 3, 3)
    assert list(unit.ids) == ["AA", "BB", "CC"] and unit.rest == {"destination": "OUT"}
    assert len(lazy_unit(good.replace(b'["AA","BB","CC"]', b"[]")).ids) == 0
    for bad in (good[:-20],  # torn
                good.replace(b'"BB"', b'"B\\u0042"'),  # an escape: not hex
                good.replace(b'"BB",', b'"BB""'),  # not a list of strings
                good.replace(b'"unit":3', b'"unit":"3"'),
                b"[1,2]\n"):
        assert lazy_unit(bad) is None, bad


def test_a_torn_unit_line_is_reported_as_before(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    move(journal, "Q0", [ids("A", 3)])
    with path.open("ab") as f:
        f.write(b'{"time":"2026-11-25T20:57:14.345Z","record":"unit","op":"ab12","unit":1,'
                b'"msgids":["AA","B\n')
    move(journal, "Q1", [ids("B", 2)])
    entries = list(journal.read(ids=False))
    assert summary(entries) == [("Q0", "complete", 3, []), ("Q1", "complete", 2, [])]
    assert len(journal.problems) == 1 and "line 5" in journal.problems[0]


def test_the_newest_changes_are_found_from_the_end(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    for n in range(200):
        move(journal, f"Q{n:03d}", [ids(f"{n:03X}", 50)])
    size = path.stat().st_size
    for block in (1024, 4096, 1 << 20):
        tail = newest_tail(path, 10, block=block)
        assert 0 < tail < size if block < size else tail == size
        newest = journal.read_tail(tail)
        assert newest[-1].source == "Q199" and newest[-1].counts()["done"] == 50
        if block < size:
            assert 10 <= len(newest) < 200
            assert [e.source for e in newest] == [f"Q{n:03d}" for n in
                                                  range(200 - len(newest), 200)]
    assert newest_tail(path, 1000, block=4096) == size
    assert newest_tail(tmp_path / "none.jsonl", 10) == 0
    assert [e.source for e in journal.read_newest(3)][-3:] == ["Q197", "Q198", "Q199"]


def test_lazy_ids_are_parsed_when_listed():
    raw = (b'{"time":"2026-11-25T20:57:14.345Z","record":"unit","op":"ab12","unit":1,'
           b'"msgids":["AA","BB"],"destination":"OUT"}')
    lazy = LazyIds(raw, 2)
    assert len(lazy) == 2 and list(lazy) == ["AA", "BB"]




def test_the_lines_holding_a_text_are_found_by_bytes(tmp_path):
    from mqconsole.ops.journal.reader import lines_holding

    path = tmp_path / "j.jsonl"
    path.write_bytes(b"one AA\ntwo\nthree AA AA\n\nfour\nfive AA")
    with path.open("rb") as fp:
        assert list(lines_holding(fp, b"AA")) == [
            (1, b"one AA\n"), (3, b"three AA AA\n"), (6, b"five AA")]
    with path.open("rb") as fp:
        assert [n for n, _ in lines_holding(fp, b"AA", numbered=False)] == [0, 0, 0]
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with empty.open("rb") as fp:
        assert list(lines_holding(fp, b"AA")) == []


def test_a_msgid_part_and_an_operation_are_found_in_the_files(tmp_path):
    journal = Journal(tmp_path / "j.jsonl")
    move(journal, "Q0", [ids("AB", 5)])
    move(journal, "Q1", [ids("CD", 5), ids("EF", 5)])
    [first, second] = journal.read(ids=False)
    assert journal.ops_mentioning(ids("EF", 5)[3][:20]) == {second.op}
    assert journal.ops_mentioning("ab" + "0" * 20) == {first.op}  # any case
    assert journal.ops_mentioning("0123456789ABCDEF0123") == set()
    whole = journal.read_operation(second.op)
    assert whole is not None and whole.msgids == ids("CD", 5) + ids("EF", 5)


def test_the_newest_further_than_a_limit_are_not_read(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    for n in range(50):
        move(journal, f"Q{n:03d}", [ids(f"{n:03X}", 50)])
    assert newest_tail(path, 40, block=1024, limit=4096) is None
    assert journal.read_newest(40, limit=4096) is None
    assert len(journal.read_newest(40, limit=10 << 20)) >= 40

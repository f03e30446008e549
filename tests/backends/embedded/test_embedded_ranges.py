"""Browsing a queue in stretches (``base.BrowsesInRanges``): read one by one and numbered
from their first positions, the stretches give exactly what one browse gives."""

from __future__ import annotations

from mqconsole.backends.base import BrowseRange, BrowsesInRanges
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message


def _fill(qm, queue: str, priorities: list[int]) -> None:
    for i, priority in enumerate(priorities):
        qm.put(queue, Message(MQMD(priority=priority), f"m{i}".encode()), syncpoint=False)


def _browse(qm, queue: str) -> list[tuple[int, bytes]]:
    with qm.browse(queue) as cursor:
        return [(i, m.body) for i, m in enumerate(cursor.next_batch(10_000), 1)]


def _by_ranges(qm, queue: str, ranges: list[BrowseRange], page: int = 7
               ) -> list[tuple[int, bytes]]:
    out = []
    for part in ranges:
        with qm.new_connection() as other, other.browse_range(queue, part) as cursor:
            got = []
            while batch := cursor.next_batch(page):
                got += batch
                if len(batch) < page:
                    break
        if part.rows is not None:
            assert len(got) == part.rows
        out += [(part.first_position + i, m.body) for i, m in enumerate(got)]
    return out


def test_stretches_read_one_by_one_give_one_browse(make_qm, tmp_path):
    qm = make_qm("Q", path=tmp_path / "qm.sqlite")
    assert isinstance(qm, BrowsesInRanges)
    _fill(qm, "Q", [(i * 7) % 10 for i in range(103)])  # every priority: (npri, id) order
    whole = _browse(qm, "Q")
    for parts, min_rows in ((1, 1), (2, 1), (3, 10), (4, 1), (7, 5), (50, 1), (4, 60)):
        ranges = qm.browse_ranges("Q", parts, min_rows)
        assert 1 <= len(ranges) <= max(1, min(parts, 103 // min_rows))
        assert all(r.rows is None or r.rows >= min_rows for r in ranges)
        assert ranges[0].first_position == 1 and ranges[0].after is None
        assert ranges[-1].until is None and ranges[-1].rows is None
        for page in (1, 7, 500):
            assert _by_ranges(qm, "Q", ranges, page) == whole


def test_the_open_last_stretch_reads_what_arrived_since(make_qm, tmp_path):
    qm = make_qm("Q", path=tmp_path / "qm.sqlite")
    _fill(qm, "Q", [0] * 20)
    ranges = qm.browse_ranges("Q", 2, 1)
    _fill(qm, "Q", [0] * 3)  # arrive after the plan, at the end: the last stretch has them
    assert _by_ranges(qm, "Q", ranges) == _browse(qm, "Q")


def test_a_short_queue_is_one_stretch(make_qm, tmp_path):
    qm = make_qm("Q", path=tmp_path / "qm.sqlite")
    _fill(qm, "Q", [5] * 9)
    assert qm.browse_ranges("Q", 4, 10) == [BrowseRange(1, None, None, None)]
    empty = make_qm("E", path=tmp_path / "e.sqlite")
    assert empty.browse_ranges("E", 4, 1) == [BrowseRange(1, None, None, None)]

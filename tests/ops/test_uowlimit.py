"""ops.uowlimit: --batch capped to MAXUMSGS, and groups that cannot fit."""

from __future__ import annotations

from types import SimpleNamespace

from mqconsole.ops.uowlimit import Room, capped_batch, group_fits, max_uncommitted, units


def _qm(limit):
    return SimpleNamespace(name="QM1", max_uncommitted=limit)


def test_no_limit_keeps_the_batch() -> None:
    assert capped_batch(_qm(None), 500) == (500, None)
    assert capped_batch(object(), 500) == (500, None)  # a backend without the attribute
    assert max_uncommitted(_qm(0)) is None


def test_a_move_takes_two_per_message() -> None:
    batch, why = capped_batch(_qm(9), 100)
    assert batch == 4 and why is not None and "MAXUMSGS" in why and "9 on QM1" in why
    assert capped_batch(_qm(9), 3) == (3, None)
    assert capped_batch(_qm(1), 10)[0] == 1  # never below one


def test_two_connections_take_the_smaller() -> None:
    batch, why = capped_batch(_qm(100), 500, per_message=1, also=_qm(30))
    assert batch == 30 and why is not None


def test_groups() -> None:
    assert group_fits(_qm(10), 5) is None
    assert "MAXUMSGS (10)" in (group_fits(_qm(10), 6) or "")
    assert group_fits(_qm(None), 10_000) is None


COA, COD = 0x100, 0x800


def test_reports_count() -> None:
    assert units(0, put=True, get=True) == 2
    assert units(COA | COD, put=True, get=True) == 4
    assert units(0x700 | 0x3800, put=True, get=False) == 2  # COA_WITH_FULL_DATA
    assert units(COD, put=True, get=False) == 1  # a copy's put makes no COD
    assert units(COD, put=False, get=True) == 2


def test_room_counts_a_unit_as_it_grows_and_starts_again() -> None:
    room = Room(_qm(6), put=True, get=True)
    unit: list[int] = []
    assert not room.full_for(COA | COD, unit, int)  # an empty unit always takes one
    unit.append(COA)
    assert not room.full_for(0, unit, int)  # 3 + 2
    unit.append(0)
    assert room.full_for(0, unit, int)  # 5 + 2 > 6
    unit.clear()
    unit.append(0)  # emptied and refilled: counted again
    assert room.held(unit, int) == 2
    assert Room(_qm(None), put=True, get=True).full_for(COD, [COD] * 99, int) is False

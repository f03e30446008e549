"""The journal screen at 80x24 (issue 15 items 9 and 12): the DONE, FAIL and SKIPPED columns
whole, a dry run marked DRY, an interrupted change named so, the newest first; drawn by the
row list (only the rows in view). ``pytest --snapshot-update`` after a deliberate change."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from mqconsole.ops.journal import Journal, JournalEntry, Outcome

from .conftest import settle, wait_for


def at(hour: int, minute: int) -> datetime:
    return datetime(2026, 11, 22, hour, minute, tzinfo=UTC)


def ids(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i:0{48 - len(prefix)}X}" for i in range(n)]


def write(path: Path) -> None:
    journal = Journal(path)
    moved = [Outcome(m, "done", destination="APP.AUDIT") for m in ids("AA", 12)]
    failed = [Outcome(m, "failed", reason=2053, reason_name="MQRC_Q_FULL",
                      destination="APP.SMALL") for m in ids("BB", 2)]
    skipped = [Outcome(m, "skipped") for m in ids("CC", 1)]
    for entry in [
        JournalEntry("move", qmgr="QM1", profile="test", source="SYSTEM.DEAD.LETTER.QUEUE",
                     destinations=["APP.AUDIT"], dry_run=True, time=at(9, 58),
                     operator="alice", sudo_user=None),
        JournalEntry("move", qmgr="QM1", profile="test", source="SYSTEM.DEAD.LETTER.QUEUE",
                     destinations=["APP.AUDIT"], outcomes=moved, time=at(10, 0),
                     operator="alice", sudo_user=None),
        JournalEntry("resubmit", qmgr="QM1", profile="test", source="APP.ORDERS.BOQ",
                     destinations=["APP.SMALL", "APP.ORDERS"], outcomes=failed + skipped,
                     time=at(10, 5), operator="bob", sudo_user=None,
                     details={"skipped": 1}),
    ]:
        entry.msgids = [o.msgid for o in entry.outcomes]
        journal.append(entry)
    with path.open("a") as f:  # a change whose end was never written (killed)
        f.write('{"time":"2026-11-22T10:07:00.000Z","record":"start","op":"k1","operator":'
                '"carol","sudo_user":null,"profile":"test","qmgr":"QM1","operation":"delete",'
                '"source":"APP.PAYMENTS","destinations":[],"details":{},"dry_run":false}\n')
        f.write('{"time":"2026-11-22T10:07:01.000Z","record":"unit","op":"k1","unit":1,'
                '"msgids":["DD01","DD02"],"destination":null}\n')


def test_the_journal_at_80x24(snap_compare, make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the status names the journal's path: the same in every run
    write(tmp_path / "journal.jsonl")
    app = make_app(journal_path=Path("journal.jsonl"))

    async def ready(pilot):
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: "4 of 4 records" in str(
            app.screen.query_one("#status").content) if app.screen.query("#status") else False)
        await pilot.press("down")

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)

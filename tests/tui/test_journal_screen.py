"""The journal screen on a large journal (issue 15 item 12): the newest records at once, the
whole journal after; filters as you type (a MsgId too); a record of 21,600 MsgIds opens as
counts and a table of ids, not raw JSON."""

from __future__ import annotations

from pathlib import Path

from mqconsole.ops.journal import Journal, JournalEntry, Outcome
from mqconsole.ops.journal import reader as journal_reader
from mqconsole.tui.screens import journal as journal_screen
from mqconsole.tui.screens.journal import JournalScreen
from mqconsole.tui.screens.journal_record import JournalRecordScreen
from mqconsole.tui.widgets.rowlist import RowList

from .conftest import screen_text, settle, wait_for


def ids(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{n:0{48 - len(prefix)}X}" for n in range(count)]


def record(journal: Journal, source: str, unit_ids: list[list[str]], *,
           dest: str = "APP.IN", failed: list[str] = ()) -> None:
    """One move journaled as the operations do: start, unit and commit records, end."""
    entry = JournalEntry("move", qmgr="QM1", profile="test", source=source,
                         destinations=[dest], operator="alice")
    rec = journal.begin(entry)
    outcomes = []
    for unit in unit_ids:
        rec.unit(unit, [dest] * len(unit))
        rec.committed()
        outcomes += [Outcome(m, "done", destination=dest) for m in unit]
    outcomes += [Outcome(m, "failed", reason=2053, reason_name="MQRC_Q_FULL",
                         destination=dest) for m in failed]
    entry.outcomes = outcomes
    entry.msgids = [o.msgid for o in outcomes]
    rec.end(entry)


def big_journal(path: Path, operations: int) -> Journal:
    journal = Journal(path)
    for n in range(operations):
        record(journal, f"APP.Q{n:04d}", [ids(f"{n:04X}AA", 40), ids(f"{n:04X}BB", 40)])
    return journal


async def test_the_newest_records_show_at_once_and_older_ones_as_the_cursor_comes(
        make_app, tmp_path, monkeypatch):
    """Issue 23 item 4: the newest changes first, read backwards from the end in a worker;
    older ones only when the cursor comes to the end of the list (then every one here)."""
    big_journal(tmp_path / "journal.jsonl", 120)  # ~0.5 MB
    monkeypatch.setattr(journal_screen, "NEWEST", 30)
    monkeypatch.setattr(journal_reader, "NEWEST_BLOCK", 16 * 1024)
    whole_reads: list[int] = []
    whole = Journal.read

    def counted_read(self, *args, **kw):
        whole_reads.append(1)
        yield from whole(self, *args, **kw)

    monkeypatch.setattr(Journal, "read", counted_read)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                       and "of the newest" in screen_text(app))
        screen = app.screen
        shown = len(screen.entries)
        assert 30 <= shown < 120 and not screen.whole and not whole_reads
        assert screen.entries[0].source == "APP.Q0119"  # newest first
        assert screen.entries[0].counts()["done"] == 80  # its units counted, not parsed
        assert "APP.Q0119" in screen_text(app) and "older ones are read" in screen_text(app)
        await pilot.press("down", "down")
        await settle(app, pilot)
        assert len(screen.entries) == shown and not whole_reads  # nothing more read yet
        await pilot.press("end")
        await wait_for(app, pilot, lambda: len(screen.entries) > shown)
        rows = screen.query_one("#journal", RowList)
        await pilot.press("end")
        await wait_for(app, pilot, lambda: screen.whole)
        assert len(screen.entries) == 120 and "120 of 120 records" in screen_text(app)
        assert screen.entries[0].source == "APP.Q0119"
        assert screen.entries[0].counts()["done"] == 80
        assert rows.cursor > 2  # kept where the operator went


async def test_the_list_draws_only_what_is_on_screen(make_app, tmp_path, monkeypatch):
    big_journal(tmp_path / "journal.jsonl", 300)
    drawn: list[int] = []
    real_row = journal_screen.row

    def counted(entry, *rest):
        drawn.append(1)
        return real_row(entry, *rest)

    monkeypatch.setattr(journal_screen, "row", counted)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                       and app.screen.entries)
        rows = app.screen.query_one("#journal", RowList)
        while not app.screen.whole:  # older records are read as the cursor comes to them
            await pilot.press("end")
            await settle(app, pilot)
        drawn.clear()
        rows.move_cursor(0)
        await pilot.pause()
        assert rows.row_count == 300 and "300 of 300 records" in screen_text(app)
        assert 0 < len(drawn) < 300  # the rows in view, not all of them
        await pilot.press("end")
        await pilot.pause()
        assert rows.cursor == 299
        assert rows.cells(299)[3] == "APP.Q0000 → APP.IN"  # the oldest, last
        assert "APP.Q0000 → APP.IN" in screen_text(app)


async def test_the_filter_follows_the_typing_and_finds_a_msgid(make_app, tmp_path):
    journal = big_journal(tmp_path / "journal.jsonl", 30)
    record(journal, "APP.OTHER", [ids("FEED", 3)], dest="APP.ELSEWHERE")
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                       and app.screen.whole)
        table = app.screen.query_one("#journal", RowList)
        assert table.row_count == 31
        await pilot.press("slash", *"elsewh")  # no enter: as you type
        await wait_for(app, pilot, lambda: table.row_count == 1)
        assert "1 of 31 records" in screen_text(app)
        await pilot.press(*["backspace"] * 6)
        await wait_for(app, pilot, lambda: table.row_count == 31)
        # a MsgId of a unit (not in the list's text): found in the records' ids
        await pilot.press(*"0007BB0000", "enter")
        await wait_for(app, pilot, lambda: table.row_count == 1)
        assert table.cells(0)[3] == "APP.Q0007 → APP.IN"


async def test_a_record_of_21600_msgids_opens_readably(make_app, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    record(journal, "APP.BIG", [ids("AB", 10_800), ids("CD", 10_800)],
           failed=ids("EE", 2))
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                       and app.screen.whole)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalRecordScreen)
                       and app.screen.outcomes is not None)
        await pilot.pause()
        text = screen_text(app)
        assert "21,600 done · 2 failed · 0 skipped" in text
        assert "APP.BIG → APP.IN" in text and "by alice" in text
        assert '"msgid"' not in text and "{" not in text  # not the record's JSON
        assert "⏎" not in text  # its lines are lines
        assert "MsgIds 1–500 of 21,602 · page 1 of 44 (n/p)" in text
        screen = app.screen
        assert len(screen.outcomes) == 500  # a page held, never the record's 21,602 ids
        table = screen.query_one("#jr-ids", RowList)
        assert table.row_count == 500
        assert table.cells(0)[:3] == ["1", ids("AB", 1)[0], "done"]
        assert ids("AB", 1)[0] in text  # the whole MsgId on screen
        await pilot.press("end")
        await wait_for(app, pilot, lambda: table.cursor == 499)
        await pilot.press("p")  # before the first page: stays
        await pilot.press(*"n" * 50)  # past the last page: stays on it
        await wait_for(app, pilot, lambda: table.row_count == 102)
        assert "MsgIds 21,501–21,602 of 21,602 · page 44 of 44" in screen_text(app)
        assert len(screen.outcomes) == 102
        last = table.cells(101)
        assert last[0] == "21602" and last[2:] == ["failed", "APP.IN", "MQRC_Q_FULL (2053)"]
        await pilot.press("p")
        await wait_for(app, pilot, lambda: table.cells(0)[0] == "21001")
        assert table.cells(0)[1] == ids("CD", 10_800)[10_800 - 600]  # read from its unit
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen))


def test_a_route_too_long_for_its_column_keeps_both_ends_of_each_name():
    from mqconsole.tui.screens.journal import fit_route

    assert fit_route("APP.ORDERS", "APP.AUDIT", 30) == "APP.ORDERS → APP.AUDIT"
    assert fit_route("SYSTEM.DEAD.LETTER.QUEUE", "APP.AUDIT", 28) == \
        "SYSTEM.D…R.QUEUE → APP.AUDIT"  # the destination whole, never cut off the end
    long = "APP.SETTLEMENT.INSTRUCTIONS.EUROPE.PRIORITY.BOQ1"
    fitted = fit_route(long, long, 28)
    assert fitted == "APP.SE….BOQ1 → APP.SE…Y.BOQ1" and len(fitted) == 28
    assert fit_route(long, "", 12) == "APP.SE….BOQ1"


async def test_the_route_column_follows_the_terminal_width(make_app, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    record(journal, "SYSTEM.DEAD.LETTER.QUEUE", [ids("AA", 2)], dest="APP.SETTLEMENT.EUROPE")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                       and app.screen.whole)
        rows = app.screen.query_one("#journal", RowList)
        narrow = rows.cells(0)[3]
        assert narrow == "SYSTEM…QUEUE → APP.SE…EUROPE"  # both ends of both names
        assert rows.virtual_size.width <= 80
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert rows.cells(0)[3] == "SYSTEM.DEAD.LETTER.QUEUE → APP.SETTLEMENT.EUROPE"
        assert "SYSTEM.DEAD.LETTER.QUEUE → APP.SETTLEMENT.EUROPE" in screen_text(app)
        assert rows.virtual_size.width <= 160


async def test_a_record_with_a_count_that_is_not_a_number_opens(make_app, tmp_path):
    """A hand-edited or foreign record (a count that is not a whole number) is shown, not a
    crash of the list or of the record's view."""
    import json

    path = tmp_path / "journal.jsonl"
    record(Journal(path), "APP.HANDMADE", [ids("AB", 2)])
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    end.setdefault("details", {})["skipped"] = "lots"
    path.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                       and app.screen.whole)
        table = app.screen.query_one("#journal", RowList)
        assert table.row_count == 1
        assert table.cells(0)[3] == "APP.HANDMADE → APP.IN"
        assert table.cells(0)[4:] == ["2", "0", "0"]  # done, failed, skipped
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalRecordScreen)
                       and app.screen.outcomes is not None)
        assert "APP.HANDMADE" in screen_text(app)


async def test_a_change_stopped_early_says_so_in_the_list_and_the_record(make_app, tmp_path):
    """A change stopped at a commit (Ctrl-C, SIGTERM, escape) ended normally, but the
    journal says it stopped and why (issue 17 items 2-3), not a plain complete change."""
    import json

    path = tmp_path / "journal.jsonl"
    record(Journal(path), "APP.STOPPED", [ids("AB", 2)])
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    end.setdefault("details", {}).update(cancelled=True, stopped_by="SIGTERM")
    text = json.dumps(end, separators=(",", ":"))  # as the journal writes it
    path.write_text("\n".join([*lines[:-1], text]) + "\n")
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalScreen)
                       and app.screen.whole)
        table = app.screen.query_one("#journal", RowList)
        assert table.cells(0)[3] == "STOPPED APP.STOPPED → APP.IN"
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, JournalRecordScreen)
                       and app.screen.outcomes is not None)
        assert "stopped early (by SIGTERM)" in screen_text(app)


def test_a_count_of_180000_is_never_cut_in_its_column():
    """At 80 columns DONE is 5 wide: 180,000 done reads 180k, never 1800… (issue 24)."""
    from mqconsole.tui.screens.journal import COUNT_COLUMNS, row

    entry = JournalEntry("move", qmgr="QM1", profile="test", source="SYSTEM.DEAD.LETTER.QUEUE",
                         destinations=["APP.HOLD"], operator="alice")
    entry.unlisted_done = 180_000
    cells = row(entry, 30)
    done = cells[4].plain
    assert done == "180k" and len(done) <= COUNT_COLUMNS[0].width


def test_a_records_messages_never_tried_are_a_count_of_their_own():
    """Issue 24 item 2: a change that stopped early says beside done, failed and skipped how
    many selected messages it never tried."""
    from mqconsole.tui.screens.journal_record import describe

    entry = JournalEntry("move", qmgr="QM1", profile="test", source="APP.ORDERS.BOQ",
                         destinations=["APP.SMALL"], operator="alice",
                         details={"selected": 52, "stopped_early": "APP.SMALL was given up",
                                  "not_tried": 37})
    said = describe(entry).plain
    assert "0 done · 0 failed · 0 skipped · 37 not tried (they stayed)" in said
    assert "not tried: 37" not in said  # said once
    load = JournalEntry("load", qmgr="QM1", profile="test", source="/tmp/all.dmp",
                        destinations=["APP.LEGACY"], operator="alice",
                        details={"selected": 14, "stopped_early": "APP.LEGACY refused 10 "
                                 "puts in a row (MQRC_PUT_INHIBITED)", "not_tried": 4})
    assert "· 4 not tried (not put)" in describe(load).plain  # of the file: never put


def test_a_resubmits_record_says_why_its_messages_were_not_tried():
    """Issue 24 item 2: a resubmit goes on past a given-up destination; its record says why
    the rest of that destination's messages were never tried, once."""
    from mqconsole.tui.screens.journal_record import describe

    why = ("APP.SMALL refused 10 messages in a row (last: MQRC_Q_FULL (2053)), so it was "
           "given up: 50 messages for it were not tried; they stayed on DLQ")
    entry = JournalEntry("resubmit", qmgr="QM1", profile="test", source="DLQ",
                         destinations=["APP.ORDERS"], operator="alice",
                         details={"selected": 60, "not_tried": 50, "not_tried_why": why})
    said = describe(entry).plain
    assert f"· 50 not tried ({why})" in said
    assert "not tried why" not in said  # said once

"""At 80x24 nothing that matters is cut (issue 15, screens 9): `?` and quit in every footer,
filter errors wrapped whole, the banner keeping a 48-character queue name, whole queue names
in the list, and the journal's FAIL and SKIP columns with dry runs marked."""

from __future__ import annotations

from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.journal import Journal
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.selection import Selection

from .conftest import DLQ, open_queue, screen_text, settle, wait_for

LONG = "APP.SETTLEMENT.INSTRUCTIONS.EUROPE.PRIORITY.BOQ1"  # 48 characters


def footer(app) -> str:
    return screen_text(app).split("\n")[-1]


async def test_every_footer_keeps_help_and_quit(make_app):
    for read_only in (False, True):
        app = make_app(read_only=read_only)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            seen = [footer(app)]
            await open_queue(app, pilot, DLQ)
            await settle(app, pilot)
            seen.append(footer(app))
            await pilot.press("enter")
            await settle(app, pilot)
            seen.append(footer(app))
            await pilot.press("J")
            await settle(app, pilot)
            seen.append(footer(app))
        for line in seen:
            assert "? Keys" in line and "q Quit" in line, (read_only, line)


async def test_a_long_queue_name_is_whole_in_the_list_and_the_banner(make_app, qm):
    assert len(LONG) == 48
    qm.define_queue(QueueAttrs(name=LONG))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert LONG in screen_text(app) and f"{LONG[:20]}…" not in screen_text(app)
        await open_queue(app, pilot, LONG)
        await settle(app, pilot)
        banner = screen_text(app).split("\n")[0]
        assert LONG in banner and "DLQ" in banner  # the DLQ's name made room


async def test_a_filter_error_wraps_whole(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, DLQ)
        await pilot.press("slash")
        app.screen.query_one("#filter-input").value = "reason = Q_FULL and unknown_field > 3"
        await pilot.press("enter")
        await pilot.pause()
        said = str(app.screen.query_one("#filter-error").content)
        assert said and "unknown_field" in said
        flat = " ".join(line.strip() for line in screen_text(app).split("\n"))
        assert " ".join(said.split()) in " ".join(flat.split())


async def test_the_journal_shows_fail_and_skip_and_marks_dry_runs(make_app, qm, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    Operation(Move("APP.ORDERS", "APP.LEGACY", Selection(all=True)), journal=journal,
              profile="test").plan(qm)
    Operation(Move("APP.ORDERS", "APP.LEGACY", Selection(all=True)), journal=journal,
              profile="test").run(qm)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("J")
        await wait_for(app, pilot, lambda: "2 of 2 records" in screen_text(app))
        lines = screen_text(app).split("\n")
        header = next(line for line in lines if "TIME (UTC)" in line)
        assert "DONE" in header and "FAIL" in header and "SKIPPED" in header
        assert any("DRY move" in line for line in lines)
        real = next(line for line in lines if " move " in line and "DRY" not in line)
        assert real.split()[-3:] == ["0", "10", "0"]  # done, failed (given up), skipped

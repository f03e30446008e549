"""The console's journal screen on a large journal (issue 15 item 12).

A journal of ``--operations`` moves (default 2,000), each journaled as operations do (a
start record, ``--units`` unit and commit records of ``--per-unit`` MsgIds, an end record),
then one move of 21,600 MsgIds, is opened in the console (``run_test``, 120x30). Figures:

* ``journal_mb`` — the journal's size;
* ``first_rows_s`` — pressing ``J`` until the newest records fill the list (the newest 100
  changes, the live file read backwards in a worker; target under 0.3 s), median of
  ``--repeat``; ``empty_s`` — the same on an empty journal in the same run (the floor: the
  screen and a worker's round trip), and ``first_rows_ratio`` — the one over the other;
* ``older_s`` — ``End`` on the list until older changes are listed (issue 23 item 4: read
  on demand, four times as many as shown);
* ``whole_s`` — from typing a filter until every record is listed (the whole journal read
  without ids, in a worker: only a filter reads it);
* ``filter_s`` — typing a queue name's last letter until the list shows the one match;
* ``msgid_search_s`` — a part of a unit's MsgId (20 hex digits) typed, from ``enter`` until
  the list shows its change (the files searched by bytes);
* ``big_record_s`` — ``enter`` on the 21,600-MsgId record until its counts and first page
  of ids are on screen (read from that operation's own lines); ``next_page_s`` — ``n``
  until the next 500 are.

The load average before and after is printed with the figures (a shared machine).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import secrets
import statistics
import tempfile
import time
from pathlib import Path

from _common import emit

from mqconsole.ops.journal import Journal, JournalEntry, Outcome


def build(path: Path, operations: int, units: int, per_unit: int) -> list[str]:
    """The journal; returns one MsgId of a unit of operation 7 (for the search)."""
    journal = Journal(path)
    probe = ""
    for n in range(operations + 1):
        big = n == operations
        entry = JournalEntry("move", qmgr="QM1", profile="bench", operator="bench",
                             source="APP.BIG" if big else f"APP.Q{n:05d}",
                             destinations=["APP.IN"])
        rec = journal.begin(entry)
        outcomes = []
        for _ in range(2 if big else units):
            ids = [secrets.token_hex(24).upper() for _ in range(10_800 if big else per_unit)]
            if n == 7 and not probe:
                probe = ids[3][10:30]
            rec.unit(ids, ["APP.IN"] * len(ids))
            rec.committed()
            outcomes += [Outcome(m, "done", destination="APP.IN") for m in ids]
        entry.outcomes = outcomes
        entry.msgids = [o.msgid for o in outcomes]
        rec.end(entry)
    return [probe]


def make_app(path: Path):
    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.backends.open import open_embedded
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import ProfileInfo, Settings

    qm_path = path.parent / "qm.sqlite"
    if not qm_path.exists():
        create_queue_manager(str(qm_path), name="QMB").close()
    return MQConsoleApp(lambda: open_embedded(str(qm_path)), profile=ProfileInfo("bench"),
                        settings=Settings(refresh_seconds=0, journal_path=path))


async def until(pilot, test, limit: float = 300) -> float:
    t0 = time.perf_counter()
    while not test():
        if time.perf_counter() - t0 > limit:
            raise TimeoutError
        await pilot.pause(0.005)
    return time.perf_counter()


async def open_empty(path: Path) -> float:
    """``J`` on an empty journal until its screen says so: the floor of ``first_rows_s``."""
    from mqconsole.tui.screens.journal import JournalScreen

    path.write_bytes(b"")
    app = make_app(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause(0.5)
        t0 = time.perf_counter()
        app.action_journal()
        return await until(pilot, lambda: isinstance(app.screen, JournalScreen)
                           and any(str(s.content).startswith("0 of ")
                                   for s in app.screen.query("#status"))) - t0


async def once(path: Path, probe: str) -> dict:
    from mqconsole.tui.screens.journal import JournalScreen
    from mqconsole.tui.screens.journal_record import JournalRecordScreen
    from mqconsole.tui.widgets.rowlist import RowList

    app = make_app(path)
    out: dict = {}

    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause(0.5)
        t0 = time.perf_counter()
        app.action_journal()
        out["first_rows_s"] = await until(pilot, lambda: isinstance(app.screen, JournalScreen)
                                          and any(r.row_count >= 25 for r in
                                                  app.screen.query(RowList))) - t0
        screen = app.screen
        table = screen.query_one("#journal", RowList)
        first = len(screen.entries)
        table.focus()
        t0 = time.perf_counter()
        await pilot.press("end")  # older changes are read as the cursor comes to the end
        out["older_s"] = await until(pilot, lambda: len(screen.entries) > first) - t0
        t0 = time.perf_counter()
        await pilot.press("slash", *"app.q0000")  # a filter reads every change
        out["whole_s"] = await until(pilot, lambda: screen.whole) - t0
        await pilot.pause(0.3)
        t0 = time.perf_counter()
        await pilot.press("7")
        out["filter_s"] = await until(pilot, lambda: table.row_count == 1) - t0
        await pilot.press(*["backspace"] * 10)
        await until(pilot, lambda: table.row_count > 1)
        await pilot.press(*probe)
        t0 = time.perf_counter()
        await pilot.press("enter")
        out["msgid_search_s"] = await until(pilot, lambda: table.row_count == 1) - t0
        await pilot.press("slash", *["backspace"] * 20, "enter")
        await until(pilot, lambda: table.row_count > 1)
        table.focus()
        table.move_cursor(0)  # newest first: the big record
        t0 = time.perf_counter()
        await pilot.press("enter")
        out["big_record_s"] = await until(pilot, lambda: isinstance(
            app.screen, JournalRecordScreen) and app.screen.outcomes is not None) - t0
        ids = app.screen.query_one("#jr-ids", RowList)
        t0 = time.perf_counter()
        await pilot.press("n")
        out["next_page_s"] = await until(pilot, lambda: ids.cells(0)[0] == "501") - t0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--operations", type=int, default=2000)
    ap.add_argument("--units", type=int, default=5)
    ap.add_argument("--per-unit", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.jsonl"
        (probe,) = build(path, args.operations, args.units, args.per_unit)
        runs = []
        for _ in range(args.repeat):
            gc.collect()  # each run as in a console just started, not after the last run's
            run = asyncio.run(once(path, probe))
            run["empty_s"] = asyncio.run(open_empty(Path(tmp) / "empty.jsonl"))
            runs.append(run)
        figures = {key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]}
        figures["first_rows_ratio"] = round(figures["first_rows_s"] / figures["empty_s"], 2)
        figures["runs"] = runs
        emit("journal_screen", {"operations": args.operations + 1,
                                "ids": args.operations * args.units * args.per_unit + 21_600,
                                "journal_mb": round(path.stat().st_size / 1e6, 1), **figures,
                                "load_before": [round(x, 1) for x in load_before],
                                "load_after": [round(x, 1) for x in os.getloadavg()]})


if __name__ == "__main__":
    main()

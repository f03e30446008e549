"""The console's End, PageDown and a filter's first screen on a deep dead-letter queue,
each beside a bare loop doing the least the key needs; memory flat from 100k to 1M.

The queue is bench_dlq_scale.py's (``data_file``: N messages of 1 KiB with a dead-letter
header, four reasons, eight destinations), N = 100,000 and 1,000,000 (``--sizes``). Each
size runs in a fresh process of its own (its peak RSS its own), which drives the console
through a Textual pilot at 120x40 on the same code path an operator's keys take:

* ``open_s``: from ``enter`` on the queue in the queue list to its first row drawn;
* ``end_s``: from ``End`` to the last screenful's first and last rows drawn (the cursor on
  the last message, its position the queue's count);
* ``pagedown_s``: ``PageDown`` from the top, ten times, each until the new screenful's top
  row and the cursor's row are drawn: the median and the slowest (``pagedown_max_s``);
* ``filter_first_screen_s``: from ``enter`` on ``/`` + a ``--where`` expression to the last
  row of the first screen of matches drawn, for ``reason = Q_FULL`` (a quarter matches)
  and ``dest_q = APP.QUEUE.4`` (an eighth).

"Drawn" is the list's ``render_line`` returning the row with its message (a spy on it), the
key pressed beside the wait (``Pilot.press`` itself returns only when the app is idle).
``end_s`` is the median of ``ROUNDS`` presses (Home between them, the pages End read
forgotten so that each End reads them again); ``end_cached_s`` presses End again with its
rows read (the console's repaint alone);

* ``model_*``: the same reads without Textual (the page model and the selection the screen
  uses, called directly, as the screen builds them), the part the bare loops compare with:
  End and the next screen (rows 39-76, PageDown's) the median of ``ROUNDS``, End's each
  beside a bare loop's run;
* ``bare_repaint_s``: a bare Textual app in the same process and size, one Line API widget
  as tall as the list drawing the same rows' text (made before, no reads), from a key to
  every line drawn: what a repaint alone costs here, the floor under any key's answer.

The bare loops, in the same process: ``bare_end_s`` reads the last screenful's MDs and
bodies from the SQLite table (``ORDER BY npri DESC, id DESC LIMIT 38``) and parses each
MQMD and dead-letter header (struct); ``bare_pagedown_s`` the same for the next screenful by
key; ``bare_filter_s`` reads rows in queue order, parses the reason, until a screenful
matches. ``ratio_*`` = bare / ours (goal >= 0.5); the goal of issue 16 for the console is
also each key's answer within 0.5 s. Beside them, not instead: ``end_with_repaint`` =
(bare End + bare repaint) / End, the least a Textual console's End needs over what it takes.
``end_rows_facts_unknown``: of the last screenful's rows, how many have no facts kept
(a file written before the facts columns were: such rows are read from their bytes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import emit, warm_bytecode
from bench_dlq_scale import DLQ, data_file

ROWS = 38  # a screenful of rows at 120x40
ROUNDS = 7  # End (and the model's reads) measured this many times: the median
FILTERS = ("reason = Q_FULL", "dest_q = APP.QUEUE.4")
MD = struct.Struct("<4s7i8s2i24s24si48s48s12s32s32si28s8s8s4s")  # MQMD version 1
_BE, _LE = struct.Struct(">i"), struct.Struct("<i")


# -- bare loops ----------------------------------------------------------------------------

def _parse(md: bytes, body: bytes) -> tuple:
    """What a row of the list shows: the MQMD's fields, the header's reason and destination."""
    fields = MD.unpack_from(md, 0)
    reason = dest = None
    if md[32:40] == b"MQDEAD  " and body[:4] == b"DLH ":
        s = _BE if md[24] == 0 and md[27] & 0x0F == 1 else _LE
        reason = s.unpack_from(body, 8)[0]
        dest = body[12:60].decode("latin-1").strip(" \x00")
    return fields[11], fields[-3], fields[-2], len(body), reason, dest


def bare_end(db: sqlite3.Connection) -> float:
    t0 = time.perf_counter()
    rows = db.execute("SELECT md, body FROM messages WHERE queue = ? AND put_by IS NULL AND "
                      "got_by IS NULL ORDER BY npri DESC, id DESC LIMIT ?",
                      (DLQ, ROWS)).fetchall()
    out = [_parse(md, body) for md, body in reversed(rows)]
    seconds = time.perf_counter() - t0
    assert len(out) == ROWS
    return seconds


def bare_pagedown(db: sqlite3.Connection, after: tuple[int, int]) -> tuple[float, tuple]:
    t0 = time.perf_counter()
    rows = db.execute("SELECT npri, id, md, body FROM messages WHERE queue = ? AND "
                      "put_by IS NULL AND got_by IS NULL AND (npri, id) > (?, ?) "
                      "ORDER BY npri, id LIMIT ?", (DLQ, *after, ROWS)).fetchall()
    out = [_parse(r[2], r[3]) for r in rows]
    seconds = time.perf_counter() - t0
    assert len(out) == ROWS
    return seconds, (rows[-1][0], rows[-1][1])


def bare_filter(db: sqlite3.Connection, reason: int | None, dest: str | None) -> float:
    t0 = time.perf_counter()
    found = []
    for md, body in db.execute("SELECT md, body FROM messages WHERE queue = ? AND put_by "
                               "IS NULL AND got_by IS NULL ORDER BY npri, id", (DLQ,)):
        row = _parse(md, body)
        if (reason is None or row[4] == reason) and (dest is None or row[5] == dest):
            found.append(row)
            if len(found) == ROWS:
                break
    return time.perf_counter() - t0


def facts_unknown(db: sqlite3.Connection) -> int:
    from mqconsole.backends.embedded.schema import FACTS_UNKNOWN

    return db.execute(f"SELECT count(*) FROM (SELECT f_format, f_dest, f_dest_qm FROM "
                      "messages WHERE queue = ? AND put_by IS NULL AND got_by IS NULL "
                      f"ORDER BY npri DESC, id DESC LIMIT ?) WHERE {FACTS_UNKNOWN}",
                      (DLQ, ROWS)).fetchone()[0]


def bare(path: str) -> dict:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    end = min(bare_end(db) for _ in range(3))
    after, downs = (-1, 0), []
    for _ in range(10):
        s, after = bare_pagedown(db, after)
        downs.append(s)
    filters = {FILTERS[0]: min(bare_filter(db, 2053, None) for _ in range(3)),
               FILTERS[1]: min(bare_filter(db, None, "APP.QUEUE.4") for _ in range(3))}
    unknown = facts_unknown(db)
    db.close()
    return {"bare_end_min_s": end, "bare_pagedown_s": statistics.median(downs),
            "bare_filter_s": filters, "end_rows_facts_unknown": unknown}


# -- the console ---------------------------------------------------------------------------

async def _until(condition, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the console did not answer")
        await asyncio.sleep(0.002)


class Drawn:
    """When each row of the list was last drawn with a message in it (``render_line``)."""

    def __init__(self) -> None:
        from mqconsole.tui.widgets.message_list import MessageList

        self.at: dict[tuple[int, int], float] = {}
        render = MessageList.render_line
        at = self.at

        def spy(lst, y, _render=render):
            strip = _render(lst, y)
            i = lst.scroll_offset.y + y
            if lst.model is not None and lst.model.row_at(i) is not None:
                at[(id(lst.model), i)] = time.perf_counter()
            return strip

        MessageList.render_line = spy  # type: ignore[method-assign]

    def since(self, model, row: int, t0: float) -> bool:
        return self.at.get((id(model), row), 0.0) > t0


async def _key(pilot, key: str, done) -> float:
    """Seconds from pressing ``key`` to ``done(t0)``: the press runs beside the wait, as
    ``Pilot.press`` returns only once the app is idle (which is not what an operator
    waits for)."""
    t0 = time.perf_counter()
    task = asyncio.create_task(pilot.press(key))
    await _until(lambda: done(t0))
    seconds = time.perf_counter() - t0
    await task
    return seconds


def forget_all_but_first(model) -> None:
    """Drop the pages read but the first (End reads its pages again)."""
    with model._lock:
        for p in [p for p in model._pages if p > 0]:
            del model._pages[p]


async def _again(pilot, key: str, done) -> float:
    """``_key`` for a key whose rows are read: the list repaints without reading."""
    lst = pilot.app.screen.query_one("MessageList")
    lst.refresh()  # (the first key's own repaint out of the way)
    await pilot.pause()
    return await _key(pilot, key, done)


def cells_text(model, i: int, lst) -> str:
    """Row ``i`` as the list draws it (its text)."""
    from mqconsole.tui.widgets.message_list import cells, layout

    values = cells(model.row(i), model.now)
    values["mark"] = " "
    return " ".join(values[c.key][:w].ljust(w) for c, w in
                    layout(lst.scrollable_content_region.width))


async def bare_repaint(lines: list[str], size: tuple[int, int]) -> float:
    """A bare Textual app drawing ``lines`` (made before: no reads) in one Line API widget
    as tall as the list, from a key to every line drawn again (the median of ``ROUNDS``)."""
    from rich.segment import Segment
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.scroll_view import ScrollView
    from textual.strip import Strip

    at: dict[int, float] = {}

    class Lines(ScrollView, can_focus=True):
        BINDINGS = [Binding("end", "flip", "flip")]
        DEFAULT_CSS = f"Lines {{ height: {len(lines)}; }}"
        flipped = False

        def render_line(self, y: int) -> Strip:
            text = lines[y] if y < len(lines) else ""
            if self.flipped:
                text = text.upper()  # a change to draw, as End changes the rows
            strip = Strip([Segment(text.ljust(self.size.width)[:self.size.width],
                                   self.rich_style)], self.size.width)
            at[y] = time.perf_counter()
            return strip

        def action_flip(self) -> None:
            self.flipped = not self.flipped
            self.refresh()

    class Bare(App):
        def compose(self) -> ComposeResult:
            yield Lines()

    app = Bare()
    times = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        app.query_one(Lines).focus()
        await pilot.pause()
        for _ in range(ROUNDS):
            times.append(await _key(pilot, "end", lambda t0: all(
                at.get(y, 0.0) > t0 for y in range(len(lines)))))
            await pilot.pause()
    return statistics.median(times)


async def console(path: str) -> dict:
    from textual.widgets import DataTable

    from mqconsole.backends.open import open_embedded
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import ProfileInfo, Settings
    from mqconsole.tui.widgets.message_list import MessageList

    drawn = Drawn()
    tmp = Path(tempfile.mkdtemp(prefix="bench-console-"))
    app = MQConsoleApp(lambda: open_embedded(path), profile=ProfileInfo("bench", read_only=True),
                       settings=Settings(refresh_seconds=0, journal_path=tmp / "j.jsonl",
                                         backup_dir=tmp / "b", save_dir=tmp))
    out: dict = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(lambda: app.screen.query("#queues")
                     and app.screen.query_one("#queues", DataTable).row_count > 0)
        await pilot.pause()
        table = app.screen.query_one("#queues", DataTable)
        names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        table.move_cursor(row=names.index(DLQ))
        await pilot.pause()

        def first_rows(t0: float) -> bool:
            screen = app.screen
            model = getattr(screen, "model", None)
            return (getattr(screen, "queue", None) == DLQ and model is not None
                    and model.count > ROWS and drawn.since(model, 0, t0))

        out["open_s"] = await _key(pilot, "enter", first_rows)
        await pilot.pause()
        screen = app.screen
        lst = screen.query_one(MessageList)
        model = screen.model
        out["kind"] = type(model).__name__
        out["count"] = model.count
        out["list_rows"] = height = lst.scrollable_content_region.height

        def at_end(t0: float) -> bool:
            return (lst.cursor == model.count - 1 and drawn.since(model, model.count - 1, t0)
                    and drawn.since(model, model.count - height, t0))

        ends = []
        for _ in range(ROUNDS):
            await pilot.press("home")
            await pilot.pause()
            forget_all_but_first(model)
            ends.append(await _key(pilot, "end", at_end))
            await pilot.pause()
        out["end_s"] = statistics.median(ends)
        out["end_all_s"] = ends
        out["end_row_position"] = model.row(model.count - 1).position
        out["end_cached_s"] = statistics.median([await _again(pilot, "end", at_end)
                                                 for _ in range(ROUNDS)])
        out["last_screen"] = [cells_text(model, i, lst)
                              for i in range(model.count - height, model.count)]
        await pilot.press("home")
        await pilot.pause()
        downs = []
        for _ in range(10):
            before = lst.cursor
            downs.append(await _key(pilot, "pagedown", lambda t0, b=before: lst.cursor > b
                                    and drawn.since(model, lst.cursor, t0)
                                    and drawn.since(model, lst.scroll_offset.y, t0)))
        out["pagedown_s"] = statistics.median(downs)
        out["pagedown_max_s"] = max(downs)

        out["filter_first_screen_s"] = {}
        for text in FILTERS:
            await pilot.press("slash")
            await pilot.pause()
            screen.query_one("#filter-input").value = text

            def matches(t0: float, t=text) -> bool:
                m = screen.model
                shown = lst.scrollable_content_region.height  # the summary may have grown
                return (m is not None and m.where_text == t
                        and (drawn.since(m, shown - 1, t0)
                             or (m.done and (m.count == 0 or drawn.since(m, 0, t0)))))

            out["filter_first_screen_s"][text] = await _key(pilot, "enter", matches)
            await pilot.pause()
        await pilot.press("slash")
        screen.query_one("#filter-input").value = ""
        await pilot.press("enter")
        await pilot.pause()
    app.conns.close()
    out["bare_repaint_s"] = await bare_repaint(out.pop("last_screen"), (120, 40))
    return out


def model_reads(path: str) -> dict:
    """The reads the screen makes for each key, called directly (no Textual)."""
    from mqconsole.backends.open import open_embedded
    from mqconsole.ops.browse import page_reader, row_reader, selector
    from mqconsole.ops.where import compile_where
    from mqconsole.tui.browsing import BrowseModel
    from mqconsole.tui.paging import LISTED_PAGE, PagedModel

    qm = open_embedded(path)
    read = page_reader(qm, DLQ)
    assert read is not None
    out: dict = {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    ends, nexts, bare_ends = [], [], []
    for _ in range(ROUNDS):  # a fresh model each round, as the screen makes it
        model = PagedModel(read, DLQ, read_rows=row_reader(qm, DLQ), page_size=LISTED_PAGE)
        model.load([0])
        model.load(model.missing(0, ROWS))  # the first screen, as the list asks for it
        last = (model.count - 1) // model.page_size
        t0 = time.perf_counter()
        model.load(model.missing(model.count - ROWS, model.count))
        ends.append(time.perf_counter() - t0)
        assert last in model._pages and model.has_row(model.count - ROWS)
        bare_ends.append(bare_end(db))
        t0 = time.perf_counter()
        model.load(model.missing(ROWS, 2 * ROWS))  # the next screen (PageDown's rows)
        nexts.append(time.perf_counter() - t0)
        assert model.has_row(2 * ROWS - 1)
    db.close()
    out["model_end_s"] = statistics.median(ends)
    out["model_next_page_s"] = statistics.median(nexts)
    out["bare_end_s"] = statistics.median(bare_ends)
    out["model_page_rows"] = LISTED_PAGE
    out["model_filter_s"] = {}
    for text in FILTERS:
        where = compile_where(text)
        m = BrowseModel(lambda: qm.browse(DLQ), DLQ, where=where, where_text=text,
                        select=selector(qm, DLQ, where))
        t0 = time.perf_counter()
        m.read_until(ROWS)
        out["model_filter_s"][text] = time.perf_counter() - t0
    qm.close()
    return out


def child(path: str) -> None:
    out = asyncio.run(console(path))
    out.update(model_reads(path))
    out.update(bare(path))
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def ratios(row: dict) -> dict:
    r = {"end": row["bare_end_s"] / row["end_s"],
         "end_model": row["bare_end_s"] / row["model_end_s"],
         "end_with_repaint": (row["bare_end_s"] + row["bare_repaint_s"]) / row["end_s"],
         "end_cached_with_repaint": row["bare_repaint_s"] / row["end_cached_s"],
         "pagedown": row["bare_pagedown_s"] / row["pagedown_s"],
         "pagedown_model": row["bare_pagedown_s"] / row["model_next_page_s"]}
    for text in FILTERS:
        r[f"filter {text}"] = row["bare_filter_s"][text] / row["filter_first_screen_s"][text]
        r[f"filter {text} model"] = row["bare_filter_s"][text] / row["model_filter_s"][text]
    return r


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    warm_bytecode()
    from mqconsole.backends.open import open_embedded

    sizes = [int(s) for s in args.sizes.split(",")]
    figures: dict = {"messages_of": "1 KiB, dead-letter header, persistence 0",
                     "screen": "120x40", "load_average": os.getloadavg()[0]}
    for n in sizes:
        path = data_file(n)
        qm = open_embedded(str(path))  # a file made before the expiry index gets it once
        qm.page_at(DLQ, -1, 1)
        qm.close()
        res = subprocess.run([sys.executable, __file__, "--child", str(path)],
                             capture_output=True, text=True, check=True)
        row = json.loads(res.stdout.strip().splitlines()[-1])
        row["ratio"] = ratios(row)
        figures[str(n)] = row
    if len(sizes) > 1:
        figures["rss_growth"] = (figures[str(sizes[-1])]["peak_rss_mb"]
                                 / figures[str(sizes[0])]["peak_rss_mb"])
    figures["load_average_after"] = os.getloadavg()[0]
    emit("console_scale", figures)


if __name__ == "__main__":
    main()

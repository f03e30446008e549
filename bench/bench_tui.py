"""The console on a queue of 1,000,000 messages, and its start time.

Figures (JSON):

* ``open_queue_first_rows_s`` — from pressing ``enter`` on a queue of 1,000,000 messages in
  the queue list to its first rows on screen (target under 0.5 s), median of 3;
* ``read_to_end_s`` and ``rss_after_end_mb`` — ``End`` on that queue and the process's
  resident memory once it is there (target under 300 MB), and ``rss_peak_mb`` (VmHWM). On
  a backend that browses forward only End reads the whole queue into the light index; the
  embedded backend reads the last page at its position (tui/paging.py: no index of every
  row, ``index_mb`` null; bench_console_scale.py measures End there beside a bare loop);
* ``start_to_first_paint_s`` — ``mqconsole --embedded FILE`` in a pseudo-terminal of 80x24,
  from exec to the first whole screen painted (target under 1.5 s), median of 3;
  ``start_to_queue_list_s`` is until the queue list is on it (its "Dead-letter queue" line),
  ``start_to_alt_screen_s`` when the app switched the terminal to its screen.

The queue file is shared with bench_browse_first_page.py (``.demo/bench-1000000.sqlite``,
queue ``BIG.Q``, filled once through the backend; ``--fresh`` refills it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import os
import pty
import select
import statistics
import struct
import termios
import time
from pathlib import Path

from _common import BYTECODE_NOTE, ROOT, emit, mqconsole_exe, warm_bytecode
from bench_browse_first_page import fill

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.ops.demo import build_demo


def rss_mb() -> tuple[float, float]:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


async def open_and_scroll(path: Path, queue: str, rounds: int) -> dict:
    from textual.widgets import DataTable

    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import ProfileInfo, Settings
    from mqconsole.tui.widgets.message_list import MessageList

    firsts = []
    figures: dict = {}
    for n in range(rounds):
        app = MQConsoleApp(lambda: open_embedded(str(path)), profile=ProfileInfo("bench"),
                           settings=Settings(refresh_seconds=0))
        async with app.run_test(size=(80, 24)) as pilot:
            while not getattr(app.screen, "rows", None):
                await pilot.pause(0.01)
            table = app.screen.query_one("#queues", DataTable)
            names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
            table.move_cursor(row=names.index(queue))
            await pilot.pause()
            painted: list[float] = []
            render_line = MessageList.render_line

            def spy(self, y, _render=render_line, _painted=painted):
                strip = _render(self, y)
                if not _painted and self.model is not None and self.model.count > 0:
                    _painted.append(time.perf_counter())  # a real row drawn
                return strip

            MessageList.render_line = spy  # type: ignore[method-assign]
            t0 = time.perf_counter()
            press = asyncio.create_task(pilot.press("enter"))  # (press waits for idle)
            try:
                while not painted:
                    await asyncio.sleep(0.001)
            finally:
                MessageList.render_line = render_line  # type: ignore[method-assign]
            await press
            lst = app.screen.query(MessageList)
            firsts.append(painted[0] - t0)
            model = lst.first().model
            assert model.row(0).position == 1
            if n == rounds - 1:
                t1 = time.perf_counter()
                await pilot.press("end")
                while not model.done:
                    await asyncio.sleep(0.2)
                await app.workers.wait_for_complete()
                await pilot.pause()
                figures["read_to_end_s"] = round(time.perf_counter() - t1, 2)
                figures["rows_listed"] = model.count
                # the embedded backend reads the last page only (tui/paging.py): no index
                # of every row then (bench_console_scale.py measures End on it)
                figures["index_mb"] = (round(model.index.nbytes() / 2**20, 1)
                                       if hasattr(model.index, "nbytes") else None)
                figures["window_rows"] = len(model._window)
                rss, peak = rss_mb()
                figures["rss_after_end_mb"] = round(rss, 1)
                figures["rss_peak_mb"] = round(peak, 1)
            await pilot.press("q")
    figures["open_queue_first_rows_s"] = round(statistics.median(firsts), 3)
    figures["open_queue_first_rows_all_s"] = [round(f, 3) for f in firsts]
    return figures


def start_times(demo: Path, rounds: int) -> dict:
    warm_bytecode()
    paints, frames, alts = [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:  # the child: the console in a terminal of 80x24
            os.environ["TERM"] = "xterm-256color"
            os.environ["MQCONSOLE_HOME"] = str(demo.parent / "home")
            os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed (_common.run)
            os.execv(mqconsole_exe(), [mqconsole_exe(), "--embedded", str(demo)])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        buf, alt, frame, paint = b"", None, None, None
        while time.perf_counter() - t0 < 20 and paint is None:
            ready, _, _ = select.select([fd], [], [], 0.005)
            if ready:
                try:
                    buf += os.read(fd, 65536)
                except OSError:
                    break
                if alt is None and b"\x1b[?1049h" in buf:
                    alt = time.perf_counter() - t0
                if frame is None and b"Refresh" in buf:  # the footer: a whole frame
                    frame = time.perf_counter() - t0
                if b"Dead-letter queue" in buf:
                    paint = time.perf_counter() - t0
        os.write(fd, b"q")
        end = time.time() + 10
        while time.time() < end:
            with_data, _, _ = select.select([fd], [], [], 0.05)
            if with_data:
                with contextlib.suppress(OSError):
                    os.read(fd, 65536)
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
        os.close(fd)
        if paint is None:
            raise SystemExit("the console did not paint its queue list within 20 s")
        paints.append(paint)
        frames.append(frame or paint)
        alts.append(alt or paint)
    return {"start_to_first_paint_s": round(statistics.median(frames), 3),
            "start_to_queue_list_s": round(statistics.median(paints), 3),
            "start_to_alt_screen_s": round(statistics.median(alts), 3),
            "start_to_queue_list_all_s": [round(p, 3) for p in paints]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    folder = ROOT / ".demo"
    folder.mkdir(exist_ok=True)
    path = folder / f"bench-{args.messages}.sqlite"
    fill_seconds = None
    if args.fresh or not path.exists():
        for p in folder.glob(path.name + "*"):
            p.unlink()
        fill_seconds = round(fill(path, args.messages), 1)
    demo = folder / "bench-tui-demo.sqlite"
    if not demo.exists():
        qm = create_queue_manager(str(demo), name="QM1")
        build_demo(qm)
        qm.close()
    figures = {"queue_depth": args.messages, "terminal": "80x24", "fill_seconds": fill_seconds}
    figures.update(start_times(demo, args.rounds))
    figures["start_note"] = BYTECODE_NOTE
    figures.update(asyncio.run(open_and_scroll(path, "BIG.Q", args.rounds)))
    figures["targets"] = {"open_queue_first_rows_s": 0.5, "rss_after_end_mb": 300,
                          "start_to_first_paint_s": 1.5}
    emit("tui", figures)


if __name__ == "__main__":
    main()

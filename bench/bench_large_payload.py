"""A large text message in the console's detail view (issue 17 item 7).

Figures (JSON):

* ``open_to_preview_s`` — from ``enter`` on the message to its first 64 KB in the Text tab
  (the decode and layout run in a worker);
* ``load_all_s`` — from ``L`` to every line of the payload shown (laid out in a worker, drawn
  as it comes into view);
* ``longest_key_gap_s`` — while ``L`` works, keys ``2``/``4`` are pressed in turn: the longest
  time one took to be handled (the console answering keys; was ~200 s before).

Options: ``--mb N`` (default 100): the payload's size.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from _common import emit


def payload(mb: int) -> bytes:
    line = b"%08d some text of a large message " + b"x" * 50 + b"\n"
    n = (mb * 1024 * 1024 - 4096) // len(line % 0)  # under MAXMSGL (100 MB)
    return b"".join(line % i for i in range(n))


async def run(path: Path, body: bytes) -> dict:
    from mqconsole.backends.open import open_embedded
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import ProfileInfo, Settings
    from mqconsole.tui.screens.detail import DetailScreen
    from mqconsole.tui.widgets.lazylines import LazyLines
    from mqconsole.tui.widgets.payload import PayloadView

    app = MQConsoleApp(lambda: open_embedded(str(path)), profile=ProfileInfo("bench"),
                       settings=Settings(refresh_seconds=0))
    figures: dict = {}
    async with app.run_test(size=(100, 30)) as pilot:
        while not getattr(app.screen, "rows", None):
            await pilot.pause(0.01)
        await pilot.press("enter")  # the only queue: BIG.TEXT
        while not app.screen.query("MessageList") or not getattr(
                app.screen.query_one("MessageList").model, "count", 0):
            await pilot.pause(0.01)
        t0 = time.perf_counter()
        await pilot.press("enter")
        while not (isinstance(app.screen, DetailScreen) and app.screen.query("#text-view")
                   and app.screen.query_one("#text-view", PayloadView).text):
            await asyncio.sleep(0.01)
        figures["open_to_preview_s"] = round(time.perf_counter() - t0, 2)
        screen = app.screen
        t0 = time.perf_counter()
        screen.action_load_all()  # as L does (a press would wait for the screen to idle)
        gaps = []
        while not screen.query_one("#text-all", LazyLines).display:
            t = time.perf_counter()
            await pilot.press("2" if len(gaps) % 2 else "4")
            gaps.append(time.perf_counter() - t)
        figures["load_all_s"] = round(time.perf_counter() - t0, 2)
        figures["keys_pressed_meanwhile"] = len(gaps)
        figures["longest_key_gap_s"] = round(max(gaps, default=0.0), 3)
        figures["lines"] = screen.query_one("#text-all", LazyLines).count
        await pilot.press("q")
    return figures


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100)
    args = ap.parse_args()
    from mqconsole.backends.embedded import create_queue_manager
    from mqconsole.mq.md import MQMD
    from mqconsole.mq.queue import QueueAttrs
    from mqconsole.ops.messages import put_messages

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "qm.sqlite"
        qm = create_queue_manager(str(path), name="QM1")
        qm.define_queue(QueueAttrs(name="BIG.TEXT", max_msg_length=100 * 2**20))
        body = payload(args.mb)
        put_messages(qm, "BIG.TEXT", MQMD(format="MQSTR", ccsid=1208), body)
        qm.close()
        figures = asyncio.run(run(path, body))
    emit("large_payload", {"payload_bytes": len(body), **figures})


if __name__ == "__main__":
    main()

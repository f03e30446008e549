"""What the benchmark scripts need to drive the real console and to build deep queues, kept
out of tests/ (a bench script must not import the test suite): the pilot's waits, opening a
queue from the queue list, the console app on an embedded file, a bulk fill, and a connection
that counts the messages its cursors browse."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mqconsole.mq.md import MQMD, OFFSETS

_MSG_ID_AT = OFFSETS["msg_id"]


# -- the console in a Textual pilot ------------------------------------------------------------

def console_app(path: str | Path, home: Path, **settings: Any) -> Any:
    """The console on the embedded queue manager file ``path`` (its journal, backups and
    saves under ``home``, MQCONSOLE_HOME set to it), no refresh."""
    from mqconsole.backends.open import open_embedded
    from mqconsole.tui.app import MQConsoleApp
    from mqconsole.tui.context import REPO_THEMES, ProfileInfo, Settings
    from mqconsole.tui.heap import keep_big_blocks_apart

    keep_big_blocks_apart()  # as the console's run_app does
    home.mkdir(parents=True, exist_ok=True)
    os.environ["MQCONSOLE_HOME"] = str(home)
    os.environ.pop("MQCONSOLE_CONFIG", None)
    opts: dict[str, Any] = dict(refresh_seconds=0, themes_dirs=[REPO_THEMES],
                                journal_path=home / "journal.jsonl",
                                backup_dir=home / "backups", save_dir=home)
    opts.update(settings)
    return MQConsoleApp(lambda: open_embedded(str(path)),
                        profile=ProfileInfo(name="bench", read_only=False),
                        settings=Settings(**opts))


async def settle(app: Any, pilot: Any, rounds: int = 3) -> None:
    """Let the workers finish and their results reach the screen."""
    from textual.worker import WorkerCancelled

    for _ in range(rounds):
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause()


async def wait_for(app: Any, pilot: Any, condition: Callable[[], bool],
                   timeout: float = 600.0, *, workers: bool = True) -> None:
    """Until ``condition()`` (``workers=False`` while a long worker must keep running)."""
    from textual.worker import WorkerCancelled

    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the console did not get there")
        if workers:
            with contextlib.suppress(WorkerCancelled):
                await app.workers.wait_for_complete()
        await pilot.pause()
        await asyncio.sleep(0.005)


async def open_queue(app: Any, pilot: Any, name: str) -> None:
    """From the queue list: the cursor on ``name``, enter, until its first rows are there."""
    from textual.widgets import DataTable

    table = app.screen.query_one("#queues", DataTable)
    names = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
    table.move_cursor(row=names.index(name))
    await pilot.press("enter")

    def opened() -> bool:
        model = getattr(app.screen, "model", None)
        return getattr(app.screen, "queue", None) == name and model is not None and (
            model.count > 0 or model.done)

    await wait_for(app, pilot, opened)


# -- deep queues ------------------------------------------------------------------------------

def bulk_fill(qm: Any, queue: str, n: int, *, start: int = 1, batch: int = 20_000,
              body: Callable[[int], bytes] = lambda i: b"message %d" % i) -> None:
    """Put ``n`` messages on ``queue`` fast: one MQMD packed once, its MsgId patched to the
    message's number (big-endian in 24 bytes), put packed a unit of work at a time."""
    packed = bytearray(MQMD(format="MQSTR", persistence=0).pack(ccsid=819))
    for first in range(start, start + n, batch):
        page = []
        for i in range(first, min(start + n, first + batch)):
            packed[_MSG_ID_AT:_MSG_ID_AT + 24] = i.to_bytes(24, "big")
            page.append((bytes(packed), body(i)))
        _, refused = qm.put_packed(queue, page)
        if refused is not None:
            raise refused
        qm.commit()


# -- counting what is browsed --------------------------------------------------------------------

class _CountingCursor:
    def __init__(self, real: Any, queue: str, browsed: Counter[str]) -> None:
        self._real, self._queue, self._browsed = real, queue, browsed

    def next(self) -> Any:
        m = self._real.next()
        self._browsed[self._queue] += m is not None
        return m

    def next_batch(self, n: int) -> Any:
        out = self._real.next_batch(n)
        self._browsed[self._queue] += len(out)
        return out

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)  # AttributeError: the real cursor lacks it
        if name != "next_packed":
            return attr

        def packed(n: int) -> Any:
            out = attr(n)
            self._browsed[self._queue] += len(out)
            return out
        return packed

    def __enter__(self) -> _CountingCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self._real.close()


class CountingQueueManager:
    """Every call passed to ``real``; ``browsed[queue]`` counts the messages its cursors
    browsed (the optional capabilities are the real cursor's, so the code takes its path)."""

    def __init__(self, real: Any, browsed: Counter[str] | None = None) -> None:
        self._real = real
        self.browsed: Counter[str] = Counter() if browsed is None else browsed

    @property
    def name(self) -> str:
        return self._real.name

    def browse(self, queue: str, **kw: Any) -> _CountingCursor:
        return _CountingCursor(self._real.browse(queue, **kw), queue, self.browsed)

    def new_connection(self) -> CountingQueueManager:
        return CountingQueueManager(self._real.new_connection(), self.browsed)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

"""The console's thread workers keep nothing in their pool thread once they end (issue 23
item 3): a pool thread used to keep the last worker it ran in its context (Textual's
``active_worker``), and with it the screen that started the worker."""

from __future__ import annotations

import contextvars
import threading

from mqconsole.tui.threads import FreshContextExecutor

from .conftest import settle

LEFT = contextvars.ContextVar[object]("left_by_an_earlier_job")


def test_a_job_sees_nothing_an_earlier_job_on_its_thread_set():
    with FreshContextExecutor(max_workers=1) as pool:
        pool.submit(LEFT.set, "kept").result()
        assert pool.submit(LEFT.get, None).result() is None


async def test_the_consoles_thread_workers_leave_nothing_in_their_thread(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)

        def leave() -> int:
            LEFT.set(object())
            return threading.get_ident()

        def look() -> tuple[int, object]:
            return threading.get_ident(), LEFT.get(None)

        first = await app.run_worker(leave, thread=True, exit_on_error=False).wait()
        seen = []
        for _ in range(200):  # until a job runs on the first one's thread (a pool of a few)
            thread, value = await app.run_worker(look, thread=True, exit_on_error=False).wait()
            seen.append(value)
            if thread == first:
                break
        assert thread == first, "no later job ran on the first job's thread"
        assert seen == [None] * len(seen)

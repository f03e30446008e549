"""A console flow: questions awaited in turn, reads in threads, errors said once."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual.app import App

from mqconsole.tui.flow import ask, in_thread, launch
from mqconsole.tui.screens.dialogs import ConfirmDialog


class Ctx:
    """What a flow needs of the console: its app, and where errors are said."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.errors: list[tuple[str, str | None, str]] = []

    def report_error(self, exc: BaseException, *, queue: str | None = None,
                     what: str = "") -> None:
        self.errors.append((str(exc), queue, what))


async def until(pilot, condition) -> None:
    for _ in range(500):
        if condition():
            return
        await pilot.pause()
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


async def test_a_flow_asks_in_turn_and_reads_in_a_thread():
    app = App()
    async with app.run_test() as pilot:
        ctx = Ctx(app)
        seen: list[object] = []

        async def flow() -> None:
            seen.append(await ask(ctx, ConfirmDialog("First", Text("one?"), confirm="Yes")))
            seen.append(await in_thread(ctx, lambda: 6 * 7, queue="Q", what="read"))
            seen.append(await ask(ctx, ConfirmDialog("Second", Text("two?"), confirm="Yes")))

        launch(ctx, flow(), what="test")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await until(pilot, lambda: len(seen) == 2 and isinstance(app.screen, ConfirmDialog))
        await pilot.press("escape")
        await until(pilot, lambda: len(seen) == 3)
    assert seen[0] is True and seen[1] == 42 and not seen[2]
    assert ctx.errors == []


async def test_an_error_in_a_thread_is_said_once_and_ends_the_flow():
    app = App()
    async with app.run_test() as pilot:
        ctx = Ctx(app)
        after: list[str] = []

        def bad() -> None:
            raise OSError("no such file")

        async def flow() -> None:
            await in_thread(ctx, bad, queue="Q", what="read file")
            after.append("went on")

        launch(ctx, flow(), what="load")
        await until(pilot, lambda: bool(ctx.errors))
        await pilot.pause()
    assert ctx.errors == [("no such file", "Q", "read file")] and after == []


async def test_a_quiet_error_is_the_flows_to_handle_and_an_unexpected_one_is_said():
    app = App()
    async with app.run_test() as pilot:
        ctx = Ctx(app)
        handled: list[str] = []

        def bad() -> None:
            raise LookupError("which queue?")

        async def flow() -> None:
            try:
                await in_thread(ctx, bad, queue="Q", what="plan", quiet=(LookupError,))
            except LookupError as exc:
                handled.append(str(exc))
            raise ValueError("a bug")

        launch(ctx, flow(), what="resubmit")
        await until(pilot, lambda: bool(ctx.errors))
    assert handled == ["which queue?"]
    assert ctx.errors == [("a bug", None, "resubmit")]



async def test_a_result_for_a_flow_cancelled_after_it_came_in_is_dropped(monkeypatch):
    """A newer worker of the group cancelled this one after its thread had returned, but
    before the flow went on: the flow ends quietly instead of using a stale result."""
    from textual.worker import Worker

    wait = Worker.wait

    async def cancelled_meanwhile(self):
        out = await wait(self)
        self.cancel()  # (what a newer browse does between the result and the flow)
        return out

    monkeypatch.setattr(Worker, "wait", cancelled_meanwhile)
    app = App()
    async with app.run_test() as pilot:
        ctx = Ctx(app)
        seen: list[object] = []

        async def flow() -> None:
            seen.append(await in_thread(ctx, lambda: "stale", queue="Q", what="read"))

        launch(ctx, flow(), what="browse")
        for _ in range(20):
            await pilot.pause()
        assert seen == [] and ctx.errors == []


async def test_a_flow_of_a_screen_ends_with_the_screen_and_a_newer_one_replaces_it():
    """``start``: the flow is a worker of its screen from the start — cancelling its group
    before it ran means it never runs; ``exclusive`` cancels the older one; a screen popped
    while its thread reads drops the result, and nothing is said."""
    import threading

    from textual.screen import Screen

    from mqconsole.tui.flow import start

    app = App()
    async with app.run_test() as pilot:
        ctx = Ctx(app)
        screen = Screen()
        await app.push_screen(screen)
        ran: list[str] = []

        async def named(name: str) -> None:
            ran.append(name)

        start(screen, lambda: named("never"), what="a", group="g")
        screen.workers.cancel_group(screen, "g")  # (as a newer browse does)
        start(screen, lambda: named("older"), what="b", group="h", exclusive=True)
        start(screen, lambda: named("newer"), what="c", group="h", exclusive=True)
        await until(pilot, lambda: "newer" in ran)
        await app.workers.wait_for_complete()
        assert ran == ["newer"]

        gate, reading = threading.Event(), threading.Event()

        def read() -> str:
            reading.set()
            gate.wait(60)
            return "late"

        async def flow() -> None:
            ran.append(await in_thread(ctx, read, queue="Q", what="read", node=screen))

        start(screen, flow, what="read", group="g")
        await until(pilot, reading.is_set)
        app.pop_screen()
        await until(pilot, lambda: screen not in app.screen_stack)
        gate.set()
        for _ in range(20):
            await pilot.pause()
        assert ran == ["newer"] and ctx.errors == []

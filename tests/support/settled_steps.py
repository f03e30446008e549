"""A pilot's step ends when the app has done what the step set off, not when the process
looks idle (issue 26).

Textual's ``Pilot.press`` and ``Pilot.pause()`` wait through ``textual._wait.wait_for_idle``:
sleeps of 20 ms until a sleep passes in which the process spent under 1 ms of CPU (at most
1 s). Each key costs two such waits and each pause one: at least 40 and 20 ms however
little the key set off, and longer whenever the machine is busy; in the console's pilot
tests this was about half of their wall time, spent waiting with the CPU idle.

:func:`install` replaces that wait, for pilots of this process, by one for a condition:
what the driver sent the app (a pilot's key: it goes through the loop) has reached it, every
message pump of the app and of the screen on top has handled what it was sent
(a message being handled counts until its handler returns), has no ``call_next``
callbacks left, and the screen has no layout, repaint or ``call_after_refresh`` callback
pending (these are done here, as the screen's update timer would do them), and no resize
waits in the app's debounce timer. Messages posted meanwhile are waited for in turn, until
a round finds nothing to do.

It does not wait for worker threads (nor did the old wait, except by chance: it waited
while the process used CPU, at most 1 s): a test that needs a worker's result waits for
it (``settle``, ``wait_for`` in tests/tui/conftest.py). Nor for timers: a test waiting for
a timer waits for what the timer does.

Textual 8.2's ``wait_for_idle`` as looked up by ``textual.pilot`` and ``textual.app``
(``App._press_keys``); when those names are not there, nothing is installed and the steps
wait as before.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import weakref
from typing import Any

# a bound on the rounds of one wait, against an app that never stops sending itself
# messages (the old wait's 1 s bound): a step then ends as it did, the test's own
# conditions decide
_ROUNDS = 500
_POLL = 0.002
_TIMEOUT = 30.0  # (Pilot's own wait's)
_STOPPED_POLL = 0.1  # how often a wait for the widgets looks whether the app still runs


def install() -> bool:
    """Pilots of this process wait for the app's work, not for an idle process; False if
    Textual has no such names (or it is installed already)."""
    import textual.app
    import textual.pilot
    from textual.driver import Driver
    from textual.message import Message

    modules = (textual.pilot, textual.app)
    if not all(hasattr(module, "wait_for_idle") for module in modules):
        return False
    if any(getattr(module.wait_for_idle, "settled_steps", False) for module in modules):
        return False

    async def wait_for_idle(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
        from textual._context import active_app

        try:
            app = active_app.get()
        except LookupError:  # no app in this context: nothing to wait for
            await asyncio.sleep(0)
            return
        await settled(app)

    def send_message(self: Driver, message: Message) -> None:
        # as Textual's (the message reaches the app through the loop, from any thread),
        # the future kept for the app's next wait
        future = asyncio.run_coroutine_threadsafe(self._app._post_message(message),
                                                  loop=self._loop)
        _SENT.setdefault(self._app, []).append(future)

    send_message.__doc__ = Driver.send_message.__doc__
    wait_for_idle.settled_steps = True  # type: ignore[attr-defined]
    Driver.send_message = send_message  # type: ignore[method-assign]
    for module in modules:
        module.wait_for_idle = wait_for_idle  # type: ignore[attr-defined]
    return True


# what a driver sent each app (a pilot's key) and the app has maybe not yet received
_SENT: weakref.WeakKeyDictionary[Any, list[concurrent.futures.Future[Any]]] = \
    weakref.WeakKeyDictionary()


def _pumps(app: Any, screen: Any) -> list[Any]:
    return [app, *screen.walk_children(with_self=True)]


def _busy(pump: Any) -> bool:
    """A message sent to ``pump`` not yet handled (or being handled), or a ``call_next``
    callback not yet called."""
    queue = pump._message_queue
    return bool(getattr(queue, "_unfinished_tasks", queue.qsize()) or pump._next_callbacks)


def _screen_pending(screen: Any) -> bool:
    """What the screen's update timer would do at its next tick."""
    return bool(screen._layout_required or screen._scroll_required
                or screen._repaint_required or screen._dirty_widgets
                or screen._recompose_required or screen._callbacks)


async def settled(app: Any) -> None:
    """Until the app and the screen on top have handled every message sent to them (also
    those sent while waiting) and the screen has laid out what changed."""
    from tests.support import headless_frames

    for future in _SENT.pop(app, []):  # the keys sent are in the app's queue
        await asyncio.wrap_future(future)
    for _ in range(_ROUNDS):
        await asyncio.sleep(0)  # callbacks ready on the loop (a thread's call_from_thread)
        screen = headless_frames.top_screen(app)
        if screen is None:
            return
        if app._resize_timer is not None:
            # a resize waits for the app's debounce timer (1/120 s) to send it on to the
            # screen: the condition polled
            await asyncio.sleep(_POLL)
        elif busy := [pump for pump in _pumps(app, screen) if _busy(pump)]:
            # a callback queued behind what each busy pump has, as Textual's own wait
            # queues one behind every pump of the screen (an idle one has nothing to wait
            # for: its callback was most of the messages a pilot test's app handled)
            await _handled(app, busy)
        elif _screen_pending(screen) and screen.is_current and not app._batch_count:
            screen._on_timer_update()
        else:
            return


async def _handled(app: Any, pumps: list[Any]) -> None:
    """Until each of ``pumps`` has called a callback queued behind what it had (Textual's
    public ``call_later``); as Pilot's own wait, an app that stops meanwhile (an exception,
    an exit) ends the wait, and a wait of over 30 s fails."""
    left = 0
    done = asyncio.Event()

    def called() -> None:
        nonlocal left
        left -= 1
        if not left:
            done.set()

    for pump in pumps:
        if pump.call_later(called):
            left += 1
    if not left:
        return
    waiter = asyncio.ensure_future(done.wait())
    end = asyncio.get_running_loop().time() + _TIMEOUT
    try:
        while not waiter.done():
            await asyncio.wait([waiter], timeout=_STOPPED_POLL)
            if not waiter.done() and not app.is_running:
                return
            if asyncio.get_running_loop().time() > end:
                raise AssertionError("the console's widgets did not handle their messages "
                                     f"within {_TIMEOUT:.0f} s")
    finally:
        waiter.cancel()

"""No frame rendered only to be thrown away by a headless test app (issue 26).

A pilot test's app is headless: Textual still renders the screen on top at every tick of
its update timer (each widget's dirty lines, the compositor's chops) and then drops the
frame unwritten (``App._display`` writes nothing when headless). Several such frames come
between two steps of a test (a key, a pause), and only the last one is what the test could
look at: rendering them was a third to a half of a pilot test's CPU (a DataTable's cells).

:func:`install` lets a headless app's top screen keep what changed (the compositor's dirty
regions, which only grow) instead of rendering it at each tick, and renders it at the end of
each step of the pilot (every ``Pilot`` coroutine: ``press``, ``pause``, ``click``, ...)
and when the test body ends: after each step the screen has been rendered as a terminal
would show it then, with every change since the step before (a widget that cannot render
fails the test there, and what a widget's rendering sets, such as a TextArea's theme
styles, is set as before). Only the frames in between, which no test could see, are not
rendered. Inline apps, background screens and real terminals are left as they were.

Textual 8.2's ``Screen._compositor_refresh`` (private: Textual is pinned to one minor,
tests/tui/test_no_textual_internals.py keeps the console itself off such names); when it
is not there, nothing is installed and every frame renders, as before.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import AsyncIterator
from typing import Any


def install() -> bool:
    """Headless apps of this process render no frame they would drop; False if Textual
    has no such method (or it is installed already)."""
    from textual.app import App
    from textual.pilot import Pilot
    from textual.screen import Screen

    original = getattr(Screen, "_compositor_refresh", None)
    if original is None or getattr(original, "headless_frames", False):
        return False

    def compositor_refresh(self: Screen) -> None:
        app = self.app
        if not app.is_headless or app.is_inline or self is not app.screen:
            original(self)
            return
        # the dirty regions stay for the step's end (pending); the rest as the original
        self._dirty_widgets.clear()
        app._update_mouse_over(self)

    def pending_frame(app: App) -> None:
        """The top screen's frame, if anything changed since the last one."""
        screen = top_screen(app)
        if screen is None:
            return
        if screen._compositor._dirty_regions and screen.is_current \
                and not app._batch_count:
            original(screen)

    compositor_refresh.headless_frames = True  # type: ignore[attr-defined]
    Screen._compositor_refresh = compositor_refresh  # type: ignore[method-assign]

    for name, step in list(vars(Pilot).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(step):
            setattr(Pilot, name, _then_render(step, pending_frame))
    _RENDER.append(pending_frame)

    original_run_test = App.run_test

    @contextlib.asynccontextmanager
    async def run_test(self: App, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async with original_run_test(self, *args, **kwargs) as pilot:
            yield pilot
            pending_frame(self)

    run_test.__doc__ = original_run_test.__doc__
    App.run_test = run_test  # type: ignore[method-assign]
    return True


_RENDER: list[Any] = []


def top_screen(app: Any) -> Any:
    """The screen on top of a running app; None when the app has stopped or has no screen."""
    from textual.app import ScreenStackError

    if not app.is_running:
        return None
    try:
        return app.screen
    except ScreenStackError:
        return None


def frame(app: Any) -> None:
    """The screen's pending frame rendered now (nothing when not installed)."""
    for render in _RENDER:
        render(app)


async def pause_unrendered(pilot: Any) -> None:
    """``pilot.pause()`` without the frame at its end: for a helper polling a condition
    about the app's state, which renders with :func:`frame` once the condition holds."""
    pause = type(pilot).pause
    await getattr(pause, "__wrapped__", pause)(pilot)


def _then_render(step: Any, render: Any) -> Any:
    """``step`` (a Pilot coroutine), then ``render(pilot.app)``."""
    @functools.wraps(step)
    async def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = await step(self, *args, **kwargs)
        render(self.app)
        return result
    return wrapped

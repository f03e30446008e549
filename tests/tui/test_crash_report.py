"""A bug that takes the console down reports without payload bytes (issue 17 item 11): no
local variables in the traceback (a message's body is one of them), and the exception's
text made safe for the terminal and cut short."""

from __future__ import annotations

import pytest


async def test_a_crash_report_shows_no_locals_and_no_escapes(make_app):
    app = make_app()
    app._print_error_renderables = lambda: None  # keep them to look at
    with pytest.raises(RuntimeError):
        async with app.run_test() as pilot:
            def crash() -> None:
                payload = "-".join(["SECRET", "PAYLOAD"]).encode() + b"\x1b]0;owned\x07"
                raise RuntimeError("cannot show it: \x1b[2J" + "x" * 500 + str(len(payload)))

            app.call_later(crash)
            await pilot.pause()
            await pilot.pause()
    text = "".join(seg.text for r in app._exit_renderables for seg in r.segments)
    assert "RuntimeError" in text and "cannot show it" in text
    assert "SECRET-PAYLOAD" not in text and "locals" not in text
    assert "\x1b" not in text  # the escape is shown as text, never sent
    assert "x" * 250 not in text  # cut short

"""A large payload in the message detail (issue 17 item 7): the first PREVIEW shown at once,
a note saying so, L lays all of it out in a worker and draws only the lines in view."""

from __future__ import annotations

from textual.widgets import TabbedContent

from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.messages import put_messages
from mqconsole.tui.safe import clean_block
from mqconsole.tui.screens.detail import PREVIEW, DetailScreen
from mqconsole.tui.widgets.lazylines import LazyLines, hex_line, text_lines
from mqconsole.tui.widgets.payload import PayloadView

from .conftest import open_queue, screen_text, settle, wait_for

SIZE = 20 * 1024 * 1024


def big_payload() -> bytes:
    """20 MB of numbered lines, ending with a line that says so, and an escape inside."""
    line = b"line %08d \x1b[31m red? no: escaped " + b"x" * 60 + b"\n"
    lines = [line % i for i in range(SIZE // len(line % 0))]
    return b"".join(lines) + b"THE LAST LINE"


async def test_a_20_mb_payload_opens_in_part_and_loads_all_on_request(make_app, qm):
    qm.define_queue(QueueAttrs(name="APP.BIG", max_msg_length=64 * 1024 * 1024))
    payload = big_payload()
    put_messages(qm, "APP.BIG", MQMD(format="MQSTR", ccsid=1208), payload)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_queue(app, pilot, "APP.BIG")
        await settle(app, pilot)
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DetailScreen))
        screen = app.screen
        await pilot.press("4")
        await wait_for(app, pilot, lambda: "L loads all" in screen_text(app))
        shown = screen.query_one("#text-view", PayloadView).text
        assert shown.startswith("line 00000000 \\x1b[31m red?")  # escaped, never styled
        assert shown == clean_block(payload[:PREVIEW].decode()) and "THE LAST" not in shown
        assert f"The first 64 K characters of {len(payload):,} bytes" in screen_text(app)
        await pilot.press("5")
        await pilot.pause()
        assert "The first 64 KB of" in screen_text(app)
        assert screen.query_one("#hex-view", PayloadView).text.count("\n") == PREVIEW // 16 - 1
        await pilot.press("4", "L")
        # the keys keep working while the worker lays the payload out
        await pilot.press("2")
        await pilot.pause()
        assert screen.query_one(TabbedContent).active == "mqmd"
        await wait_for(app, pilot, lambda: screen.query_one("#text-all", LazyLines).display)
        await pilot.press("4")
        await pilot.pause()
        lazy = screen.query_one("#text-all", LazyLines)
        assert not screen.query_one("#text-view", PayloadView).display
        assert lazy.count == len(text_lines(payload.decode()))
        assert lazy.line(0).startswith("line 00000000 \\x1b[31m")
        assert lazy.line(lazy.count - 1) == "THE LAST LINE"
        assert "line 00000000" in screen_text(app)
        await pilot.press("end")
        await pilot.pause()
        assert "THE LAST LINE" in screen_text(app)
        await pilot.press("5")
        await pilot.pause()
        hexes = screen.query_one("#hex-all", LazyLines)
        assert hexes.count == -(-len(payload) // 16)
        last = hexes.line(hexes.count - 1)
        assert last == hex_line(payload, hexes.count - 1, 1208)
        tail = payload[(hexes.count - 1) * 16:]
        assert last.startswith(f"{(hexes.count - 1) * 16:08x}  {tail.hex(' ')}")
        assert f"All {len(payload):,} bytes" in screen_text(app)
        await pilot.press("escape")
        assert app.return_code is None


def test_text_lines_cut_long_lines() -> None:
    assert text_lines("ab\n" + "c" * 10 + "\n", wrap=4) == ["ab", "cccc", "cccc", "cc", ""]
    assert hex_line(bytes(range(40)), 2, None).startswith("00000020  20 21 22")

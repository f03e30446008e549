"""The console's replay is ``mqconsole replay --queue`` (issue 23 item 5): the same code and
limits, the same result on the same queue; in a thread, with its progress said, and stopped
by ctrl+x."""

from __future__ import annotations

import threading
from pathlib import Path

from textual.widgets import Input, ProgressBar

from mqconsole.plugins import hookimpl
from mqconsole.plugins.testing import plugin_host
from mqconsole.tui.screens.replay import ReplayScreen
from tests.cli.conftest import run_cli
from tests.support.counting import bulk_fill

from .conftest import settle, wait_for

ENDPOINTS = Path(__file__).resolve().parents[2] / "examples" / "endpoints" / "demo.yaml"
QUEUE = "APP.ORDERS"
ADDED = 3_000


async def _open(app, pilot, fail: str) -> ReplayScreen:
    await settle(app, pilot)
    app.open_replay(QUEUE)
    await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                   and bool(app.screen.query("#r-events")))
    app.screen.query_one("#r-endpoints", Input).value = str(ENDPOINTS)
    app.screen.query_one("#r-fail", Input).value = fail
    return app.screen


async def test_the_console_and_the_cli_replay_a_queue_alike(make_app, qm, demo_file, tmp_path):
    bulk_fill(qm, QUEUE, ADDED)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await _open(app, pilot, "position=2")
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: screen.view is not None)
        console = screen.view.to_json()
        assert screen.query_one("#r-progress", ProgressBar).has_class("-hidden")
    cli = run_cli("--embedded", str(demo_file), "replay", "--queue", QUEUE, "--endpoints",
                  str(ENDPOINTS), "--fail", "position=2", "--json", home=tmp_path / "home")
    assert cli.code == 0, cli.err
    assert console["summary"]["deliveries"] > ADDED  # the whole queue was modelled
    assert console == cli.json


class Gate:
    """A site failure rule that holds the first delivery until the test opens the gate (so
    the test presses ctrl+x while the replay is surely running); it fails nothing."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()

    @hookimpl
    def mqconsole_failure_rules(self):
        def gate(facts) -> bool:
            self.entered.set()
            self.open.wait(120)
            return False

        return {"gate": gate}


async def test_a_replay_says_how_far_it_is_and_ctrl_x_stops_it(make_app, qm):
    bulk_fill(qm, QUEUE, ADDED)
    gate = Gate()
    app = make_app(plugins=plugin_host(gate))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await _open(app, pilot, "plugin=gate")
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, gate.entered.is_set, workers=False)
        total = ADDED + 40  # the demo's own 40 messages
        await wait_for(app, pilot, lambda: f"read {total:,} of {total:,} messages" in str(
            screen.query_one("#r-summary").content), workers=False)
        assert not screen.query_one("#r-progress", ProgressBar).has_class("-hidden")
        await pilot.press("ctrl+x")
        gate.open.set()
        await wait_for(app, pilot, lambda: "replay stopped after" in str(
            screen.query_one("#r-summary").content))
        assert screen.view is None and screen.stop is None
        assert screen.query_one("#r-progress", ProgressBar).has_class("-hidden")
        gate.open.clear()
        gate.entered.clear()
        gate.open.set()  # a second run goes to the end
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: screen.view is not None)
        assert screen.view.shown.summary["successes"] == total

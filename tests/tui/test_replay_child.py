"""The replay screen's default runner: the replay in its own process (ops/replaychild.py),
the console holding the same embedded queue manager open.

The other replay screen tests replay in process (``InProcess``, tests/tui/conftest.py); these
drive the real child end to end: the same result as ``mqconsole replay --queue`` on the same
queue, nothing of the model made in the console's process, an error said in one sentence,
and the child ends when the screen closes.
"""

from __future__ import annotations

import pytest
from textual.widgets import ProgressBar

from mqconsole.ops.replay import event_text
from mqconsole.ops.replaychild import ReplayChild
from mqconsole.tui.widgets.rowlist import RowList
from tests.cli.conftest import run_cli
from tests.support.counting import bulk_fill

from .conftest import wait_for
from .test_replay_one_path import ADDED, ENDPOINTS, QUEUE, _open

pytestmark = pytest.mark.subprocess


def _notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_the_replays_process_replays_a_queue_as_the_cli_does(make_app, qm, demo_file,
                                                                   tmp_path, monkeypatch):
    import mqconsole.ops.replay as rp

    def not_here(*_args, **_kw):
        raise AssertionError("the replay ran in the console's process")

    monkeypatch.setattr(rp, "replay_queue", not_here)  # this process's only
    bulk_fill(qm, QUEUE, ADDED)
    app = make_app(replay_runner=None)  # the console's default
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await _open(app, pilot, "position=2")
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: screen.view is not None)
        runner = screen.runner
        assert isinstance(runner, ReplayChild) and runner.process is not None
        child = runner.process
        console = screen.view.to_json()  # the result the child keeps
        table = screen.query_one("#r-events", RowList)
        last = screen.view.shown.count - 1
        table.move_cursor(last)  # its page asked of the child
        await wait_for(app, pilot, lambda: table.cells(last)[2] != "…")
        ev = console["events"][last]
        assert table.cells(last) == [str(last + 1), str(ev["t_ms"]),
                                     event_text(ev, names=screen.view.shown.names)]
        assert screen.query_one("#r-progress", ProgressBar).has_class("-hidden")
        assert f"{QUEUE} read by" in str(screen.query_one("#r-summary").content)
        screen.query_one("#r-fail").value = "position=zero"  # a second job, an error
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: bool(_notes(app)) and screen.stop is None)
        [note] = _notes(app)
        assert note.startswith(f"{QUEUE}: ") and "position" in note and "\n" not in note
        assert "Traceback" not in note and runner.process is child
        await pilot.press("escape")
        await wait_for(app, pilot, lambda: app.screen is not screen and not screen.is_attached)
        assert child.wait(timeout=120) == 0  # the screen closed: its process ended
    monkeypatch.undo()
    cli = run_cli("--embedded", str(demo_file), "replay", "--queue", QUEUE, "--endpoints",
                  str(ENDPOINTS), "--fail", "position=2", "--json", home=tmp_path / "home")
    assert cli.code == 0, cli.err
    assert console["summary"]["deliveries"] > ADDED  # the whole queue was modelled
    assert console == cli.json

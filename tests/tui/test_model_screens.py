"""The doctor and the replay timeline (both read only)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input

from mqconsole.plugins import hookimpl
from mqconsole.plugins.testing import plugin_host
from mqconsole.tui.screens.dialogs import TextDialog
from mqconsole.tui.screens.doctor import DoctorScreen
from mqconsole.tui.screens.replay import ReplayScreen
from mqconsole.tui.widgets.rowlist import RowList

from .conftest import depth, screen_text, settle, wait_for

ENDPOINTS = Path(__file__).resolve().parents[2] / "examples" / "endpoints" / "demo.yaml"


async def test_doctor_judges_the_queues(make_app, qm):
    app = make_app(read_only=True)  # the doctor changes nothing: it is there read-only too
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("D")
        await wait_for(app, pilot, lambda: isinstance(app.screen, DoctorScreen)
                       and app.screen.report is not None)
        report = app.screen.report
        verdicts = {d.queue: d.verdict for d in report.diagnoses}
        assert verdicts["APP.PAYMENTS"] == "bad"  # BOTHRESH 0: a poison message loops
        table = app.screen.query_one(DataTable)
        names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        table.move_cursor(row=names.index("APP.PAYMENTS"))
        await pilot.press("enter")
        await wait_for(app, pilot, lambda: isinstance(app.screen, TextDialog))
        assert "To fix:" in screen_text(app) and "BOTHRESH" in screen_text(app)


async def test_replay_a_queue_and_step_through_the_timeline(make_app, qm):
    app = make_app()
    before = depth(qm, "APP.ORDERS")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.open_replay("APP.ORDERS")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                       and bool(app.screen.query("#r-events")))
        app.screen.query_one("#r-endpoints", Input).value = str(ENDPOINTS)
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: app.screen.view is not None)
        view = app.screen.view
        assert view.shown.count and view.shown.timeline
        assert "APP.ORDERS read by OrdersMDB" in screen_text(app)
        assert "APP.ORDERS (40)" in screen_text(app)
        await pilot.press("n")  # the first event that moves a message
        row = app.screen.query_one("#r-events", RowList).cursor
        assert view.to_json()["events"][row]["type"] in ("requeued", "dead_lettered",
                                                         "endpoint_stopped")
        await wait_for(app, pilot, lambda: f"after event {row + 1}:" in screen_text(app))
        assert "APP.ORDERS.BOQ (1)" in screen_text(app) or "STOPPED" in screen_text(app)
    assert depth(qm, "APP.ORDERS") == before


class NotJson:
    """A site plugin's failure rule: a payload that is not a JSON object fails."""

    @hookimpl
    def mqconsole_failure_rules(self):
        return {"not-json": lambda facts: not facts["payload"].startswith("{")}


PLUGIN_SCENARIO = """queues: [{name: Q}]
messages: [{id: a, queue: Q, payload: "bad json"}, {id: b, queue: Q, payload: "{}"}]
endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
             stop_endpoint_on_failure: false}]
failures:
  - plugin: not-json
    then: discard
"""


async def test_replay_runs_a_site_plugins_failure_rule(make_app, tmp_path):
    """A scenario's ``plugin:`` rule runs the plugin's rule (not 'no plugin loaded')."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(PLUGIN_SCENARIO)
    app = make_app(plugins=plugin_host(NotJson()))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        app.open_replay(str(scenario))
        await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                       and bool(app.screen.query("#r-events")))
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: app.screen.view is not None)
        assert [m["message"] for m in app.screen.view.to_json()["final"]["lost"]] == ["a"]


async def test_replay_of_a_queue_with_a_plugin_fail_rule(make_app, qm):
    app = make_app(plugins=plugin_host(NotJson()))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        app.open_replay("APP.ORDERS")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                       and bool(app.screen.query("#r-events")))
        app.screen.query_one("#r-endpoints", Input).value = str(ENDPOINTS)
        app.screen.query_one("#r-fail", Input).value = "plugin=not-json,first=1"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: app.screen.view is not None)
        assert app.screen.view.shown.count
        assert "no plugin offering failure rules" not in screen_text(app)


async def test_replay_names_an_unknown_plugin_rule_in_one_sentence(make_app, qm):
    app = make_app(plugins=plugin_host(NotJson()))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        app.open_replay("APP.ORDERS")
        await wait_for(app, pilot, lambda: isinstance(app.screen, ReplayScreen)
                       and bool(app.screen.query("#r-events")))
        app.screen.query_one("#r-endpoints", Input).value = str(ENDPOINTS)
        app.screen.query_one("#r-fail", Input).value = "plugin=nope"
        await pilot.press("ctrl+o")
        await wait_for(app, pilot, lambda: any(
            "no failure-rule plugin named 'nope'" in str(n.message)
            for n in app._notifications))
        assert app.screen.view is None

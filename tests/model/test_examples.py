"""The example scenarios and endpoint files in examples/ load and show what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqconsole.model import load_endpoints, load_scenario, replay

ROOT = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_example_replays(path):
    r = replay(load_scenario(path))
    assert r.events and r.summary["deliveries"] >= 1


def test_examples_show_their_point():
    def run(name):
        return replay(load_scenario(ROOT / "scenarios" / f"{name}.yaml"))

    stops = run("poison-stops-endpoint")
    assert stops.summary["endpoint_stops"] == 3
    assert [m["message"] for m in stops.final["queues"]["APP.ORDERS"]][1:] == [
        "o2", "o3", "o4", "o5"]
    assert run("bothresh-fix").where_is("poison") == "APP.ORDERS.BOQ"
    assert run("sib-exception-destination").where_is("poison") == \
        "_SYSTEM.Exception.Destination.ME1"
    assert run("listener-port-non-asf").events_of("transaction_timeout")
    assert run("zos-hardenbo").summary["deliveries"] == 4
    assert run("backout-queue-unusable").events[-1]["cause_code"] == 2051
    assert run("sca-export").where_is("order") == "FAILED.EVENTS"
    assert run("lost-no-syncpoint").where_is("m1") == "lost"
    assert run("shared-counter").final["endpoints"]["InMDB"]["rollback_counter"] == 2


@pytest.mark.parametrize("path", sorted((ROOT / "endpoints").glob("*.yaml")),
                         ids=lambda p: p.stem)
def test_endpoint_files_parse(path):
    assert load_endpoints(path).endpoints

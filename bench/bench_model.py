"""Simulated deliveries per second: 100,000 messages on an endpoint with 10 sessions.

Two runs of the delivery model (no I/O, virtual clock): every delivery succeeds; and 1 in
100 messages is poison (BOTHRESH 3, a backout queue, an activation specification that does
not stop), so the run also rolls back, wraps its browse cursor and requeues. The figure is
deliveries simulated per second of wall time (best of --repeat runs).
"""

from __future__ import annotations

import argparse

from _common import Timer, emit

from mqconsole.model import (
    EndpointSpec,
    FailureRule,
    Limits,
    MessageSpec,
    QueueSpec,
    Scenario,
    replay,
)


def scenario(n: int, poison_every: int | None) -> Scenario:
    messages = tuple(MessageSpec(id=f"m{i}", queue="APP.IN") for i in range(n))
    failures = ()
    if poison_every:
        failures = (FailureRule(messages=tuple(f"m{i}" for i in range(0, n, poison_every))),)
    return Scenario(
        queues=(QueueSpec(name="APP.IN", bothresh=3, boqname="APP.IN.BOQ", max_depth=n + 1),
                QueueSpec(name="APP.IN.BOQ", max_depth=n + 1)),
        messages=messages,
        endpoints=(EndpointSpec(name="MDB", queue="APP.IN", provider="mq_activation_spec",
                                stop_endpoint_on_failure=False, max_server_sessions=10),),
        failures=failures,
        limits=Limits(max_events=10 * n, until_ms=10**12))


def measure(n: int, poison_every: int | None, repeat: int) -> dict:
    sc = scenario(n, poison_every)
    best = None
    for _ in range(repeat):
        with Timer() as t:
            result = replay(sc)
        best = t.seconds if best is None else min(best, t.seconds)
    s = result.summary
    assert s["stopped_by"] == "idle", s
    return {"deliveries": s["deliveries"], "events": len(result.events),
            "rollbacks": s["rollbacks"], "requeued": s["requeued"],
            "virtual_ms": result.events[-1]["t_ms"], "seconds": round(best, 3),
            "deliveries_per_s": round(s["deliveries"] / best),
            "events_per_s": round(len(result.events) / best)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    emit("model_deliveries", {
        "messages": args.messages, "sessions": 10,
        "all_succeed": measure(args.messages, None, args.repeat),
        "one_percent_poison": measure(args.messages, 100, args.repeat),
    })


if __name__ == "__main__":
    main()

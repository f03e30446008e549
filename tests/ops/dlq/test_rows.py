"""The handler's listed messages as rows kept where they were made (ops/dlq/rows.py): the
summary the console holds says the same as the whole one."""

from __future__ import annotations

from mqconsole.ops.dlq.rows import HeldRows, compact_plan, message_rows
from mqconsole.ops.result import OperationResult


def _plan() -> list[dict]:
    steps = []
    for n in range(300):
        step = {"msg_id": f"{n:048X}", "rule": 1, "action": "FWD",
                "destination": "APP.HOLD" if n % 3 else "APP.FULL"}
        if n % 3 == 0 and n % 2 == 0:
            step["would_fail"] = {"reason": 2053, "reason_name": "MQRC_Q_FULL"}
        steps.append(step)
    steps.append({"destination": "APP.FULL", "would_fail": {"reason": 2053,
                                                            "reason_name": "MQRC_Q_FULL"},
                  "count": 40})  # one standing for many, as past ``listed``
    return steps


def _going(plan: list[dict]) -> dict[str, int]:
    """How many would go where (as the console's plan_text counts them)."""
    out: dict[str, int] = {}
    for step in plan:
        if not step.get("would_fail"):
            key = str(step.get("destination") or step.get("action") or "?")
            out[key] = out.get(key, 0) + int(step.get("count", 1))
    return out


def test_a_compact_plan_says_what_the_whole_plan_says() -> None:
    def result(plan: list[dict]) -> OperationResult:
        out = OperationResult(operation="dlq-handler", source="DLQ", dry_run=True)
        out.plan = plan
        return out

    whole, compact = result(_plan()), result(compact_plan(_plan()))
    assert len(compact.plan) < 60
    assert compact.would_fail() == whole.would_fail() == 50 + 40
    assert compact.would_fail_groups() == whole.would_fail_groups()
    assert _going(compact.plan) == _going(whole.plan) == {"APP.HOLD": 200, "APP.FULL": 50}


def test_held_rows_answer_for_the_latest_only() -> None:
    held = HeldRows()
    messages = [{"msg_id": f"{n:048X}", "rule": 2, "action": "IGNORE", "attempts": 0,
                 "format": "MQSTR", "outcome": "ignored"} for n in range(10)]
    old = held.hold(message_rows(messages))
    assert held.rows(old, 8, 20) == message_rows(messages[8:])
    new = held.hold(message_rows(messages[:3]))
    assert held.rows(old, 0, 5) is None and len(held.rows(new, 0, 5) or []) == 3

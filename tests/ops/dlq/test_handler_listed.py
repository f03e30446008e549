"""A report that lists the first messages and counts the rest (issue 23 item 3): the console
plans and runs 200,000 messages and lists 5,000; the counts stay whole, the memory does not
grow with the queue."""

from __future__ import annotations

import pytest

from mqconsole.mq.queue import QueueAttrs
from tests.support.faulty import fill

from .test_handler import DLQ, dead, plain, run

N = 2_500  # past the settling step (1,000) twice


@pytest.fixture
def qm(make_qm, tmp_path):
    return make_qm("APP.IN", QueueAttrs("APP.FULL", max_depth=0), "CATCH",
                   path=tmp_path / "qm.sqlite")


def _messages() -> list:
    out = []
    for i in range(1, N + 1):
        if i % 5 == 0:
            out.append(dead(i, dest="APP.FULL"))  # would fail now: Q_FULL
        elif i % 5 == 1:
            out.append(plain(i))
        else:
            out.append(dead(i, reason=2035))
    return out


def test_a_plan_lists_the_first_and_counts_every_outcome(qm, tmp_path) -> None:
    fill(qm, DLQ, _messages())
    rules = "REASON(MQRC_Q_FULL) ACTION(RETRY)\nREASON(MQRC_NOT_AUTHORIZED) ACTION(IGNORE)"
    whole = run(qm, rules, tmp_path, dry_run=True)
    listed = run(qm, rules, tmp_path, dry_run=True, listed=10)
    assert len(listed.messages.kept) == 10
    assert len(list(listed.messages)) < 1_000  # the rest counted and forgotten
    assert len(listed.messages) == len(whole.messages) == N
    assert listed.by_outcome() == whole.by_outcome()
    doc = listed.to_json()
    assert len(doc["messages"]) == 10 and doc["message_count"] == N
    assert doc["outcome_counts"] == whole.by_outcome()
    # the plan's failures: every one counted, alike ones one step past the first ten
    assert listed.result.would_fail() == whole.result.would_fail() == N // 5
    assert len(listed.result.plan) <= 11
    assert [(g["destination"], g["count"]) for g in listed.result.would_fail_groups()] == \
        [(g["destination"], g["count"]) for g in whole.result.would_fail_groups()]
    assert "message_count" not in whole.to_json()  # the CLI lists all, as before


def test_a_run_lists_the_first_and_counts_every_outcome(qm, tmp_path) -> None:
    fill(qm, DLQ, _messages())
    report = run(qm, "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(CATCH)\nACTION(IGNORE)", tmp_path,
                 once=True, listed=10)
    assert len(report.messages.kept) == 10 and len(list(report.messages)) < 1_000
    counts = report.by_outcome()
    assert sum(counts.values()) == N
    assert counts["forwarded"] == N // 5 == report.result.done
    assert counts["ignored: left"] == N - N // 5 - N // 5
    assert counts["no valid header: left"] == N // 5

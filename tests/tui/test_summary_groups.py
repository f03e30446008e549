"""A result of many failures reads as an operator reads it: one line a destination and
reason, with its count and an example, however many messages failed."""

from __future__ import annotations

from mqconsole.mq.reasons import MQRC_PUT_INHIBITED, MQRC_Q_FULL
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation.core import Description, Summary
from mqconsole.ops.result import Failure, OperationResult
from mqconsole.tui.summary import summary_text


def _summary(result: OperationResult) -> Summary:
    return Summary(Description("move", "moving", "SYSTEM.DEAD.LETTER.QUEUE"),
                   result, ExitCode.PARTIAL)


def test_ten_thousand_failures_are_one_line_per_destination_and_reason():
    r = OperationResult("move", "SYSTEM.DEAD.LETTER.QUEUE", selected=10_000)
    for i in range(10_000):
        dest, reason = (("APP.PAYMENTS", MQRC_Q_FULL) if i % 4 else
                        ("APP.LEGACY", MQRC_PUT_INHIBITED))
        r.failed.append(Failure(msgid=f"{i:048X}", position=i + 1, reason=reason,
                                destination=dest))
    text = summary_text(_summary(r)).plain
    lines = [ln for ln in text.splitlines() if ln.startswith("  ✗")]
    assert lines == ["  ✗ 7,500 on APP.PAYMENTS: MQRC_Q_FULL (2053), e.g. …000000000001",
                     "  ✗ 2,500 on APP.LEGACY: MQRC_PUT_INHIBITED (2051), e.g. …000000000000"]
    assert "Failed: 10,000" in text
    groups = r.to_json()["failure_groups"]
    assert [(g["destination"], g["count"]) for g in groups] == [("APP.PAYMENTS", 7500),
                                                               ("APP.LEGACY", 2500)]


def test_messages_never_tried_are_a_count_of_their_own():
    """Issue 24 item 2: a run stopped early says how many selected messages it never tried,
    beside the done and the failed (they add up to the selected)."""
    r = OperationResult("move", "APP.ORDERS.BOQ", "APP.SMALL", selected=52, done=5,
                        stopped_early="APP.SMALL refused 10 messages in a row (last: "
                        "MQRC_Q_FULL (2053)), so it was given up", not_tried=37)
    r.failed = [Failure(msgid=f"{i:048X}", position=i, reason=MQRC_Q_FULL,
                        destination="APP.SMALL") for i in range(10)]
    text = summary_text(_summary(r)).plain
    assert "Moved 5 of 52 messages from" in text and "Failed: 10" in text
    assert ("Not tried: 37 (APP.SMALL refused 10 messages in a row (last: MQRC_Q_FULL "
            "(2053)), so it was given up; they stayed on APP.ORDERS.BOQ)") in text
    r.not_tried, r.stopped_early = 0, None
    assert "Not tried" not in summary_text(_summary(r)).plain


def test_a_loads_messages_never_put_and_a_cancelled_deletes_are_said_as_not_tried():
    """Issue 24 item 2, the console's result: a load stopped early says how many of the file
    were not put; a delete, a save and the dead-letter handler stopped by the operator say
    how many they never tried and where those stayed (not 'skipped')."""
    r = OperationResult("load", "/tmp/all.dmp", "APP.LEGACY", selected=14,
                        stopped_early="APP.LEGACY refused 10 puts in a row "
                        "(MQRC_PUT_INHIBITED (2051))", not_tried=4)
    r.failed = [Failure(msgid=f"{i:048X}", position=i, reason=MQRC_PUT_INHIBITED,
                        destination="APP.LEGACY") for i in range(10)]
    text = summary_text(_summary(r)).plain
    assert ("Not tried: 4 (APP.LEGACY refused 10 puts in a row (MQRC_PUT_INHIBITED (2051)); "
            "4 messages of the file were not put)") in text
    assert "Skipped" not in text
    for kind in ("delete", "save", "dlq-handler"):
        r = OperationResult(kind, "APP.DLQ", selected=6, done=2, cancelled=True, not_tried=4)
        text = summary_text(_summary(r)).plain
        assert "Not tried: 4 (cancelled; they stayed on APP.DLQ)" in text, kind


def test_one_failed_message_says_its_reason_in_the_one_form():
    """Issue 24 item 6: the line naming the one failed message says its reason as every
    face does, MQ's name and the number, or a number MQ has no name for alone."""
    r = OperationResult("move", "SYSTEM.DEAD.LETTER.QUEUE", "APP.X", selected=1)
    r.failed = [Failure(msgid="AB" * 24, position=3, reason=MQRC_Q_FULL, destination="APP.X")]
    assert "MQRC_Q_FULL (2053) → APP.X" in summary_text(_summary(r)).plain
    r.failed = [Failure(msgid="AB" * 24, position=3, reason=65535, destination="APP.X")]
    text = summary_text(_summary(r)).plain
    assert " 65535 → APP.X" in text and "UNKNOWN" not in text

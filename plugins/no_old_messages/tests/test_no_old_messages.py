"""no_old_messages: the age from the dead-letter header, else the MQMD; N from settings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.timefmt import format_put_date_time
from mqconsole.plugins.testing import import_plugin

no_old_messages = import_plugin(Path(__file__).resolve().parents[1] / "no_old_messages.py")

NOW = datetime.now(UTC)


def message(md_age_days: float | None, dlh_age_days: float | None = None) -> Message:
    date, time = ("", "") if md_age_days is None else \
        format_put_date_time(NOW - timedelta(days=md_age_days))
    md, body = MQMD(format="MQSTR", put_date=date, put_time=time), b"payload"
    if dlh_age_days is not None:
        d, t = format_put_date_time(NOW - timedelta(days=dlh_age_days))
        md, body = add_dead_letter_header(md, body, reason=2053, dest_q_name="APP.IN",
                                          put_date=d, put_time=t)
    return Message(md=md, body=body)


@pytest.fixture
def host_with(register_plugins):
    """A host with no_old_messages registered and these settings."""
    def make(**settings):
        return register_plugins(no_old_messages, settings={"no_old_messages": settings})
    return make


def test_a_message_older_than_n_days_is_refused_naming_its_age(host_with) -> None:
    host = host_with(days=7)
    refusal = host.check_put("move", message(10), "APP.IN")
    assert refusal is not None
    assert refusal.startswith("refused by plugin no_old_messages: the message is 10.0 days "
                              "old (put ")
    assert refusal.endswith(", from its MQMD), older than the 7 days allowed")
    assert host.check_put("move", message(6.9), "APP.IN") is None


def test_the_dead_letter_headers_put_time_counts_before_the_mqmds(host_with) -> None:
    host = host_with(days=7)
    # put 30 days ago, dead-lettered yesterday: young enough
    assert host.check_put("move", message(30, dlh_age_days=1), "APP.IN") is None
    refusal = host.check_put("copy", message(1, dlh_age_days=9), "APP.IN")
    assert refusal is not None and "9.0 days old" in refusal and "dead-letter header" in refusal


def test_operations_setting_limits_the_check(host_with) -> None:
    host = host_with(days=1, operations=["resubmit"])
    assert host.check_put("move", message(5), "APP.IN") is None
    assert host.check_put("resubmit", message(5), "APP.IN") is not None


def test_an_unreadable_put_time_refuses_unless_allowed(host_with) -> None:
    assert "its age is unknown" in host_with(days=1).check_put("move", message(None), "Q")
    assert host_with(days=1, unknown_age="allow").check_put("move", message(None), "Q") is None


@pytest.mark.parametrize("days", [None, 0, -2, "seven", True])
def test_a_bad_days_setting_refuses_every_put_saying_why(host_with, days) -> None:
    settings = {} if days is None else {"days": days}
    refusal = host_with(**settings).check_put("move", message(0), "Q")
    assert refusal == (
        "plugin no_old_messages's check failed (ValueError: "
        "plugins.settings.no_old_messages.days must be a number of days above 0, not "
        f"{days!r}), so the put is refused")


def test_a_new_message_put_with_mqconsole_put_is_young_enough() -> None:
    """``mqconsole put`` checks each copy as it will be put: a new context, put now."""
    from mqconsole.ops.operation import Put
    from mqconsole.ops.operation.testing import run_operation

    run = run_operation(Put("APP.IN", MQMD(format="MQSTR"), b"new", count=2), no_old_messages,
                        queues={"APP.IN": []}, settings={"no_old_messages": {"days": 1}})
    assert run.summary.counts["done"] == 2 and run.summary.failures == []

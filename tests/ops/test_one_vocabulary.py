"""Issue 24 item 6: one vocabulary across ``summary``, the audit report and the journal (in
the CLI and the console) — the same messages give the same age buckets, the same reason
text (MQ's name and the number; a number MQ has no name for alone, never "UNKNOWN_65535"
in one place and "-" in another) and the same timestamp style. Each comes from one module:
``ops.timefmt`` (ages, times) and ``mq.names`` (reasons)."""

from __future__ import annotations

from datetime import timedelta

from mqconsole.audit import report as audit_report
from mqconsole.audit.present import tables
from mqconsole.ops.journal import JournalEntry, Outcome, format_time
from mqconsole.ops.summary import format_summary_text, summarize
from mqconsole.ops.timefmt import iso_utc

from .test_summary import NOW, view

UNNAMED = 65535  # a reason number MQ has no name for
AGES = [60.0, 2 * 3600.0, 3 * 86400.0, 10 * 86400.0, 40 * 86400.0]


def _summary() -> dict:
    views = [view(n, age=age, reason=2053 if n % 2 else UNNAMED)
             for n, age in enumerate(AGES, 1)]
    return summarize(views, now=NOW, queue="SYSTEM.DEAD.LETTER.QUEUE")


def _report(summary: dict) -> dict:
    """The audit report of the same messages, as Spark gives its rows (reason 65535 has
    no name: null), its ages counted in the report's buckets."""
    by_reason = [{"reason": 2053, "name": "MQRC_Q_FULL", "count": 3},
                 {"reason": UNNAMED, "name": None, "count": 2}]
    ages = dict.fromkeys(audit_report.BUCKETS, 0)
    for age in AGES:  # what bucket_sql's CASE says: arrival > as_of - edge
        arrival = NOW - timedelta(seconds=age)
        ages[next((b for b, e in zip(audit_report.BUCKETS, audit_report.BUCKET_EDGES,
                                     strict=False) if arrival > NOW - e),
                  audit_report.BUCKETS[-1])] += 1
    return {"messages": 5, "bytes": 0, "unparsed": 0, "as_of": audit_report.iso(NOW),
            "by_reason": by_reason,
            "by_reason_destination": [{"reason": r["reason"], "queue": "APP.ORDERS",
                                       "count": r["count"]} for r in by_reason],
            "by_age": [{"bucket": b, "count": n} for b, n in ages.items()]}


def test_one_set_of_age_buckets():
    summary = _summary()
    report = _report(summary)
    assert tuple(audit_report.BUCKETS) == tuple(summary["by_age"])
    assert [r["count"] for r in report["by_age"]] == list(summary["by_age"].values()) \
        == [1, 1, 1, 1, 1]
    assert "<1m" not in format_summary_text(summary) and ">=1w" not in format_summary_text(
        summary)


def test_one_unknown_reason_form():
    summary = _summary()
    text = format_summary_text(summary)
    assert "MQRC_Q_FULL (2053)" in text
    assert "UNKNOWN" not in text and "UNKNOWN" not in str(summary)
    assert summary["by_reason"] == {"MQRC_Q_FULL": 3, "65535": 2}
    assert {g["reason"]: g["reason_name"] for g in summary["by_reason_and_dest"]} == {
        2053: "MQRC_Q_FULL", UNNAMED: None}  # as the audit report: null for no name
    reason_rows = " ".join(text.split("By dead-letter reason and destination")[1]
                           .split("By reason")[0].split())
    assert "65535 APP.ORDERS" in reason_rows
    # and the "By reason" table says them the same way (it said the bare name)
    by_reason = text.split("By reason\n")[1].split("By format")[0]
    assert "MQRC_Q_FULL (2053)" in by_reason and "65535" in by_reason, by_reason
    audit = {t.key: t.rows for t in tables(_report(summary))}
    assert audit["by_reason"] == [["MQRC_Q_FULL (2053)"], ["65535"]]  # never "-"
    assert audit["by_reason_destination"] == [["MQRC_Q_FULL (2053)", "APP.ORDERS"],
                                              ["65535", "APP.ORDERS"]]
    # the journal (the CLI's --ids and the console's record say Outcome.reason_text())
    kept = Outcome("AB" * 24, "failed", reason=UNNAMED, reason_name="UNKNOWN_65535")
    assert kept.reason_text() == "65535"
    assert Outcome("AB" * 24, "failed", reason=2053,
                   reason_name="MQRC_Q_FULL").reason_text() == "MQRC_Q_FULL (2053)"
    from mqconsole.cli.commands.journal_cmd import id_lines

    entry = JournalEntry("move", qmgr="QM1", profile="t", source="Q", destinations=["D"],
                         outcomes=[kept], operator="alice", sudo_user=None)
    assert id_lines(entry) == [f"    {'AB' * 24}  failed 65535"]


def test_one_timestamp_style():
    when = NOW.replace(microsecond=123_000)
    said = "2026-09-22T12:00:00.123Z"
    assert iso_utc(when) == said
    assert summarize([view(1)], now=when)["now"] == said
    assert audit_report.iso(when) == said
    assert audit_report.parse_as_of(said) == when  # the report's time reads back whole
    assert format_time(when) == said
    entry = JournalEntry("move", qmgr="QM1", profile="t", source="Q", destinations=["D"],
                         time=when, operator="alice", sudo_user=None)
    from mqconsole.tui.screens.journal_record import describe

    assert said in describe(entry).plain  # the console's record


def test_the_console_and_the_message_views_say_an_unnamed_reason_alone():
    """Issue 24 item 6, the console's faces and the message views: a dead-letter reason MQ
    has no name for is the number alone everywhere it is shown — the message list's REASON
    column and the summary panel (short form), the message's summary and headers tabs, the
    CLI's ``show`` text and ``browse`` column — and null as JSON's ``reason_name`` (as
    summary's); never ``UNKNOWN_65535``."""
    from mqconsole.cli.render import format_show_text
    from mqconsole.tui.screens.detail import header_rows, summary_rows
    from mqconsole.tui.widgets.message_list import short_reason

    v = view(1, reason=UNNAMED)
    assert short_reason(UNNAMED) == "65535" and short_reason(2053) == "Q_FULL"
    assert ("Dead-letter reason", "65535") in summary_rows(v)
    assert [r for r in header_rows(v) if r[1] == "reason"] == [("MQDLH", "reason", "65535")]
    assert v.dlh_dict()["reason_name"] is None and v.row()["dlh"]["reason_name"] is None
    assert v.dlh.to_dict()["reason_name"] is None
    named = view(2, reason=2053)
    assert ("Dead-letter reason", "MQRC_Q_FULL (2053)") in summary_rows(named)
    assert [r for r in header_rows(named) if r[1] == "reason"] == [
        ("MQDLH", "reason", "MQRC_Q_FULL (2053)")]
    doc = v.show()
    assert [h["reason_name"] for h in doc["headers"] if h.get("type") == "MQDLH"] == [None]
    text = format_show_text(doc)
    assert "UNKNOWN" not in text and "65535" in text, text
    assert "MQRC_Q_FULL (2053)" in format_show_text(named.show())

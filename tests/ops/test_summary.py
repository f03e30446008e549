"""summary: counts by reason × destination, format, age and size buckets, in one pass."""

from __future__ import annotations

import json
import tracemalloc
from datetime import UTC, datetime, timedelta

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops import views as views_mod
from mqconsole.ops.summary import (
    AGE_BUCKETS,
    SIZE_BUCKETS,
    SummaryBuilder,
    age_bucket,
    format_bytes,
    format_summary_text,
    size_bucket,
    summarize,
)
from mqconsole.ops.timefmt import format_put_date_time
from mqconsole.ops.views import MessageView

NOW = datetime(2026, 9, 22, 12, 0, 0, tzinfo=UTC)


def view(position: int, *, age: float | None = 60.0, reason: int | None = None,
         dest_q: str = "APP.ORDERS", size: int = 10, fmt: str = "MQSTR", backout: int = 0,
         msgid: bytes | None = None, dest_qmgr: str = "QM1") -> MessageView:
    if age is None:
        d, t = "", ""
    else:
        d, t = format_put_date_time(NOW - timedelta(seconds=age))
    md = MQMD(format=fmt, ccsid=1208, put_date=d, put_time=t, backout_count=backout,
              msg_id=msgid or position.to_bytes(24, "big"))
    body = b"x" * size
    if reason is not None:
        md, body = add_dead_letter_header(md, body, reason=reason, dest_q_name=dest_q,
                                          dest_qmgr_name=dest_qmgr)
    return MessageView(position, Message(md, body), NOW)


def dlq() -> list[MessageView]:
    return [
        view(1, reason=2053, dest_q="APP.ORDERS", age=30, size=10),
        view(2, reason=2053, dest_q="APP.ORDERS", age=300, size=2000, backout=1),
        view(3, reason=2053, dest_q="APP.ORDERS", age=3000, size=20000, fmt="MQHRF2"),
        view(4, reason=2053, dest_q="APP.PAYMENTS", age=30000, size=200000),
        view(5, reason=2085, dest_q="NO.SUCH.Q", age=300000, size=2_000_000, backout=3),
        view(6, reason=258, dest_q="APP.ORDERS", age=3_000_000, size=0),
        view(7, age=None, size=5, fmt=""),  # no DLH, no put time
    ]


def _dest(q: str | None, qmgr: str | None = "QM1") -> dict:
    label = q if qmgr in (None, "QM1") else f"{q}@{qmgr}"
    return {"dest_q": q, "dest_qmgr": qmgr, "destination": label}


def test_summary_of_a_dead_letter_queue():
    s = summarize(dlq(), now=NOW, queue="SYSTEM.DEAD.LETTER.QUEUE", local_qmgr="QM1")
    assert s["queue"] == "SYSTEM.DEAD.LETTER.QUEUE"
    assert s["now"] == "2026-09-22T12:00:00.000Z"
    assert s["total"] == 7
    assert s["dead_lettered"] == 6
    assert s["total_bytes"] == 10 + 2000 + 20000 + 200000 + 2_000_000 + 0 + 5 + 6 * 172
    assert s["by_reason_and_dest"] == [
        {"reason": 2053, "reason_name": "MQRC_Q_FULL", **_dest("APP.ORDERS"), "count": 3},
        {"reason": 258, "reason_name": "MQFB_EXPIRATION", **_dest("APP.ORDERS"), "count": 1},
        {"reason": 2053, "reason_name": "MQRC_Q_FULL", **_dest("APP.PAYMENTS"), "count": 1},
        {"reason": 2085, "reason_name": "MQRC_UNKNOWN_OBJECT_NAME", **_dest("NO.SUCH.Q"),
         "count": 1},
        {"reason": None, "reason_name": None, **_dest(None, None), "count": 1},
    ]
    assert s["by_reason"] == {"MQRC_Q_FULL": 4, "(none)": 1, "MQFB_EXPIRATION": 1,
                              "MQRC_UNKNOWN_OBJECT_NAME": 1}
    assert list(s["by_reason"].values()) == [4, 1, 1, 1]
    # the format under the dead-letter header, not MQDEAD
    assert s["by_format"] == {"MQSTR": 5, "(none)": 1, "MQHRF2": 1}
    # the audit report's buckets (ops.timefmt.AGE_BUCKETS: one set for every face)
    assert s["by_age"] == {"<1h": 3, "1h-24h": 1, "1d-7d": 1, "7d-30d": 0, ">30d": 1,
                           "unknown": 1}
    assert s["by_size"] == {"<1KB": 3, "<10KB": 1, "<100KB": 1, "<1MB": 1, ">=1MB": 1}
    assert s["by_backout_count"] == {"0": 5, "1": 1, "3": 1}
    assert s["oldest"] == {"position": 6, "msgid": (6).to_bytes(24, "big").hex().upper(),
                           "put_time": "2026-08-18T18:40:00.000Z", "age_seconds": 3_000_000}
    assert s["youngest"]["position"] == 1
    assert s["youngest"]["age_seconds"] == 30
    assert s["average_age_seconds"] == pytest.approx(
        (30 + 300 + 3000 + 30000 + 300000 + 3_000_000) / 6)
    assert s["smallest_bytes"] == 5
    assert s["largest_bytes"] == 2_000_000 + 172
    json.dumps(s)


def test_destinations_on_other_queue_managers_are_their_own_groups():
    """APP.ORDERS@QM9 is not the local APP.ORDERS: told apart, and the text says which
    (issue 15 item 7); a blank queue manager is the local one."""
    vs = [view(1, reason=2087, dest_qmgr="QM9"), view(2, reason=2087, dest_qmgr="QM9"),
          view(3, reason=2087, dest_qmgr=""), view(4, reason=2087)]
    s = summarize(vs, now=NOW, queue="DLQ", local_qmgr="QM1")
    assert [(g["destination"], g["dest_qmgr"], g["count"]) for g in s["by_reason_and_dest"]] \
        == [("APP.ORDERS", "QM1", 2), ("APP.ORDERS@QM9", "QM9", 2)]
    text = format_summary_text(s)
    assert "MQRC_UNKNOWN_REMOTE_Q_MGR (2087)  APP.ORDERS@QM9" in text
    # not knowing the local queue manager, every named one is shown
    s = summarize(vs, now=NOW, queue="DLQ")
    assert {g["destination"] for g in s["by_reason_and_dest"]} == {
        "APP.ORDERS@QM9", "APP.ORDERS@QM1", "APP.ORDERS"}


def test_empty_queue():
    s = summarize([], now=NOW, queue="Q")
    assert s["total"] == 0
    assert s["oldest"] is None and s["youngest"] is None
    assert s["by_age"] == {name: 0 for name, _ in AGE_BUCKETS}
    assert s["by_size"] == {name: 0 for name, _ in SIZE_BUCKETS}
    assert s["average_bytes"] is None
    text = format_summary_text(s)
    assert "Queue Q: 0 messages" in text
    assert "empty" in text


@pytest.mark.parametrize("seconds,bucket", [
    (-5, "<1h"), (0, "<1h"), (3599.9, "<1h"), (3600, "1h-24h"), (86399, "1h-24h"),
    (86400, "1d-7d"), (604799, "1d-7d"), (604800, "7d-30d"), (2591999, "7d-30d"),
    (2592000, ">30d"), (10 ** 9, ">30d"), (None, "unknown"), (float("nan"), "unknown"),
])
def test_age_buckets(seconds, bucket):
    assert age_bucket(seconds) == bucket


@pytest.mark.parametrize("n,bucket", [
    (0, "<1KB"), (1023, "<1KB"), (1024, "<10KB"), (10239, "<10KB"), (10240, "<100KB"),
    (102400, "<1MB"), (1048575, "<1MB"), (1048576, ">=1MB"),
])
def test_size_buckets(n, bucket):
    assert size_bucket(n) == bucket


def test_ties_keep_the_first_seen():
    vs = [view(1, age=100), view(2, age=100)]
    s = summarize(vs, now=NOW)
    assert s["oldest"]["position"] == 1 and s["youngest"]["position"] == 1


def test_builder_is_incremental():
    b = SummaryBuilder("Q", now=NOW)
    vs = dlq()
    for v in vs[:3]:
        b.add(v)
    assert b.result()["total"] == 3
    for v in vs[3:]:
        b.add(v)
    assert b.result() == summarize(vs, now=NOW, queue="Q")


def test_summary_reads_no_payloads(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("summary must not parse or decode payloads")
    monkeypatch.setattr(views_mod._chain, "parse_body_lenient", boom)
    monkeypatch.setattr(views_mod._payload, "decode_text", boom)
    monkeypatch.setattr(views_mod._payload, "preview", boom)
    assert summarize(dlq(), now=NOW)["total"] == 7


@pytest.mark.slow
def test_streaming_memory_is_constant():
    """A generator of messages over few groups: memory does not grow with the count."""
    def gen(n):
        for i in range(n):
            yield view(i, reason=2053 if i % 2 else 2035, dest_q=f"APP.Q{i % 3}",
                       age=i % 5000, size=i % 3000)

    def peak(n):
        tracemalloc.start()
        summarize(gen(n), now=NOW)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top
    small, large = peak(600), peak(6000)
    assert large < small * 1.5 + 100_000


def test_now_defaults_to_the_clock():
    s = summarize([view(1, age=10)])
    assert s["oldest"]["age_seconds"] > 10


def test_text_output():
    s = summarize(dlq(), now=NOW, queue="SYSTEM.DEAD.LETTER.QUEUE")
    text = format_summary_text(s)
    assert text.startswith("Queue SYSTEM.DEAD.LETTER.QUEUE: 7 messages, 2.1 MB, "
                           "6 with a dead-letter header\n")
    assert "MQRC_Q_FULL (2053)" in text
    assert "APP.PAYMENTS" in text
    assert "(no dead-letter header)" in text
    assert "By age" in text and ">30d" in text and "By size" in text
    assert "Oldest    2026-08-18T18:40:00.000Z (4w 6d ago), position 6" in text
    # aligned columns: every row of the reason table has the count right-aligned
    table = text.split("By dead-letter reason and destination\n")[1].split("\n\n")[0]
    rows = table.splitlines()
    assert rows[0].split() == ["COUNT", "%", "REASON", "DESTINATION"]
    assert rows[2].startswith("      3  43%  MQRC_Q_FULL (2053)")


def test_text_output_is_terminal_safe():
    vs = [view(1, reason=2053, dest_q="EVIL\x1b[2J\x1b]0;x\x07Q\nNEXT", fmt="\x1b[31m")]
    text = format_summary_text(summarize(vs, now=NOW, queue="Q\x1b"))
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "\\x1b[2J" in text
    assert "Q\\nNEXT" in text


def test_text_without_dead_letter_headers_has_no_reason_table():
    text = format_summary_text(summarize([view(1), view(2)], now=NOW))
    assert text.startswith("Summary: 2 messages, 20 B\n")
    assert "By dead-letter reason and destination" not in text


@pytest.mark.parametrize("n,text", [(None, "-"), (0, "0 B"), (1023, "1023 B"),
                                    (1536, "1.5 KB"), (3 * 1024 ** 2, "3.0 MB"),
                                    (5 * 1024 ** 3, "5.0 GB"), (5 * 1024 ** 4, "5120.0 GB")])
def test_format_bytes(n, text):
    assert format_bytes(n) == text

"""MQ put times, ISO 8601, ages and durations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole.ops.timefmt import (
    add_seconds,
    age_seconds,
    format_age,
    format_put_date_time,
    iso_utc,
    parse_duration,
    parse_iso,
    parse_put_datetime,
    to_utc,
)


def test_put_date_time_with_hundredths():
    dt = parse_put_datetime("20260922", "02342828")
    assert dt == datetime(2026, 9, 22, 2, 34, 28, 280000, tzinfo=UTC)
    assert iso_utc(dt) == "2026-09-22T02:34:28.280Z"


@pytest.mark.parametrize("date,time,expected", [
    ("20260922", "023428  ", datetime(2026, 9, 22, 2, 34, 28, tzinfo=UTC)),
    ("20260922", "0234281", datetime(2026, 9, 22, 2, 34, 28, 100000, tzinfo=UTC)),
    (b"20260922", b"02342899", datetime(2026, 9, 22, 2, 34, 28, 990000, tzinfo=UTC)),
    ("20260922\x00", "\x0002342800", datetime(2026, 9, 22, 2, 34, 28, tzinfo=UTC)),
])
def test_put_time_variants(date, time, expected):
    assert parse_put_datetime(date, time) == expected


@pytest.mark.parametrize("date,time", [
    ("", ""), ("        ", "        "), ("20261340", "00000000"), ("2026092", "02342828"),
    ("20260922", "25000000"), ("2026O922", "02342828"), ("20260922", "0234"),
    (None, None), ("２０２６０９２２", "02342828"), ("00000000", "00000000"),
])
def test_put_time_garbage_is_none(date, time):
    assert parse_put_datetime(date, time) is None


@given(st.text(max_size=12), st.text(max_size=12))
def test_put_time_never_raises(date, time):
    parse_put_datetime(date, time)


def test_format_put_date_time_round_trip():
    dt = datetime(2026, 1, 2, 3, 4, 5, 670000, tzinfo=UTC)
    d, t = format_put_date_time(dt)
    assert (d, t) == ("20260102", "03040567")
    assert parse_put_datetime(d, t) == dt
    # an aware non-UTC time is converted
    cest = timezone(timedelta(hours=2))
    assert format_put_date_time(datetime(2026, 1, 2, 5, 4, 5, tzinfo=cest)) == ("20260102",
                                                                                   "03040500")


def test_iso_none_and_naive():
    assert iso_utc(None) is None
    assert iso_utc(datetime(2026, 1, 2, 3, 4, 5)) == "2026-01-02T03:04:05.000Z"


@pytest.mark.parametrize("text,expected", [
    ("2026-09-22", datetime(2026, 9, 22, tzinfo=UTC)),
    ("2026-09-22T02:34", datetime(2026, 9, 22, 2, 34, tzinfo=UTC)),
    ("2026-09-22T02:34:28Z", datetime(2026, 9, 22, 2, 34, 28, tzinfo=UTC)),
    ("2026-09-22 02:34:28.28", datetime(2026, 9, 22, 2, 34, 28, 280000, tzinfo=UTC)),
    ("2026-09-22T04:34:28+02:00", datetime(2026, 9, 22, 2, 34, 28, tzinfo=UTC)),
    ("2026-09-22T02:34:28.280Z", datetime(2026, 9, 22, 2, 34, 28, 280000, tzinfo=UTC)),
])
def test_parse_iso(text, expected):
    assert parse_iso(text) == expected


@pytest.mark.parametrize("text", ["", "yesterday", "2026-13-01", "22/09/2026", "Z"])
def test_parse_iso_rejects(text):
    with pytest.raises(ValueError):
        parse_iso(text)


def test_iso_round_trip():
    dt = datetime(2026, 9, 22, 2, 34, 28, 280000, tzinfo=UTC)
    assert parse_iso(iso_utc(dt)) == dt


@pytest.mark.parametrize("text,seconds", [
    ("90s", 90), ("30m", 1800), ("2h", 7200), ("1d", 86400), ("1w", 604800),
    ("1.5h", 5400), ("1h30m", 5400), ("1h 30m", 5400), ("90", 90), ("2H", 7200),
    ("500ms", 0.5), ("3 days", 259200), ("0s", 0), (".5m", 30),
])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "h", "2x", "-5m", "1h30", "2 h x", "abc", "1..5h"])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueError) as info:
        parse_duration(text)
    assert "duration" in str(info.value)


@given(st.text(max_size=20))
def test_parse_duration_only_value_error(text):
    try:
        v = parse_duration(text)
    except ValueError:
        return
    assert v >= 0


def test_age_seconds():
    put = datetime(2026, 9, 22, 2, 0, 0, tzinfo=UTC)
    now = datetime(2026, 9, 22, 4, 0, 0, tzinfo=UTC)
    assert age_seconds(put, now) == 7200
    assert age_seconds(now, put) == -7200
    assert age_seconds(None, now) is None
    assert age_seconds(put) > 0  # against the clock
    assert to_utc(datetime(2026, 1, 1)).tzinfo is UTC


@pytest.mark.parametrize("seconds,text", [
    (None, "-"), (0, "0s"), (45, "45s"), (60, "1m"), (725, "12m 5s"), (3600, "1h"),
    (3605, "1h"), (12000, "3h 20m"), (86400 * 4 + 7200, "4d 2h"), (604800 * 2 + 86400 * 3,
                                                                     "2w 3d"),
    (-90, "-1m 30s"), (float("inf"), "forever"),
])
def test_format_age(seconds, text):
    assert format_age(seconds) == text


def test_add_seconds():
    dt = datetime(2026, 1, 1, tzinfo=UTC)
    assert add_seconds(dt, 60) == datetime(2026, 1, 1, 0, 1, tzinfo=UTC)
    assert add_seconds(dt, 1e20) is None

"""The change journal: records, reading and filtering, --since, and concurrent appends."""

from __future__ import annotations

import json
import multiprocessing
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqconsole import paths
from mqconsole.ops.journal import (
    Journal,
    JournalEntry,
    Outcome,
    format_time,
    parse_since,
    parse_time,
)

from .journal_writers import BIG, RECORDS, WRITERS, writer


def entry(**kw) -> JournalEntry:
    base = dict(operation="move", qmgr="QM1", profile="prod", source="APP.DLQ",
                destinations=["APP.IN"], msgids=["414D51", "414D52"],
                outcomes=[Outcome("414D51", "done", destination="APP.IN"),
                          Outcome("414D52", "failed", 2053, "MQRC_Q_FULL", "APP.IN")])
    base.update(kw)
    return JournalEntry(**base)


def test_record_has_every_field(tmp_path, monkeypatch):
    monkeypatch.setenv("SUDO_USER", "bob")
    journal = Journal(tmp_path / "j.jsonl")
    journal.append(entry(backup=tmp_path / "b.txt", details={"batch": 100}, dry_run=True,
                         time=datetime(2026, 11, 2, 9, 14, 3, 512000, tzinfo=UTC)))
    [line] = (tmp_path / "j.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert list(record) == ["time", "operator", "sudo_user", "profile", "qmgr", "operation",
                            "source", "destinations", "msgids", "outcomes", "backup",
                            "details", "dry_run"]
    assert record["time"] == "2026-11-02T09:14:03.512Z"
    assert record["sudo_user"] == "bob" and record["operator"]
    assert record["outcomes"][1] == {"msgid": "414D52", "outcome": "failed", "reason": 2053,
                                     "reason_name": "MQRC_Q_FULL", "destination": "APP.IN"}
    assert record["backup"] == str(tmp_path / "b.txt") and record["dry_run"] is True
    assert (tmp_path / "j.jsonl").stat().st_mode & 0o777 == 0o600


def test_operator_defaults(monkeypatch):
    monkeypatch.delenv("SUDO_USER", raising=False)
    before = datetime.now(UTC).replace(microsecond=0)  # (the record keeps milliseconds)
    e = entry()
    after = datetime.now(UTC)
    assert e.sudo_user is None and e.operator
    assert e.time.tzinfo is UTC and before <= e.time <= after  # made now, however slowly
    assert e.counts() == {"done": 1, "failed": 1, "skipped": 0}


def test_bytes_msgids_become_hex_and_bad_outcome_is_refused():
    e = entry(msgids=[b"\x41\x4d"], outcomes=[Outcome(b"\x00\xff", "skipped")])
    assert e.msgids == ["414D"] and e.outcomes[0].msgid == "00FF"
    with pytest.raises(ValueError):
        Outcome("41", "lost")
    with pytest.raises(ValueError):
        JournalEntry(operation="")


def test_round_trip_through_the_file(tmp_path):
    journal = Journal(tmp_path / "j.jsonl")
    original = entry(details={"strip_dlh": True, "names": ["ü"]})
    journal.append(original)
    [back] = list(journal.read())
    assert back == original
    assert journal.problems == []


def test_default_path_follows_mqconsole_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MQCONSOLE_HOME", str(tmp_path / "home"))
    journal = Journal()
    assert journal.path == paths.default_journal_path() == tmp_path / "home/state/journal.jsonl"
    journal.append(entry())  # creates the state folder
    assert len(list(Journal().read())) == 1


def test_missing_file_reads_as_empty(tmp_path):
    assert list(Journal(tmp_path / "none.jsonl").read()) == []


def test_filters_since_and_operation(tmp_path):
    journal = Journal(tmp_path / "j.jsonl")
    t0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    for hours, op in ((0, "move"), (1, "delete"), (2, "move"), (3, "queue set")):
        journal.append(entry(operation=op, time=t0 + timedelta(hours=hours)))
    assert [e.operation for e in journal.read()] == ["move", "delete", "move", "queue set"]
    since = t0 + timedelta(minutes=90)
    assert [e.time.hour for e in journal.read(since=since)] == [14, 15]
    assert [e.time.hour for e in journal.read(operation="move")] == [12, 14]
    assert [e.time.hour for e in journal.read(since=since, operation="move")] == [14]
    local = (t0 + timedelta(hours=2)).astimezone().replace(tzinfo=None)  # naive = local
    assert [e.time.hour for e in journal.read(since=local)] == [14, 15]


def test_corrupt_lines_are_skipped_and_reported(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.append(entry(operation="copy"))
    with open(path, "ab") as fp:
        fp.write(b'{"time": "2026-11-01T00:00:00Z", "operation": "mo\n')  # torn
        fp.write(b"not json at all\n")
        fp.write(b"[1, 2]\n")
        fp.write(b'{"operation": "move"}\n')  # no time
        fp.write(b'{"time": "yesterday", "operation": "move"}\n')
        fp.write(b'{"time": "2026-11-01T00:00:00Z", "operation": "move", "msgids": 5}\n')
        fp.write(b"\xff\xfe\n")
        fp.write(b"\n")
    journal.append(entry(operation="delete"))
    with open(path, "ab") as fp:
        fp.write(b'{"time": "2026-11-01T00:0')  # a write in progress: no line end yet
    assert [e.operation for e in journal.read()] == ["copy", "delete"]
    assert len(journal.problems) == 7
    assert all(p.startswith(f"{path} line ") and "skipped" in p for p in journal.problems)
    assert journal.problems[0].startswith(f"{path} line 2: ")


def test_old_or_partial_records_still_read(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text('{"time": "2026-11-01T08:00:00+01:00", "operation": "load", '
                    '"future_field": 1}\n')
    [e] = list(Journal(path).read())
    assert e.time == datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
    assert e.operation == "load" and e.msgids == [] and e.outcomes == [] and not e.dry_run


def test_fsync_flag(tmp_path, monkeypatch):
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd)))
    Journal(tmp_path / "a.jsonl").append(entry())
    assert calls == []
    Journal(tmp_path / "b.jsonl", fsync=True).append(entry())
    assert len(calls) == 1


# -- time helpers ---------------------------------------------------------------------------

NOW = datetime(2026, 11, 2, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "expected"), [
    ("2h", NOW - timedelta(hours=2)),
    ("30m", NOW - timedelta(minutes=30)),
    ("1h30m", NOW - timedelta(minutes=90)),
    ("3d", NOW - timedelta(days=3)),
    ("1w", NOW - timedelta(weeks=1)),
    ("45s", NOW - timedelta(seconds=45)),
    (" 2H ", NOW - timedelta(hours=2)),
    ("2026-11-01T08:00:00Z", datetime(2026, 11, 1, 8, tzinfo=UTC)),
    ("2026-11-01T08:00:00+02:00", datetime(2026, 11, 1, 6, tzinfo=UTC)),
])
def test_parse_since(text, expected):
    assert parse_since(text, now=NOW) == expected


def test_parse_since_local_dates():
    midnight = datetime(2026, 11, 1).astimezone().astimezone(UTC)
    assert parse_since("2026-11-01", now=NOW) == midnight
    assert parse_since("2026-11-01T00:00", now=NOW) == midnight
    today = NOW.astimezone().date()
    assert parse_since("today", now=NOW) == datetime(today.year, today.month, today.day) \
        .astimezone().astimezone(UTC)
    assert parse_since("yesterday", now=NOW) == parse_since("today", now=NOW - timedelta(days=1))
    assert parse_since("1h").tzinfo is UTC


@pytest.mark.parametrize("text", ["", "soon", "2x", "2026-13-01", "h2", "-2h"])
def test_parse_since_rejects_nonsense(text):
    with pytest.raises(ValueError) as err:
        parse_since(text, now=NOW)
    assert "--since" in str(err.value)


def test_time_format_round_trips():
    when = datetime(2026, 11, 2, 9, 14, 3, 512000, tzinfo=timezone(timedelta(hours=1)))
    assert format_time(when) == "2026-11-02T08:14:03.512Z"
    assert parse_time(format_time(when)) == when


# -- many writers at once -------------------------------------------------------------------

@pytest.mark.subprocess
def test_concurrent_appends_never_interleave(tmp_path):
    path = tmp_path / "journal.jsonl"
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("spawn" if "spawn" in methods else methods[0])
    procs = [ctx.Process(target=writer, args=(str(path), w)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    raw = Path(path).read_bytes()
    lines = raw.split(b"\n")
    assert lines[-1] == b""
    lines = lines[:-1]
    assert len(lines) == WRITERS * RECORDS
    assert min(len(ln) for ln in lines) > 16_000
    seen = set()
    for ln in lines:
        record = json.loads(ln)  # every line is whole JSON
        assert len(record["msgids"]) == BIG
        seen.add((record["details"]["worker"], record["details"]["n"]))
    assert seen == {(w, n) for w in range(WRITERS) for n in range(RECORDS)}
    journal = Journal(path)
    assert sum(1 for _ in journal.read()) == WRITERS * RECORDS and journal.problems == []
    # each writer's records stay in its own order
    order = [json.loads(ln)["details"] for ln in lines]
    for w in range(WRITERS):
        assert [d["n"] for d in order if d["worker"] == w] == list(range(RECORDS))


@given(st.lists(st.tuples(
    st.one_of(st.text(alphabet="0123456789ABCDEF", max_size=48), st.text(max_size=10)),
    st.sampled_from(["done", "failed", "skipped"]),
    st.one_of(st.none(), st.integers(2000, 2600)),
    st.one_of(st.none(), st.just("MQRC_Q_FULL")),
    st.one_of(st.none(), st.sampled_from(["Q.A", "Q\"B", "Q\u00e9", "Q\\C"]))), max_size=30),
    st.text(max_size=8))
def test_the_record_text_is_json_dumps_of_its_fields(outcomes, source) -> None:
    """``to_json`` writes the outcomes by a fast path: the text is still exactly what
    ``json.dumps`` gives for ``to_dict()`` (odd MsgIds, reasons and names included)."""
    entry = JournalEntry(operation="move", source=source, destinations=["Q.A"],
                         msgids=[m for m, *_ in outcomes], details={"x": [1, "é"]},
                         outcomes=[Outcome(msgid=m, outcome=o, reason=r, reason_name=n,
                                           destination=d) for m, o, r, n, d in outcomes])
    assert entry.to_json() == json.dumps(entry.to_dict(), separators=(",", ":"),
                                         ensure_ascii=True, default=str)
    assert JournalEntry.from_dict(json.loads(entry.to_json())).to_json() == entry.to_json()

"""Rotation: the live journal renamed aside past a size or an age, the oldest rotated files
dropped past ``keep``, and every file read back in order — also while several processes
append and rotate at once."""

from __future__ import annotations

import json
import multiprocessing
from datetime import UTC, datetime, timedelta

import pytest

from mqconsole.ops.journal import Journal, JournalEntry, Rotation, rotated_files


def test_past_max_bytes_the_journal_is_renamed_aside_and_read_in_order(tmp_path):
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, rotation=Rotation(max_bytes=2000))
    for n in range(40):
        journal.append(JournalEntry(operation="move", details={"n": n}))
    rotated = rotated_files(path)
    assert len(rotated) >= 3 and all(p.parent == tmp_path for p in rotated)
    assert all(p.name.startswith("journal.") and p.suffix == ".jsonl" for p in rotated)
    assert all(p.stat().st_size < 2000 + 600 for p in rotated)
    assert [e.details["n"] for e in journal.read()] == list(range(40))
    assert journal.problems == []
    assert journal.files() == [*rotated, path]


def test_keep_drops_the_oldest_rotated_files(tmp_path):
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, rotation=Rotation(max_bytes=1000, keep=2))
    for n in range(40):
        journal.append(JournalEntry(operation="move", details={"n": n}))
    assert len(rotated_files(path)) == 2
    ns = [e.details["n"] for e in journal.read()]
    assert ns == list(range(ns[0], 40)) and ns[0] > 0


def test_past_max_age_of_its_first_record(tmp_path):
    path = tmp_path / "journal.jsonl"
    old = datetime.now(UTC) - timedelta(days=8)
    Journal(path).append(JournalEntry(operation="move", time=old))
    journal = Journal(path, rotation=Rotation(max_age=timedelta(days=7)))
    journal.append(JournalEntry(operation="copy"))
    [rotated] = rotated_files(path)
    assert [json.loads(x)["operation"] for x in rotated.read_text().splitlines()] == ["move"]
    assert [e.operation for e in journal.read()] == ["move", "copy"]
    journal.append(JournalEntry(operation="load"))  # the new file is young: no rotation
    assert len(rotated_files(path)) == 1


def test_an_operation_across_a_rotation_is_one_change(tmp_path):
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, rotation=Rotation(max_bytes=64 * 1024))
    rec = journal.begin(JournalEntry(operation="move", source="IN", destinations=["OUT"]))
    ids = [f"{n:048X}" for n in range(3000)]
    for k in range(0, 3000, 100):
        rec.unit(ids[k:k + 100], ["OUT"] * 100)
        rec.committed()
    rec.end(JournalEntry(operation="move", source="IN", destinations=["OUT"],
                         outcomes=[{"msgid": m} for m in ids]))
    assert len(rotated_files(path)) >= 2
    [entry] = journal.read()
    assert entry.state == "complete" and entry.msgids == ids and journal.problems == []


def _rotating_writer(path: str, worker: int) -> None:
    journal = Journal(path, rotation=Rotation(max_bytes=64 * 1024))
    for n in range(300):
        journal.append(JournalEntry(operation="move", msgids=[f"{worker:02d}{n:046X}"] * 20,
                                    details={"worker": worker, "n": n}))


@pytest.mark.subprocess
def test_processes_appending_and_rotating_at_once_lose_nothing(tmp_path):
    path = tmp_path / "journal.jsonl"
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("spawn" if "spawn" in methods else methods[0])
    procs = [ctx.Process(target=_rotating_writer, args=(str(path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    journal = Journal(path)
    seen = [(e.details["worker"], e.details["n"]) for e in journal.read()]
    assert journal.problems == [] and len(rotated_files(path)) >= 3
    assert sorted(seen) == [(w, n) for w in range(3) for n in range(300)]
    for w in range(3):  # each writer's records in its own order, across files
        assert [n for v, n in seen if v == w] == list(range(300))


def test_a_rotation_that_cannot_rename_keeps_every_record_in_the_live_file(tmp_path,
                                                                         monkeypatch):
    """Fault: the rename aside fails (a read-only folder, a file system that refuses):
    nothing is lost, the journal goes on appending to the live file (issue 17 item 4)."""
    import os

    path = tmp_path / "journal.jsonl"
    journal = Journal(path, rotation=Rotation(max_bytes=1000))

    def refuse(*_args, **_kw):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "rename", refuse)
    for n in range(30):
        journal.append(JournalEntry(operation="move", details={"n": n}))
    assert rotated_files(path) == []
    assert [e.details["n"] for e in journal.read()] == list(range(30))
    assert journal.problems == []


def test_a_rotated_file_that_cannot_be_read_is_said_and_the_others_are_read(tmp_path):
    """Fault: one rotated file unreadable (a folder in its place here, as root ignores
    permissions): reported by name and skipped; the records of the others all read."""
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, rotation=Rotation(max_bytes=1000))
    for n in range(30):
        journal.append(JournalEntry(operation="move", details={"n": n}))
    rotated = rotated_files(path)
    assert len(rotated) >= 3
    lost = [json.loads(x)["details"]["n"] for x in rotated[1].read_text().splitlines()]
    rotated[1].unlink()
    rotated[1].mkdir()
    ns = [e.details["n"] for e in journal.read()]
    assert ns == [n for n in range(30) if n not in lost]
    assert len(journal.problems) == 1 and str(rotated[1]) in journal.problems[0]

"""Delete: back up first, then remove exactly the saved messages; faults never lose any."""

from __future__ import annotations

import random
import time

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.delete import delete_messages
from mqconsole.ops.dmpfile import load_file
from mqconsole.ops.result import Control
from mqconsole.ops.savefile import TargetExistsError
from mqconsole.ops.selection import Selection
from tests.support.faulty import Faults, FaultyQueueManager, assert_exactly_once

Q = "APP.DLQ"


def failing(**faults) -> Faults:
    """``failing(get={3: ...})``; ``from_n`` helpers below make a fault that never clears."""
    return Faults(**faults)


def from_n(n: int, reason: int = 2009) -> dict[int, int]:
    """A fault on the n-th call and every later one (up to a bound no test reaches)."""
    return dict.fromkeys(range(n, n + 1000), reason)


@pytest.fixture
def qm(make_qm):
    return make_qm(Q)


def fill(qm, n: int, *, queue: str = Q, msg_id: bytes | None = None) -> list[Message]:
    out = []
    for i in range(n):
        md = MQMD(format="MQSTR", ccsid=1208, persistence=1, priority=0,
                  msg_id=msg_id or b"", user_identifier="alice", put_appl_name="test",
                  put_date="20260101", put_time=f"1200{i % 60:02d}00")
        out.append(qm.put(queue, Message(md, f"message {i}".encode()),
                          context=Context.SET_ALL, syncpoint=False))
    return out


def bodies(qm, queue: str = Q) -> list[bytes]:
    with qm.browse(queue) as c:
        return [m.body for m in c.next_batch(100000)]


def test_delete_saves_then_removes_exactly_the_selected(qm, tmp_path):
    fill(qm, 10)
    sel = Selection.build(where="text ~ 'message [2-4]$'")
    r = delete_messages(qm, Q, sel, backup_dir=tmp_path, batch=2)
    assert (r.selected, r.done, r.failed, r.skipped) == (3, 3, [], 0)
    assert bodies(qm) == [f"message {i}".encode() for i in (0, 1, 5, 6, 7, 8, 9)]
    saved = load_file(r.backup)
    assert [m.body for m in saved] == [b"message 2", b"message 3", b"message 4"]
    assert r.backup.startswith(str(tmp_path)) and r.backup.endswith(".dmp")
    assert "QM1-APP.DLQ-" in r.backup


def test_delete_never_overwrites_and_names_unique_files(qm, tmp_path):
    fill(qm, 4)
    target = tmp_path / "b.dmp"
    target.write_text("keep me")
    with pytest.raises(TargetExistsError):
        delete_messages(qm, Q, Selection.build(all_=True), backup=target)
    assert target.read_text() == "keep me" and len(bodies(qm)) == 4
    r1 = delete_messages(qm, Q, Selection.build(all_=True, limit=1), backup_dir=tmp_path)
    r2 = delete_messages(qm, Q, Selection.build(all_=True, limit=1), backup_dir=tmp_path)
    assert r1.backup != r2.backup and len(bodies(qm)) == 2
    assert not list(tmp_path.glob(".*partial"))


def test_delete_with_duplicate_msgids_takes_only_the_selected(qm, tmp_path):
    same = b"SAME".ljust(24, b"\x00")
    fill(qm, 3, msg_id=same)
    r = delete_messages(qm, Q, Selection.build(msgids=[same.hex()], limit=2),
                        backup_dir=tmp_path)
    assert r.done == 2 and bodies(qm) == [b"message 2"]


def test_nothing_selected_removes_nothing_and_writes_no_file(qm, tmp_path):
    fill(qm, 3)
    r = delete_messages(qm, Q, Selection.build(where="text ~ 'nope'"), backup_dir=tmp_path)
    assert r.selected == 0 and r.backup is None and list(tmp_path.iterdir()) == []


def test_dry_run_changes_nothing(qm, tmp_path):
    fill(qm, 3)
    r = delete_messages(qm, Q, Selection.build(all_=True), backup_dir=tmp_path, dry_run=True)
    assert r.dry_run and r.selected == 3 and len(r.plan) == 3 and r.done == 0
    assert len(bodies(qm)) == 3 and list(tmp_path.iterdir()) == []


def test_backup_failure_removes_nothing(qm, tmp_path):
    fill(qm, 3)
    with pytest.raises(OSError):
        delete_messages(qm, Q, Selection.build(all_=True),
                        backup=tmp_path / "missing-folder" / "b.dmp")
    assert len(bodies(qm)) == 3


@pytest.mark.parametrize(("op", "reason"), [("get", 2009), ("commit", 2003),
                                             ("commit", 2102)])
def test_persistent_fault_after_backup_keeps_messages_and_backup(qm, tmp_path, op, reason):
    """(A commit failing with 2009 may have committed: test_commit_outcomes.py.)"""
    fill(qm, 6)
    faulty = FaultyQueueManager(qm, failing(**{op: from_n(1, reason)}))
    r = delete_messages(faulty, Q, Selection.build(all_=True), backup_dir=tmp_path, batch=10)
    assert r.done == 0 and len(r.failed) == 6 and {f.reason for f in r.failed} == {reason}
    assert not r.all_done
    assert sorted(bodies(qm)) == sorted(f"message {i}".encode() for i in range(6))
    assert [m.body for m in load_file(r.backup)] == [f"message {i}".encode() for i in range(6)]
    assert not qm.in_unit_of_work


def test_fault_in_a_later_batch_keeps_the_rest(qm, tmp_path):
    fill(qm, 6)
    faulty = FaultyQueueManager(qm, failing(get=from_n(3)))  # every get from the 3rd on
    r = delete_messages(faulty, Q, Selection.build(all_=True), backup_dir=tmp_path, batch=2)
    assert r.done == 2 and len(r.failed) == 4
    assert bodies(qm) == [f"message {i}".encode() for i in range(2, 6)]
    assert len(load_file(r.backup)) == 6


@pytest.mark.parametrize("op", ["get", "commit"])
def test_one_fault_is_redone_once(qm, tmp_path, op):
    fill(qm, 5)
    faulty = FaultyQueueManager(qm, failing(**{op: {2: 2003 if op == "commit" else 2009}}))
    r = delete_messages(faulty, Q, Selection.build(all_=True), backup_dir=tmp_path, batch=2)
    assert r.all_done and r.done == 5 and bodies(qm) == []


def test_message_taken_meanwhile_is_skipped(qm, tmp_path):
    fill(qm, 3)
    other = qm.new_connection()

    class Race(FaultyQueueManager):
        browses = 0

        def browse(self, queue, *, for_get=False):
            Race.browses += 1
            if Race.browses == 2:  # after the backup, before the removal
                other.get(Q, syncpoint=False)
            return super().browse(queue, for_get=for_get)

    r = delete_messages(Race(qm), Q, Selection.build(all_=True), backup_dir=tmp_path)
    other.close()
    assert r.done == 2 and r.skipped == 1 and r.failed == [] and bodies(qm) == []
    assert any("no longer" in w for w in r.warnings)


def test_cancel_stops_at_a_batch_boundary(qm, tmp_path):
    fill(qm, 6)
    control = Control()
    seen = []

    def progress(done, total):
        seen.append(done)
        if done >= 2 and total == 6 and done < total:
            control.cancel.set()

    control.progress = progress
    r = delete_messages(qm, Q, Selection.build(all_=True), backup_dir=tmp_path, batch=2,
                        control=control)
    assert r.cancelled and r.done == 2 and len(bodies(qm)) == 4
    # never tried: a count of their own, not 'skipped' (issue 24 item 2)
    assert r.not_tried == 4 and r.skipped == 0
    assert r.selected == r.done + len(r.failed) + r.skipped + r.not_tried
    assert r.not_tried_why() == f"cancelled; they stayed on {Q}"


def test_wrong_message_under_the_cursor_is_backed_out_and_redone(qm, tmp_path):
    originals = fill(qm, 4)
    faulty = FaultyQueueManager(qm, failing(wrong_get={2}))
    r = delete_messages(faulty, Q, Selection.build(all_=True), backup_dir=tmp_path, batch=10)
    assert r.all_done and r.done == 4 and bodies(qm) == []
    assert ("wrong_get", 2, 0) in faulty.faults.injected
    assert_exactly_once(originals, load_file(r.backup))


def test_unknown_commit_outcome_stops_and_says_so(qm, tmp_path):
    fill(qm, 6)
    faulty = FaultyQueueManager(qm, failing(commit_after={2: 2549}))
    r = delete_messages(faulty, Q, Selection.build(all_=True), backup_dir=tmp_path, batch=2)
    assert r.outcome_unknown and not r.all_done and r.done == 2
    assert r.not_tried == 2 and r.skipped == 0  # after the unit in doubt: never tried
    assert len(bodies(qm)) == 2 and len(load_file(r.backup)) == 6
    assert any("unknown" in w for w in r.warnings)


def test_the_backup_holds_what_the_general_writer_writes(qm, tmp_path, monkeypatch):
    """The backup is written from each stored message's packed MD (``packed_md``) where it
    still has one: byte for byte what ``write_messages_file`` writes of the same browsed
    messages — versions 1 and 2, both byte orders, an expiry counting down, BackoutCounts
    raised by a backout."""
    from mqconsole.ops.savefile import write_messages_file
    from tests.ops.test_savefile_streaming import messages_part, random_md

    rnd = random.Random(5)
    for i in range(60):
        md = random_md(rnd)
        md.expiry = rnd.choice([-1, -1, 900_000])
        md.backout_count = 0
        md.priority = i % 10
        qm.put(Q, Message(md, rnd.randbytes(rnd.randint(0, 80))), context=Context.SET_ALL,
               syncpoint=False)
    with qm.browse(Q, for_get=True) as c:  # BackoutCount 1 on a few of them
        for _ in range(7):
            c.next()
            c.get_current(syncpoint=True)
    qm.backout()
    later = time.time() + 3600  # an hour on (the Expiry left is not what was put),
    monkeypatch.setattr(time, "time", lambda: later)  # and alike in both browses
    with qm.browse(Q) as c:
        browsed = c.next_batch(1000)
    assert any(m.md.backout_count for m in browsed) and any(m.md.expiry > 0 for m in browsed)
    general = tmp_path / "general.dmp"
    write_messages_file(general, browsed, qmgr=qm.name, queue=Q)
    r = delete_messages(qm, Q, Selection(all=True), backup=tmp_path / "backup.dmp")
    assert r.done == 60 and r.failed == []
    assert messages_part(tmp_path / "backup.dmp") == messages_part(general)

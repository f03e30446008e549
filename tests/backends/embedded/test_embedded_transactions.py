"""Embedded-only: the SQLite write transaction a unit of work keeps open, and what happens
to it when the process is killed, when another connection or process wants the file,
and when the file is of the older schema."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import types
from collections import Counter
from pathlib import Path

import pytest

import mqconsole
from mqconsole.backends.base import Context
from mqconsole.backends.embedded import EmbeddedQueueManager, create_file, session
from mqconsole.backends.embedded.store import NAMESPACE
from mqconsole.backends.open import open_embedded
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs

ROOT = Path(mqconsole.__file__).resolve().parent.parent


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "qm.sqlite"


@pytest.fixture
def qm(make_qm, path: Path) -> EmbeddedQueueManager:
    return make_qm("SRC", "DST", "LOG", max_depth=100_000, path=path, name="QMTX",
                   principal="op")


def m(body: bytes | str, **md: object) -> Message:
    data = body.encode() if isinstance(body, str) else body
    return Message(MQMD(format="MQSTR", **md), data)  # type: ignore[arg-type]


def fill(qm: EmbeddedQueueManager, queue: str, n: int, persistence: int = 1) -> list[str]:
    names = [f"m{i:05d}" for i in range(n)]
    for name in names:
        qm.put(queue, m(name, persistence=persistence), context=Context.NEW)
    qm.commit()
    return names


def contents(qm: EmbeddedQueueManager, queue: str) -> list[tuple[str, int]]:
    with qm.browse(queue) as cur:
        out = []
        while batch := cur.next_batch(500):
            out.extend((x.body.decode(), x.md.backout_count) for x in batch)
        return out


def assert_exactly_once(qm: EmbeddedQueueManager, names: list[str], *queues: str) -> None:
    seen = Counter(body for q in queues for body, _ in contents(qm, q))
    assert set(seen) == set(names), "messages lost or invented"
    assert max(seen.values()) == 1, f"duplicates: {[b for b, c in seen.items() if c > 1]}"
    for q in queues:
        assert qm.inquire_queue(q).depth == len(contents(qm, q))


# -- a killed process -----------------------------------------------------------------

MOVER = r'''
import json, sys, time
from mqconsole.backends.base import Context
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message

args = json.loads(sys.argv[1])
if args.get("hold_after"):
    from mqconsole.backends.embedded import session
    session.IDLE_FLUSH = 3600  # keep the held transaction exactly as it is until the kill
qm = open_embedded(args["path"])
src, dst, batch = args["src"], args["dst"], args["batch"]
moved = 0
with qm.browse(src, for_get=True) as cur:
    print("start", flush=True)
    while (msg := cur.next()) is not None:
        qm.put(dst, msg, context=Context.SET_ALL)   # put first, then take the original
        cur.get_current()
        moved += 1
        if args.get("note_every") and moved % args["note_every"] == 0:
            # a non-syncpoint call flushes the open transaction: its marks reach the file
            qm.put("LOG", Message(MQMD(format="MQSTR"), b"note"), syncpoint=False)
        if moved == args.get("hold_after"):
            print("held", flush=True)
            time.sleep(120)
        if moved % batch == 0:
            qm.commit()
qm.commit()
print("done", flush=True)
time.sleep(120)
'''


def _mover(tmp_path: Path, **args: object) -> subprocess.Popen[str]:
    script = tmp_path / "mover.py"
    script.write_text(MOVER)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen([sys.executable, str(script), json.dumps(args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(proc: subprocess.Popen[str], word: str) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if line != word:
        proc.kill()
        raise AssertionError(f"child said {line!r}: {proc.stderr.read() if proc.stderr else ''}")


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)


@pytest.mark.parametrize("flushed", [False, True], ids=["open-transaction", "flushed"])
@pytest.mark.subprocess
def test_sigkill_in_a_held_unit_of_work_leaves_every_message_once(
        qm: EmbeddedQueueManager, path: Path, tmp_path: Path, flushed: bool) -> None:
    names = fill(qm, "SRC", 300)
    # 4 batches of 50 committed, then 35 moved in a unit of work that stays open; with
    # ``flushed``, every 10th message is followed by a non-syncpoint put, which flushes
    # the SQLite transaction (the last flush after the 230th)
    child = _mover(tmp_path, path=str(path), src="SRC", dst="DST", batch=50, hold_after=235,
                   note_every=10 if flushed else 0)
    _wait_for(child, "start")
    _wait_for(child, "held")
    _kill(child)
    with open_embedded(path) as after:  # connecting backs out the dead process's work
        assert_exactly_once(after, names, "SRC", "DST")
        dst, src = contents(after, "DST"), contents(after, "SRC")
        assert [b for b, _ in dst] == names[:200]
        assert [b for b, _ in src] == names[200:]  # back in their places
        counts = [c for _, c in src]
        if flushed:
            # gets flushed before the kill are recovered from the marks (BackoutCount + 1,
            # as MQ does for a broken connection); the others vanished with the SQLite
            # transaction, leaving their messages as they were
            assert counts == [1] * 30 + [0] * 70
            assert len(contents(after, "LOG")) == 23
        else:
            assert counts == [0] * 100
        st = after.queue_status("SRC")
        assert st.uncommitted_messages == 0 and st.open_input_count == 0


@pytest.mark.subprocess
def test_sigkill_at_random_moments_of_a_move(qm: EmbeddedQueueManager, path: Path,
                                            tmp_path: Path) -> None:
    names = fill(qm, "SRC", 1500, persistence=0)
    rng = random.Random(7)
    src, dst = "SRC", "DST"
    for _ in range(6):
        child = _mover(tmp_path, path=str(path), src=src, dst=dst, batch=40, note_every=97)
        _wait_for(child, "start")
        time.sleep(rng.uniform(0.0, 0.25))
        _kill(child)
        with open_embedded(path) as after:
            assert_exactly_once(after, names, "SRC", "DST")
            if not contents(after, src):
                src, dst = dst, src  # all moved: move them back next time


# -- connections of one process ----------------------------------------------------------

def test_threads_move_with_their_own_connections(qm: EmbeddedQueueManager) -> None:
    names = fill(qm, "SRC", 400, persistence=0)
    errors: list[BaseException] = []

    def mover(conn: EmbeddedQueueManager) -> None:
        try:
            n = 0
            while True:
                try:
                    msg = conn.get("SRC")
                except MQError as e:
                    if e.reason != 2033:
                        raise
                    break
                conn.put("DST", msg)
                n += 1
                if n % 7 == 0:
                    conn.commit()
                elif n % 11 == 0:
                    conn.backout()
            conn.commit()
        except BaseException as exc:  # reported below
            errors.append(exc)

    conns = [qm.new_connection() for _ in range(3)]
    threads = [threading.Thread(target=mover, args=(c,)) for c in conns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for c in conns:
        c.close()
    assert not errors and not any(t.is_alive() for t in threads)
    assert_exactly_once(qm, names, "SRC", "DST")
    assert len(contents(qm, "DST")) > 300  # (a late backout may return a few)


def _waits_for_the_write_lock(monkeypatch: pytest.MonkeyPatch,
                              conn: EmbeddedQueueManager) -> list[str]:
    """Every time this thread waits for the file's write lock from now on: for another
    connection of this process (the file's condition) or for another process (a pause
    between two ``BEGIN IMMEDIATE``). Counted, not timed: the same on a busy machine."""
    me, waits = threading.get_ident(), []
    cond = conn._s.file.cond
    real_wait = cond.wait

    def wait(timeout: float | None = None) -> bool:
        if threading.get_ident() == me:
            waits.append("connection")
        return real_wait(timeout)

    def sleep(seconds: float) -> None:
        if threading.get_ident() == me:
            waits.append("process")
        time.sleep(seconds)

    monkeypatch.setattr(cond, "wait", wait)
    monkeypatch.setattr(session, "time", types.SimpleNamespace(
        monotonic=time.monotonic, time=time.time, sleep=sleep))
    return waits


def test_connections_used_alternately_by_one_thread_never_wait(
        path: Path, qm: EmbeddedQueueManager, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_embedded(path, busy_timeout=0.5) as a, open_embedded(path, busy_timeout=0.5) as b:
        waits = _waits_for_the_write_lock(monkeypatch, a)
        for i in range(50):
            a.put("SRC", m(f"a{i}"))
            b.put("SRC", m(f"b{i}"))
        a.commit()
        b.backout()
        assert waits == []  # each flushed the other's idle transaction instead
    assert sorted(b for b, _ in contents(qm, "SRC")) == sorted(f"a{i}" for i in range(50))


def test_an_idle_unit_of_work_lets_other_processes_write(qm: EmbeddedQueueManager,
                                                         path: Path) -> None:
    fill(qm, "SRC", 2)
    qm.get("SRC")  # the unit of work's transaction holds SQLite's write lock ...
    # (a generous timeout: a busy machine may be slow to run the flusher, and without it
    # the lock is never given up at all)
    other = sqlite3.connect(path, timeout=120, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # ... until it has been idle for IDLE_FLUSH
    other.execute("ROLLBACK")
    other.close()
    assert qm.in_unit_of_work
    qm.commit()
    assert [b for b, _ in contents(qm, "SRC")] == ["m00001"]


def test_a_finalizer_inside_a_call_waits_for_the_call(path: Path,
                                                      qm: EmbeddedQueueManager) -> None:
    fill(qm, "SRC", 1)
    dropped = qm.new_connection()
    dropped.get("SRC")  # its unit of work: to be backed out by its finalizer
    qm.put("LOG", m("x"))  # qm now holds the write lock
    s = qm._s
    with s.lock:  # as if the garbage collector ran the finalizer in the middle of a call
        s.depth += 1
        try:
            dropped._finalizer()  # cannot take the lock from this thread: finishes later
        finally:
            s.depth -= 1
            s.call_ended()
    qm.commit()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and contents(qm, "SRC") != [("m00000", 1)]:
        time.sleep(0.02)
    assert contents(qm, "SRC") == [("m00000", 1)]
    assert [b for b, _ in contents(qm, "LOG")] == ["x"]


def test_a_failed_flush_backs_the_unit_of_work_out(path: Path,
                                                   qm: EmbeddedQueueManager) -> None:
    fill(qm, "SRC", 2)
    other = qm.new_connection()
    qm.get("SRC")
    qm.put("DST", m("moved"))
    # writing the unit of work as marks fails, as a full disk would make it
    qm._db.execute("CREATE TEMP TRIGGER no_marks BEFORE INSERT ON messages "
                   "WHEN NEW.put_by IS NOT NULL BEGIN SELECT RAISE(ABORT, 'injected'); END")
    # the other connection's read flushes qm's transaction, which fails and rolls back
    assert [b for b, _ in contents(other, "SRC")] == ["m00000", "m00001"]
    other.close()
    qm._db.execute("DROP TRIGGER IF EXISTS no_marks")  # (gone with the rollback)
    assert qm.in_unit_of_work
    qm.put("DST", m("later"))  # still accepted: the commit says what happened
    with pytest.raises(MQError) as info:
        qm.commit()
    assert info.value.reason == 2003
    assert contents(qm, "SRC") == [("m00000", 0), ("m00001", 0)]
    assert contents(qm, "DST") == []
    assert qm.inquire_queue("DST").depth == 0 and qm.inquire_queue("SRC").depth == 2


# -- what the connection itself sees -------------------------------------------------------

def test_read_ahead_never_returns_what_was_taken(qm: EmbeddedQueueManager) -> None:
    fill(qm, "SRC", 10)
    with qm.browse("SRC", for_get=True) as cur:
        ids = [x.md.msg_id for x in cur.next_batch(10)]
    with qm.new_connection() as other, qm.browse("SRC", for_get=True) as cur:
        qm.put("DST", m("x"))  # qm's transaction is open: its cursor reads ahead
        assert cur.next().body == b"m00000"
        assert qm.get_by_msgid("SRC", ids[4]).body == b"m00004"  # by this connection
        assert other.get_by_msgid("SRC", ids[2], syncpoint=False).body == b"m00002"  # another
        rest = [x.body for x in cur.next_batch(20)]
        assert rest == [f"m{i:05d}".encode() for i in (1, 3, 5, 6, 7, 8, 9)]
        assert cur.get_current().body == b"m00009"
        assert cur.next() is None
    qm.backout()
    assert contents(qm, "SRC") == [("m00000", 0), ("m00001", 0), ("m00003", 0), ("m00004", 1),
                                   ("m00005", 0), ("m00006", 0), ("m00007", 0), ("m00008", 0),
                                   ("m00009", 1)]


@pytest.mark.parametrize("every", [1, 7, 100, 700])
def test_read_ahead_sized_by_the_commit_cadence_moves_all_in_order(
        qm: EmbeddedQueueManager, monkeypatch, every: int) -> None:
    names = [f"m{i:05d}" for i in range(1000)]
    for i, name in enumerate(names):
        qm.put("SRC", m(name, priority=(i * 7) % 10), context=Context.NEW)
    qm.commit()
    expected = [b for b, _ in contents(qm, "SRC")]  # delivery order
    fetched: list[int] = []
    real = EmbeddedQueueManager._browse_rows

    def counting(self, local, after, n):  # type: ignore[no-untyped-def]
        rows = real(self, local, after, n)
        fetched.append(len(rows))
        return rows

    monkeypatch.setattr(EmbeddedQueueManager, "_browse_rows", counting)
    moved = 0
    with qm.browse("SRC", for_get=True) as cur:
        while (x := cur.next()) is not None:
            qm.put("DST", x)
            cur.get_current()
            moved += 1
            if moved % every == 0:
                qm.commit()
    qm.commit()
    monkeypatch.undo()
    assert [b for b, _ in contents(qm, "DST")] == expected
    assert contents(qm, "SRC") == []
    # the read-ahead follows the cadence: few rows are read and dropped at a commit
    assert sum(fetched) <= 1000 + 16 * (1000 // every + 1) + 64


def test_maxdepth_counts_uncommitted_puts_and_gets(qm: EmbeddedQueueManager) -> None:
    qm.define_queue(QueueAttrs("SMALL", max_depth=3))
    fill(qm, "SMALL", 2)
    qm.put("SMALL", m("third"))
    with pytest.raises(MQError) as info:
        qm.put("SMALL", m("fourth"))
    assert info.value.reason == 2053
    qm.get("SMALL")  # an uncommitted get frees its place, as on MQ
    qm.put("SMALL", m("fourth"))
    assert qm.inquire_queue("SMALL").depth == 3
    qm.commit()
    assert [b for b, _ in contents(qm, "SMALL")] == ["m00001", "third", "fourth"]


def test_commits_of_persistent_messages_reach_the_disk(qm: EmbeddedQueueManager,
                                                       monkeypatch) -> None:
    synced: list[int] = []
    real = session._datasync
    monkeypatch.setattr(session, "_datasync", lambda fd: synced.append(fd) or real(fd))
    qm.put("SRC", m("np", persistence=0))
    qm.commit()
    assert synced == []  # non-persistent: SQLite's WAL with synchronous=NORMAL
    qm.put("SRC", m("p", persistence=1))
    qm.commit()
    assert len(synced) == 1
    qm.get("SRC")  # the non-persistent one
    qm.put("LOG", m("p2", persistence=1), syncpoint=False)  # hardened at once, as on MQ
    assert len(synced) == 2
    qm.commit()
    assert len(synced) == 2
    qm.get("SRC")  # the persistent one
    qm.backout()  # backout counts are not hardened (MQ's NOHARDENBO)
    assert len(synced) == 2


# -- another process -------------------------------------------------------------------

PUTTER = r'''
import json, pathlib, sys
from mqconsole.backends.embedded import session
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
args = json.loads(sys.argv[1])
session.YIELD_MAX = args["yield_max"]
stop = pathlib.Path(args["stop"])
qm = open_embedded(args["path"])
md = MQMD(format="MQSTR", persistence=0)
n = 0
while not stop.exists():  # always inside a write transaction, committing every 100 puts
    qm.put("BUSY", Message(md, b"busy"))
    n += 1
    if n % 100 == 0:
        qm.commit()
qm.commit()
print(n, flush=True)
'''


@pytest.mark.subprocess
def test_a_busy_writer_process_lets_another_in(qm: EmbeddedQueueManager, path: Path,
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that is always in a write transaction (committing every 100 puts) lets a
    waiting writer of another process in at its next commit: once that one's flag is up,
    at most the busy writer's open unit (100 puts) lands before it, never many of its
    commits (with ``yield_max=0``: 100 to 3,300 each, quiet or loaded, 2026-12-03; not a
    test of its own, as how often that one wins the race is the scheduler's). Counted in
    rows from the moment the flag went up, not from when the test looked: how long the
    waiter takes to be scheduled between its first refused BEGIN and raising its flag
    (many of the busy writer's commits on a loaded machine) is left out. The busy writer
    yields for up to YIELD_MAX, raised here so that how busy the machine is does not
    matter."""
    waits, busy = _puts_ahead_of_a_waiting_writer(qm, path, tmp_path, monkeypatch,
                                                  yield_max=120)
    assert busy >= 2000  # the busy writer was busy: 20 commits seen
    assert len(waits) >= 10, waits  # most puts found the lock held and raised the flag
    assert max(waits) <= 100, waits


def _puts_ahead_of_a_waiting_writer(qm: EmbeddedQueueManager, path: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch,
                                    yield_max: float) -> tuple[list[int], int]:
    """For 20 puts made while a busy writer process goes on: for each that had to wait
    (raised its flag), how many of the busy writer's puts landed after the flag went up
    and before it; and how many the busy writer made in all."""
    qm.define_queue(QueueAttrs("BUSY", max_depth=100_000_000))
    script = tmp_path / "putter.py"
    script.write_text(PUTTER)
    stop = tmp_path / "stop"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    reader = sqlite3.connect(path)  # committed rows, read apart from the waiting connection
    flagged: list[int] = []  # the busy writer's last committed row when the flag went up
    raise_flag = session._File.raise_flag

    def raise_and_note(self: session._File) -> None:
        raise_flag(self)
        flagged.append(reader.execute("SELECT coalesce(max(id), 0) FROM messages "
                                      "WHERE queue = 'BUSY'").fetchone()[0])

    monkeypatch.setattr(session._File, "raise_flag", raise_and_note)
    child = subprocess.Popen([sys.executable, str(script), json.dumps(
        {"path": str(path), "stop": str(stop), "yield_max": yield_max})],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    waits = []  # the busy writer's puts that landed while each put of quick's waited
    try:
        with open_embedded(path, busy_timeout=60) as quick:
            db, seen = quick._db, 0
            for _ in range(20):
                deadline = time.monotonic() + 120  # until the busy writer commits again
                while db.execute("SELECT coalesce(max(id), 0) FROM messages "
                                 "WHERE queue = 'BUSY'").fetchone()[0] <= seen:
                    assert child.poll() is None and time.monotonic() < deadline, \
                        child.communicate()
                    time.sleep(0.005)
                flagged.clear()
                quick.put("LOG", m("between"), syncpoint=False)
                mine = db.execute("SELECT max(id) FROM messages WHERE queue = 'LOG'"
                                  ).fetchone()[0]
                if flagged:
                    waits.append(db.execute(
                        "SELECT count(*) FROM messages WHERE queue = 'BUSY' AND id > ? "
                        "AND id < ?", (flagged[0], mine)).fetchone()[0])
                seen = mine  # the next put waits for a commit of the busy writer after it
    finally:
        stop.touch()
        out, err = child.communicate(timeout=120)
        reader.close()
    assert child.returncode == 0, err
    return waits, int(out.split()[-1])


# -- schema 1 files ------------------------------------------------------------------

V1_TRIGGERS = """
CREATE INDEX messages_correl_id ON messages(queue, correl_id);
CREATE TRIGGER depth_put AFTER INSERT ON messages WHEN NEW.got_by IS NULL BEGIN
    UPDATE queues SET curdepth = curdepth + 1, last_put = NEW.put_time
    WHERE name = NEW.queue;
END;
CREATE TRIGGER depth_delete AFTER DELETE ON messages WHEN OLD.got_by IS NULL BEGIN
    UPDATE queues SET curdepth = curdepth - 1 WHERE name = OLD.queue;
END;
CREATE TRIGGER depth_get AFTER UPDATE OF got_by ON messages
    WHEN OLD.got_by IS NULL AND NEW.got_by IS NOT NULL BEGIN
    UPDATE queues SET curdepth = curdepth - 1 WHERE name = NEW.queue;
END;
CREATE TRIGGER depth_backout AFTER UPDATE OF got_by ON messages
    WHEN OLD.got_by IS NOT NULL AND NEW.got_by IS NULL BEGIN
    UPDATE queues SET curdepth = curdepth + 1 WHERE name = NEW.queue;
END;
UPDATE meta SET value = '1' WHERE key = 'schema_version';
PRAGMA user_version = 1;
"""


def _schema_1_file(path: Path) -> Path:
    """A queue manager file as the first mqconsole made it (schema 1, with triggers)."""
    create_file(path, "QMV1")
    db = sqlite3.connect(path)
    db.executescript(V1_TRIGGERS)
    db.close()
    return path


def _file_state(path: Path) -> tuple[int, list[str]]:
    db = sqlite3.connect(path)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        triggers = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")]
        return version, triggers
    finally:
        db.close()


def test_schema_1_file_is_upgraded_when_no_one_else_uses_it(tmp_path: Path) -> None:
    path = _schema_1_file(tmp_path / "old.qm")
    with open_embedded(path) as first:  # alone: upgraded at once
        assert _file_state(path) == (2, [])
        first.define_queue(QueueAttrs("Q"))
        fill(first, "Q", 3)
        assert first.inquire_queue("Q").depth == 3


def test_schema_1_file_in_use_keeps_its_triggers_until_free(tmp_path: Path) -> None:
    path = _schema_1_file(tmp_path / "old.qm")
    db = sqlite3.connect(path)  # a process of an older mqconsole has it open
    db.execute("INSERT INTO connections (pid, proc_start, host, principal, appl, started) "
               "VALUES (?, NULL, ?, 'old', 'old', 0)", (os.getppid(), NAMESPACE))
    db.commit()
    db.close()
    with open_embedded(path) as qm:
        assert _file_state(path)[0] == 1  # not upgraded under the older process's feet
        qm.define_queue(QueueAttrs("Q"))
        fill(qm, "Q", 5)
        qm.get("Q")
        qm.put("Q", m("new"))
        assert qm.inquire_queue("Q").depth == 5
        with qm.new_connection() as other:
            assert other.inquire_queue("Q").depth == 5  # flushed: the triggers counted
        qm.backout()
        assert qm.inquire_queue("Q").depth == 5
        qm.get("Q", syncpoint=False)
        assert qm.inquire_queue("Q").depth == 4
    db = sqlite3.connect(path)
    db.execute("DELETE FROM connections")  # the older process has gone
    db.commit()
    db.close()
    with open_embedded(path) as qm:
        assert _file_state(path) == (2, [])
        assert qm.inquire_queue("Q").depth == 4
        assert len(contents(qm, "Q")) == 4


def test_schema_1_file_in_use_counts_a_bulk_move(tmp_path: Path) -> None:
    """On a schema-1 file still in use (its triggers count depths on inserts and deletes)
    the rows ``move_next`` noted are deleted and inserted at the commit, not moved in
    place: both depths stay right, every message moved once, in order."""
    from mqconsole.ops.selection import Selection
    from mqconsole.ops.transfer import transfer

    path = _schema_1_file(tmp_path / "old.qm")
    db = sqlite3.connect(path)  # a process of an older mqconsole has it open
    db.execute("INSERT INTO connections (pid, proc_start, host, principal, appl, started) "
               "VALUES (?, NULL, ?, 'old', 'old', 0)", (os.getppid(), NAMESPACE))
    db.commit()
    db.close()
    with open_embedded(path) as qm:
        assert _file_state(path)[0] == 1 and qm._s.triggers
        qm.define_queue(QueueAttrs("Q"))
        qm.define_queue(QueueAttrs("D"))
        names = fill(qm, "Q", 12)
        r = transfer(qm, "Q", "D", Selection.build(all_=True), batch=5)
        assert r.done == 12
        assert qm.inquire_queue("Q").depth == 0 and qm.inquire_queue("D").depth == 12
        assert [b for b, _ in contents(qm, "D")] == names
        with qm.new_connection() as other:
            assert other.inquire_queue("D").depth == 12


def test_move_current_to_is_put_then_get_current(qm: EmbeddedQueueManager) -> None:
    """The cursor's one-call move step (internal, used by ops/transfer.py): a put under
    syncpoint, then the browsed message got under syncpoint; a failed put raises and gets
    nothing; a failed get after the put is returned and the put stays in the unit."""
    fill(qm, "SRC", 4)
    qm.define_queue(QueueAttrs("FULL", max_depth=0))
    with qm.browse("SRC", for_get=True) as cur:
        x = cur.next()
        assert x is not None
        assert cur.move_current_to("DST", x) is None
        assert qm.in_unit_of_work
        x = cur.next()
        with pytest.raises(MQError) as info:
            cur.move_current_to("FULL", x)  # put refused: nothing got
        assert info.value.reason == 2053
        with pytest.raises(MQError) as info:
            cur.move_current_to("NOPE", x)
        assert info.value.reason == 2085
        assert cur.move_current_to("DST", x, context=Context.SET_ALL) is None  # still there
        x = cur.next()
        with qm.new_connection() as other:
            assert other.get_by_msgid("SRC", x.md.msg_id, syncpoint=False).body == b"m00002"
        err = cur.move_current_to("DST", x)  # put, then the get finds it gone
        assert isinstance(err, MQError) and err.reason == 2034
        err = cur.move_current_to("DST", x)  # nothing under the cursor now
        assert isinstance(err, MQError) and err.reason == 2034
    assert contents(qm, "SRC") == [("m00003", 0)]
    qm.backout()
    assert contents(qm, "SRC") == [("m00000", 1), ("m00001", 1), ("m00003", 0)]
    assert contents(qm, "DST") == []
    with qm.browse("SRC", for_get=True) as cur:
        while (x := cur.next()) is not None:
            assert cur.move_current_to("DST", x) is None
    qm.commit()
    assert contents(qm, "SRC") == []
    assert contents(qm, "DST") == [("m00000", 0), ("m00001", 0), ("m00003", 0)]


def test_move_current_to_as_browsed_stores_the_same_md(qm: EmbeddedQueueManager) -> None:
    """``as_browsed=True`` stores the MD as it was stored instead of packing it again: the
    bytes are those of the ordinary put (BackoutCount raised by a backout, an Expiry
    counting down, version 1 and big-endian descriptors, the other contexts and a
    message not the one browsed included)."""
    mds = [MQMD(), MQMD(version=1), MQMD(encoding=273, priority=7), MQMD(expiry=99999),
           MQMD(persistence=0, format="MQSTR", correl_id=b"c" * 24, reply_to_q="R")]
    for q in ("S1", "S2", "D1", "D2", "S1B", "S2B"):
        qm.define_queue(QueueAttrs(q))
    for q in ("S1", "S2"):
        for i, md in enumerate(mds):
            qm.put(q, Message(md.copy(msg_id=bytes([i + 1]) * 24), b"x%d" % i),
                   context=Context.SET_ALL)
    qm.commit()
    for q in ("S1", "S2"):  # a backout raises the BackoutCount of two of them
        with qm.browse(q, for_get=True) as cur:
            for _ in range(2):
                cur.get_current() if cur.next() else None
        qm.backout()
    def stored(queue: str) -> list[tuple[bytes, bytes]]:
        # (PutDate/PutTime of a new-context put differ by the clock: left out)
        return [(md[:304] + md[320:], body) for md, body in qm._db.execute(
            "SELECT md, body FROM messages WHERE queue = ? ORDER BY id", (queue,))]

    seen = {}
    for src, dst, fast in (("S1", "D1", True), ("S2", "D2", False)):
        for context in (Context.SET_ALL, Context.NEW):
            with qm.browse(src, for_get=True) as cur:
                while (x := cur.next()) is not None:
                    if x.body == b"x4":  # a message other than the one browsed
                        x = Message(x.md.copy(), x.body)
                    assert cur.move_current_to(dst, x, context=context,
                                               as_browsed=fast) is None
            qm.commit()
            seen[fast, context] = stored(dst)
            src, dst = dst, src + "B"
    for context in (Context.SET_ALL, Context.NEW):
        assert seen[True, context] == seen[False, context]
        assert len(seen[True, context]) == len(mds)


def test_one_pass_move_stores_what_the_two_calls_store(qm: EmbeddedQueueManager,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``move_current_to`` of a message browsed in the open transaction takes one pass
    (``_move_browsed``) once the destination is resolved; the rows it leaves are those of
    put + get_current, column for column, and it steps aside when a check could fail."""
    passes: list[bool | None] = []
    real = EmbeddedQueueManager._move_browsed

    def counting(self, *args):  # type: ignore[no-untyped-def]
        passes.append(real(self, *args))
        return passes[-1]

    monkeypatch.setattr(EmbeddedQueueManager, "_move_browsed", counting)
    for q in ("S1", "S2"):
        qm.define_queue(QueueAttrs(q))
        for i in range(6):
            qm.put(q, m(f"b{i}", priority=i % 3, correl_id=bytes([i]) * 24,
                        msg_id=bytes([i + 1]) * 24, persistence=i % 2,
                        encoding=273 if i % 3 else 546),  # (big- and little-endian MDs)
                   context=Context.SET_ALL)
    qm.define_queue(QueueAttrs("D1", max_depth=4))
    qm.define_queue(QueueAttrs("D2", max_depth=4))
    qm.commit()
    refused = {}
    for src, dst, fast in (("S1", "D1", True), ("S2", "D2", False)):
        with qm.browse(src, for_get=True) as cur:
            while (x := cur.next()) is not None:
                try:
                    if fast:
                        assert cur.move_current_to(dst, x, as_browsed=True) is None
                    else:
                        qm.put(dst, x, context=Context.SET_ALL)
                        cur.get_current()
                except MQError as e:
                    refused.setdefault(dst, []).append(e.reason)
        qm.commit()
    # the first (browsed before the transaction began) takes the two calls, the next
    # three one pass; at the depth limit it steps aside: the put counts exactly, refuses
    assert passes == [True, True, True, None, None]
    assert refused == {"D1": [2053, 2053], "D2": [2053, 2053]}

    def rows(queue: str) -> list[tuple]:
        return [tuple(r) for r in qm._db.execute(
            "SELECT npri, priority, backout_count, expires_at, msg_id, correl_id, length, "
            "put_by, got_by, md, body FROM messages WHERE queue = ? ORDER BY id",
            (queue,))]

    assert rows("D1") == rows("D2") and len(rows("D1")) == 4
    assert rows("S1") == rows("S2") and len(rows("S1")) == 2
    assert qm.inquire_queue("D1").depth == 4 and qm.inquire_queue("S1").depth == 2


def test_move_next_stores_what_the_two_calls_store(qm: EmbeddedQueueManager,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``move_next`` (many move steps in one call) moves the rows after the cursor while
    each can go in one pass, and stops before the first that cannot (an expiry, a group
    member, a BackoutCount raised, no room under MAXDEPTH), which ``next`` then gives; the
    rows it leaves are those of put + get_current, column for column; nothing before the
    transaction's first move step resolved the destination."""
    # the clock stands still: the two paths run at different moments, and a message's
    # Expiry (remaining tenths, stored in its MD) would otherwise differ between them
    frozen = time.time()
    monkeypatch.setattr(time, "time", lambda: frozen)
    group = {"version": 2, "group_id": b"G" * 24, "msg_flags": 0x10}  # MQMF_LAST_MSG_IN_GROUP
    odd = {3: {"expiry": 99999}, 6: group, 8: {}}
    for q in ("S1", "S2"):
        qm.define_queue(QueueAttrs(q))
        for i in range(12):
            qm.put(q, m(f"b{i}", priority=i % 2, correl_id=bytes([i]) * 24,
                        msg_id=bytes([i + 1]) * 24, persistence=i % 2,
                        encoding=273 if i % 3 else 546, **odd.get(i, {})),
                   context=Context.SET_ALL)
    for q in ("D1", "D2"):
        qm.define_queue(QueueAttrs(q, max_depth=10))
    qm.commit()
    for q in ("S1", "S2"):  # a backout raises b8's BackoutCount
        with qm.browse(q, for_get=True) as cur:
            while (x := cur.next()) is not None and x.body != b"b8":
                pass
            cur.get_current()
        qm.backout()
    calls = []
    with qm.browse("S1", for_get=True) as cur:
        assert cur.move_next("D1", 5) == []  # nothing resolved D1 in a transaction yet
        while (x := cur.next()) is not None:
            calls.append(("step", x.body))
            try:
                assert cur.move_current_to("D1", x, as_browsed=True) is None
            except MQError as e:
                calls.append(("refused", e.reason))
            moved = cur.move_next("D1", 100)
            calls += [("many", y.body) for y in moved]
    qm.commit()
    with qm.browse("S2", for_get=True) as cur:
        while (x := cur.next()) is not None:
            with contextlib.suppress(MQError):
                qm.put("D2", x, context=Context.SET_ALL)
                cur.get_current()
    qm.commit()
    # delivery order: priority 1 (odd bodies) first, then 0
    assert calls == [("step", b"b1"), ("step", b"b3"),
                     *[("many", b"b%d" % i) for i in (5, 7, 9, 11, 0, 2, 4)],
                     ("step", b"b6"), ("step", b"b8"), ("refused", 2053),
                     ("step", b"b10"), ("refused", 2053)]

    def rows(queue: str) -> list[tuple]:
        return [tuple(r) for r in qm._db.execute(
            "SELECT npri, priority, backout_count, expires_at IS NULL, msg_id, correl_id, "
            "length, put_by, got_by, md, body, f_reason, f_dest, f_dest_qm, f_format, f_put "
            "FROM messages WHERE queue = ? ORDER BY id", (queue,))]

    assert rows("D1") == rows("D2") and len(rows("D1")) == 10
    assert rows("S1") == rows("S2") and len(rows("S1")) == 2
    assert qm.inquire_queue("D1").depth == 10 and qm.inquire_queue("S1").depth == 2


def _fail_once(qm: EmbeddedQueueManager, when: str, what: str = "DELETE") -> None:
    """A temporary trigger failing the first statement that deletes (``what``) a row
    matching ``when`` (later ones go through): ``fail_once()`` raises once."""
    fired = []

    def fail_once() -> int:
        if not fired:
            fired.append(1)
            raise RuntimeError("injected")
        return 0

    qm._db.create_function("fail_once", 0, fail_once)
    qm._db.execute(f"CREATE TEMP TRIGGER fail_get BEFORE {what} ON messages WHEN {when} "
                   "BEGIN SELECT fail_once(); END")


def test_move_next_writes_nothing_until_the_commit(qm: EmbeddedQueueManager) -> None:
    """``move_next`` only notes the rows it moves: they stay in the table until the
    commit moves them, yet no other call of the connection sees them there (each first
    turns them into deferred gets and puts), and the commit moves them once, in order."""
    fill(qm, "SRC", 6)
    other = qm.browse("SRC")
    with qm.browse("SRC", for_get=True) as cur:
        x = cur.next()
        assert x is not None and cur.move_current_to("DST", x, as_browsed=True) is None
        assert [y.body for y in cur.move_next("DST", 3)] == [b"m00001", b"m00002", b"m00003"]
        (left,) = qm._db.execute("SELECT count(*) FROM messages WHERE queue = 'SRC'").fetchone()
        assert left == 5 and qm._s.moves  # m00000 got by the step, the rest noted
        # another call first settles them: another cursor on the source does not see them
        assert [y.body for y in other.next_batch(10)] == [b"m00004", b"m00005"]
        assert not qm._s.moves
        other.close()
        while True:
            if cur.move_next("DST", 10):
                continue
            y = cur.next()
            if y is None:
                break
            assert cur.move_current_to("DST", y, as_browsed=True) is None
    qm.commit()
    assert contents(qm, "SRC") == []
    assert contents(qm, "DST") == [(f"m{i:05d}", 0) for i in range(6)]
    assert qm.inquire_queue("SRC").depth == 0 and qm.inquire_queue("DST").depth == 6


def test_commit_failing_to_move_the_moved_rows_backs_out(qm: EmbeddedQueueManager) -> None:
    """An SQLite error moving the rows ``move_next`` noted, at the commit (half-way through
    its statement): the transaction is rolled back and the unit of work backed out
    (2003); every message stays on the source once, none reached the destination."""
    fill(qm, "SRC", 6)
    with qm.browse("SRC", for_get=True) as cur:
        x = cur.next()
        assert x is not None and cur.move_current_to("DST", x, as_browsed=True) is None
        assert len(cur.move_next("DST", 10)) == 5
        _fail_once(qm, "OLD.queue = 'SRC' AND OLD.body = CAST('m00003' AS BLOB)", "UPDATE")
        with pytest.raises(MQError) as info:
            qm.commit()
    assert info.value.reason == 2003 and not qm.in_unit_of_work
    qm._db.execute("DROP TRIGGER IF EXISTS fail_get")
    # rolled back whole: the step's get was undone by SQLite itself (MQ may raise the count)
    assert contents(qm, "SRC") == [(f"m{i:05d}", 0) for i in range(6)]
    assert contents(qm, "DST") == []
    assert qm.inquire_queue("SRC").depth == 6 and qm.inquire_queue("DST").depth == 0


def test_move_next_rows_failing_to_settle_leave_the_unit_to_back_out(
        qm: EmbeddedQueueManager) -> None:
    """An SQLite error turning the rows ``move_next`` moved into deferred gets (another
    call came before the commit): that call fails, the transaction was rolled back, so the
    unit of work (the step before them too) can only be backed out (2003); every message
    stays on the source once."""
    fill(qm, "SRC", 6)
    with qm.browse("SRC", for_get=True) as cur:
        x = cur.next()
        assert x is not None and cur.move_current_to("DST", x, as_browsed=True) is None
        assert len(cur.move_next("DST", 10)) == 5
        _fail_once(qm, "OLD.queue = 'SRC' AND OLD.body = CAST('m00003' AS BLOB)")
        with pytest.raises(MQError) as info:
            qm.inquire_queue("SRC")
        assert "user-defined function raised exception" in str(info.value)
        with pytest.raises(MQError) as info:
            qm.commit()
        assert info.value.reason == 2003 and not qm.in_unit_of_work
    assert contents(qm, "SRC") == [(f"m{i:05d}", 0) for i in range(6)]
    assert contents(qm, "DST") == []
    assert qm.inquire_queue("SRC").depth == 6 and qm.inquire_queue("DST").depth == 0


@pytest.mark.parametrize("undo_fails", [False, True], ids=["undone", "rolled-back"])
def test_commit_failing_midway_through_its_puts_leaves_none(qm: EmbeddedQueueManager,
                                                           undo_fails: bool) -> None:
    """The commit inserts the unit's puts in one statement; one failing midway (here the
    third of five) leaves none of them, the gets backed out, and says 2003 — also when
    taking the inserted rows out fails too and the whole transaction is rolled back."""
    fill(qm, "SRC", 5)
    # (closing the cursor would write the unit as marks)
    with qm.browse("SRC", for_get=True) as cur:
        while (x := cur.next()) is not None:
            assert cur.move_current_to("DST", x, as_browsed=True) is None
        assert qm._s.held and qm._s.pending and not qm._s.db_marks
        qm._db.execute("CREATE TEMP TRIGGER fail_put BEFORE INSERT ON messages "
                       "WHEN NEW.body = CAST('m00002' AS BLOB) AND NEW.queue = 'DST' "
                       "BEGIN SELECT RAISE(ABORT, 'injected'); END")
        if undo_fails:
            qm._db.execute("CREATE TEMP TRIGGER fail_undo BEFORE DELETE ON messages "
                           "WHEN OLD.queue = 'DST' BEGIN SELECT RAISE(ABORT, 'no'); END")
        with pytest.raises(MQError) as info:
            qm.commit()
    assert info.value.reason == 2003 and not qm.in_unit_of_work
    # (created inside the transaction: a rollback of it takes them away too)
    qm._db.execute("DROP TRIGGER IF EXISTS fail_put")
    qm._db.execute("DROP TRIGGER IF EXISTS fail_undo")
    assert contents(qm, "DST") == []
    # undone in the transaction: the backout raises each BackoutCount; rolled back whole,
    # the gets were undone by SQLite itself and the counts stay (MQ may raise them)
    assert [b for b, _ in contents(qm, "SRC")] == [f"m{i:05d}" for i in range(5)]
    assert {n for _, n in contents(qm, "SRC")} == ({0} if undo_fails else {1})
    assert qm.inquire_queue("SRC").depth == 5 and qm.inquire_queue("DST").depth == 0


def test_one_pass_move_whose_get_fails_returns_it_and_loses_nothing(
        qm: EmbeddedQueueManager) -> None:
    """An SQLite error deleting the browsed row in the one-pass move is returned as the
    get's failure (the put went into the unit), and the unit can then only be backed out:
    its commit says 2003, and every message is on the source once."""
    names = fill(qm, "SRC", 4)
    with qm.browse("SRC", for_get=True) as cur:
        x = cur.next()
        assert x is not None and cur.move_current_to("DST", x, as_browsed=True) is None
        qm._db.execute("CREATE TEMP TRIGGER fail_get BEFORE DELETE ON messages "
                       "WHEN OLD.queue = 'SRC' AND OLD.body = CAST('m00002' AS BLOB) "
                       "BEGIN SELECT RAISE(ABORT, 'injected'); END")
        x = cur.next()
        assert x is not None and cur.move_current_to("DST", x, as_browsed=True) is None
        x = cur.next()
        assert x is not None and x.body == b"m00002"
        err = cur.move_current_to("DST", x, as_browsed=True)
        assert isinstance(err, MQError) and "injected" in str(err)
        with pytest.raises(MQError) as info:
            qm.commit()
        assert info.value.reason == 2003
    qm._db.execute("DROP TRIGGER IF EXISTS fail_get")
    assert [b for b, _ in contents(qm, "SRC")] == names
    assert contents(qm, "DST") == []
    assert qm.inquire_queue("SRC").depth == 4 and qm.inquire_queue("DST").depth == 0


@pytest.mark.parametrize("flushed", [False, True], ids=["in-transaction", "flushed"])
def test_backout_puts_back_every_column_of_the_rows_got(qm: EmbeddedQueueManager,
                                                        flushed: bool) -> None:
    """A get keeps only some columns of the row it takes; a backout puts the row back
    whole (the columns that repeat the MD come from it), whether the gets were still in
    the transaction or written as marks for another connection (then re-inserted)."""
    for i, md in enumerate((MQMD(priority=7, correl_id=b"c" * 24, encoding=273),
                            MQMD(version=1, priority=0, persistence=0),
                            MQMD(priority=12, expiry=600_000))):
        qm.put("SRC", Message(md.copy(msg_id=bytes([i + 1]) * 24), b"body %d" % i))
    qm.commit()

    def rows() -> list[tuple]:
        return [tuple(r) for r in qm._db.execute(
            "SELECT id, queue, npri, priority, expires_at, msg_id, correl_id, put_time, "
            "length, md, body, put_by, got_by FROM messages ORDER BY id")]

    before = rows()
    with qm.browse("SRC", for_get=True) as cur:
        assert cur.next() is not None and cur.get_current().body == b"body 2"  # (9)
    assert qm.get("SRC").body == b"body 0"
    assert qm.get_by_msgid("SRC", bytes([2]) * 24).body == b"body 1"
    if flushed:  # another connection of the process writes the unit of work as marks
        with qm.new_connection() as other:
            assert other.inquire_queue("SRC").depth == 0  # (gets lower CURDEPTH)
        assert qm._s.db_marks
    qm.backout()
    assert rows() == before
    counts = [n for _, n in contents(qm, "SRC")]
    assert counts == [1, 1, 1]


@pytest.mark.parametrize("encoding", [546, 273], ids=["little-endian", "big-endian"])
def test_one_pass_move_of_a_persistent_message_syncs_at_commit(qm: EmbeddedQueueManager,
                                                               encoding: int) -> None:
    """The one pass reads Persistence from the stored bytes (either byte order): a unit
    of work that moved a persistent message is synced at commit, one of only
    non-persistent messages is not."""
    for i, persistence in enumerate((0, 0, 1)):
        qm.put("SRC", m(f"p{i}", persistence=persistence, encoding=encoding))
    qm.commit()
    durable = []
    with qm.browse("SRC", for_get=True) as cur:
        while (x := cur.next()) is not None:
            assert cur.move_current_to("DST", x, as_browsed=True) is None
            durable.append(qm._s.durable)
        qm.commit()
    # the first is moved by the two calls (browsed before the transaction began)
    assert durable == [False, False, True]

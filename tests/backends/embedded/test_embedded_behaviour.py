"""Embedded-only behaviour: context values, MsgIds, status details, recovery, SQLite errors."""

from __future__ import annotations

import gc
import os
import sqlite3
import time
from pathlib import Path

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import EmbeddedQueueManager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs, QueueType, Usage
from mqconsole.mq.xqh import MQMDE, MQXQH


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "qm.sqlite"


@pytest.fixture
def qm(make_qm, path: Path) -> EmbeddedQueueManager:
    return make_qm("Q", path=path, name="QMEMB", principal="operator1")


def m(body: bytes = b"x", **md: object) -> Message:
    return Message(MQMD(**md), body)  # type: ignore[arg-type]


def test_new_context_values(qm: EmbeddedQueueManager) -> None:
    before = time.strftime("%Y%m%d", time.gmtime())
    put = qm.put("Q", m(), context=Context.NEW, syncpoint=False)
    md = put.md
    assert md.user_identifier == "operator1   "
    assert (md.put_appl_type, md.put_appl_name.strip()) == (6, "mqconsole")
    assert md.put_date in (before, time.strftime("%Y%m%d", time.gmtime()))  # (midnight)
    assert md.msg_id[:4] == b"AMQ " and md.msg_id[4:16] == b"QMEMB       "


def test_long_principal_is_cut_to_twelve(path: Path, qm: EmbeddedQueueManager) -> None:
    with qm.new_connection(principal="a-very-long-user-name") as other:
        md = other.put("Q", m(), context=Context.NEW, syncpoint=False).md
    assert md.user_identifier == "a-very-long-"


def test_queue_status_handles_and_uncommitted_across_connections(
        qm: EmbeddedQueueManager) -> None:
    with qm.new_connection(principal="other") as other:
        other.put("Q", m(b"pending"))
        with other.browse("Q", for_get=True):
            st = qm.queue_status("Q")
        assert st.uncommitted_messages == 1 and st.depth == 1
        [h] = st.handles
        assert (h["pid"], h["user_id"], h["browse"], h["input"], h["uow"]) == \
            (os.getpid(), "other", True, True, True)
        assert not h["this_connection"]
        other.commit()


def test_status_is_for_local_queues(qm: EmbeddedQueueManager) -> None:
    qm.define_queue(QueueAttrs("AL", type=QueueType.ALIAS, target_q="Q"))
    with pytest.raises(MQError) as info:
        qm.queue_status("AL")
    assert info.value.reason == 2045


def test_delete_refuses_an_open_queue(qm: EmbeddedQueueManager) -> None:
    with qm.browse("Q"), pytest.raises(MQError) as info:
        qm.delete_queue("Q")
    assert info.value.reason == 2042
    qm.delete_queue("Q")


def test_change_qmgr(qm: EmbeddedQueueManager) -> None:
    info = qm.change_qmgr(dead_letter_queue="MY.DLQ", description="test qmgr")
    assert (info.dead_letter_queue, info.description) == ("MY.DLQ", "test qmgr")
    with qm.new_connection() as other:
        assert other.inquire_qmgr().dead_letter_queue == "MY.DLQ"
    with pytest.raises(ValueError):
        qm.change_qmgr(dead_letter_queue="no spaces allowed")


def test_define_validation(qm: EmbeddedQueueManager) -> None:
    with pytest.raises(MQError) as info:
        qm.define_queue(QueueAttrs("bad name"))
    assert info.value.reason == 2152
    with pytest.raises(ValueError, match="target"):
        qm.define_queue(QueueAttrs("AL2", type=QueueType.ALIAS))
    with pytest.raises(MQError) as info:
        qm.define_queue(QueueAttrs("Q", type=QueueType.ALIAS, target_q="X"), replace=True)
    assert info.value.reason == 2043


def test_group_message_to_xmitq_carries_an_mqmde(qm: EmbeddedQueueManager) -> None:
    qm.define_queue(QueueAttrs("QMZ", usage=Usage.XMITQ))
    qm.put("FAR.Q", m(b"part", format="MQSTR", encoding=273, ccsid=500,
                       group_id=b"G" * 24, msg_seq_number=2, msg_flags=8),
           qmgr_name="QMZ", syncpoint=False)
    stored = qm.get("QMZ", syncpoint=False)
    xqh = MQXQH.unpack(stored.body, 0, big_endian=None, ccsid=1208)
    assert xqh.md.format == "MQHMDE  "
    mde = MQMDE.unpack(stored.body, MQXQH.LENGTH, big_endian=False, ccsid=1208)
    assert (mde.format, mde.encoding, mde.ccsid) == ("MQSTR   ", 273, 500)
    assert (mde.group_id, mde.msg_seq_number, mde.msg_flags) == (b"G" * 24, 2, 8)
    assert stored.body[MQXQH.LENGTH + MQMDE.LENGTH:] == b"part"


def test_routing_errors(qm: EmbeddedQueueManager) -> None:
    qm.define_queue(QueueAttrs("NOTX"))  # a local queue named like a qmgr, not an xmitq
    qm.define_queue(QueueAttrs("R1", type=QueueType.REMOTE, remote_q_name="A",
                               remote_qmgr_name="QMX", xmit_q="MISSING.XMITQ"))
    qm.define_queue(QueueAttrs("QMALIAS", type=QueueType.REMOTE, remote_q_name=""))
    qm.define_queue(QueueAttrs("BACK.HOME", type=QueueType.REMOTE, remote_q_name="Q",
                               remote_qmgr_name="QMEMB"))
    for call, reason in [
        (lambda: qm.put("A", m(), qmgr_name="NOTX"), 2092),
        (lambda: qm.put("R1", m()), 2196),
        (lambda: qm.put("QMALIAS", m()), 2085),
        (lambda: qm.get("R1"), 2045),
    ]:
        with pytest.raises(MQError) as info:
            call()
        assert info.value.reason == reason
    qm.put("BACK.HOME", m(b"home"), syncpoint=False)  # a remote definition of a local queue
    assert qm.get("Q", syncpoint=False).body == b"home"


def test_dropped_connection_is_backed_out(qm: EmbeddedQueueManager) -> None:
    qm.put("Q", m(b"a"), syncpoint=False)
    other = qm.new_connection()
    other.get("Q")
    del other
    gc.collect()
    assert qm.get("Q", syncpoint=False).md.backout_count == 1


def test_dead_process_connection_is_recovered_by_status(qm: EmbeddedQueueManager,
                                                        path: Path) -> None:
    qm.put("Q", m(b"a"), syncpoint=False)
    other = qm.new_connection()
    other.get("Q")
    with other.browse("Q"):
        pass
    # make the other connection look like it belongs to a process that has gone
    db = sqlite3.connect(path)
    db.execute("UPDATE connections SET pid = 999999999 WHERE id = ?", (other._conn_id,))
    db.commit()
    db.close()
    st = qm.queue_status("Q")
    assert (st.depth, st.uncommitted_messages, st.open_input_count) == (1, 0, 0)
    assert qm.get("Q", syncpoint=False).md.backout_count == 1
    with pytest.raises(MQError) as info:  # its own commit now reports the backout
        other.commit()
    assert info.value.reason == 2003
    assert not other.in_unit_of_work
    other.put("Q", m(b"still usable"), syncpoint=False)
    other.close()


@pytest.mark.parametrize("flushed", [False, True], ids=["in-transaction", "flushed"])
def test_commit_failure_is_backed_out_2003(qm: EmbeddedQueueManager, flushed: bool) -> None:
    qm.put("Q", m(b"a"), syncpoint=False)
    qm.get("Q")
    qm.put("Q", m(b"b"))
    if flushed:  # another connection of the process writes the unit of work as marks
        with qm.new_connection() as other:
            other.inquire_queue("Q")
        fail = "BEFORE DELETE ON messages WHEN OLD.got_by IS NOT NULL"
    else:  # the unit of work is in the open transaction: its put is inserted at commit
        fail = "BEFORE INSERT ON messages WHEN NEW.body = x'62'"
    qm._db.execute(f"CREATE TEMP TRIGGER fail_commit {fail} "
                   "BEGIN SELECT RAISE(ABORT, 'injected'); END")
    with pytest.raises(MQError) as info:
        qm.commit()
    assert info.value.reason == 2003 and "backed out" in str(info.value)
    assert not qm.in_unit_of_work
    qm._db.execute("DROP TRIGGER fail_commit")
    got = qm.get("Q", syncpoint=False)
    assert (got.body, got.md.backout_count) == (b"a", 1)
    with pytest.raises(MQError):
        qm.get("Q", syncpoint=False)  # the uncommitted put went with the backout
    assert qm.inquire_queue("Q").depth == 0


def test_locked_file_gives_2102_and_never_guesses(path: Path, qm: EmbeddedQueueManager
                                                  ) -> None:
    quick = open_embedded(path, busy_timeout=0.2)
    try:
        quick.put("Q", m(b"a"), syncpoint=False)
        quick.get("Q")  # its unit of work holds SQLite's write lock ...
        qm.inquire_queue("Q")  # ... until another connection of the process calls
        blocker = sqlite3.connect(path, timeout=0.1, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(MQError) as info:
                quick.put("Q", m(b"b"), syncpoint=False)
            assert info.value.reason == 2102 and "locked" in str(info.value)
            with pytest.raises(MQError) as info:
                quick.commit()
            assert info.value.reason == 2102 and "still open" in str(info.value)
            assert quick.in_unit_of_work
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        quick.commit()
        assert not quick.in_unit_of_work
        assert qm.inquire_queue("Q").depth == 0
    finally:
        quick.close()


def test_browse_first_page_uses_the_index(qm: EmbeddedQueueManager) -> None:
    plan = " ".join(r[3] for r in qm._db.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE queue = 'Q' AND npri = 0 "
        "AND id > 5 AND put_by IS NULL AND got_by IS NULL ORDER BY id LIMIT 10"))
    assert "messages_visible" in plan


def test_deep_cursor_page_is_fast(path: Path, qm: EmbeddedQueueManager) -> None:
    n = 50_000
    blob = MQMD(format="MQSTR").pack(ccsid=819)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    db.executemany("INSERT INTO messages (queue, npri, priority, msg_id, correl_id, put_time, "
                   "length, md, body) VALUES ('Q', 9, 0, x'00', x'00', 0, 1, ?, ?)",
                   ((blob, str(i).encode()) for i in range(n)))
    db.execute("COMMIT")
    db.close()
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0

    # the work counted in SQLite's virtual-machine steps (hundreds), not timed: a page
    # deep in the queue seeks to its place, it does not walk the rows before it
    qm._db.set_progress_handler(step, 100)
    try:
        with qm.browse("Q") as cur:
            steps[0] = 0
            assert len(cur.next_batch(100)) == 100
            first = steps[0]
            cur._after = (9, n - 150)  # jump deep, as a long browse would be
            steps[0] = 0
            assert len(cur.next_batch(100)) == 100
            deep = steps[0]
    finally:
        qm._db.set_progress_handler(None, 0)
    assert deep <= 2 * first + 10, (first, deep)


@pytest.mark.subprocess
def test_forked_child_leaves_parent_connection_alone(qm: EmbeddedQueueManager) -> None:
    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    qm.put("Q", m(b"a"), syncpoint=False)
    qm.get("Q")
    pid = os.fork()
    if pid == 0:  # child: run what its interpreter exit would run, then leave
        try:
            qm._finalizer()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert qm.in_unit_of_work
    qm.commit()
    assert qm.inquire_queue("Q").depth == 0


def test_threads_share_a_connection_and_compete_across_connections(
        qm: EmbeddedQueueManager) -> None:
    import threading

    n = 200
    for i in range(n):
        qm.put("Q", m(str(i).encode()), syncpoint=False)
    taken: list[bytes] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def worker(conn: EmbeddedQueueManager) -> None:
        try:
            while True:
                try:
                    got = conn.get("Q", syncpoint=False)
                except MQError as e:
                    if e.reason == 2033:
                        return
                    raise
                with lock:
                    taken.append(got.body)
        except BaseException as exc:  # reported below
            errors.append(exc)

    others = [qm.new_connection() for _ in range(2)]
    threads = [threading.Thread(target=worker, args=(c,)) for c in [qm, qm, *others]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for c in others:
        c.close()
    assert not errors
    assert sorted(taken, key=int) == [str(i).encode() for i in range(n)]


def test_open_a_backend_spec(path: Path, qm: EmbeddedQueueManager) -> None:
    from mqconsole.backends.open import open_backend
    from mqconsole.backends.spec import BackendSpec

    with open_backend(BackendSpec.embedded(str(path), principal="viewer")) as conn:
        assert (conn.name, conn.principal) == ("QMEMB", "viewer")
    # (a profile of type "mq" opens the real-MQ backend: tests/backends/mqi)

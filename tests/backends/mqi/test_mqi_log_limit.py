"""Issue 22 item 11: a unit of work is bounded by bytes as well as by messages.

The stand-in's queue manager has a recovery log with room for ``log_bytes`` of what one
unit of work puts; a put past it answers 2102 (MQRC_RESOURCE_PROBLEM), as a real queue
manager whose log is full does (IBM MQ, "What happens when a disk gets full"). Before,
units were counted in messages only: a --batch of large persistent messages ended in 2102,
was backed out and redone the same way, and moved nothing. Every operation that commits in
units (move, copy, resubmit, load, delete and save --remove, the dead-letter handler) takes
``batch_bytes`` (``--batch-bytes``, default 64 MiB) and commits before a unit would hold
more."""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.exit_codes import ExitCode, exit_code_of
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer
from mqconsole.ops.uowlimit import DEFAULT_BATCH_BYTES

N, SIZE, LOG = 12, 10_000, 35_000  # 3 messages fit in the log, 4 do not
ALL = Selection.build(all_=True)


def _fill(qm, queue: str, n: int = N) -> None:
    for i in range(n):
        qm.put(queue, Message(MQMD(format="MQSTR   ", msg_id=b"L%023d" % i),
                              bytes([65 + i % 26]) * SIZE),
               context=Context.SET_ALL, syncpoint=False)


@pytest.fixture
def logged(make_qmgr):
    qmgr = make_qmgr(log_bytes=LOG)
    return qmgr, qmgr.connect()


def test_the_standin_answers_2102_past_its_log(logged) -> None:
    from mqconsole.mq.errors import MQError

    qmgr, qm = logged
    q = qmgr.queue()
    for _ in range(3):
        qm.put(q, Message(MQMD(), b"x" * SIZE), syncpoint=True)
    with pytest.raises(MQError) as info:
        qm.put(q, Message(MQMD(), b"x" * SIZE), syncpoint=True)
    assert info.value.reason == 2102
    qm.commit()
    qm.put(q, Message(MQMD(), b"x" * SIZE), syncpoint=True)  # a new unit: room again
    qm.commit()
    assert qm.inquire_queue(q).depth == 4


def test_a_move_by_messages_only_ends_in_2102(logged) -> None:
    """What happened before (and still does with a --batch-bytes bigger than the log)."""
    qmgr, qm = logged
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src)
    r = transfer(qm, src, dst, ALL, batch=100)  # default batch_bytes: 64 MiB
    assert r.done == 0 and {f.reason for f in r.failed} == {2102}
    assert exit_code_of(r) == ExitCode.PARTIAL
    assert qm.inquire_queue(src).depth == N


@pytest.mark.parametrize("copy", [False, True])
def test_a_move_or_copy_bounded_by_bytes_fits_the_log(logged, copy) -> None:
    qmgr, qm = logged
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src)
    r = transfer(qm, src, dst, ALL, batch=100, copy=copy, batch_bytes=30_000)
    assert (r.done, r.failed) == (N, [])
    assert (qm.inquire_queue(src).depth, qm.inquire_queue(dst).depth) == \
        (N if copy else 0, N)


def test_a_load_bounded_by_bytes_fits_the_log(logged, tmp_path) -> None:
    from mqconsole.ops.savefile import load_to_queue, save_queue

    qmgr, qm = logged
    src, dst = qmgr.queue(), qmgr.queue()
    _fill(qm, src)
    save_queue(qm, src, tmp_path / "f.dmp", ALL)
    r = load_to_queue(qm, tmp_path / "f.dmp", dst, batch=100)
    assert r.done < N  # by messages only: the log is full at the fourth put
    before = qm.inquire_queue(dst).depth
    r = load_to_queue(qm, tmp_path / "f.dmp", dst, batch=100, batch_bytes=30_000)
    assert (r.done, r.failed) == (N, [])
    assert qm.inquire_queue(dst).depth == before + N


def test_a_resubmit_bounded_by_bytes_fits_the_log(logged) -> None:
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.ops.resubmit import resubmit

    qmgr, qm = logged
    dlq, dst = qmgr.queue(), qmgr.queue()
    for i in range(N):
        md, body = add_dead_letter_header(MQMD(format="MQSTR   ", msg_id=b"R%023d" % i),
                                          b"r" * SIZE, reason=2053, dest_q_name=dst)
        qm.put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    r = resubmit(qm, dlq, ALL, batch=100, batch_bytes=30_000)
    assert (r.done, r.failed) == (N, [])
    assert qm.inquire_queue(dst).depth == N


def test_the_dead_letter_handler_bounded_by_bytes_fits_the_log(logged, tmp_path) -> None:
    from mqconsole.mq.chain import add_dead_letter_header
    from mqconsole.ops.dlq.handler import run_handler, settings_for
    from mqconsole.ops.dlq.rules import parse_table

    qmgr, qm = logged
    dlq, dst = qmgr.queue(), qmgr.queue()
    for i in range(N):
        md, body = add_dead_letter_header(MQMD(format="MQSTR   ", msg_id=b"D%023d" % i),
                                          b"d" * SIZE, reason=2053, dest_q_name=dst)
        qm.put(dlq, Message(md, body), context=Context.SET_ALL, syncpoint=False)
    table = parse_table("RETRYINT(0) WAIT(NO)\nACTION(RETRY)")
    report = run_handler(qm, table, settings_for(table, dlq, batch=50, once=True,
                                                 batch_bytes=30_000),
                         store_path=str(tmp_path / "attempts.sqlite"))
    assert (report.result.done, report.result.failed) == (N, [])
    assert qm.inquire_queue(dst).depth == N


def test_a_delete_bounded_by_bytes_commits_in_units_of_that_size(make_qmgr, tmp_path) -> None:
    """A delete puts nothing (the stand-in's log counts puts): its units are bounded all
    the same — counted by the commits it makes."""
    from mqconsole.ops.delete import delete_messages

    qmgr = make_qmgr()
    qm = qmgr.connect()
    q = qmgr.queue()
    _fill(qm, q)
    commits = []
    real = qm.commit

    def commit() -> None:
        commits.append(1)
        real()

    qm.commit = commit  # type: ignore[method-assign]
    r = delete_messages(qm, q, ALL, backup_dir=tmp_path, batch=100, batch_bytes=30_000)
    assert (r.done, r.failed) == (N, []) and len(commits) == N // 3


def test_the_default_is_64_mib_everywhere() -> None:
    from mqconsole.ops.dlq.handler import Settings
    from mqconsole.ops.operation import Delete, Load, Resubmit, Transfer
    from mqconsole.ops.operation.dlqpass import DlqPass

    assert DEFAULT_BATCH_BYTES == 64 * 1024 * 1024
    assert Transfer("A", "B", ALL).batch_bytes == DEFAULT_BATCH_BYTES
    assert Resubmit("A", ALL).batch_bytes == DEFAULT_BATCH_BYTES
    assert Delete("A", ALL).batch_bytes == DEFAULT_BATCH_BYTES
    assert Load("f", "A").batch_bytes == DEFAULT_BATCH_BYTES
    assert Settings("Q", 0, 0).batch_bytes == DEFAULT_BATCH_BYTES
    assert DlqPass.__dataclass_fields__["batch_bytes"].default == DEFAULT_BATCH_BYTES

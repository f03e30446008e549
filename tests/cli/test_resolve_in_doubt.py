"""A move that ended in doubt, then run again (issue 28 item 16): a move to another queue
manager whose source commit has an unknown outcome (injected: 2009, the unit in fact backed
out on the source after the destination committed) leaves its last unit on both queues.
Running it again said nothing and doubled them. Now the move says so before its question,
``--resolve-in-doubt`` removes from the source exactly the in-doubt messages found on the
destination (journaled), and every message is then exactly once — also after the move is
run again."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.journal import Journal
from mqconsole.ops.operation import Move, Operation
from mqconsole.ops.selection import Selection
from tests.support.faulty import Faults, FaultyQueueManager

from .conftest import run_cli

COUNT, BATCH = 300, 100


def _make(path: Path, name: str, queue: str, count: int) -> None:
    qm = create_queue_manager(path, name=name)
    qm.define_queue(QueueAttrs(name=queue, max_depth=100_000))
    for i in range(count):
        md = MQMD(format="MQSTR", ccsid=1208, msg_id=b"DOUBT" + i.to_bytes(19, "big"))
        qm.put(queue, Message(md, f"body {i}".encode()), context=Context.SET_ALL,
               syncpoint=True)
    qm.commit()
    qm.close()


def _contents(path: Path, queue: str) -> Counter:
    qm = open_embedded(path)
    try:
        with qm.browse(queue) as cursor:
            return Counter((bytes(m.md.msg_id), bytes(m.body))
                           for m in iter(cursor.next, None))
    finally:
        qm.close()


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    """``mqconsole ARGS`` (in this process: what is tested is the command, not the
    executable's wiring; ``MQCONSOLE_TEST_CLI=subprocess`` runs the executable)."""
    r = run_cli(*args, home=home)
    return subprocess.CompletedProcess(["mqconsole", *args], r.code, r.out, r.err)


def test_an_in_doubt_move_warns_and_resolve_in_doubt_leaves_each_message_once(tmp_path):
    src, dst, home = tmp_path / "src.sqlite", tmp_path / "dst.sqlite", tmp_path / "home"
    _make(src, "QMS", "SRC", COUNT)
    _make(dst, "QMD", "DST", 0)
    everything = _contents(src, "SRC")
    journal_path = home / "state" / "journal.jsonl"

    # the first move: the source's second commit has an unknown outcome (2009)
    source = FaultyQueueManager(open_embedded(src), Faults(commit={2: 2009}))
    dest = open_embedded(dst)
    try:
        summary = Operation(Move("SRC", "DST", Selection(all=True), batch=BATCH, dest_qm=dest),
                            journal=Journal(journal_path)).run(source)
    finally:
        source.close()
        dest.close()
    assert summary.exit_code == ExitCode.UNKNOWN_OUTCOME
    on_src, on_dst = _contents(src, "SRC"), _contents(dst, "DST")
    both = on_src & on_dst
    assert len(both) == BATCH  # the unit in doubt: on both queue managers
    [entry] = Journal(journal_path).read()
    assert {bytes.fromhex(m) for m in entry.in_doubt} == {mid for mid, _ in both}

    common = ("--embedded", str(src))
    to = ("--dest-embedded", str(dst))
    # run again: said before the question (no terminal and no --yes: refused, 4)
    again = _cli(home, *common, "move", "SRC", "DST", "--all", *to)
    assert again.returncode == 4, again.stderr
    warning = (f"warning: the last move from SRC to DST ({entry.time:%Y-%m-%d %H:%M:%SZ}) "
               f"ended in doubt: the outcome of its last unit of work ({BATCH} messages) is "
               "not known, and they may be on both SRC and DST: moving again would double "
               "them; --resolve-in-doubt removes from SRC exactly the in-doubt messages "
               "found on DST")
    assert warning in again.stderr
    assert again.stderr.index(warning) < again.stderr.index("--yes")
    assert _contents(src, "SRC") == on_src and _contents(dst, "DST") == on_dst

    # resolve: the in-doubt messages found on DST leave SRC, in units of work, journaled
    done = _cli(home, *common, "move", "SRC", "DST", "--resolve-in-doubt", *to, "--yes",
                "--batch", "30")
    assert done.returncode == 0, done.stderr
    after_src, after_dst = _contents(src, "SRC"), _contents(dst, "DST")
    assert after_src + after_dst == everything  # each message exactly once
    assert not (after_src & after_dst)
    resolved = [e for e in Journal(journal_path).read() if e.operation == "resolve-in-doubt"]
    [r] = resolved
    assert r.state == "complete" and r.counts()["done"] == BATCH
    assert {bytes.fromhex(m) for m in r.msgids} == {mid for mid, _ in both}
    assert r.details["resolves"] == "move" and r.details["in_doubt_of"] == entry.op

    # nothing in doubt any more: no warning, and the move finishes with each message once
    last = _cli(home, *common, "move", "SRC", "DST", "--all", *to, "--yes")
    assert last.returncode == 0, last.stderr
    assert "ended in doubt" not in last.stderr
    assert _contents(src, "SRC") == Counter() and _contents(dst, "DST") == everything
    # and a second resolve has nothing to do: one sentence, exit 2
    none = _cli(home, *common, "move", "SRC", "DST", "--resolve-in-doubt", *to, "--yes")
    assert none.returncode == 2
    assert "did not end in doubt" in none.stderr

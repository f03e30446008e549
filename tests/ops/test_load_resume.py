"""Resuming a load (issue 22 item 9): after exit 5 ("outcome unknown") running ``load``
again doubled every message of the unit in doubt. ``load`` takes dmpmqmsg's range
(``--range N-M``, the file's message numbers as ``save`` wrote them) and ``--skip-present``
(a message whose MsgId and body are on the queue is not put again, and counted as such),
and the exit-5 sentence names the command that loads the rest without duplicates.

MQ's rule the faults stand for: a commit answered 2009/2018/2548/2549 may have committed
("it is possible that the call did complete successfully", IBM MQ, MQCMIT, Reason codes);
here it did (``commit_after``), so the unit's messages are on the queue."""

from __future__ import annotations

import shlex
from collections import Counter

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import Load, Operation, OperationError, Save
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.savefile import load_to_queue, parse_range, write_messages_file
from mqconsole.ops.selection import Selection
from tests.support.faulty import Faults, FaultyQueueManager

ALL = Selection(all=True)
N = 30


def _saved(tmp_path, bodies=None):
    bodies = bodies or [f"m{i}" for i in range(1, N + 1)]
    run = run_operation(Save("IN", str(tmp_path / "saved.dmp"), ALL),
                        queues={"IN": bodies, "OUT": []})
    return run, tmp_path / "saved.dmp"


def _on(run, queue="OUT") -> Counter:
    return Counter((m.msg_id_hex, bytes(m.body)) for m in run.messages(queue))


@pytest.mark.parametrize("new_context", [False, True])  # packed puts and one by one
def test_the_exit_5_sentence_names_the_command_that_resumes_without_duplicates(
        tmp_path, new_context):
    run, path = _saved(tmp_path)
    everything = _on(run, "IN")
    first = Operation(Load(str(path), "OUT", batch=10, new_context=new_context),
                      journal=None).run(FaultyQueueManager(run.qm, Faults(commit_after={2: 2549})))
    assert first.exit_code == ExitCode.UNKNOWN_OUTCOME
    assert len(run.messages("OUT")) == 20  # the unit in doubt did commit
    [said] = [w for w in first.result.warnings if "unknown outcome" in w]
    command = (f"mqconsole load {path} OUT --range 11-30 --skip-present"
               + (" --new-context" if new_context else ""))
    assert said.endswith(f"loading the file again would double them; {command} loads the "
                         "rest without duplicates")
    args = shlex.split(command)
    assert args[args.index("--range") + 1] == "11-30"
    # the command as named: messages 11-30, the 10 of them already there skipped
    again = Operation(Load(str(path), "OUT", first=11, last=30, skip_present=True,
                           new_context=new_context), journal=None).run(run.qm)
    assert again.exit_code == ExitCode.OK
    assert again.result.present == 10 and again.result.done == 10
    assert again.result.selected == 20 and again.result.skipped == 0
    assert again.to_json()["present"] == 10
    assert _on(run) == everything  # each message exactly once


def test_a_range_loads_exactly_those_messages(tmp_path):
    run, path = _saved(tmp_path)
    summary = Operation(Load(str(path), "OUT", first=5, last=7), journal=None).run(run.qm)
    assert summary.exit_code == ExitCode.OK and summary.result.selected == 3
    assert [bytes(m.body) for m in run.messages("OUT")] == [b"m5", b"m6", b"m7"]
    to_end = Operation(Load(str(path), "OUT", first=29), journal=None).run(run.qm)
    assert to_end.result.done == 2
    assert [bytes(m.body) for m in run.messages("OUT")][-2:] == [b"m29", b"m30"]


def test_skip_present_skips_one_for_each_copy_there_and_compares_the_body(tmp_path):
    run, path = _saved(tmp_path, ["a", "b", "c"])
    [a, b, _c] = run.messages("IN")
    # on OUT: a (same MsgId and body), b's MsgId with another body
    run.qm.put("OUT", a, context=Context.SET_ALL, syncpoint=False)
    run.qm.put("OUT", Message(MQMD(msg_id=b.md.msg_id, format="MQSTR"), b"changed"),
               context=Context.SET_ALL, syncpoint=False)
    summary = Operation(Load(str(path), "OUT", skip_present=True), journal=None).run(run.qm)
    assert summary.exit_code == ExitCode.OK
    assert summary.result.present == 1 and summary.result.done == 2
    assert sorted(bytes(m.body) for m in run.messages("OUT")) == [b"a", b"b", b"c", b"changed"]
    # a file holding the same message twice: the one copy there stands for one of them
    write_messages_file(tmp_path / "twice.dmp", [a, a], qmgr="QM", queue="IN")
    result = load_to_queue(run.qm, tmp_path / "twice.dmp", "OUT", skip_present=True)
    assert result.present == 1 and result.done == 1


def test_a_dry_run_plans_only_the_range_and_what_is_not_there(tmp_path):
    run, path = _saved(tmp_path)
    Operation(Load(str(path), "OUT", last=3), journal=None).run(run.qm)
    plan = Operation(Load(str(path), "OUT", last=5, skip_present=True), journal=None).run(
        run.qm, dry_run=True)
    assert [s["position"] for s in plan.result.plan] == [4, 5]
    assert plan.result.present == 3 and len(run.messages("OUT")) == 3


@pytest.mark.parametrize(("text", "span"), [("5-10", (5, 10)), ("5-", (5, None)),
                                            ("-10", (1, 10)), ("7", (7, 7)),
                                            ("5..10", (5, 10))])
def test_range_forms(text, span):
    assert parse_range(text) == span


@pytest.mark.parametrize("text", ["x", "0-3", "5-2", "1-2-3", "", "-"])
def test_a_bad_range_is_one_sentence(text):
    with pytest.raises(ValueError, match="--range"):
        parse_range(text)


def test_a_range_past_the_file_is_refused_before_anything_is_put(tmp_path):
    run, path = _saved(tmp_path)
    op = Operation(Load(str(path), "OUT", first=25, last=40), journal=None)
    with pytest.raises(OperationError, match=r"--range 25-40 asks for messages the file .* "
                                             r"does not hold: it holds 30 messages \(1-30\)"):
        op.validate(run.qm)
    assert run.messages("OUT") == []

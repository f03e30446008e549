"""The dead-letter handler as an operation: one journal entry, the plugins' put checks under
the kind ``dlq-handler`` (seeing the message as it would be put), ``operation_done`` once,
the summary carrying the spec's report, the handler's own exit codes, bad input before
anything."""

from __future__ import annotations

import threading

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.message import Message
from mqconsole.ops.dlq.rules import parse_table
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import DlqPass, Operation, OperationError
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.result import REFUSED_BY_PLUGIN
from mqconsole.plugins import hookimpl
from tests.support.faulty import make_message

DLQ = "APP.DLQ"
DEFAULT_DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def dead(i: int, body: bytes, dest: str = "APP.IN", reason: int = 2053) -> Message:
    m = make_message(i, body=body)
    md, data = add_dead_letter_header(m.md.copy(priority=5), m.body, reason=reason,
                                      dest_q_name=dest, put_time=f"1000{i:04d}")
    return Message(md, data)


class RefuseSecret:
    def __init__(self) -> None:
        self.seen: list[tuple[str, bytes, str]] = []

    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        self.seen.append((operation, bytes(message.body), destination))
        return "secret payloads stay where they are" if b"secret" in message.body else None


class Done:
    def __init__(self) -> None:
        self.summaries: list = []

    @hookimpl
    def mqconsole_operation_done(self, summary):
        self.summaries.append(summary)


def kind(text: str, **kw) -> DlqPass:
    kw.setdefault("input_q", DLQ)
    return DlqPass(parse_table(text), "site.rules", **kw)


def queues(*msgs: Message) -> dict:
    return {DLQ: list(msgs), "APP.IN": [], "CATCH": []}


def test_a_pass_is_one_operation_journaled_and_told_to_plugins() -> None:
    check, done = RefuseSecret(), Done()
    run = run_operation(kind("REASON(MQRC_Q_FULL) ACTION(RETRY)\nACTION(FWD) FWDQ(CATCH)",
                             once=True),
                        check, done,
                        queues=queues(dead(1, b"one"), dead(2, b"a secret"),
                                      dead(3, b"three", reason=2035)))
    s = run.summary
    assert s.kind == "dlq-handler" and s.exit_code == ExitCode.PARTIAL
    assert s.counts == {"selected": 3, "done": 2, "failed": 1, "skipped": 0}
    # the check saw each message as it would be put: RETRY without its header
    assert check.seen == [("dlq-handler", b"one", "APP.IN"),
                          ("dlq-handler", b"a secret", "APP.IN"),
                          ("dlq-handler", dead(3, b"three", reason=2035).body, "CATCH")]
    [f] = s.failures
    assert f.reason_name == REFUSED_BY_PLUGIN and "secret payloads" in f.detail
    # the report in the spec's shapes, attempts (tried so far, this pass's included)
    assert [(m["rule"], m["action"], m["attempts"], m["outcome"])
            for m in s.extra["messages"]] == [(1, "RETRY", 1, "retried"),
                                              (1, "RETRY", 1, "failed"),
                                              (2, "FWD", 1, "forwarded")]
    assert s.extra["rules"] == [{"rule": 1, "matched": 2, "done": 1, "failed": 1},
                                {"rule": 2, "matched": 1, "done": 1, "failed": 0}]
    doc = s.to_json()
    assert {"messages", "rules", "counts", "exit_code", "passes"} <= set(doc)
    [entry] = run.journal
    assert entry.operation == "dlq-handler" and entry.source == DLQ
    assert entry.details["rules"] == "site.rules" and entry.details["passes"] == 1
    assert sorted((o.outcome, o.destination) for o in entry.outcomes) == [
        ("done", "APP.IN"), ("done", "CATCH"), ("failed", "APP.IN")]
    assert done.summaries == [s]
    assert [m.body for m in run.messages(DLQ)] == [dead(2, b"a secret").body]


def test_a_dry_run_plans_with_the_checks_and_changes_nothing() -> None:
    check = RefuseSecret()
    run = run_operation(kind("ACTION(RETRY)"), check, dry_run=True,
                        queues=queues(dead(1, b"one"), dead(2, b"a secret")))
    s = run.summary
    assert s.exit_code == ExitCode.OK and s.dry_run
    assert [m["outcome"] for m in s.extra["messages"]] == [
        "would retry to APP.IN (header removed)",
        "would fail: REFUSED_BY_PLUGIN: refused by plugin RefuseSecret: secret payloads "
        "stay where they are"]
    assert len(run.messages(DLQ)) == 2 and run.messages("APP.IN") == []
    [entry] = run.journal
    assert entry.dry_run


def test_left_messages_are_not_failures_and_a_cancel_ends_cleanly() -> None:
    run = run_operation(kind("REASON(MQRC_Q_FULL) ACTION(IGNORE)", once=True),
                        queues=queues(dead(1, b"one"), dead(2, b"two", reason=2035)))
    s = run.summary
    assert s.counts["skipped"] == 2 and s.exit_code == ExitCode.OK
    # stopped by a signal (the console's cancel): 0, the open unit backed out
    cancel = threading.Event()
    cancel.set()
    op = Operation(kind("ACTION(DISCARD)"), journal=None)
    summary = op.run(run.qm, cancel=cancel)
    assert summary.result.cancelled and summary.exit_code == ExitCode.OK
    assert len(run.messages(DLQ)) == 2


def test_bad_input_is_refused_before_anything() -> None:
    run = run_operation(kind("ACTION(IGNORE)", once=True), queues=queues())
    qm = run.qm
    with pytest.raises(OperationError, match=r"the input queue NO\.SUCH does not exist"):
        Operation(kind("ACTION(IGNORE)", input_q="NO.SUCH"), journal=None).validate(qm)
    with pytest.raises(OperationError, match=r"INPUTQ\(NOPE\) does not exist"):
        Operation(kind("INPUTQ(NOPE)\nACTION(IGNORE)", input_q=None), journal=None).validate(qm)
    with pytest.raises(OperationError, match=r"INPUTQM\(QM7\) is not the queue manager"):
        Operation(kind("INPUTQM(QM7)\nACTION(IGNORE)", input_q=None), journal=None).validate(qm)
    with pytest.raises(OperationError, match="one at a time"):
        Operation(kind("ACTION(IGNORE)", once=True, wait=5), journal=None).validate(qm)
    op = Operation(kind("INPUTQ(CATCH)\nACTION(IGNORE)", input_q=None), journal=None)
    assert op.describe().what == "processing CATCH by the rules in site.rules"
    op = Operation(kind("ACTION(IGNORE)", input_q=None), journal=None)
    assert op.describe().what == "processing the dead-letter queue by the rules in site.rules"
    op.validate(qm)
    assert op.describe().what == f"processing {DEFAULT_DLQ} by the rules in site.rules"


def test_a_long_lived_handler_is_an_operation_per_cycle(tmp_path) -> None:
    """WAIT(YES): each cycle of work is journaled and told to the plugins as it ends (a
    service journals as it goes and keeps one cycle's report), and a stop ends it with 0."""
    import time

    from mqconsole.backends.base import Context
    from mqconsole.ops.exit_codes import exit_code_of_run
    from mqconsole.ops.journal import Journal
    from mqconsole.ops.operation import keep_running
    from mqconsole.plugins.testing import plugin_host

    run = run_operation(kind("ACTION(IGNORE)", once=True), queues=queues(dead(1, b"one")))
    qm = run.qm
    done = Done()
    journal = Journal(tmp_path / "j.jsonl")
    service = kind("WAIT(YES)\nREASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(CATCH)",
                   attempts_file=str(tmp_path / "a.sqlite"))
    assert service.long_lived and not kind("WAIT(NO)\nACTION(IGNORE)").long_lived
    service.cycle = True
    op = Operation(service, journal=journal, plugins=plugin_host(done))
    worker = qm.new_connection()
    op.validate(worker)
    cancel = threading.Event()
    seen: list = []
    box: dict = {}
    t = threading.Thread(target=lambda: box.setdefault("out", keep_running(
        op, worker, cancel=cancel, on_summary=seen.append)))
    t.start()
    try:
        for n in (1, 2):
            deadline = time.monotonic() + 30
            while len(seen) < n and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(seen) == n and seen[-1].result.done == 1
            qm.put(DLQ, dead(10 + n, b"more"), context=Context.SET_ALL, syncpoint=False)
        deadline = time.monotonic() + 30
        while len(seen) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        cancel.set()
        t.join(30)
    summaries = box["out"]
    assert summaries == seen and len(summaries) >= 3
    assert [s.result.done for s in summaries[:3]] == [1, 1, 1]
    entries = list(journal.read())
    assert len(entries) == len(summaries) and all(e.operation == "dlq-handler"
                                                  for e in entries)
    assert done.summaries == summaries
    codes = [s.exit_code for s in summaries]
    assert exit_code_of_run(codes, stopped=True) == ExitCode.OK
    assert exit_code_of_run([ExitCode.PARTIAL, *codes], stopped=True) == ExitCode.OK
    assert exit_code_of_run([ExitCode.PARTIAL, *codes], stopped=False) == ExitCode.PARTIAL
    assert exit_code_of_run([*codes, ExitCode.UNKNOWN_OUTCOME], stopped=True) \
        == ExitCode.UNKNOWN_OUTCOME
    assert len(run.messages("CATCH")) == 3

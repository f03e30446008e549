"""``put`` and ``queue define`` are operations like every other change: validated before
anything happens, the plugins' put checks before each put (dry runs too), journaled by the
operation, cancelled at a unit of work's boundary, ``operation_done`` after each."""

from __future__ import annotations

import threading

import pytest

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import Operation, OperationError, Put, QueueDefine
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.result import REFUSED_BY_PLUGIN
from mqconsole.plugins import hookimpl


class RefuseSecret:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        self.seen.append((operation, destination))
        return "no secrets" if b"secret" in message.body else None


class Done:
    def __init__(self) -> None:
        self.summaries: list = []

    @hookimpl
    def mqconsole_operation_done(self, summary):
        self.summaries.append(summary)


def md() -> MQMD:
    return MQMD(format="MQSTR", ccsid=1208)


def test_a_put_is_checked_journaled_and_told():
    check, done = RefuseSecret(), Done()
    run = run_operation(Put("OUT", md(), b"fine", count=3), check, done, queues={"OUT": []})
    s = run.summary
    assert s.kind == "put" and s.exit_code == ExitCode.OK
    assert s.counts == {"selected": 3, "done": 3, "failed": 0, "skipped": 0}
    assert check.seen == [("put", "OUT")] * 3 and done.summaries == [s]
    bodies = [m.body for m in run.messages("OUT")]
    assert bodies == [b"fine"] * 3
    ids = [m.msg_id_hex for m in run.messages("OUT")]
    assert s.extra["msgids"] == ids and s.to_json()["put"] == 3
    [entry] = run.journal
    assert entry.operation == "put" and entry.destinations == ["OUT"]
    assert sorted(entry.msgids) == sorted(ids)
    assert entry.details["count"] == 3 and entry.details["context"] == "new"


def test_a_refused_put_is_not_put_and_fails_with_the_plugins_sentence():
    run = run_operation(Put("OUT", md(), b"a secret", count=2), RefuseSecret(),
                        queues={"OUT": []})
    s = run.summary
    assert s.exit_code == ExitCode.PARTIAL and run.messages("OUT") == []
    assert [f.reason_name for f in s.failures] == [REFUSED_BY_PLUGIN] * 2
    assert s.failures[0].detail == "refused by plugin RefuseSecret: no secrets"
    [entry] = run.journal
    assert [o.outcome for o in entry.outcomes] == ["failed", "failed"]


def test_a_put_dry_run_plans_the_checks_and_puts_nothing():
    run = run_operation(Put("OUT", md(), b"a secret"), RefuseSecret(), queues={"OUT": []},
                        dry_run=True)
    [step] = run.summary.result.plan
    assert step["would_fail"]["reason_name"] == REFUSED_BY_PLUGIN
    assert run.messages("OUT") == [] and run.summary.exit_code == ExitCode.PARTIAL


def test_a_cancelled_put_stops_after_the_unit_of_work_and_says_the_rest():
    run = run_operation(QueueDefine("OUT"), queues={})
    cancel = threading.Event()

    def progress(done: int, total: int | None) -> None:
        if done >= 500:
            cancel.set()

    op = Operation(Put("OUT", md(), b"x", count=1200), journal=None)
    summary = op.run(run.qm, progress=progress, cancel=cancel)
    assert summary.result.cancelled and summary.counts["done"] == 500
    assert summary.counts["skipped"] == 700 and summary.exit_code == ExitCode.PARTIAL
    assert len(run.messages("OUT")) == 500


def test_put_validates_its_queue_before_anything():
    run = run_operation(QueueDefine("OUT"), queues={})
    with pytest.raises(OperationError, match="destination queue NOWHERE does not exist"):
        Operation(Put("NOWHERE", md(), b"x"), journal=None).validate(run.qm)


def test_queue_define_is_an_operation_with_its_record_and_its_warning():
    done = Done()
    run = run_operation(QueueDefine("NEW.Q", {"max_depth": 50, "boqname": "NEW.BOQ"}), done)
    s = run.summary
    assert s.kind == "queue-define" and s.exit_code == ExitCode.OK
    assert run.qm.inquire_queue("NEW.Q").max_depth == 50
    assert s.to_json()["max_depth"] == 50  # the queue's document beside the summary
    assert any("BOQNAME NEW.BOQ names a queue that does not exist" in w
               for w in s.result.warnings)
    [entry] = run.journal
    assert entry.operation == "queue-define" and entry.destinations == ["NEW.Q"]
    assert entry.details["attributes"] == {"boqname": "NEW.BOQ", "max_depth": 50}
    assert done.summaries == [s]


@pytest.mark.parametrize(("kind", "said"), [
    (QueueDefine("bad name!"), "not a valid MQ queue name"),
    (QueueDefine("NEW.Q", {"max_depth": 10**12}), "max_depth must be a whole number"),
    (QueueDefine("IN"), "queue IN already exists on"),
])
def test_queue_define_refuses_bad_input_before_anything(kind, said):
    run = run_operation(QueueDefine("IN"), queues={})
    with pytest.raises(OperationError, match=said):
        Operation(kind, journal=None).validate(run.qm)


def test_a_queue_define_dry_run_defines_nothing():
    run = run_operation(QueueDefine("NEW.Q", {"bothresh": 2}), dry_run=True)
    assert run.summary.result.plan == [{"queue": "NEW.Q", "attributes": {"bothresh": 2}}]
    assert "NEW.Q" not in {q.name for q in run.qm.list_queues("*")}


def test_a_queue_is_never_its_own_backout_queue_in_a_define_or_a_set():
    from mqconsole.mq.queue import changes_problem
    from mqconsole.ops.operation import QueueSet

    assert changes_problem("Q", {"boqname": "Q"}) == "Q cannot be its own backout queue (BOQNAME)"
    assert changes_problem("Q", {"bothresh": -1}).startswith("bothresh must be a whole number")
    assert changes_problem("Q", {"boqname": "Q.BOQ", "bothresh": 3}) is None
    run = run_operation(QueueDefine("IN"), queues={})
    for kind in (QueueSet("IN", {"boqname": "IN"}), QueueDefine("NEW", {"boqname": "NEW"})):
        with pytest.raises(OperationError, match="cannot be its own backout queue"):
            Operation(kind, journal=None).validate(run.qm)


def test_destination_problem_is_said_before_asking_the_queue_manager():
    from mqconsole.ops.operation import destination_problem

    assert destination_problem("IN", "") == "give a queue name"
    assert "not a valid MQ queue name" in destination_problem("IN", "bad name!")
    assert destination_problem("IN", "IN") == "IN is both the source and the destination"
    assert destination_problem("IN", "OUT", ["IN"]) == "there is no queue named OUT here"
    assert destination_problem("IN", "OUT", ["IN", "OUT"]) is None


def test_a_put_dry_run_predicts_a_full_an_inhibited_and_a_too_small_queue():
    """Issue 28 item 17: issue 20's predictions apply to put too — ``put --dry-run``
    predicted nothing for a full, put-inhibited or too-small queue."""
    from mqconsole.backends.open import open_embedded
    from mqconsole.mq.queue import QueueAttrs

    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs(name="FULLISH", max_depth=5))
    qm.define_queue(QueueAttrs(name="SHUT", put_inhibited=True))
    qm.define_queue(QueueAttrs(name="NARROW", max_msg_length=4))
    for _ in range(3):
        qm.put("FULLISH", Message(md(), b"x"), syncpoint=False)

    def would(queue: str, body: bytes, count: int) -> list:
        run = run_operation(Put(queue, md(), body, count=count), qm=qm, dry_run=True)
        failing = run.summary.result.would_fail()
        assert run.summary.exit_code == (ExitCode.PARTIAL if failing else ExitCode.OK)
        return [(s["position"], s.get("would_fail", {}).get("reason_name"))
                for s in run.summary.result.plan]

    assert would("FULLISH", b"x", 4) == [(1, None), (2, None), (3, "MQRC_Q_FULL"),
                                         (4, "MQRC_Q_FULL")]
    assert would("SHUT", b"x", 2) == [(1, "MQRC_PUT_INHIBITED"), (2, "MQRC_PUT_INHIBITED")]
    assert would("NARROW", b"12345", 1) == [(1, "MQRC_MSG_TOO_BIG_FOR_Q")]
    assert would("NARROW", b"1234", 1) == [(1, None)]
    assert qm.inquire_queue("FULLISH").depth == 3  # nothing was put

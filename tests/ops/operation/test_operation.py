"""The operation as the unit: plugins' put checks before every put (move, copy, resubmit,
edit, load; in dry runs too), ``operation_done`` once per operation with its counts, and
the journal entry written by the operation itself whatever the outcome."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.journal import Journal
from mqconsole.ops.operation import (
    Copy,
    Delete,
    Edit,
    Load,
    Move,
    Operation,
    OperationError,
    PluginAction,
    QueueSet,
    Resubmit,
)
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.result import REFUSED_BY_PLUGIN
from mqconsole.ops.savefile import write_messages_file
from mqconsole.ops.selection import Selection
from mqconsole.plugins import Action, ActionSummary, hookimpl
from mqconsole.plugins.testing import plugin_host
from tests.support.faulty import make_message

ALL = Selection(all=True)


class RefuseSecret:
    """Refuses every put of a body containing b"secret"; records what it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, bytes, str, bytes]] = []

    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        self.seen.append((operation, message.body, destination, bytes(message.md.format)
                          if isinstance(message.md.format, bytes) else
                          message.md.format.encode()))
        if b"secret" in message.body:
            return "secret payloads stay where they are"
        return None


class Exploding:
    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        raise RuntimeError("no database")


class Done:
    def __init__(self) -> None:
        self.summaries: list = []

    @hookimpl
    def mqconsole_operation_done(self, summary):
        self.summaries.append(summary)


BODIES = [b"one", b"a secret", b"three"]


def _refused_one(run, kind: str) -> None:
    s = run.summary
    assert s.exit_code == ExitCode.PARTIAL
    assert s.counts == {"selected": 3, "done": 2, "failed": 1, "skipped": 0}
    [f] = s.failures
    assert f.reason_name == REFUSED_BY_PLUGIN
    assert f.detail == ("refused by plugin RefuseSecret: secret payloads stay where they "
                        "are")
    [entry] = run.journal
    assert entry.operation == kind
    assert sorted(o.outcome for o in entry.outcomes) == ["done", "done", "failed"]


def test_a_refusing_check_keeps_that_message_on_the_source_in_a_move():
    check, done = RefuseSecret(), Done()
    run = run_operation(Move("IN", "OUT", ALL), check, done,
                        queues={"IN": BODIES, "OUT": []})
    _refused_one(run, "move")
    assert [m.body for m in run.messages("IN")] == [b"a secret"]
    assert [m.body for m in run.messages("OUT")] == [b"one", b"three"]
    assert [(op, body, dest) for op, body, dest, _ in check.seen] == [
        ("move", b"one", "OUT"), ("move", b"a secret", "OUT"), ("move", b"three", "OUT")]
    [summary] = done.summaries
    assert summary.counts == run.summary.counts and summary.counts["failed"] == 1


class Tamperer:
    """An operation_done that changes everything it is given."""

    @hookimpl
    def mqconsole_operation_done(self, summary):
        summary.result.failed.clear()
        summary.result.done = 0
        summary.exit_code = ExitCode.OK
        summary.extra["forged"] = True


def test_a_plugin_that_changes_the_summary_changes_nothing_the_faces_report():
    done = Done()
    run = run_operation(Move("IN", "OUT", ALL), RefuseSecret(), Tamperer(), done,
                        queues={"IN": BODIES, "OUT": []})
    _refused_one(run, "move")  # the counts, the failure and exit code 1 as they happened
    assert "forged" not in run.summary.to_json()
    [seen] = done.summaries  # another plugin sees the true summary too
    assert seen.counts["failed"] == 1 and seen.exit_code == ExitCode.PARTIAL


def test_a_refusing_check_in_a_copy():
    run = run_operation(Copy("IN", "OUT", ALL), RefuseSecret(),
                        queues={"IN": BODIES, "OUT": []})
    _refused_one(run, "copy")
    assert len(run.messages("IN")) == 3
    assert [m.body for m in run.messages("OUT")] == [b"one", b"three"]


def test_a_raising_check_refuses_naming_the_plugin():
    run = run_operation(Move("IN", "OUT", ALL), Exploding(), queues={"IN": [b"x"], "OUT": []})
    [f] = run.summary.failures
    assert "plugin Exploding" in f.detail and "RuntimeError: no database" in f.detail
    assert "refused" in f.detail
    assert run.summary.exit_code == 1
    assert len(run.messages("IN")) == 1 and run.messages("OUT") == []


def test_a_dry_run_plans_the_refusal_and_changes_nothing():
    done = Done()
    run = run_operation(Move("IN", "OUT", ALL), RefuseSecret(), done, dry_run=True,
                        queues={"IN": BODIES, "OUT": []})
    s = run.summary
    assert s.exit_code == ExitCode.PARTIAL and s.dry_run  # one would be refused
    refused = [p for p in s.result.plan if "would_fail" in p]
    assert len(s.result.plan) == 3 and len(refused) == 1
    assert refused[0]["would_fail"]["reason_name"] == REFUSED_BY_PLUGIN
    assert "secret payloads" in refused[0]["would_fail"]["detail"]
    assert len(run.messages("IN")) == 3
    [entry] = run.journal
    assert entry.dry_run and entry.operation == "move"
    assert len(done.summaries) == 1 and done.summaries[0].dry_run


def test_without_checks_the_engine_gets_none_and_moves_as_before():
    op = Operation(Move("IN", "OUT", ALL), journal=None, plugins=plugin_host(Done()))
    assert op._check(op.describe()) is None  # the fast path: nothing is looked at
    run = run_operation(Move("IN", "OUT", ALL), Done(), queues={"IN": BODIES, "OUT": []})
    assert run.summary.counts == {"selected": 3, "done": 3, "failed": 0, "skipped": 0}


def _dead_lettered(i: int, body: bytes) -> Message:
    m = make_message(i, body=body)
    md, data = add_dead_letter_header(m.md, m.body, reason=2053, dest_q_name="APP.IN")
    return Message(md, data)


def test_a_refusing_check_in_a_resubmit_sees_the_message_without_its_header():
    check = RefuseSecret()
    run = run_operation(Resubmit("DLQ", ALL), check,
                        queues={"DLQ": [_dead_lettered(i, b) for i, b in enumerate(BODIES)],
                                "APP.IN": []})
    _refused_one(run, "resubmit")
    assert sorted(body for _, body, _, _ in check.seen) == sorted(BODIES)  # header removed
    assert all(fmt.strip() == b"MQSTR" for *_, fmt in check.seen)
    assert {dest for _, _, dest, _ in check.seen} == {"APP.IN"}
    assert len(run.messages("DLQ")) == 1 and len(run.messages("APP.IN")) == 2
    assert run.journal[0].outcomes[0].destination == "APP.IN"


def test_a_refusing_check_in_an_edit_leaves_the_original():
    check = RefuseSecret()
    first = run_operation(Move("IN", "OUT", ALL), queues={"IN": [b"plain"], "OUT": []})
    msg_id = bytes(first.messages("OUT")[0].md.msg_id)
    run = run_operation(Edit("OUT", msg_id, text="now a secret"), check, qm=first.qm)
    s = run.summary
    assert s.exit_code == 1 and s.counts["failed"] == 1
    assert "secret payloads" in s.failures[0].detail
    assert [m.body for m in run.messages("OUT")] == [b"plain"]
    assert check.seen[0][:3] == ("edit", b"now a secret", "OUT")
    [entry] = run.journal
    assert entry.operation == "edit" and entry.outcomes[0].outcome == "failed"
    # the same edit without a secret goes through, and the journal says what changed
    ok = run_operation(Edit("OUT", msg_id, text="fine"), check, qm=first.qm)
    assert ok.summary.exit_code == 0 and ok.journal[0].details["payload_changed"] is True


def test_a_refusing_check_in_a_load(tmp_path: Path):
    path = tmp_path / "in.dmp"
    write_messages_file(path, [make_message(i, body=b) for i, b in enumerate(BODIES)],
                        qmgr="QM", queue="X")
    check, done = RefuseSecret(), Done()
    run = run_operation(Load(str(path), "OUT"), check, done, queues={"OUT": []})
    _refused_one(run, "load")
    assert sorted(m.body for m in run.messages("OUT")) == [b"one", b"three"]
    assert [c[0] for c in check.seen] == ["load"] * 3
    dry = run_operation(Load(str(path), "OUT"), check, dry_run=True, qm=run.qm)
    assert [p.get("would_fail", {}).get("reason_name") for p in dry.summary.result.plan] \
        == [None, REFUSED_BY_PLUGIN, None]
    assert len(done.summaries) == 1


def test_delete_is_journaled_by_the_operation(tmp_path: Path):
    done = Done()
    run = run_operation(Delete("IN", ALL, backup_dir=tmp_path), done,
                        queues={"IN": BODIES})
    [entry] = run.journal
    assert entry.operation == "delete" and entry.backup and Path(entry.backup).exists()
    assert [o.outcome for o in entry.outcomes] == ["done"] * 3
    assert done.summaries[0].counts["done"] == 3 and run.messages("IN") == []


def test_a_delete_stopped_by_an_error_is_journaled_with_it(tmp_path: Path):
    """validate refuses an existing backup first; should the file appear after it, the
    delete stops before removing anything and the journal names the error."""
    run = run_operation(Copy("IN", "OUT", ALL), queues={"IN": BODIES, "OUT": []})
    taken = tmp_path / "taken.dmp"
    taken.write_text("precious")
    journal = Journal(tmp_path / "j.jsonl")
    op = Operation(Delete("IN", ALL, backup=str(taken)), journal=journal)
    with pytest.raises(FileExistsError):
        op.validate(run.qm)
    with pytest.raises(FileExistsError):
        op.run(run.qm)
    [entry] = journal.read()
    assert entry.operation == "delete" and "exists" in entry.details["error"]
    assert taken.read_text() == "precious" and len(run.messages("IN")) == 3


def test_a_cancelled_operation_is_journaled_as_cancelled(tmp_path: Path):
    qm = run_operation(Move("IN", "OUT", Selection(all=True, limit=1)),
                       queues={"IN": [b"x"] * 50, "OUT": []}).qm
    journal = Journal(tmp_path / "j.jsonl")
    done = Done()
    cancel = threading.Event()
    cancel.set()
    op = Operation(Move("IN", "OUT", ALL, batch=10), journal=journal, plugins=plugin_host(done))
    s = op.run(qm, cancel=cancel)
    assert s.result.cancelled and s.exit_code == 1
    [entry] = journal.read()
    assert entry.details["cancelled"] is True
    assert done.summaries == [s]


def test_an_operation_that_cannot_start_is_journaled_and_raises(tmp_path: Path):
    run = run_operation(Move("IN", "OUT", ALL), queues={"IN": [b"x"], "OUT": []})
    journal = Journal(tmp_path / "j.jsonl")
    done = Done()
    op = Operation(Edit("IN", b"NOPE", text="x"), journal=journal, plugins=plugin_host(done))
    from mqconsole.ops.edit import EditError

    with pytest.raises(EditError):
        op.run(run.qm)
    [entry] = journal.read()
    assert entry.operation == "edit" and "no message with MsgId" in entry.details["error"]
    [summary] = done.summaries
    assert summary.error and summary.exit_code == ExitCode.USAGE


def test_validate_names_the_bad_queue_before_anything():
    run = run_operation(Move("IN", "OUT", ALL), queues={"IN": [b"x"], "OUT": []})
    op = Operation(Move("IN", "NOWHERE", ALL), journal=None)
    with pytest.raises(OperationError, match="destination queue NOWHERE does not exist"):
        op.validate(run.qm)
    with pytest.raises(OperationError, match="not a valid MQ queue name"):
        Operation(Move("IN", "bad name!", ALL), journal=None).validate(run.qm)
    with pytest.raises(OperationError, match="both the source and the destination"):
        Operation(Move("IN", "IN", ALL), journal=None).validate(run.qm)


def test_queue_set_is_an_operation_with_its_own_record():
    done = Done()
    run = run_operation(QueueSet("IN", {"bothresh": 3}), done, queues={"IN": []})
    [entry] = run.journal
    assert entry.operation == "queue-set" and entry.source == "IN"
    assert entry.details["changes"] == {"bothresh": {"before": 0, "after": 3}}
    assert run.qm.inquire_queue("IN").bothresh == 3
    assert done.summaries[0].kind == "queue-set" and run.summary.exit_code == 0


class Ticket:
    def __init__(self, fail: bool = False) -> None:
        self.got: list = []
        self.fail = fail

    def _run(self, context, messages):
        self.got.append((context.queue, [m.body for m in messages], context.settings))
        if self.fail:
            raise ValueError("disk full")
        return ActionSummary(done=len(messages) - 1, failed=1, sentence="ticket written",
                             files=["/tmp/ticket.json"])

    @hookimpl
    def mqconsole_actions(self):
        return [Action("ticket", "Open a ticket", "selection", False, self._run)]


def test_a_plugin_action_runs_as_an_operation():
    plugin, done = Ticket(), Done()
    host = plugin_host(plugin, done, settings={"Ticket": {"project": "OPS"}})
    action = host.action("ticket")
    run = run_operation(PluginAction(action, "IN", ALL), plugin, done,
                        settings={"Ticket": {"project": "OPS"}}, queues={"IN": BODIES})
    assert plugin.got == [("IN", BODIES, {"project": "OPS"})]
    s = run.summary
    assert s.kind == "action" and s.counts == {"selected": 3, "done": 2, "failed": 1,
                                               "skipped": 0}
    assert s.exit_code == 1 and s.extra["files"] == ["/tmp/ticket.json"]
    [entry] = run.journal
    assert entry.operation == "action" and entry.details["action"] == "ticket"
    assert entry.details["sentence"] == "ticket written"
    assert done.summaries == [s]


def test_a_raising_action_fails_its_messages_and_is_still_journaled():
    plugin = Ticket(fail=True)
    action = plugin_host(plugin).action("ticket")
    run = run_operation(PluginAction(action, "IN", ALL), plugin, queues={"IN": BODIES})
    s = run.summary
    assert s.counts["failed"] == 3 and s.exit_code == 1
    sentence = "plugin Ticket's action ticket failed (ValueError: disk full)"
    assert s.extra["sentence"] == sentence and s.result.warnings == []  # said once
    [entry] = run.journal
    assert entry.operation == "action" and "disk full" in entry.details["sentence"]


def test_a_journal_that_cannot_be_started_changes_nothing(tmp_path: Path):
    run = run_operation(Move("IN", "OUT", ALL), queues={"IN": [b"x"], "OUT": []})
    blocked = tmp_path / "dir"
    blocked.mkdir()
    op = Operation(Move("OUT", "IN", ALL), journal=Journal(blocked))  # a folder: no file
    with pytest.raises(OperationError) as caught:
        op.run(run.qm)
    assert caught.value.code == ExitCode.JOURNAL_FAILED
    assert str(blocked) in str(caught.value) and "nothing was changed" in str(caught.value)
    assert len(run.messages("OUT")) == 1 and run.messages("IN") == []


def test_queue_attrs_define_for_helper():  # the helper defines queues it is given
    run = run_operation(Move("A", "B", ALL), queues={"A": ["text"], "B": []})
    assert isinstance(run.qm.inquire_queue("A"), QueueAttrs)
    assert [m.body for m in run.messages("B")] == [b"text"]


def test_a_preview_plans_with_checks_but_is_neither_journaled_nor_told(tmp_path: Path):
    run = run_operation(Move("IN", "OUT", ALL), queues={"IN": BODIES, "OUT": []},
                        dry_run=True)
    done = Done()
    journal = Journal(tmp_path / "j.jsonl")
    op = Operation(Move("IN", "OUT", ALL), journal=journal,
                   plugins=plugin_host(RefuseSecret(), done))
    s = op.preview(run.qm)
    assert s.dry_run and len(s.result.plan) == 3
    assert sum("would_fail" in p for p in s.result.plan) == 1  # the check was asked
    assert list(journal.read()) == [] and done.summaries == []
    assert len(run.messages("IN")) == 3


def test_an_edit_saves_the_original_to_a_backup_first_and_the_journal_names_it(tmp_path):
    from mqconsole.ops.dmpfile import read_messages

    first = run_operation(Move("IN", "OUT", ALL), queues={"IN": [b"before"], "OUT": []})
    msg_id = bytes(first.messages("OUT")[0].md.msg_id)
    run = run_operation(Edit("OUT", msg_id, text="after", backup_dir=tmp_path / "b"),
                        qm=first.qm)
    backup = run.summary.result.backup
    assert backup is not None and backup.startswith(str(tmp_path / "b"))
    [saved] = read_messages(backup)
    assert saved.body == b"before" and bytes(saved.md.msg_id) == msg_id
    assert [m.body for m in run.messages("OUT")] == [b"after"]
    assert run.journal[0].backup == backup
    dry = run_operation(Edit("OUT", msg_id, text="again", backup_dir=tmp_path / "c"),
                        qm=first.qm, dry_run=True)
    assert dry.summary.result.backup is None and not (tmp_path / "c").exists()


def test_header_kept_is_said_only_off_the_dead_letter_queue_to_another_queue():
    from mqconsole.ops.operation import header_kept

    dlq = "SYSTEM.DEAD.LETTER.QUEUE "  # as inquired: blank-padded
    kept = header_kept("SYSTEM.DEAD.LETTER.QUEUE", "APP.AUDIT", dlq)
    assert kept is not None and "APP.AUDIT" in kept and "--strip-dlh" in kept
    assert header_kept("SYSTEM.DEAD.LETTER.QUEUE", "APP.AUDIT", dlq, strip_dlh=True) is None
    assert header_kept("APP.ORDERS", "APP.AUDIT", dlq) is None
    assert header_kept("SYSTEM.DEAD.LETTER.QUEUE", "APP.AUDIT", "") is None  # no DLQ defined
    # to the dead-letter queue of another queue manager: still a dead-letter queue
    assert header_kept("SYSTEM.DEAD.LETTER.QUEUE", "QM2.DLQ", dlq, dest_dlq="QM2.DLQ") is None
    assert header_kept("SYSTEM.DEAD.LETTER.QUEUE", "SYSTEM.DEAD.LETTER.QUEUE", dlq,
                       dest_dlq="QM2.DLQ") is not None


def test_an_actions_scope_holds_what_it_may_be_given():
    """Both faces ask the operation: a message action one message, a queue action the
    whole queue; a read-only profile is offered no dangerous action."""
    from mqconsole.ops.selection import Mark

    class Scoped:
        @hookimpl
        def mqconsole_actions(self):
            run = lambda context, messages: ActionSummary(done=len(messages))  # noqa: E731
            return [Action("peek", "Peek", "message", False, run),
                    Action("drain", "Drain", "queue", True, run)]

    host = plugin_host(Scoped())
    assert [a.id for a in host.offered_actions(read_only=True)] == ["peek"]
    assert [a.id for a in host.offered_actions(read_only=False)] == ["peek", "drain"]
    with pytest.raises(LookupError, match="dangerous and the profile is read-only; known "
                       "actions: peek"):
        host.offered_action("drain", read_only=True, profile="prod")
    with pytest.raises(LookupError, match="no action 'nope'; known actions: drain, peek"):
        host.offered_action("nope", read_only=False, profile="prod")
    run = run_operation(Move("IN", "OUT", Selection(all=True)), queues={"IN": BODIES,
                                                                          "OUT": []})
    peek, drain = host.action("peek"), host.action("drain")
    one = Selection(marks=frozenset({Mark(None, position=1)}))
    Operation(PluginAction(peek, "OUT", one), journal=None).validate(run.qm)
    Operation(PluginAction(drain, "OUT", ALL), journal=None).validate(run.qm)
    for kind, said in ((PluginAction(peek, "OUT", ALL), "works on one message"),
                       (PluginAction(drain, "OUT", one), "works on the whole queue")):
        with pytest.raises(OperationError, match=said):
            Operation(kind, journal=None).validate(run.qm)


class SeesPutDate:
    """Refuses a message put before 2020 (by its MQMD), recording what it saw."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        self.seen.append(message.md.put_date)
        return "older than 2020" if message.md.put_date < "2020" else None


def test_a_check_sees_a_new_context_put_as_mq_will_put_it():
    """With --new-context MQ gives each message the put date and time of its put: the
    check sees that, not the old context the put replaces (spec: as it would be put)."""
    from datetime import UTC, datetime

    from mqconsole.mq.md import MQMD

    old = Message(MQMD(format="MQSTR", put_date="20190101", put_time="10000000",
                       msg_id=b"OLD".ljust(24, b"\0")), b"old")
    today = datetime.now(UTC).strftime("%Y%m%d")
    for new_context, done in ((False, 0), (True, 1)):
        check = SeesPutDate()
        run = run_operation(Move("IN", "OUT", ALL, new_context=new_context), check,
                            queues={"IN": [old], "OUT": []})
        assert run.summary.counts["done"] == done
        days = {today, datetime.now(UTC).strftime("%Y%m%d")}  # (a run across midnight)
        assert len(check.seen) == 1
        assert check.seen[0] in (days if new_context else {"20190101"})

"""A put check that changes the message it is given changes nothing that is put (issue 28
item 2), over the ops layer: each operation that checks before a put — move, copy,
move with the dead-letter header stripped, resubmit, load, edit to another queue, the
dead-letter handler's RETRY and FWD — run once with a check that rewrites the body and MD
of its message and once with a check that only looks, on identical queues: the queues and
the journals come out the same, and nothing the vandal wrote is anywhere."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.dlq.rules import parse_table
from mqconsole.ops.operation import Copy, DlqPass, Edit, Load, Move, Resubmit
from mqconsole.ops.operation.testing import OperationRun, run_operation
from mqconsole.ops.savefile import write_messages_file
from mqconsole.ops.selection import Selection
from mqconsole.plugins import hookimpl
from tests.support.faulty import make_message

DLQ = "APP.DLQ"


class Vandal:
    """Changes everything it can reach of the message it is asked about."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        self.calls += 1
        md = message.md
        md.msg_id = b"V" * 24
        md.correl_id = b"C" * 24
        md.priority = 0
        md.format = "VANDAL  "
        md.put_appl_name = "vandal"
        message.body = b"VANDAL " + bytes(message.body)
        message.md = MQMD(msg_id=b"W" * 24)
        return None


class Bystander:
    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        self.calls += 1
        return None


def dead(i: int, dest: str) -> Message:
    m = make_message(i)
    md, data = add_dead_letter_header(m.md.copy(), m.body, reason=2053, dest_q_name=dest,
                                      put_time=f"1000{i:04d}")
    return Message(md, data)


def queues() -> dict[str, list[Message]]:
    return {"IN": [make_message(i) for i in range(1, 6)], "OUT": [],
            DLQ: [dead(i, "IN") for i in range(10, 14)] + [dead(i, "FWD.ME") for i in
                                                             range(20, 23)],
            "CATCH": []}


def _dump(tmp_path: Path) -> str:
    path = tmp_path / "in.dmp"
    if not path.exists():
        write_messages_file(path, [make_message(i) for i in range(30, 34)], qmgr="QM",
                            queue="IN")
    return str(path)


KINDS: dict[str, Callable[[Path], object]] = {
    "move": lambda _: Move("IN", "OUT", Selection(all=True)),
    "copy": lambda _: Copy("IN", "OUT", Selection(all=True)),
    "move stripping the dead-letter header": lambda _: Move(DLQ, "OUT", Selection(all=True),
                                                            strip_dlh=True),
    "resubmit": lambda _: Resubmit(DLQ, Selection(all=True), to="OUT"),
    "load": lambda tmp: Load(_dump(tmp), "OUT"),
    "edit to another queue": lambda _: Edit("IN", make_message(2).md.msg_id,
                                            changes={"priority": 7}, to="OUT"),
    "dead-letter handler RETRY and FWD": lambda _: DlqPass(
        parse_table("DESTQ(IN) ACTION(RETRY)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)"),
        "site.rules", input_q=DLQ, once=True),
}


def _md(md: MQMD) -> tuple:
    """The MD's fields; a message put with a new context (the dead-letter handler's
    PUTAUT(DEF): put application mqconsole) has the put's own date and time, which differ
    between the two runs — left out (a vandal's put_appl_name would still show)."""
    if md.put_appl_name.strip() == "mqconsole":
        md = dataclasses.replace(md, put_date="", put_time="")
    return dataclasses.astuple(md)


def contents(run: OperationRun) -> dict[str, list[tuple]]:
    return {q: [(_md(m.md), bytes(m.body)) for m in run.messages(q)]
            for q in ("IN", "OUT", DLQ, "CATCH")}


@pytest.mark.parametrize("name", list(KINDS))
def test_a_check_changing_its_message_changes_nothing_put(name, tmp_path) -> None:
    vandal, bystander = Vandal(), Bystander()
    hit = run_operation(KINDS[name](tmp_path), vandal, queues=queues())
    ref = run_operation(KINDS[name](tmp_path), bystander, queues=queues())
    try:
        assert vandal.calls == bystander.calls > 0
        assert hit.summary.counts == ref.summary.counts
        assert hit.summary.counts["done"] > 0
        after, planned = contents(hit), contents(ref)
        assert after == planned
        assert not any(b"VANDAL" in body for q in after.values() for _, body in q)
        [end] = [e for e in hit.journal if e.msgids]
        [ref_end] = [e for e in ref.journal if e.msgids]
        assert end.msgids == ref_end.msgids
        at = [f.name for f in dataclasses.fields(MQMD)].index("msg_id")
        on_queues = {md[at].hex().upper() for q in after.values() for md, _ in q}
        if name != "copy":  # every MsgId journaled is on a queue now
            assert set(end.msgids) <= on_queues
    finally:
        hit.close()
        ref.close()


def test_two_checks_each_see_the_message_as_it_would_be_put() -> None:
    """A second check is not shown what the first did to its copy."""
    seen: list[bytes] = []

    class Looker:
        @hookimpl
        def mqconsole_check_put(self, operation, message, destination):
            seen.append(bytes(message.body) + message.md.msg_id)
            return None

    run = run_operation(Move("IN", "OUT", Selection(all=True)), Vandal(), Looker(),
                        queues={"IN": [make_message(1)], "OUT": []})
    try:
        m = make_message(1)
        assert seen == [m.body + m.md.msg_id]
        assert [(x.md.msg_id, x.body) for x in run.messages("OUT")] == [(m.md.msg_id, m.body)]
    finally:
        run.close()

"""A message another process takes while a move has it in hand is said as such: "gone from
A (another process took it)", never "stayed on A" (issue 17 item 12)."""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.cli.summary import summary_lines
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.exit_codes import exit_code_of
from mqconsole.ops.operation import Description, Summary
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer

# issue 22 item 12: once more with every optional capability off (tests/support/plain.py)
pytestmark = pytest.mark.capabilities_off_too


def test_a_message_taken_meanwhile_is_gone_not_stayed(tmp_path):
    path = tmp_path / "qm.sqlite"
    qm = create_queue_manager(path, name="QMG")
    for q in ("A", "B"):
        qm.define_queue(QueueAttrs(name=q))
    for i in range(10):
        qm.put("A", Message(MQMD(format="MQSTR", msg_id=bytes([i + 1]) * 24), b"x%d" % i),
               context=Context.SET_ALL, syncpoint=True)
    qm.commit()
    qm.close()
    mover, other = open_embedded(path), open_embedded(path)

    def other_takes_it(message, destination):  # runs just before the move's put
        if message.body == b"x4":
            other.get_by_msgid("A", message.md.msg_id, syncpoint=False)

    r = transfer(mover, "A", "B", Selection(all=True), batch=5, check=other_takes_it)
    assert r.done == 9 and [f.gone for f in r.failed] == [True]
    assert r.failed[0].detail.startswith("gone from A (another process took it")
    assert r.failed_why() == "gone from A (another process took it)"
    lines = summary_lines(Summary(Description("move", "moving"), r, exit_code_of(r)))
    assert "failed: 1 (gone from A (another process took it))" in lines
    assert not any("stayed" in line for line in lines)
    assert r.to_json()["failed"][0]["gone"] is True
    mover.close()
    other.close()

"""``run_operation``, the helper plugin authors test with: their plugins registered, one
operation on an embedded queue manager in memory, its summary, journal and queues."""

from __future__ import annotations

from mqconsole.ops.operation import Move
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.selection import Selection
from mqconsole.plugins import hookimpl


class RefuseOld:
    @hookimpl
    def mqconsole_check_put(self, operation, message, destination):
        return "it is old" if message.body == b"old" else None


def test_a_refusing_plugin_fails_its_message_and_the_rest_move():
    run = run_operation(Move("IN", "OUT", Selection(all=True)), RefuseOld(),
                        queues={"IN": [b"old", b"new", "newer"], "OUT": []})
    try:
        assert run.summary.counts["done"] == 2 and run.summary.counts["failed"] == 1
        assert [m.body for m in run.messages("IN")] == [b"old"]
        assert sorted(m.body for m in run.messages("OUT")) == [b"new", b"newer"]
        [entry] = run.journal
        assert entry.operation == "move"
        assert [i.name for i in run.host.infos()] == ["RefuseOld"]
    finally:
        run.close()

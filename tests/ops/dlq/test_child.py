"""The dead-letter handler's own process (ops/dlq/child.py), its console side: what the child
is given (the password over its pipe, never on its command line or in its environment),
errors said as the same error in process, and which connections no other process can open.
The console's plan and run through the real child: tests/tui/test_dlq_child.py."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

from mqconsole.backends.mqi.settings import MQConnectSettings
from mqconsole.backends.open import open_embedded, reopen_spec
from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import MQRC_Q_FULL
from mqconsole.ops.dlq.child import (
    ChildEnded,
    HandlerChild,
    HandlerFailed,
    _decode,
    error_fields,
    error_of,
)
from mqconsole.ops.dlq.rules import check_table
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.operation import DlqPass, Operation, OperationError

# a stand-in for the handler's process: it keeps the first line it is given and ends
KEEP_ONE = ("import sys; line = sys.stdin.readline(); open(sys.argv[1], 'w').write(line); "
            "print('stand-in: ended', file=sys.stderr); sys.exit(3)")


class _Conns:
    """The console's connections as the runner sees them: the main one only."""

    def __init__(self, qm: object) -> None:
        self.qm = qm

    def main(self) -> object:
        return self.qm

    def new(self) -> object:
        raise AssertionError("a pass in the handler's process opens nothing here")

    def release(self, qm: object) -> None:
        raise AssertionError("nothing to release")


class _RealQueueManager:
    """Connected to a real queue manager, as the opener made it: the operator's password
    in its settings (asked in the console's dialog)."""

    def __init__(self) -> None:
        self.settings = MQConnectSettings(queue_manager="QM1", channel="APP.SVRCONN",
                                          connection_name="mq(1414)", user="app",
                                          password="pw-typed-in-the-dialog")


def _op(tmp_path: Path) -> Operation:
    table, problems = check_table("ACTION(IGNORE)\n")
    assert table is not None and not problems
    return Operation(DlqPass(table, "x.rules", input_q="Q", once=True), journal=None,
                     profile="prod", details={"tui": True})


@pytest.mark.subprocess
def test_the_password_reaches_the_handlers_process_over_its_pipe_only(tmp_path):
    log = tmp_path / "first-line"
    runner = HandlerChild(command=[sys.executable, "-c", KEEP_ONE, str(log)])
    with pytest.raises(ChildEnded) as ended:
        runner.plan(_op(tmp_path), _Conns(_RealQueueManager()), lambda *_: None,
                    threading.Event())
    assert str(ended.value) == ("the dead-letter handler's process ended before answering "
                                "(exit code 3) (stand-in: ended)")
    message = json.loads(log.read_text())
    assert message["job"] == "plan"
    request = _decode(message["request"])
    assert request.connection.kind == "mq"
    assert request.connection.mq.password == "pw-typed-in-the-dialog"
    assert request.connection.mq.channel == "APP.SVRCONN"
    assert request.profile == "prod" and request.details == {"tui": True}
    # never on its command line, never in its environment (it inherits the console's)
    process = runner.process
    assert process is not None
    assert not any("pw-typed" in str(a) for a in process.args)
    assert not any("pw-typed" in v for v in os.environ.values())
    assert "pw-typed" not in repr(request.connection)


def test_what_no_other_process_can_open_is_planned_here(tmp_path):
    memory = open_embedded(":memory:", create=True)
    file = open_embedded(tmp_path / "qm.sqlite", create=True)
    try:
        assert reopen_spec(memory) is None
        spec = reopen_spec(file)
        assert spec is not None and spec.kind == "embedded"
        assert spec.path == str(tmp_path / "qm.sqlite") and spec.principal == file.principal
        assert reopen_spec(object()) is None
    finally:
        memory.close()
        file.close()


@pytest.mark.parametrize("error", [
    OperationError("the table's INPUTQ(APP.X) does not exist on QM1", ExitCode.USAGE),
    MQError(MQRC_Q_FULL, "putting to APP.HOLD"),
    HandlerFailed("plugin gate could not be loaded for the dead-letter handler"),
    RuntimeError("something odd"),
])
def test_an_error_in_the_handlers_process_is_said_as_in_process(error):
    error.add_note("100 messages were handled before it stopped and stay so")
    again = error_of(json.loads(json.dumps(error_fields(error))))
    assert str(again) == str(error)
    assert again.__notes__ == error.__notes__
    assert getattr(again, "reason", None) == getattr(error, "reason", None)
    assert getattr(again, "detail", None) == getattr(error, "detail", None)
    if isinstance(error, OperationError):
        assert isinstance(again, OperationError) and again.code == error.code


def test_a_result_that_cannot_be_sent_is_said_never_left_unanswered(tmp_path, monkeypatch):
    """The console waits for an answer to each job: one whose result cannot be pickled
    (a temporary file in it, as a result's id log once had) is an error, not a silence."""
    import io

    from mqconsole.backends.spec import BackendSpec
    from mqconsole.ops.dlq.child import Child, Request, _encode

    out = io.StringIO()
    child = Child(out)
    monkeypatch.setattr(Child, "do", staticmethod(lambda *_args: threading.Lock()))
    child._jobs[1] = (threading.Event(), None)
    request = Request(kind=_op(tmp_path).spec, connection=BackendSpec.embedded("qm.sqlite"),
                      journal_path=None)
    child.run(1, {"id": 1, "job": "run", "request": _encode(request)})
    [line] = out.getvalue().splitlines()
    message = json.loads(line)
    assert message["id"] == 1 and "lock" in message["error"]["text"]

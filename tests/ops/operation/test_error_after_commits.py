"""An error that stops a change after some of its units committed says what was committed
(issue 17 items 1 and 12): exit 2 promises nothing was done, so such an error is exit 1 at
most, and both faces say how many stay done (mqconsole journal lists them)."""

from __future__ import annotations

import pytest

from mqconsole.backends.open import open_embedded
from mqconsole.cli.errors import report
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.exit_codes import ExitCode
from mqconsole.ops.journal import Journal
from mqconsole.ops.operation import Operation, Put
from mqconsole.tui.context import describe_error
from tests.support.faulty import Faults, FaultyQueueManager


def test_a_put_stopped_by_an_error_midway_says_what_it_put(tmp_path, capsys):
    real = open_embedded(":memory:")
    real.define_queue(QueueAttrs(name="Q", max_depth=10_000))
    qm = FaultyQueueManager(real, Faults(put={1250: 2085}))  # the queue deleted meanwhile
    journal = Journal(tmp_path / "j.jsonl")
    op = Operation(Put("Q", MQMD(format="MQSTR"), b"x", count=2000), journal=journal)
    with pytest.raises(MQError) as caught:
        op.run(qm)
    exc = caught.value
    [entry] = list(journal.read())
    committed = entry.counts()["done"]
    assert committed == 1000 and committed == real.inquire_queue("Q").depth
    assert exc.committed_before_error == committed
    said = f"{committed:,} messages were put before it stopped and stay so: mqconsole journal " \
           "lists them"
    assert exc.__notes__ == [said]
    assert report(exc) == ExitCode.PARTIAL  # 2085 alone would be exit 2: nothing done
    err = capsys.readouterr().err
    assert err.startswith("mqconsole: ") and f"({said})" in err and err.count("\n") == 1
    assert said in describe_error(exc, queue="Q")  # the console's notification


def test_an_error_before_any_commit_is_unchanged(tmp_path, capsys):
    real = open_embedded(":memory:")
    real.define_queue(QueueAttrs(name="Q"))
    qm = FaultyQueueManager(real, Faults(put={1: 2085}))
    op = Operation(Put("Q", MQMD(format="MQSTR"), b"x", count=5),
                   journal=Journal(tmp_path / "j.jsonl"))
    with pytest.raises(MQError) as caught:
        op.run(qm)
    assert not hasattr(caught.value, "__notes__")
    assert report(caught.value) == ExitCode.USAGE

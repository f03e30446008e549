"""Issue 22 item 6: an idle dead-letter handler waits in MQGET, as runmqdlq does — a browse
with MQGMO_WAIT on the dead-letter queue, woken by an arrival — and sends no PCF command
while it waits (before: INQUIRE_Q_STATUS every second, and arrivals missed while the
command server was down).

The stand-in runs its MQGET waits on the test's say (``ENGINE.clocked``: a wait ends when a
message comes or ``ENGINE.expire_waits()`` says its interval ran out), so an idle minute is
sixty expired waits, not sixty seconds; it counts the PCF requests its command server read
and every MQPUT1 to the command queue."""

from __future__ import annotations

import threading
import time

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.chain import add_dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.ops.dlq.handler import run_handler, settings_for
from mqconsole.ops.dlq.rules import parse_table
from mqconsole.ops.result import Control

BOUND = 60.0  # seconds a condition may take to come true on a loaded machine


def until(condition, what: str) -> None:
    """Wait for ``condition`` (a state of the stand-in or the handler), never for a time."""
    deadline = time.monotonic() + BOUND
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def dead(i: int, dest: str) -> Message:
    md, body = add_dead_letter_header(MQMD(format="MQSTR   ", priority=5),
                                      f"message {i}".encode(), reason=2053, dest_q_name=dest,
                                      dest_qmgr_name="QMW")
    return Message(md, body)


def pcf_traffic(engine, qmgr) -> int:
    return len(engine.server.requests) + sum(
        1 for c in engine.calls_named("MQPUT1") if c.info.get("queue") ==
        qmgr.qdef.command_queue)


class Commits:
    """The handler's journal, kept in memory: the units it committed, in order."""

    def __init__(self) -> None:
        self.units: list[list[str]] = []
        self._open: list[str] = []

    def unit(self, msgids: list[str], destinations: list[str | None]) -> bool:
        self._open = list(msgids)
        return True

    def committed(self) -> None:
        self.units.append(self._open)


@pytest.fixture
def clocked(engine):
    engine.clocked = True
    yield engine
    engine.clocked = False
    engine.expire_waits()


@pytest.mark.parametrize("command_server", [True, False])
def test_an_idle_handler_waits_in_mqget_and_sends_no_pcf(make_qmgr, clocked, command_server
                                                         ) -> None:
    engine = clocked
    qmgr = make_qmgr("QMW")
    dlq, target = qmgr.queue("DLQ"), qmgr.queue("TARGET")
    qm = qmgr.connect(response_wait_interval=200)
    qm.put(dlq, dead(1, target), context=Context.SET_ALL, syncpoint=False)
    table = parse_table(f"INPUTQ({dlq}) WAIT(YES) RETRYINT(3600)\nACTION(RETRY)")
    stop = threading.Event()
    reports = []
    commits = Commits()
    worker = threading.Thread(target=lambda: reports.append(run_handler(
        qm, table, settings_for(table, dlq), store_path=None,
        control=Control(cancel=stop, journal=commits))), daemon=True)
    worker.start()
    until(lambda: engine.waiting[dlq] > 0, "the handler to wait on the dead-letter queue")
    qmgr.qdef.command_server = command_server
    before = pcf_traffic(engine, qmgr)
    for _ in range(60):  # an idle minute: sixty MQGET waits run out, one after another
        started = engine.wait_starts
        engine.expire_waits()
        until(lambda started=started: engine.wait_starts > started, "the next MQGET wait")
    assert pcf_traffic(engine, qmgr) == before  # no PCF while idle
    waits = [c for c in engine.calls_named("MQGET") if c.info.get("queue") == dlq
             and c.info.get("options", 0) & qm.lib.CMQC.MQGMO_WAIT]
    assert waits and all(c.info["options"] & (qm.lib.CMQC.MQGMO_BROWSE_NEXT |
                                              qm.lib.CMQC.MQGMO_BROWSE_FIRST) for c in waits)
    # an arrival wakes the waiting MQGET at once: the message is retried
    other = qmgr.connect()
    other.put(dlq, dead(2, target), context=Context.SET_ALL, syncpoint=False)
    # its unit committed: the target's depth alone counts the put before the commit (as
    # CURDEPTH does), and a stop then backs that unit out (the handler's documented stop)
    until(lambda: len(commits.units) == 2, "the arrival's unit of work to commit")
    assert qmgr.admin().inquire_queue(target).depth == 2
    stop.set()  # a wait that started before the stop was seen ends when it runs out
    until(lambda: engine.expire_waits() or not worker.is_alive(), "the handler to stop")
    assert reports[0].result.done == 2
    assert qmgr.admin().inquire_queue(dlq).depth == 0

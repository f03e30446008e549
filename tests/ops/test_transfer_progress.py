"""Progress that tells the truth (issue 23 item 6): a walk reports how many messages it
read and how many its selection took, in time even when a --where is slow, not only every
1,000 messages."""

from __future__ import annotations

import itertools

import pytest

from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops import transfer as T
from mqconsole.ops.result import Control
from mqconsole.ops.selection import Selection
from tests.support.counting import bulk_fill

# issue 22 item 12: once more with every optional capability off (tests/support/plain.py)
pytestmark = pytest.mark.capabilities_off_too


def _qm(n: int):
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs("SRC", max_depth=n + 10))
    qm.define_queue(QueueAttrs("DST", max_depth=n + 10))
    bulk_fill(qm, "SRC", n)
    return qm


def test_a_plan_reports_read_and_selected_as_it_goes_and_in_time(monkeypatch):
    qm = _qm(600)
    clock = itertools.count(0.0, 1.0)  # a second passes at each look at the clock
    monkeypatch.setattr(T.time, "monotonic", lambda: next(clock))
    reports: list[tuple] = []

    def progress(done, total, matched=None):
        reports.append((done, total, matched))

    progress.wants_matched = True
    sel = Selection.build(where="length = 11")  # messages 100 to 600: "message 100"
    result = T.transfer(qm, "SRC", "DST", sel, dry_run=True,
                        control=Control(progress=progress))
    assert result.selected == 501
    walking = [r for r in reports if r[0] < 600]
    assert len(walking) >= 600 // T.REPORT_EVERY - 1  # in time: far more than 600 // 1000
    assert all(total == 600 for _, total, _ in reports)
    assert reports[-1] == (600, 600, 501)
    assert (150, 600, 50) in reports  # messages 100 to 149 selected when 150 is read


def test_a_progress_function_of_two_arguments_is_still_called_with_two():
    qm = _qm(50)
    seen = []
    T.transfer(qm, "SRC", "DST", Selection.build(all_=True), dry_run=True,
               control=Control(progress=lambda done, total: seen.append((done, total))))
    assert seen[-1] == (50, 50)

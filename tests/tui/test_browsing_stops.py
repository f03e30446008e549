"""BrowseModel when a filter is stopped mid-batch (issue 17 item 6): nothing is skipped."""

from __future__ import annotations

import threading

import pytest

from mqconsole.tui.browsing import BrowseModel, Cancelled

from .conftest import NOW
from .test_browsing import big  # noqa: F401 - the module fixture: 2,500 messages on BIG.Q


class FilterFailed(Exception):
    """What a filter may raise out of ``matches`` (a ``--where`` never does; another filter,
    or an interrupt, may)."""


class SlowOnce:
    """A filter that matches every message but raises on one position, once, or sets
    ``cancel`` when it reaches a position (the operator pressing Escape)."""

    def __init__(self, *, slow_at=None, cancel_at=None, cancel=None):
        self.slow_at, self.cancel_at, self.cancel = slow_at, cancel_at, cancel

    def matches(self, view):
        if view.position == self.slow_at:
            self.slow_at = None
            raise FilterFailed("stopped on one message")
        if view.position == self.cancel_at and self.cancel is not None:
            self.cancel.set()
        return True


def test_a_failing_filter_stops_the_read_and_keeps_the_rest_of_the_batch(big):  # noqa: F811
    where = SlowOnce(slow_at=150)
    model = BrowseModel(lambda: big.browse("BIG.Q"), "BIG.Q", now=NOW, page_size=100,
                        where=where)
    with pytest.raises(FilterFailed):
        model.read_until(None)
    assert model.count == 149 and model.scanned == 149 and not model.done
    model.read_until(None)  # the operator asks again: the stopped message is listed
    assert model.done and model.count == 2500 and model.scanned == 2500
    assert [model.row(i).position for i in range(2500)] == list(range(1, 2501))
    assert model.summary.total == 2500


def test_escape_stops_within_a_batch_and_nothing_is_skipped(big):  # noqa: F811
    cancel = threading.Event()
    where = SlowOnce(cancel_at=42, cancel=cancel)
    model = BrowseModel(lambda: big.browse("BIG.Q"), "BIG.Q", now=NOW, page_size=100,
                        where=where)
    with pytest.raises(Cancelled):
        model.read_until(None, cancel=cancel)
    assert model.count == 42  # stopped inside the first batch of 100
    model.read_until(None)
    assert model.done and [model.row(i).position for i in range(model.count)] == \
        list(range(1, 2501))
    assert model.summary.total == 2500  # each message counted once

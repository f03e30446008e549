"""BrowseModel: forward-only browsing in pages, a light index, a bounded window."""

from __future__ import annotations

import threading

import pytest

from mqconsole.backends.embedded import create_queue_manager
from mqconsole.mq.md import MQMD
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.messages import put_messages
from mqconsole.ops.where import compile_where
from mqconsole.tui.browsing import BrowseModel, Cancelled

from .conftest import NOW


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    qm = create_queue_manager(str(tmp_path_factory.mktemp("big") / "big.sqlite"), name="QMB")
    qm.define_queue(QueueAttrs(name="BIG.Q", max_depth=100_000))
    put_messages(qm, "BIG.Q", MQMD(format="MQSTR", ccsid=1208), b'{"n": 1}', count=2500)
    yield qm
    qm.close()


class CountingCursor:
    """Wraps a cursor and counts the messages read through it."""

    def __init__(self, cursor, counter):
        self.cursor, self.counter = cursor, counter

    def next_batch(self, n):
        batch = self.cursor.next_batch(n)
        self.counter[0] += len(batch)
        return batch

    def close(self):
        self.cursor.close()


def model_of(qm, **kw) -> tuple[BrowseModel, list[int]]:
    read = [0]
    model = BrowseModel(lambda: CountingCursor(qm.browse("BIG.Q"), read), "BIG.Q", now=NOW,
                        **kw)
    return model, read


def test_reads_only_what_is_asked_for(big):
    model, read = model_of(big, page_size=100)
    model.read_until(150)
    assert model.count == 150 and read[0] == 150 and not model.done
    model.read_until(120)  # already there: nothing read
    assert read[0] == 150
    model.read_until(None)
    assert model.done and model.count == 2500 and read[0] == 2500
    assert model.total_label() == "2,500"
    row = model.row(2499)
    assert row.position == 2500 and row.length == 8 and row.format == "MQSTR"
    assert model.index.nbytes() / model.count < 96  # a light index: bytes per row


def test_window_is_bounded_and_old_rows_are_fetched_again(big):
    model, read = model_of(big, page_size=100, window_rows=300)
    model.read_until(None)
    assert len(model._window) <= 300
    assert model.view(10) is None  # left the window
    before = read[0]
    view = model.fetch(10)
    assert view.position == 11 and bytes(view.md.msg_id) == model.row(10).msgid
    assert read[0] - before == 11  # browsed again from the start, up to it


def test_fetch_notices_a_queue_that_changed(big):
    big.define_queue(QueueAttrs(name="SMALL.Q"))
    put_messages(big, "SMALL.Q", MQMD(format="MQSTR", ccsid=1208), b"x", count=30)
    model = BrowseModel(lambda: big.browse("SMALL.Q"), "SMALL.Q", now=NOW, page_size=5,
                        window_rows=10)
    model.read_until(None)
    assert model.view(5) is None
    big.get("SMALL.Q", syncpoint=False)  # the first message goes: everything shifts
    with pytest.raises(LookupError):
        model.fetch(5)


def test_filter_lists_matching_rows_and_counts_all_read(big):
    where = compile_where("backout_count = 0")
    model, _ = model_of(big, page_size=500, where=where, where_text="backout_count = 0")
    model.read_until(10)
    assert model.count >= 10 and model.scanned >= model.count
    none = compile_where("backout_count > 5")
    model2, _ = model_of(big, page_size=500, where=none, where_text="x")
    model2.read_until(10)
    assert model2.count == 0 and model2.done and model2.scanned == 2500


def test_cancel_stops_a_long_read(big):
    model, _ = model_of(big, page_size=100)
    cancel = threading.Event()
    calls = []

    def progress(m):
        calls.append(m.count)
        if m.count >= 300:
            cancel.set()

    with pytest.raises(Cancelled):
        model.read_until(None, cancel=cancel, progress=progress)
    assert 300 <= model.count < 2500


def test_positions_of_a_msgid(big):
    model, _ = model_of(big)
    model.read_until(None)
    mid = model.row(7).msgid
    assert model.positions_of(mid) == [8]
    assert model.summary.result()["total"] == 2500

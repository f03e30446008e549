"""A filter of the messages read says how far it has come: read and matched (issue 23
item 6), and a list drops the rows of messages an operation took (item 2), in the model."""

from __future__ import annotations

from datetime import UTC, datetime

from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.where import compile_where
from mqconsole.tui.browsing import BrowseModel
from tests.support.counting import bulk_fill, msg_id_of

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def _model(n: int) -> BrowseModel:
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs("Q", max_depth=n + 1))
    bulk_fill(qm, "Q", n)
    model = BrowseModel(lambda: qm.browse("Q"), "Q", now=NOW, page_size=50)
    model.read_until(None)
    return model


def test_filtering_what_was_read_reports_read_and_matched_after_each_message():
    model = _model(120)
    seen: list[tuple[int, int, int]] = []
    out = model.filtered(compile_where("length = 11"), "length = 11",
                         progress=lambda *a: seen.append(a))
    assert out is not None and out.count == 21  # messages 100 to 120
    assert seen[0] == (1, 0, 120) and seen[-1] == (120, 21, 120)
    assert [r for r, _, _ in seen] == list(range(1, 121))
    assert seen[99] == (100, 1, 120)


def test_dropping_rows_moves_the_positions_after_them_up_and_keeps_the_rest():
    model = _model(10)
    assert model.drop({3, 7})
    assert model.count == 8 and model.scanned == 8
    assert [model.row(i).msgid for i in range(8)] == [msg_id_of(i) for i in
                                                      (1, 2, 4, 5, 6, 8, 9, 10)]
    assert [model.row(i).position for i in range(8)] == list(range(1, 9))
    assert model.view(2).position == 3 and model.view(2).message.body == b"message 4"
    assert model.summary.result()["total"] == 8
    filtered = model.filtered(compile_where("length = 9"), "length = 9")  # 1 to 9 left
    assert filtered is not None and filtered.count == 7
    assert filtered.drop({4})  # message 5, at position 4 now
    assert [filtered.row(i).msgid for i in range(filtered.count)] == [msg_id_of(i) for i in
                                                                      (1, 2, 4, 6, 8, 9)]
    assert [filtered.row(i).position for i in range(filtered.count)] == [1, 2, 3, 4, 5, 6]
    assert model.count == 7  # the list it was filtered from dropped it too
    assert model.row(6).msgid == msg_id_of(10) and model.row(6).position == 7

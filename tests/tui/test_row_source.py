"""One row-source protocol (issue 26 item 8): the messages screen and the message list ask
the model what it can do, never which class it is; both models are row sources."""

from __future__ import annotations

from pathlib import Path

from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.browse import page_reader
from mqconsole.tui.browsing import BrowseModel
from mqconsole.tui.paging import PagedModel
from mqconsole.tui.rows import RowSource
from tests.support.counting import bulk_fill

TUI = Path(__file__).resolve().parents[2] / "mqconsole" / "tui"


def _models():
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs("Q", max_depth=100))
    bulk_fill(qm, "Q", 30)
    browse = BrowseModel(lambda: qm.browse("Q"), "Q")
    browse.read_until(None)
    paged = PagedModel(page_reader(qm, "Q"), "Q", page_size=10)
    paged.load([0, 1, 2])
    return qm, browse, paged


def test_both_models_are_row_sources_and_agree_on_the_rows_before_a_row():
    qm, browse, paged = _models()
    try:
        for model in (browse, paged):
            assert isinstance(model, RowSource)
            assert model.count == 30
        assert browse.reads_in_order and not paged.reads_in_order
        assert paged.can_count_facts and not browse.can_count_facts
        assert paged.summary_pending and not browse.summary_pending
        gone = {3, 7, 20}
        for row in (0, 3, 5, 7, 21, 29):
            assert browse.rows_before(row, gone) == paged.rows_before(row, gone)
        assert browse.missing(0, 30) == [] and not browse.load_now([0])
    finally:
        qm.close()


def test_the_screen_and_the_list_never_ask_which_model_it_is():
    for path in ("screens/messages.py", "widgets/message_list.py", "targets.py"):
        text = (TUI / path).read_text()
        assert "isinstance(model, " not in text and "isinstance(self.model, " not in text, path

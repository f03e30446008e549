"""Delete and save of marked messages find them by what names them, as move and copy do
(issue 23): the cost grows with the messages marked, not the queue's depth — counted as the
messages the backend's cursors browse."""

from __future__ import annotations

import pytest

from mqconsole.backends.open import open_embedded
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.dmpfile import read_messages
from mqconsole.ops.operation import Delete, Save
from mqconsole.ops.selection import Mark, Selection
from tests.support.counting import bulk_fill, msg_id_of

from .test_pinpoint import SRC, N, _run, _token_of


@pytest.fixture
def deep():
    qm = open_embedded(":memory:")
    qm.define_queue(QueueAttrs(SRC, max_depth=N + 10))
    bulk_fill(qm, SRC, N)
    yield qm
    qm.close()


def _marks(qm, *numbers: int) -> Selection:
    return Selection(marks=frozenset(Mark(msg_id_of(i), token=_token_of(qm, i), position=i)
                                     for i in numbers))


def _bodies_in(path) -> list[bytes]:
    return [m.body for m in read_messages(str(path))]


@pytest.mark.parametrize("dry_run", [True, False])
def test_marked_messages_deep_in_the_queue_are_deleted_without_browsing_the_rest(
        deep, tmp_path, dry_run):
    picked = (N - 7, N - 3, 5)
    summary, counts = _run(deep, Delete(SRC, _marks(deep, *picked),
                                        backup_dir=tmp_path), dry_run=dry_run)
    assert counts.browsed[SRC] == 0, counts.browsed  # saved and removed: found by token
    assert counts.found[SRC] >= len(picked)
    assert summary.counts["selected"] == 3
    if dry_run:
        assert sorted(p["position"] for p in summary.result.plan) == sorted(picked)
        assert deep.inquire_queue(SRC).depth == N
        return
    assert summary.counts["done"] == 3
    assert deep.inquire_queue(SRC).depth == N - 3
    assert _bodies_in(summary.result.backup) == [b"message %d" % i for i in sorted(picked)]
    with deep.browse(SRC) as c:  # exactly those went: their neighbours are there
        for i in picked:
            assert c.browse_msg_id(msg_id_of(i), True) is None
            assert c.browse_msg_id(msg_id_of(i - 1), True) is not None


def test_marked_messages_are_saved_without_browsing_the_rest(deep, tmp_path):
    out = tmp_path / "two.dmp"
    summary, counts = _run(deep, Save(SRC, str(out), _marks(deep, N - 10, N - 2)))
    assert counts.browsed[SRC] == 0, counts.browsed
    assert summary.counts["done"] == 2
    assert _bodies_in(out) == [b"message %d" % (N - 10), b"message %d" % (N - 2)]
    assert deep.inquire_queue(SRC).depth == N  # a save changes nothing


def test_a_marked_message_gone_since_is_said_and_the_rest_deleted(deep, tmp_path):
    selection = _marks(deep, N - 5, N - 4)
    with deep.browse(SRC, for_get=True) as c:  # another application takes one
        c.browse_msg_id(msg_id_of(N - 5), True)
        c.get_current(syncpoint=False)
    summary, counts = _run(deep, Delete(SRC, selection, backup_dir=tmp_path))
    assert counts.browsed[SRC] == 0
    assert summary.counts["done"] == 1
    assert any("1 of the marked messages is no longer there" in w
               for w in summary.result.warnings)
    assert deep.inquire_queue(SRC).depth == N - 2


def test_a_delete_of_all_still_walks_the_queue(deep, tmp_path):
    summary, counts = _run(deep, Delete(SRC, Selection.build(where="position <= 3"),
                                        backup_dir=tmp_path))
    assert summary.counts["done"] == 3 and counts.browsed[SRC] > 0

"""The operation result's id log (ops/result.py: MsgIdLog)."""

from __future__ import annotations

from mqconsole.ops.result import MsgIdLog


def test_after_gives_the_ids_from_there_on_and_reads_nothing_past_the_end() -> None:
    ids = [f"{i:048X}" for i in range(10)]
    log = MsgIdLog(ids, keep=3)  # three in memory, the rest spilled to its file
    for k in range(13):
        assert list(log.after(k)) == ids[k:]
    assert log._file is not None
    log._file.close()  # the end record of a move whose units were all journaled: no read
    assert list(log.after(10)) == [] and list(log.after(11)) == []


def test_a_pickled_log_is_made_again_whole_its_rest_in_a_file_of_its_own():
    """The dead-letter handler's result crosses from its process to the console pickled
    (ops/dlq/child.py): every id, in order, the spilled ones never as a list."""
    import pickle

    ids = [f"{i:048x}" for i in range(10)] + ["not plain\nid", "", "ÿ"]
    for n in (0, 2, 3, 5, len(ids)):  # none, in memory only, spilled, not yet written
        log = MsgIdLog(ids[:n], keep=3)
        again = pickle.loads(pickle.dumps(log))
        assert len(again) == n and list(again) == ids[:n] and again == log
        assert (again._file is None) == (n <= 3)
        again.extend(["more"])
        assert list(again) == [*ids[:n], "more"]

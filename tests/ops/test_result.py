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

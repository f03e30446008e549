"""``--batch-bytes`` (issue 22 item 11) on the embedded queue manager: a load's packed
route (``PutsPacked``: many puts in one call) and its one-by-one route commit before a
unit would hold more than the bound; one message bigger than the bound goes alone. The
log limit itself (2102 past it) is the stand-in's: tests/backends/mqi/test_mqi_log_limit.py."""

from __future__ import annotations

import pytest

from mqconsole.backends.base import PutsPacked
from mqconsole.ops.operation import Load, Operation, Save
from mqconsole.ops.operation.testing import run_operation
from mqconsole.ops.savefile import load_to_queue
from mqconsole.ops.selection import Selection
from mqconsole.ops.uowlimit import UnitBytes, parse_bytes

ALL = Selection(all=True)


class _Counting:
    """The connection, counting its commits."""

    def __init__(self, qm) -> None:
        self._qm = qm
        self.commits = 0

    def __getattr__(self, name):
        if name == "put_packed" and type(self) is _Counting:
            raise AttributeError(name)  # one put at a time
        return getattr(self._qm, name)

    def commit(self) -> None:
        self.commits += 1
        self._qm.commit()


class _CountingPacked(_Counting):
    def put_packed(self, *a, **kw):
        return self._qm.put_packed(*a, **kw)


@pytest.mark.parametrize("packed", [True, False])
def test_a_load_commits_before_a_unit_passes_batch_bytes(tmp_path, packed):
    bodies = ["x" * 1000] * 9 + ["y" * 5000] + ["z" * 1000] * 2  # the big one goes alone
    run = run_operation(Save("IN", str(tmp_path / "f.dmp"), ALL),
                        queues={"IN": bodies, "OUT": []})
    qm = _CountingPacked(run.qm) if packed else _Counting(run.qm)
    assert isinstance(qm, PutsPacked) == packed
    r = load_to_queue(qm, tmp_path / "f.dmp", "OUT", batch=100, batch_bytes=3000)
    assert (r.done, r.failed) == (12, [])
    # units: 3+3+3 of 1000, the 5000 alone, 2 of 1000
    assert qm.commits == 5
    assert [len(m.body) for m in run.messages("OUT")] == [len(b) for b in bodies]


def test_the_load_kind_passes_batch_bytes(tmp_path):
    run = run_operation(Save("IN", str(tmp_path / "f.dmp"), ALL),
                        queues={"IN": ["x" * 1000] * 6, "OUT": []})
    qm = _CountingPacked(run.qm)
    summary = Operation(Load(str(tmp_path / "f.dmp"), "OUT", batch_bytes=2000),
                        journal=None).run(qm)
    assert summary.result.done == 6 and qm.commits == 3


@pytest.mark.parametrize(("text", "n"), [("64MiB", 64 << 20), ("512k", 512 << 10),
                                         ("1.5m", 3 << 19), ("1G", 1 << 30), ("100", 100),
                                         ("2KB", 2048)])
def test_sizes(text, n):
    assert parse_bytes(text) == n


@pytest.mark.parametrize("text", ["", "x", "-5", "0", "12q"])
def test_a_bad_size_is_one_sentence(text):
    with pytest.raises(ValueError, match=r"size|at least 1 byte"):
        parse_bytes(text)


def test_unit_bytes_never_refuses_an_empty_unit():
    u = UnitBytes(10)
    assert not u.full_for(50, [], len)
    assert u.full_for(1, [b"x" * 10], len) and u.full([b"x" * 10], len)

"""The journal reader over hostile bytes (issue 17 items 2 and 5; the bar: parsers never
crash on hostile bytes): whatever a crash, a disk or a hand left in the file — cut records,
flipped bytes, foreign lines, records of a kind or shape it does not know — ``read`` (with
and without ids), ``read_tail``, ``read_newest`` and ``read_operation`` never raise; each
problem is reported, and a whole change written around the damage still reads back."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from mqconsole.ops.journal import Journal, JournalEntry
from tests.support.examples import examples

IDS = [f"{n:048X}" for n in range(1, 8)]


def _records(tmp_path) -> list[bytes]:
    """The lines of one move journaled as it commits: start, two units and commits, end."""
    path = tmp_path / "model.jsonl"
    path.unlink(missing_ok=True)
    journal = Journal(path)
    entry = JournalEntry("move", source="A", destinations=["B"], qmgr="QM1")
    rec = journal.begin(entry)
    for unit in (IDS[:4], IDS[4:]):
        rec.unit(unit, ["B"] * len(unit))
        rec.committed()
    entry.outcomes, entry.msgids = [], []
    rec.end(entry)
    return path.read_bytes().splitlines(keepends=True)


def _mutate(line: bytes, data) -> bytes:
    how = data.draw(st.sampled_from(["cut", "flip", "insert", "keep"]))
    if how == "cut":
        return line[:data.draw(st.integers(0, max(0, len(line) - 1)))]
    if how == "flip" and line:
        i = data.draw(st.integers(0, len(line) - 1))
        return line[:i] + bytes([data.draw(st.integers(0, 255))]) + line[i + 1:]
    if how == "insert":
        i = data.draw(st.integers(0, len(line)))
        return line[:i] + data.draw(st.binary(max_size=40)) + line[i:]
    return line


FOREIGN = st.one_of(
    st.binary(max_size=200),
    st.just(b"[" * 5000 + b"]" * 5000),
    st.builds(lambda d: json.dumps(d).encode(), st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
            st.sampled_from(["time", "record", "op", "unit", "msgids", "operation",
                             "details", "outcomes", "committed", "destination", "x"]),
            kids, max_size=6), max_leaves=20)),
)


@examples(150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_is_reported_and_never_raises(tmp_path, data):
    good = _records(tmp_path)
    damaged = [_mutate(line, data) for line in good]
    damaged[data.draw(st.integers(0, len(damaged))):0] = data.draw(
        st.lists(FOREIGN, max_size=4))
    path = tmp_path / "journal.jsonl"
    body = b"".join(x if x.endswith(b"\n") else x + b"\n" for x in damaged)
    # a whole change written after the damage (as the writer would: it ends a torn line)
    path.write_bytes(body)
    after = Journal(path)
    after.append(JournalEntry("copy", source="AFTER"))
    for ids in (True, False):
        entries = list(after.read(ids=ids))
        assert entries[-1].operation == "copy" and entries[-1].source == "AFTER"
    after.read_tail(1 << 16)
    after.read_newest(5)
    for e in list(after.read()):
        if e.op is not None:
            after.read_operation(e.op)
    after.ops_mentioning(IDS[0][-12:])

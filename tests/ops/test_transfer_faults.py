"""Faults injected at every step of a move or copy — put, get, commit, the browse, the
destination filling up or being put-inhibited after N messages, commits backed out or with
an unknown outcome — and every message still ends up exactly once, on the source or on the
destination, with its body and context unchanged (only its BackoutCount may rise)."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mqconsole.mq.message import Message
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import transfer
from tests.support.faulty import (
    Faults,
    FaultyQueueManager,
    assert_exactly_once,
    browse_all,
    fill,
    key,
    make_message,
)
from tests.support.templates import filled_template

# issue 22 item 12: once more with every optional capability off (tests/support/plain.py)
pytestmark = pytest.mark.capabilities_off_too

SRC, DST = "APP.SRC", "APP.DST"
N, BATCH = 250, 50


def _messages() -> list[Message]:
    out = []
    for i in range(N):
        m = make_message(i)
        md = m.md.copy(priority=5)
        if i % 25 == 24:  # a MsgId shared with the message before it, another body
            md = md.copy(msg_id=out[-1].md.msg_id)
        out.append(Message(md, m.body))
    out[200] = Message(out[199].md, out[199].body)  # an exact twin
    return out


@dataclass
class Case:
    faults: Faults
    done: int
    failed: int = 0
    skipped: int = 0
    unknown: bool = False
    reasons: set[int] = field(default_factory=set)
    copy: bool = False
    stopped: bool = False


def F(**kw) -> Faults:
    return Faults(**kw)


CASES: dict[str, Case] = {
    # a refused put: that message stays, nothing is backed out, the rest moves
    **{f"put_{reason}_at_{n}": Case(F(put={n: reason}), N - 1, 1, reasons={reason})
       for reason in (2053, 2051, 2035, 2030) for n in (1, 50, 51, 250)},
    "put_refused_twice_in_a_unit": Case(F(put={3: 2053, 40: 2035}), N - 2, 2,
                                        reasons={2053, 2035}),
    # a put failing because of the connection: the unit is backed out and redone
    "put_connection_broken_at_75": Case(F(put={75: 2009}), N),
    # a failed get: backed out, redone once
    **{f"get_{reason}_at_{n}": Case(F(get={n: reason}), N)
       for reason in (2009, 2034, 2102) for n in (1, 50, 51, 137, 250)},
    "got_a_different_message": Case(F(wrong_get={60}), N),
    "put_refused_and_get_failed_in_one_unit": Case(F(put={55: 2053}, get={57: 2009}),
                                                   N - 1, 1, reasons={2053}),
    # the redo fails too: stop, the unit's messages stay and are reported
    "get_fails_in_the_redo_too": Case(F(get={60: 2009, 61: 2009}), 50, 10,
                                      reasons={2009}, stopped=True),
    # commits backed out (2003): redone
    **{f"commit_2003_at_{n}": Case(F(commit={n: 2003}), N) for n in (1, 3, 5)},
    "commit_2003_twice": Case(F(commit={2: 2003, 3: 2003}), 50, 50, reasons={2003},
                              stopped=True),
    "commit_fails_then_redo_get_fails": Case(F(commit={2: 2003}, get={101: 2009}), 50, 50,
                                             reasons={2009}, stopped=True),
    # unknown outcome: stop at once, say which messages (either outcome is exactly-once)
    "commit_2549_not_committed": Case(F(commit={2: 2549}), 50, 50, unknown=True,
                                      reasons={2549}, stopped=True),
    "commit_2549_committed": Case(F(commit_after={2: 2549}), 50, 50, unknown=True,
                                  reasons={2549}, stopped=True),
    "commit_2009_connection_broken": Case(F(commit={3: 2009}), 100, 50, unknown=True,
                                          reasons={2009}, stopped=True),
    **{f"commit_{r}_{how}": Case(F(**{how: {3: r}}), 100, 50, unknown=True, reasons={r},
                                 stopped=True)
       for r in (2009, 2018, 2548) for how in ("commit", "commit_after")},
    # any other commit failure leaves the unit open: backed out, then redone
    **{f"commit_{r}_left_open": Case(F(commit={2: r}), N) for r in (2102, 2195, 2071)},
    # ... but never redone when the backout fails too: its outcome is unknown
    "commit_2102_backout_fails": Case(F(commit={2: 2102}, backout={1: 2009}), 50, 50,
                                      unknown=True, reasons={2102}, stopped=True),
    # the destination fills up / is put-inhibited after N messages: after 10 refusals in a
    # row the destination is given up, and a move to it stops browsing (issue 15, trust 6)
    "full_after_120": Case(F(full_after={DST: 120}), 120, 10, reasons={2053}, stopped=True),
    "full_after_0": Case(F(full_after={DST: 0}), 0, 10, reasons={2053}, stopped=True),
    "inhibited_after_70": Case(F(inhibit_after={DST: 70}), 70, 10, reasons={2051},
                               stopped=True),
    "inhibited_after_245": Case(F(inhibit_after={DST: 245}), 245, 5, 0, reasons={2051}),
    # the browse fails mid-walk: the open unit is backed out, its messages reported
    "browse_fails_at_130": Case(F(browse_next={130: 2009}), 100, 29, reasons={2009},
                                stopped=True),
    # copies
    "copy_commit_2003": Case(F(commit={2: 2003}), N, copy=True),
    "copy_put_connection_broken": Case(F(put={77: 2009}), N, copy=True),
    "copy_full_after_30": Case(F(full_after={DST: 30}), 30, 10, reasons={2053},
                               copy=True, stopped=True),
    "copy_commit_2549": Case(F(commit={1: 2549}), 0, 50, unknown=True, reasons={2549},
                             copy=True, stopped=True),
}


ORIGINAL = _messages()
"""What every test finds on SRC: read only (a test compares what it moved against it)."""


@pytest.fixture(scope="module")
def filled(tmp_path_factory) -> Path:
    """SRC holding ORIGINAL (put as ``fill`` puts them), DST empty: built once, each test
    gets a private copy (``make_qm(copy_of=...)``) rather than 250 puts of its own."""
    return filled_template(tmp_path_factory.mktemp("faults"), (SRC, DST), 100_000,
                           lambda qm: fill(qm, SRC, ORIGINAL))


@pytest.fixture
def qm(make_qm, filled):
    return make_qm(copy_of=filled)


ROUTES = [("all", "move_next"), ("all", "move_current_to"), ("all", "put_get_current"),
          ("off", "put_get_current")]
"""The routes a move can take: on the embedded queue manager as it is, its three; with
every optional capability off (``capabilities``, tests/support/plain.py) the cursor has
no move step to offer, so ``Faults.fast`` and ``Faults.many`` hide nothing more and
the one route there is put + get_current (the other two routes ran that very code
again, with the same faults, on the same copy: the same test twice more)."""


@pytest.mark.capabilities_off_too(False)  # both capabilities are in ROUTES
@pytest.mark.parametrize(("capabilities", "route"), ROUTES, indirect=["capabilities"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_fault_matrix(qm, name, route):
    """Each case on each route: through the embedded cursor's many steps in one call (each
    message that hits a fault by its one-call step), through its one-call move step alone,
    and through the protocol's put + get_current (the wrapper hides the fast paths), on
    the embedded queue manager as it is and with every optional capability off."""
    case = CASES[name]
    original = ORIGINAL
    faults = copy.deepcopy(case.faults)  # fresh counters for each run
    faults.fast = route != "put_get_current"
    faults.many = route == "move_next"
    fq = FaultyQueueManager(qm, faults)
    r = transfer(fq, SRC, DST, Selection.build(all_=True), batch=BATCH, copy=case.copy)
    assert faults.injected, "the fault was never reached"
    assert not qm.in_unit_of_work
    src, dst = browse_all(qm, SRC), browse_all(qm, DST)

    # every message exactly once, body and context unchanged
    if case.copy:
        assert_exactly_once(original, src)
        assert [m.md.backout_count for m in src] == [0] * N
        _each_copied_once(original, dst)
    else:
        assert_exactly_once(original, src, dst)
    assert all(m.md.backout_count == 0 for m in dst), "a put starts BackoutCount at 0"
    assert all(m.md.backout_count <= 2 for m in src)

    # the result says what happened
    assert (r.done, len(r.failed), r.skipped, r.outcome_unknown) == (
        case.done, case.failed, case.skipped, case.unknown), (r.warnings, r.failed[:3])
    assert {f.reason for f in r.failed} == case.reasons
    assert r.done == len(dst) or case.unknown
    if not case.stopped:
        assert r.selected == N == r.done + len(r.failed) + r.skipped
    else:
        assert any("stopped early" in w for w in r.warnings)
    if not case.unknown:
        on_source = {m.msg_id_hex for m in src}
        assert {f.msgid for f in r.failed} <= on_source, "failed messages stayed"
    else:
        assert any("outcome of" in w and "unknown" in w for w in r.warnings)
    # positions name the message as it was browsed
    by_pos = {i + 1: m for i, m in enumerate(original)}
    for f in r.failed:
        assert by_pos[f.position].msg_id_hex == f.msgid


def _each_copied_once(original: list[Message], dst: list[Message]) -> None:
    """A copy put only what was on the source, each message at most once."""
    have = Counter(key(m) for m in dst)
    want = Counter(key(m) for m in original)
    assert not (have - want), "a copy put something twice, or something not on the source"


def test_backout_counts_rise_only_for_backed_out_units(qm):
    fq = FaultyQueueManager(qm, Faults(commit={2: 2003, 3: 2003}))
    transfer(fq, SRC, DST, Selection.build(all_=True), batch=BATCH)
    src = browse_all(qm, SRC)
    # units 2 was backed out twice (once by the first commit, once by the redo's)
    counts = [m.md.backout_count for m in src]
    assert counts[:50] == [2] * 50 and counts[50:] == [0] * 150


def test_a_stopped_move_can_be_run_again_to_finish(qm):
    original = ORIGINAL
    fq = FaultyQueueManager(qm, Faults(commit={2: 2003, 3: 2003}))
    first = transfer(fq, SRC, DST, Selection.build(all_=True), batch=BATCH)
    assert first.done == 50
    second = transfer(qm, SRC, DST, Selection.build(all_=True), batch=BATCH)
    assert second.done == 200 and second.all_done
    assert_exactly_once(original, browse_all(qm, DST))
    assert browse_all(qm, SRC) == []


def test_a_browse_failing_before_anything_is_the_callers_error(qm):
    from mqconsole.mq.errors import MQError

    original = ORIGINAL
    fq = FaultyQueueManager(qm, Faults(browse_next={1: 2016}))
    with pytest.raises(MQError) as e:
        transfer(fq, SRC, DST, Selection.build(all_=True))
    assert e.value.reason == 2016
    assert_exactly_once(original, browse_all(qm, SRC))


def test_the_redo_cursor_failing_stops_with_the_unit_reported(qm):
    original = ORIGINAL
    # the 5th get fails; the redo's first browse (the 6th next) fails too
    fq = FaultyQueueManager(qm, Faults(get={5: 2009}, browse_next={6: 2009}))
    r = transfer(fq, SRC, DST, Selection.build(all_=True), batch=BATCH)
    assert r.done == 0 and len(r.failed) == 5 and {f.reason for f in r.failed} == {2009}
    assert any("stopped early" in w for w in r.warnings)
    src = browse_all(qm, SRC)
    assert_exactly_once(original, src)
    assert [m.md.backout_count for m in src[:5]] == [1, 1, 1, 1, 0]  # the 5th was not got


@pytest.mark.parametrize("wrapped", [False, True])
def test_a_move_on_the_embedded_backend_takes_the_fast_steps(qm, monkeypatch, wrapped,
                                                              capabilities):
    """The fault matrix's fast runs exercise the embedded cursor's move_next and
    move_current_to (and a plain move uses them): every message moved goes through one of
    them, none through put; the first of each unit of work by the one-call step, the rest
    of the unit by move_next. With the capabilities off none of them is used (the MQI
    backend's path: put, then get under the cursor)."""
    from mqconsole.backends.embedded.cursor import EmbeddedCursor

    original = ORIGINAL
    steps, many = [], []
    real_step, real_many = EmbeddedCursor.move_current_to, EmbeddedCursor.move_next

    def counting(self, *a, **kw):  # type: ignore[no-untyped-def]
        steps.append(1)
        return real_step(self, *a, **kw)

    def counting_many(self, *a, **kw):  # type: ignore[no-untyped-def]
        moved = real_many(self, *a, **kw)
        many.append(len(moved))
        return moved

    monkeypatch.setattr(EmbeddedCursor, "move_current_to", counting)
    monkeypatch.setattr(EmbeddedCursor, "move_next", counting_many)
    target = FaultyQueueManager(qm, Faults()) if wrapped else qm
    r = transfer(target, SRC, DST, Selection.build(all_=True), batch=BATCH)
    if capabilities == "off":
        assert r.done == N and steps == [] and many == []
        assert_exactly_once(original, browse_all(qm, SRC), browse_all(qm, DST))
        return
    assert r.done == N and len(steps) + sum(many) == N
    assert len(steps) == N // BATCH and [k for k in many if k], many
    assert [k for k in many if k] == [BATCH - 1] * (N // BATCH)
    assert_exactly_once(original, browse_all(qm, SRC), browse_all(qm, DST))


@pytest.mark.capabilities_off_too(False)  # a fault in move_next's rows: the capability itself
def test_an_sqlite_failure_moving_move_nexts_rows_backs_the_unit_out_and_redoes_it(qm):
    """A real SQLite error half-way through the statement of the commit that moves the
    rows move_next noted (a trigger refuses to move the 120th row once): the transaction
    is rolled back, so the whole unit of work (the message moved by the one-call step
    before them included) is backed out and redone; every message ends up exactly once,
    all moved, in order."""
    original = ORIGINAL
    fired: list[int] = []

    def fault(row_id: int) -> int:
        if not fired and row_id == target:
            fired.append(row_id)
            return 1
        return 0

    db = qm._s.db
    target = db.execute("SELECT id FROM messages WHERE queue = ? ORDER BY npri, id "
                        "LIMIT 1 OFFSET 119", (SRC,)).fetchone()[0]
    db.create_function("injected_fault", 1, fault)
    db.execute("CREATE TEMP TRIGGER refuse BEFORE UPDATE ON messages "
               "WHEN injected_fault(old.id) BEGIN SELECT RAISE(ABORT, 'injected'); END")
    r = transfer(qm, SRC, DST, Selection.build(all_=True), batch=BATCH)
    assert fired == [target]
    assert (r.done, r.failed, r.all_done) == (N, [], True)
    assert browse_all(qm, SRC) == []
    dst = browse_all(qm, DST)
    assert_exactly_once(original, dst)
    assert [key(m) for m in dst] == [key(m) for m in original]  # in order


@pytest.mark.parametrize("faults", [{}, {"commit": {2: 2003}}, {"get": {120: 2009}}],
                         ids=["plain", "commit_backed_out", "get_fails"])
def test_units_written_as_marks_midway_move_exactly_once(qm, monkeypatch, faults):
    """A unit of work whose deferred puts and gets outgrow DEFER_BYTES is written as marks
    in the middle of move_next's units (here after a few hundred bytes): moved, backed out
    and redone as any other, every message once."""
    from mqconsole.backends.embedded import session

    monkeypatch.setattr(session, "DEFER_BYTES", 300)
    original = ORIGINAL
    fq = FaultyQueueManager(qm, Faults(**faults))
    r = transfer(fq, SRC, DST, Selection.build(all_=True), batch=BATCH)
    assert (r.done, r.failed) == (N, [])
    assert browse_all(qm, SRC) == []
    assert_exactly_once(original, browse_all(qm, DST))

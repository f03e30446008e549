"""Move and copy: selection, context, duplicate MsgIds, groups, --strip-dlh, dry runs,
cancelling, and moves between two queue managers. Every test checks the queues."""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.embedded import create_queue_manager
from mqconsole.backends.open import open_embedded
from mqconsole.mq.chain import add_dead_letter_header, strip_dead_letter_header
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs
from mqconsole.ops.result import Control
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import TransferError, identity, same_message, transfer
from tests.support.faulty import (
    Faults,
    FaultyQueueManager,
    assert_exactly_once,
    browse_all,
    fill,
    key,
    make_message,
)

# issue 22 item 12: once more with every optional capability off (tests/support/plain.py)
pytestmark = pytest.mark.capabilities_off_too

SRC, DST = "APP.SRC", "APP.DST"
ALL = Selection.build(all_=True)
IN_GROUP, LAST_IN_GROUP, SEGMENT, LAST_SEGMENT = 0x08, 0x10, 0x02, 0x04


@pytest.fixture
def qm(make_qm):
    return make_qm(SRC, DST, max_depth=100_000)


def test_move_all_keeps_body_and_context(qm):
    original = [make_message(i) for i in range(230)]
    fill(qm, SRC, original)
    r = transfer(qm, SRC, DST, ALL, batch=50)
    assert (r.selected, r.done, r.failed, r.skipped) == (230, 230, [], 0)
    assert r.moved_to == {DST: 230} and r.destination == DST and r.all_done
    assert browse_all(qm, SRC) == []
    moved = browse_all(qm, DST)
    assert_exactly_once(original, moved)
    assert all(m.md.backout_count == 0 for m in moved)
    # MQ delivery order (priority, then arrival) is kept
    assert [key(m) for m in moved] == [key(m) for m in browse_order(original)]
    assert r.to_json()["destination"] == DST


def browse_order(messages: list[Message]) -> list[Message]:
    return sorted(messages, key=lambda m: -min(max(m.md.priority, 0), 9))


def test_copy_leaves_the_source_intact(qm):
    original = [make_message(i) for i in range(120)]
    fill(qm, SRC, original)
    before = browse_all(qm, SRC)
    r = transfer(qm, SRC, DST, ALL, copy=True, batch=25)
    assert r.operation == "copy" and r.done == 120
    after = browse_all(qm, SRC)
    assert [key(m) for m in after] == [key(m) for m in before]
    assert [m.md.backout_count for m in after] == [0] * 120
    assert_exactly_once(original, browse_all(qm, DST))


def test_selection_where_msgid_and_limit(qm):
    original = [make_message(i) for i in range(60)]
    fill(qm, SRC, original)
    r = transfer(qm, SRC, DST, Selection.build(where="priority = 3"))
    assert r.done == 6 and {m.md.priority for m in browse_all(qm, DST)} == {3}
    target = original[7].md.msg_id.hex()
    r = transfer(qm, SRC, DST, Selection.build(msgids=[target]))
    assert r.done == 1 and r.done_msgids == [target.upper()]
    r = transfer(qm, SRC, DST, Selection.build(all_=True, limit=5))
    assert r.selected == 5 and r.done == 5
    assert len(browse_all(qm, DST)) == 12 and len(browse_all(qm, SRC)) == 48
    assert_exactly_once(original, browse_all(qm, SRC), browse_all(qm, DST))


def test_nothing_matched(qm):
    fill(qm, SRC, [make_message(i) for i in range(5)])
    r = transfer(qm, SRC, DST, Selection.build(where="priority = 99"))
    assert (r.selected, r.done) == (0, 0) and r.all_done
    assert len(browse_all(qm, SRC)) == 5


def test_same_queue_is_refused(qm):
    from mqconsole.mq.queue import QueueType

    with pytest.raises(TransferError):
        transfer(qm, SRC, SRC, ALL)
    qm.define_queue(QueueAttrs(name="SRC.ALIAS", type=QueueType.ALIAS, target_q=SRC))
    qm.define_queue(QueueAttrs(name="SRC.BACK", type=QueueType.REMOTE, remote_q_name=SRC,
                               remote_qmgr_name="QM1"))
    # chains: an alias of a remote definition pointing back, a queue manager alias of this one
    qm.define_queue(QueueAttrs(name="SRC.ALIAS.BACK", type=QueueType.ALIAS, target_q="SRC.BACK"))
    qm.define_queue(QueueAttrs(name="QM1.ALIAS", type=QueueType.REMOTE, remote_qmgr_name="QM1"))
    qm.define_queue(QueueAttrs(name="SRC.VIA.QMALIAS", type=QueueType.REMOTE,
                               remote_q_name=SRC, remote_qmgr_name="QM1.ALIAS"))
    fill(qm, SRC, [make_message(i) for i in range(3)])
    for dest in ("SRC.ALIAS", "SRC.BACK", "SRC.ALIAS.BACK", "SRC.VIA.QMALIAS"):
        with pytest.raises(TransferError, match="both"):
            transfer(qm, SRC, dest, ALL)
    assert len(browse_all(qm, SRC)) == 3
    other = qm.new_connection()
    with pytest.raises(TransferError):
        transfer(qm, SRC, SRC, ALL, dest_qm=other)
    other.close()


def test_new_context(qm):
    fill(qm, SRC, [make_message(i) for i in range(3)])
    transfer(qm, SRC, DST, ALL, new_context=True)
    for m in browse_all(qm, DST):
        assert m.md.user_identifier.strip() == qm.principal[:12]
        assert m.md.put_appl_name.strip() == "mqconsole"


def test_duplicate_msgids_take_exactly_the_selected_message(qm):
    dup = b"D" * 24
    original = [make_message(i, msg_id=dup, body=f"twin {i}".encode()) for i in range(6)]
    fill(qm, SRC, original)
    r = transfer(qm, SRC, DST, Selection.build(where="text = 'twin 3'"))
    assert r.done == 1
    [moved] = browse_all(qm, DST)
    assert moved.body == b"twin 3"
    assert sorted(m.body for m in browse_all(qm, SRC)) == [
        f"twin {i}".encode() for i in (0, 1, 2, 4, 5)]


def test_identical_twins_under_a_redo(qm):
    """Exact duplicates (same MsgId, descriptor and body) with a backout in the middle:
    the count on each side is still right."""
    twin = make_message(1, msg_id=b"T" * 24, body=b"same")
    original = [make_message(0), twin, twin, twin, make_message(4), twin]
    fill(qm, SRC, original)
    fq = FaultyQueueManager(qm, Faults(get={4: 2009}))
    r = transfer(fq, SRC, DST, Selection.build(msgids=[(b"T" * 24).hex()]), batch=10)
    assert r.done == 4 and r.failed == []
    assert [m.body for m in browse_all(qm, DST)].count(b"same") == 4
    assert_exactly_once(original, browse_all(qm, SRC), browse_all(qm, DST))


def test_identity_ignores_backout_count_and_expiry():
    m = make_message(1)
    m2 = Message(m.md.copy(backout_count=3, expiry=77), m.body)
    assert identity(m) == identity(m2) and same_message(m2, m)
    m3 = Message(m.md.copy(correl_id=b"x" * 24), m.body)
    assert identity(m3) != identity(m) and not same_message(m3, m)


# -- --strip-dlh ----------------------------------------------------------------------------

def _dead(i: int, *, zos: bool = False) -> Message:
    m = make_message(i, body=f"payload {i}".encode("cp500" if zos else "ascii"))
    md = m.md.copy(encoding=785, ccsid=500) if zos else m.md
    md, body = add_dead_letter_header(md, m.body, reason=2053, dest_q_name="APP.ORIG",
                                      dest_qmgr_name="QM1", put_appl_name="amqrmppa",
                                      header_encoding=785 if zos else None,
                                      header_ccsid=500 if zos else None)
    return Message(md, body)


def test_strip_dlh_restores_format_encoding_ccsid(qm):
    dead = [_dead(i, zos=i % 2 == 1) for i in range(6)]
    plain = [make_message(100 + i) for i in range(2)]
    fill(qm, SRC, dead + plain)
    r = transfer(qm, SRC, DST, ALL, strip_dlh=True)
    assert r.done == 8
    assert any("2 messages had no dead-letter header" in w for w in r.warnings)
    by_id = {m.md.msg_id: m for m in browse_all(qm, DST)}
    for d in dead:
        want_md, want_body = strip_dead_letter_header(d.md, d.body)
        got = by_id[d.md.msg_id]
        assert got.body == want_body
        assert (got.md.format, got.md.encoding, got.md.ccsid) == (
            want_md.format, want_md.encoding, want_md.ccsid)
        assert got.md.format == "MQSTR   " and got.md.user_identifier == d.md.user_identifier
    assert (by_id[dead[1].md.msg_id].md.encoding, by_id[dead[1].md.msg_id].md.ccsid) == (
        785, 500)
    for p in plain:
        assert key(by_id[p.md.msg_id]) == key(p)


def test_strip_dlh_bad_header_stays(qm):
    good = _dead(1)
    bad = Message(good.md.copy(msg_id=b"B" * 24), b"DLH " + b"\xff" * 40)
    fill(qm, SRC, [good, bad])
    r = transfer(qm, SRC, DST, ALL, strip_dlh=True)
    assert r.done == 1 and [f.reason for f in r.failed] == [2142]
    assert [m.md.msg_id for m in browse_all(qm, SRC)] == [b"B" * 24]


# -- dry run ------------------------------------------------------------------------------

def test_dry_run_changes_nothing_and_plans(qm):
    original = [_dead(i) for i in range(4)] + [make_message(9)]
    fill(qm, SRC, original)
    before_src = browse_all(qm, SRC)
    r = transfer(qm, SRC, DST, ALL, strip_dlh=True, dry_run=True)
    assert r.dry_run and r.done == 0 and r.selected == 5 and len(r.plan) == 5
    assert [key(m) for m in browse_all(qm, SRC)] == [key(m) for m in before_src]
    assert browse_all(qm, DST) == []
    by_id = {e["msgid"]: e for e in r.plan}
    first = by_id[original[0].msg_id_hex]
    assert first["destination"] == DST and first["position"] == 5  # by priority: last
    assert any("MQDLH" in c for c in first["changes"])
    assert any("Format MQDEAD -> MQSTR" in c for c in first["changes"])
    assert by_id[original[4].msg_id_hex]["changes"] == []


def test_dry_run_predicts_a_full_destination(qm):
    qm.define_queue(QueueAttrs(name="SMALL", max_depth=2))
    fill(qm, SRC, [make_message(i) for i in range(4)])
    r = transfer(qm, SRC, "SMALL", ALL, dry_run=True)
    assert [("would_fail" in e) for e in r.plan] == [False, False, True, True]
    assert r.plan[2]["would_fail"]["reason"] == 2053


# -- refusals -----------------------------------------------------------------------------

def test_full_destination_stops_after_ten_refusals(qm):
    qm.define_queue(QueueAttrs(name="SMALL", max_depth=7))
    original = [make_message(i) for i in range(40)]
    fill(qm, SRC, original)
    r = transfer(qm, SRC, "SMALL", ALL, batch=3)
    # given up after ten refusals in a row: the move stops browsing (issue 15, trust 6)
    assert r.done == 7 and len(r.failed) == 10 and r.skipped == 0 and r.selected == 40
    assert r.not_tried == 23  # never tried: a count of their own (issue 24 item 2)
    assert {f.reason for f in r.failed} == {2053}
    assert any("refused 10 messages in a row" in w and "given up" in w
               and "after position 17 were not examined" in w for w in r.warnings)
    src, dst = browse_all(qm, SRC), browse_all(qm, "SMALL")
    assert len(dst) == 7 and len(src) == 33
    assert all(m.md.backout_count == 0 for m in src)  # a refused put backs nothing out
    assert_exactly_once(original, src, dst)


def test_inhibited_and_too_big(qm):
    qm.define_queue(QueueAttrs(name="TINY", max_msg_length=20))
    original = [make_message(i, body=b"x" * (10 if i % 2 else 40)) for i in range(8)]
    fill(qm, SRC, original)
    r = transfer(qm, SRC, "TINY", ALL)
    assert r.done == 4 and [f.reason for f in r.failed] == [2030] * 4
    qm.change_queue("TINY", put_inhibited=True)
    r = transfer(qm, SRC, "TINY", ALL)
    assert r.done == 0 and {f.reason for f in r.failed} == {2051}
    assert_exactly_once(original, browse_all(qm, SRC), browse_all(qm, "TINY"))


def test_not_authorized_destination(tmp_path):
    path = tmp_path / "qm.sqlite"
    admin = create_queue_manager(path, principal="admin")
    for name in (SRC, DST):
        admin.define_queue(QueueAttrs(name=name))
    admin.set_authority("admin", "*", "all")
    admin.set_authority("admin", "QM1", "all", object_type="qmgr")
    admin.set_authority("op", SRC, "+browse +get +inq")
    admin.set_authority("op", DST, "+inq")
    admin.set_authority("op", "QM1", "+setall +connect", object_type="qmgr")
    original = [make_message(i) for i in range(3)]
    fill(admin, SRC, original)
    op = open_embedded(path, principal="op")
    r = transfer(op, SRC, DST, ALL)
    assert r.done == 0 and {f.reason for f in r.failed} == {2035}
    assert_exactly_once(original, browse_all(admin, SRC))
    op.close()
    admin.close()


# -- cancel and progress ------------------------------------------------------------------

def test_cancel_stops_at_a_unit_boundary(qm):
    original = [make_message(i) for i in range(100)]
    fill(qm, SRC, original)
    seen = []
    control = Control()

    def progress(done, total):
        seen.append((done, total))
        if done >= 20:
            control.cancel.set()

    control.progress = progress
    r = transfer(qm, SRC, DST, ALL, batch=20, control=control)
    assert r.cancelled and r.done == 20
    assert seen and seen[0][1] == 100
    assert_exactly_once(original, browse_all(qm, SRC), browse_all(qm, DST))


# -- groups -------------------------------------------------------------------------------

def _group(gid: bytes, n: int, base: int, *, last: bool = True) -> list[Message]:
    out = []
    for seq in range(1, n + 1):
        flags = IN_GROUP | (LAST_IN_GROUP if seq == n and last else 0)
        out.append(make_message(base + seq, group_id=gid, msg_seq_number=seq,
                                msg_flags=flags))
    return out


def _same_priority(msgs: list[Message]) -> list[Message]:
    return [Message(m.md.copy(priority=5), m.body) for m in msgs]


def test_a_group_moves_whole_within_one_unit(qm):
    g = _group(b"G" * 24, 5, 100)
    singles = [make_message(i) for i in range(4)]
    original = _same_priority([singles[0], g[0], singles[1], g[1], g[2], singles[2], g[3],
                               g[4], singles[3]])
    fill(qm, SRC, original)
    fq = FaultyQueueManager(qm)
    r = transfer(fq, SRC, DST, ALL, batch=2)
    assert r.done == 9 and r.failed == [] and r.skipped == 0
    assert_exactly_once(original, browse_all(qm, DST))
    # the five members were committed together: no commit between their puts
    calls = [c for c, _ in fq.faults.calls if c in ("put", "commit")]
    puts = [i for i, c in enumerate(calls) if c == "put"]
    first_member, last_member = puts[1], puts[7]
    assert "commit" not in calls[first_member:last_member]


def test_a_group_member_refused_keeps_the_whole_group(qm):
    g = _group(b"G" * 24, 4, 100)
    singles = [make_message(i) for i in range(3)]
    original = _same_priority([singles[0], *g, singles[1], singles[2]])
    fill(qm, SRC, original)
    fq = FaultyQueueManager(qm, Faults(put={4: 2053}))  # the 3rd member
    r = transfer(fq, SRC, DST, ALL, batch=100)
    assert r.done == 3 and len(r.failed) == 4 and {f.reason for f in r.failed} == {2053}
    src = browse_all(qm, SRC)
    assert sorted(m.md.msg_seq_number for m in src) == [1, 2, 3, 4]
    assert [m.md.backout_count for m in src] == [1, 1, 0, 0]  # the two backed out
    assert_exactly_once(original, src, browse_all(qm, DST))
    assert any("group" in w for w in r.warnings)


@pytest.mark.parametrize("case", ["no_last", "gap", "unselected", "limit"])
def test_incomplete_or_partly_selected_group_is_skipped(qm, case):
    g = _group(b"G" * 24, 4, 100, last=case != "no_last")
    if case == "gap":
        g = [m for m in g if m.md.msg_seq_number != 2]
    singles = [make_message(i) for i in range(3)]
    original = _same_priority([singles[0], *g, singles[1], singles[2]])
    fill(qm, SRC, original)
    if case == "unselected":
        sel = Selection.build(msgids=[m.md.msg_id.hex() for m in [*singles, g[0]]])
    elif case == "limit":
        sel = Selection.build(all_=True, limit=3)
    else:
        sel = ALL
    r = transfer(qm, SRC, DST, sel)
    grouped = [m for m in browse_all(qm, SRC) if m.md.group_id == b"G" * 24]
    assert len(grouped) == len(g), "the group stays whole"
    assert any("group 4747" in w for w in r.warnings), r.warnings
    if case == "limit":
        assert r.done == 3  # the three singles fit; the group did not
    else:
        assert r.done == 3 and r.skipped == (1 if case == "unselected" else len(g))
    assert_exactly_once(original, browse_all(qm, SRC), browse_all(qm, DST))


def test_segmented_message_moves_whole(qm):
    gid = b"S" * 24
    segs = [make_message(200 + i, group_id=gid, msg_seq_number=1, offset=i * 10,
                         msg_flags=SEGMENT | (LAST_SEGMENT if i == 2 else 0),
                         body=b"0123456789") for i in range(3)]
    original = _same_priority([make_message(1), *segs])
    fill(qm, SRC, original)
    r = transfer(qm, SRC, DST, ALL, batch=1)
    assert r.done == 4
    assert_exactly_once(original, browse_all(qm, DST))
    # a segment missing its start stays
    fill(qm, SRC, segs[1:])
    r = transfer(qm, SRC, "APP.DST", ALL)
    assert r.done == 0 and r.skipped == 2 and len(browse_all(qm, SRC)) == 2


def test_commit_failing_just_before_a_group(qm):
    g = _group(b"G" * 24, 3, 100)
    original = _same_priority([make_message(1), make_message(2), *g, make_message(3)])
    fill(qm, SRC, original)
    fq = FaultyQueueManager(qm, Faults(commit={1: 2003}))  # the commit before the group
    r = transfer(fq, SRC, DST, ALL, batch=50)
    assert r.done == 6 and r.failed == [] and r.skipped == 0, r.warnings
    assert_exactly_once(original, browse_all(qm, DST))


def test_group_with_a_get_failure_is_redone_whole(qm):
    g = _group(b"G" * 24, 3, 100)
    original = _same_priority([make_message(1), *g, make_message(2)])
    fill(qm, SRC, original)
    fq = FaultyQueueManager(qm, Faults(get={3: 2009}))  # the 2nd member
    r = transfer(fq, SRC, DST, ALL, batch=2)
    assert r.done == 5 and r.failed == []
    assert_exactly_once(original, browse_all(qm, DST))
    # after the backout the members were redone and committed in one unit with the last
    calls = [c for c, _ in fq.faults.calls if c in ("put", "commit", "backout")]
    after = calls[calls.index("backout"):]
    assert after.count("commit") == 2 and after.index("commit") == len(after) - 3, after


# -- between two queue managers -----------------------------------------------------------

@pytest.fixture
def two_qms(tmp_path):
    a = create_queue_manager(tmp_path / "a.sqlite", name="QMA")
    b = create_queue_manager(tmp_path / "b.sqlite", name="QMB")
    a.define_queue(QueueAttrs(name=SRC))
    b.define_queue(QueueAttrs(name=DST))
    yield a, b
    a.close()
    b.close()


def test_cross_qm_move_commits_the_destination_first(two_qms):
    a, b = two_qms
    original = [make_message(i) for i in range(25)]
    fill(a, SRC, original)
    faults = Faults()
    fa, fb = FaultyQueueManager(a, faults, "src."), FaultyQueueManager(b, faults, "dst.")
    r = transfer(fa, SRC, DST, ALL, batch=10, dest_qm=fb)
    assert r.done == 25 and r.moved_to == {f"{DST}@QMB": 25}
    assert_exactly_once(original, browse_all(b, DST))
    assert browse_all(a, SRC) == []
    calls = [c for c, _ in faults.calls]
    # every unit: puts on the destination, gets on the source, destination commit, then
    # source commit
    commits = [c for c in calls if c.endswith("commit")]
    assert commits == ["dst.commit", "src.commit"] * 3
    first_put = calls.index("dst.put")
    assert calls[first_put + 1] == "src.get"


def test_cross_qm_source_commit_failure_is_redone_as_gets(two_qms):
    a, b = two_qms
    original = [make_message(i) for i in range(25)]
    fill(a, SRC, original)
    fa = FaultyQueueManager(a, Faults(commit={1: 2003}))
    r = transfer(fa, SRC, DST, ALL, batch=10, dest_qm=b)
    assert r.done == 25 and r.failed == []
    assert_exactly_once(original, browse_all(b, DST))
    assert browse_all(a, SRC) == []


def test_cross_qm_double_source_failure_duplicates_never_loses(two_qms):
    a, b = two_qms
    original = [make_message(i) for i in range(25)]
    fill(a, SRC, original)
    fa = FaultyQueueManager(a, Faults(commit={2: 2003, 3: 2003}))
    r = transfer(fa, SRC, DST, ALL, batch=10, dest_qm=b)
    src, dst = browse_all(a, SRC), browse_all(b, DST)
    # the first unit moved; the second is on both queues (reported); the rest not examined
    assert r.done == 10 and len(r.failed) == 10
    assert any("on both" in w for w in r.warnings)
    both = {m.md.msg_id for m in src} & {m.md.msg_id for m in dst}
    assert len(both) == 10
    assert {f.msgid for f in r.failed} == {i.hex().upper() for i in both}
    assert_exactly_once(original, src, [m for m in dst if m.md.msg_id not in both])


def test_cross_qm_destination_commit_failure_is_redone(two_qms):
    a, b = two_qms
    original = [make_message(i) for i in range(12)]
    fill(a, SRC, original)
    fb = FaultyQueueManager(b, Faults(commit={1: 2003}))
    r = transfer(a, SRC, DST, ALL, batch=5, dest_qm=fb)
    assert r.done == 12
    assert_exactly_once(original, browse_all(b, DST))
    assert browse_all(a, SRC) == []


def test_open_unit_of_work_is_refused(qm):
    fill(qm, SRC, [make_message(1)])
    qm.put(DST, make_message(2), context=Context.SET_ALL, syncpoint=True)
    with pytest.raises(TransferError):
        transfer(qm, SRC, DST, ALL)
    qm.backout()

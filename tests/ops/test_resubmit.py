"""Resubmit from the demo dead-letter queue and backout queues: every message lands on its
original queue with the header stripped and Format/Encoding/CCSID restored, or stays with
its reason; shared backout queues refuse and name the candidates."""

from __future__ import annotations

from collections import Counter

import pytest

from mqconsole.backends.base import Context
from mqconsole.backends.open import open_embedded
from mqconsole.mq.chain import add_dead_letter_header, dead_letter_header, strip_dead_letter_header
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueAttrs, QueueType, Usage
from mqconsole.mq.xqh import FORMAT_MDE, FORMAT_XQH, MQMDE, MQXQH
from mqconsole.ops.demo import DLQ, build_demo
from mqconsole.ops.resubmit import OriginError, backout_origins, resubmit, unwrap_xmit
from mqconsole.ops.selection import Selection
from mqconsole.ops.transfer import TransferError
from tests.support.faulty import (
    KEPT,
    Faults,
    FaultyQueueManager,
    assert_exactly_once,
    browse_all,
    fill,
    make_message,
)

ALL = Selection.build(all_=True)


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    from mqconsole.backends.embedded import create_queue_manager

    qm = create_queue_manager(path)
    build_demo(qm)
    qm.close()
    return path


@pytest.fixture
def demo(tmp_path, demo_template):
    import shutil

    target = tmp_path / "qm.sqlite"
    shutil.copy(demo_template, target)
    qm = open_embedded(target)
    yield qm
    qm.close()


def _same_except_backout(a: Message, b: Message) -> bool:
    return a.body == b.body and all(getattr(a.md, f) == getattr(b.md, f) for f in KEPT)


def test_resubmit_demo_dlq(demo):
    before = browse_all(demo, DLQ)
    depth_before = {q.name: q.depth for q in demo.list_queues("*")}
    dest_of = {}
    r = resubmit(demo, DLQ, ALL, done_destinations=dest_of)
    after = browse_all(demo, DLQ)

    # every message is either still on the DLQ (unchanged) or on its original queue,
    # stripped, with Format/Encoding/CCSID restored and its context kept
    stayed = Counter(m.msg_id_hex for m in after)
    expected_moves: dict[str, list[Message]] = {}
    for m in before:
        if stayed[m.msg_id_hex]:
            stayed[m.msg_id_hex] -= 1
            continue
        dlh = dead_letter_header(m.md, m.body)
        md, body = strip_dead_letter_header(m.md, m.body)
        assert (md.format, md.encoding, md.ccsid) == (dlh.format, dlh.encoding, dlh.ccsid)
        expected_moves.setdefault(dlh.dest_q, []).append(Message(md, body))
    assert r.moved_to == {q: len(ms) for q, ms in expected_moves.items()}
    for queue, moved in expected_moves.items():
        on_queue = browse_all(demo, queue)
        assert len(on_queue) == depth_before[queue] + len(moved)
        arrived = {m.md.msg_id: m for m in on_queue}
        for m in moved:
            assert _same_except_backout(arrived[m.md.msg_id], m), queue
            assert arrived[m.md.msg_id].md.backout_count == 0
    assert set(dest_of.values()) == set(expected_moves)

    # the ones that could not go stayed, with their reasons
    by_reason = Counter((f.reason, f.destination) for f in r.failed)
    assert by_reason == {(2053, "APP.SMALL"): 10, (2051, "APP.LEGACY"): 10,
                         (2085, "APP.ORDRES"): 10, (2087, "APP.ORDERS@QM9"): 10}
    # after ten refusals in a row a destination is not tried again: its later messages are
    # a count of their own, with why (issue 24 item 2), never "skipped"
    assert r.skipped == 0
    assert r.not_tried == 50 + 30 + 20 + 5
    assert len(after) == len(r.failed) + r.not_tried == 145
    why = r.not_tried_why()
    assert ("APP.SMALL refused 10 messages in a row (last: MQRC_Q_FULL (2053)), so it was "
            "given up: 50 messages for it were not tried") in why
    assert "APP.ORDERS@QM9 refused 10 messages in a row (last: MQRC_UNKNOWN_REMOTE_Q_MGR" in why
    assert why.endswith(f"they stayed on {DLQ}")
    assert not any("skipped" in w for w in r.warnings)
    stayed_dests = Counter(dead_letter_header(m.md, m.body).dest_q for m in after)
    assert stayed_dests == {"APP.SMALL": 60, "APP.LEGACY": 40, "APP.ORDRES": 30,
                            "APP.ORDERS": 15}
    assert all(m.md.backout_count == 0 for m in after)
    # z/OS messages: big-endian header, EBCDIC, restored to 785/500
    zos = browse_all(demo, "ZOS.INBOUND")
    assert zos and {(m.md.encoding, m.md.ccsid, m.md.format) for m in zos} == {
        (785, 500, "MQSTR   ")}
    assert zos[0].body.decode("cp500").startswith("ACCT")
    assert r.destination is None and r.to_json()["destination"] is None


def test_resubmit_demo_dlq_dry_run_predicts_and_changes_nothing(demo):
    before = browse_all(demo, DLQ)
    r = resubmit(demo, DLQ, ALL, dry_run=True)
    assert browse_all(demo, DLQ) == before
    assert len(r.plan) == 240 and r.done == 0
    fails = Counter(e["would_fail"]["reason"] for e in r.plan if "would_fail" in e)
    # and APP.ORDERS@QM9: the put's MQOPEN finds no route to QM9 (2087), as the run does
    assert fails == {2053: 60, 2051: 40, 2085: 30, 2087: 15}
    assert any("remove MQDLH" in c for c in r.plan[0]["changes"])


def test_shared_backout_queue_refuses_and_names_candidates(demo):
    assert backout_origins(demo, "APP.SHARED.BOQ") == ["APP.INVOICES", "APP.SHIPPING"]
    before = browse_all(demo, "APP.SHARED.BOQ")
    with pytest.raises(OriginError) as e:
        resubmit(demo, "APP.SHARED.BOQ", ALL)
    assert e.value.candidates == ["APP.INVOICES", "APP.SHIPPING"]
    assert "APP.INVOICES" in str(e.value) and "--to" in str(e.value)
    assert browse_all(demo, "APP.SHARED.BOQ") == before
    r = resubmit(demo, "APP.SHARED.BOQ", ALL, to="APP.SHIPPING")
    assert r.done == 6 and r.moved_to == {"APP.SHIPPING": 6}
    assert browse_all(demo, "APP.SHARED.BOQ") == []
    shipped = {m.md.msg_id: m for m in browse_all(demo, "APP.SHIPPING")}
    for m in before:  # unchanged but for the backout count (reset by the put)
        assert _same_except_backout(shipped[m.md.msg_id], m)
        assert shipped[m.md.msg_id].md.backout_count == 0


def test_dedicated_backout_queue_goes_home(demo):
    before = browse_all(demo, "APP.ORDERS.BOQ")
    r = resubmit(demo, "APP.ORDERS.BOQ", ALL)
    assert r.moved_to == {"APP.ORDERS": 5} and r.all_done
    orders = {m.md.msg_id for m in browse_all(demo, "APP.ORDERS")}
    assert {m.md.msg_id for m in before} <= orders


def test_to_must_exist_and_differ(demo):
    from mqconsole.mq.errors import MQError

    with pytest.raises(MQError) as e:
        resubmit(demo, "APP.SHARED.BOQ", ALL, to="NO.SUCH.Q")
    assert e.value.reason == 2085
    with pytest.raises(TransferError):
        resubmit(demo, "APP.SHARED.BOQ", ALL, to="APP.SHARED.BOQ")
    with pytest.raises(MQError):
        resubmit(demo, "NO.SUCH.Q", ALL)


@pytest.fixture
def qm(make_qm):
    return make_qm("APP.A", "APP.B")  # QM1, DLQ SYSTEM.DEAD.LETTER.QUEUE


def _dead(m: Message, dest: str, qmgr: str = "QM1", reason: int = 2053) -> Message:
    md, body = add_dead_letter_header(m.md, m.body, reason=reason, dest_q_name=dest,
                                      dest_qmgr_name=qmgr)
    return Message(md, body)


def test_dlq_message_without_header_uses_boqname(qm):
    qm.change_queue("APP.B", boqname=DLQ)
    plain = make_message(1)
    dead = _dead(make_message(2), "APP.A")
    fill(qm, DLQ, [plain, dead])
    r = resubmit(qm, DLQ, ALL)
    assert r.moved_to == {"APP.A": 1, "APP.B": 1}
    assert_exactly_once([plain], browse_all(qm, "APP.B"))


def test_dlq_message_without_header_and_no_origin_needs_to(qm):
    fill(qm, DLQ, [make_message(1), _dead(make_message(2), "APP.A")])
    with pytest.raises(OriginError) as e:
        resubmit(qm, DLQ, ALL)
    assert e.value.candidates == []
    # selecting only the dead-lettered one is fine
    r = resubmit(qm, DLQ, Selection.build(where="format = MQDEAD"))
    assert r.moved_to == {"APP.A": 1}
    r = resubmit(qm, DLQ, ALL, to="APP.B")
    assert r.moved_to == {"APP.B": 1}


def test_to_unused_is_said(qm):
    fill(qm, DLQ, [_dead(make_message(2), "APP.A")])
    r = resubmit(qm, DLQ, ALL, to="APP.B")
    assert r.moved_to == {"APP.A": 1}
    assert any("--to APP.B was not used" in w for w in r.warnings)


def test_report_options_are_warned_about(qm):
    coa = make_message(1, report=0x100)  # MQRO_COA
    cod = make_message(2, report=0x1800)  # MQRO_COD_WITH_DATA
    pan = make_message(3, report=0x1)  # MQRO_PAN: no COA/COD
    fill(qm, DLQ, [_dead(m, "APP.A") for m in (coa, cod, pan)])
    r = resubmit(qm, DLQ, ALL)
    assert r.done == 3
    assert any(w.startswith("2 messages ask for COA/COD") for w in r.warnings)


def test_remote_destination_routes_through_the_transmission_queue(qm):
    qm.define_queue(QueueAttrs(name="QM2", usage=Usage.XMITQ))
    m = make_message(5)
    fill(qm, DLQ, [_dead(m, "APP.THERE", "QM2", 2087), _dead(make_message(6), "X", "QM7")])
    r = resubmit(qm, DLQ, ALL)
    assert r.moved_to == {"APP.THERE@QM2": 1}
    assert [(f.reason, f.destination) for f in r.failed] == [(2087, "X@QM7")]
    [stored] = browse_all(qm, "QM2")
    inner, q, qmgr = unwrap_xmit(stored)
    assert (q, qmgr) == ("APP.THERE", "QM2")
    assert inner.body == m.body and inner.md.msg_id == m.md.msg_id
    assert inner.md.user_identifier == m.md.user_identifier


def test_local_qmgr_alias_in_the_header(qm):
    qm.define_queue(QueueAttrs(name="QM1.ALIAS", type=QueueType.REMOTE, remote_q_name="",
                               remote_qmgr_name="QM1"))
    fill(qm, DLQ, [_dead(make_message(1), "APP.A", "QM1.ALIAS")])
    r = resubmit(qm, DLQ, ALL)
    assert r.moved_to == {"APP.A@QM1.ALIAS": 1} and len(browse_all(qm, "APP.A")) == 1


def _xmit_dead(m: Message, remote_q: str, remote_qmgr: str, *, mde: bool) -> Message:
    """What a sending channel dead-letters: DLH (Format MQXMIT) + XQH (+ MQMDE) + data."""
    if mde:
        ext = MQMDE(encoding=m.md.encoding, ccsid=m.md.ccsid, format=m.md.format,
                    group_id=m.md.group_id, msg_seq_number=m.md.msg_seq_number,
                    offset=m.md.offset, msg_flags=m.md.msg_flags,
                    original_length=m.md.original_length)
        inner = m.md.copy(version=1, format=FORMAT_MDE, encoding=546, ccsid=1208)
        tail = ext.pack(big_endian=False, ccsid=1208) + m.body
    else:
        inner, tail = m.md.copy(version=1), m.body
    xqh = MQXQH(remote_q_name=remote_q, remote_qmgr_name=remote_qmgr, md=inner)
    outer = m.md.copy(format=FORMAT_XQH, encoding=546, ccsid=1208)
    md, body = add_dead_letter_header(outer, xqh.pack(big_endian=False, ccsid=1208) + tail,
                                      reason=2189, dest_q_name="QM2.XMIT",
                                      dest_qmgr_name="QM1")
    return Message(md, body)


@pytest.mark.parametrize("mde", [False, True])
def test_xmit_header_is_unwrapped_and_rerouted(qm, mde):
    qm.define_queue(QueueAttrs(name="QM2", usage=Usage.XMITQ))
    m = make_message(7)
    if mde:
        m = Message(m.md.copy(group_id=b"G" * 24, msg_seq_number=1, msg_flags=0x18), m.body)
    local = make_message(8)
    fill(qm, DLQ, [_xmit_dead(m, "APP.FAR", "QM2", mde=mde),
                   _xmit_dead(local, "APP.A", "QM1", mde=False)])
    r = resubmit(qm, DLQ, Selection.build(all_=True))
    assert r.moved_to == {"APP.FAR@QM2": 1, "APP.A": 1}, (r.failed, r.warnings)
    assert any("transmission header" in w for w in r.warnings)
    [stored] = browse_all(qm, "QM2")
    inner, q, qmgr = unwrap_xmit(stored)
    assert (q, qmgr) == ("APP.FAR", "QM2")
    assert inner.body == m.body
    for f in ("msg_id", "correl_id", "user_identifier", "put_appl_name", "put_date",
              "format", "encoding", "ccsid", "group_id", "msg_seq_number", "msg_flags"):
        assert getattr(inner.md, f) == getattr(m.md, f), f
    [home] = browse_all(qm, "APP.A")
    assert home.body == local.body and home.md.msg_id == local.md.msg_id


def test_bad_header_stays(qm):
    good = _dead(make_message(1), "APP.A")
    bad = Message(good.md.copy(msg_id=b"B" * 24), b"DLH \x00\x00\x00\x09" + b"x" * 20)
    fill(qm, DLQ, [good, bad])
    r = resubmit(qm, DLQ, ALL)
    assert r.done == 1 and [(f.reason, f.msgid) for f in r.failed] == [(2142, "42" * 24)]


def test_resubmit_faults_keep_every_message_once(qm):
    originals = [make_message(i) for i in range(60)]
    dead = [_dead(m, "APP.A" if i % 2 else "APP.B") for i, m in enumerate(originals)]
    fill(qm, DLQ, dead)
    fq = FaultyQueueManager(qm, Faults(get={7: 2009}, commit={2: 2003}, put={30: 2053}))
    r = resubmit(fq, DLQ, ALL, batch=10)
    assert r.done == 59 and [f.reason for f in r.failed] == [2053]
    left = browse_all(qm, DLQ)
    assert len(left) == 1
    stripped = [Message(*strip_dead_letter_header(m.md, m.body)) for m in left]
    assert_exactly_once(originals, stripped, browse_all(qm, "APP.A"), browse_all(qm, "APP.B"))


def test_context_is_kept(qm):
    m = make_message(3)
    fill(qm, DLQ, [_dead(m, "APP.A")])
    resubmit(qm, DLQ, ALL)
    [got] = browse_all(qm, "APP.A")
    for f in ("user_identifier", "put_appl_name", "put_date", "put_time",
              "appl_identity_data", "accounting_token", "msg_id", "correl_id"):
        assert getattr(got.md, f) == getattr(m.md, f), f
    qm.put("APP.A", m, context=Context.SET_ALL, syncpoint=False)  # sanity: same as a put

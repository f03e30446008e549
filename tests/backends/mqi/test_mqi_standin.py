"""The stand-in is strict where MQ is, or the tests of the backend would prove nothing.

These drive the libraries' own API (``Queue``, ``PCFExecute``) on a connection the backend
made, and check that the stand-in refuses what MQ refuses, with MQ's reason codes.
"""

from __future__ import annotations

import struct

import pytest

from mqconsole.mq.md import MQMD


def _raw(qm):
    """The library's QueueManager under a backend connection, and the library."""
    return qm._qmgr, qm.lib


def _reason(lib, fn) -> int:
    with pytest.raises(lib.MQMIError) as info:
        fn()
    return info.value.reason


def test_open_options_must_match(qmgr, qm) -> None:
    raw, lib = _raw(qm)
    C, M = lib.CMQC, lib.module
    q = qmgr.queue()
    out = M.Queue(raw, q.encode(), C.MQOO_OUTPUT)
    pmo = M.PMO(Options=C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_NO_SYNCPOINT)
    assert _reason(lib, lambda: out.put(b"x", M.MD(), pmo)) == 2095  # NOT_OPEN_FOR_SET_ALL
    out.put(b"x", M.MD(), M.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    assert _reason(lib, lambda: out.get(100)) in (2037,)  # NOT_OPEN_FOR_INPUT
    out.close()
    inp = M.Queue(raw, q.encode(), C.MQOO_INPUT_SHARED)
    g = M.GMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_NO_WAIT, Version=2)
    assert _reason(lib, lambda: inp.get(100, M.MD(), g)) == 2036  # NOT_OPEN_FOR_BROWSE
    g = M.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_NO_WAIT, Version=2)
    assert _reason(lib, lambda: inp.get(100, M.MD(), g)) == 2036
    assert _reason(lib, lambda: inp.put(b"y")) == 2039  # NOT_OPEN_FOR_OUTPUT
    inp.close()
    br = M.Queue(raw, q.encode(), C.MQOO_BROWSE)
    g = M.GMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_SYNCPOINT, Version=2)
    assert _reason(lib, lambda: br.get(100, M.MD(), g)) == 2046  # browse under syncpoint
    g = M.GMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_NO_WAIT, Version=2)
    assert br.get(100, M.MD(), g) == b"x"
    g = M.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_NO_WAIT, Version=2)
    assert _reason(lib, lambda: br.get(100, M.MD(), g)) == 2037  # browse-only handle
    br.close()


def test_authority_at_open(qmgr, qm) -> None:
    q = qmgr.queue()
    admin = qmgr.admin()
    admin.set_authority("mqadmin", "*", "all")
    admin.set_authority("bob", q, {"put", "setall"})
    bob = qmgr.connect(user="bob")
    raw, lib = _raw(bob)
    C, M = lib.CMQC, lib.module
    for opts in (C.MQOO_BROWSE, C.MQOO_INPUT_SHARED, C.MQOO_INQUIRE,
                 C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT):  # the last: +setall on the qmgr
        assert _reason(lib, lambda o=opts: M.Queue(raw, q.encode(), o)) == 2035
    M.Queue(raw, q.encode(), C.MQOO_OUTPUT).close()
    admin.set_authority("bob", "", {"setall"}, object_type="qmgr")
    M.Queue(raw, q.encode(), C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT).close()


def test_inhibited_queue(qmgr, qm) -> None:
    raw, lib = _raw(qm)
    M = lib.module
    q = qmgr.queue(put_inhibited=True)
    assert _reason(lib, lambda: raw.put1(q.encode(), b"x", M.MD(), M.PMO())) == 2051


def test_version_1_gmo_matches_on_msgid_and_correlid(qmgr, qm) -> None:
    raw, lib = _raw(qm)
    C, M = lib.CMQC, lib.module
    q = qmgr.queue()
    for body, mid in ((b"a", b"A" * 24), (b"b", b"B" * 24)):
        raw.put1(q.encode(), body, M.MD(MsgId=mid), M.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    br = M.Queue(raw, q.encode(), C.MQOO_BROWSE)
    md = M.MD(MsgId=b"B" * 24)
    v2 = M.GMO(Options=C.MQGMO_BROWSE_FIRST, Version=2, MatchOptions=C.MQMO_NONE)
    assert br.get(100, md, v2) == b"a"
    md = M.MD(MsgId=b"B" * 24)
    v1 = M.GMO(Options=C.MQGMO_BROWSE_FIRST, Version=1, MatchOptions=C.MQMO_NONE)
    assert br.get(100, md, v1) == b"b"  # MatchOptions ignored: MsgId matched
    br.close()


def test_2080_leaves_the_message_in_place(qmgr, qm) -> None:
    raw, lib = _raw(qm)
    C, M = lib.CMQC, lib.module
    q = qmgr.queue()
    raw.put1(q.encode(), b"0123456789", M.MD(), M.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    inp = M.Queue(raw, q.encode(), C.MQOO_INPUT_SHARED)
    with pytest.raises(lib.MQMIError) as info:
        inp.get(4, M.MD(), M.GMO(Options=C.MQGMO_NO_WAIT, Version=2))
    assert (info.value.comp, info.value.reason) == (C.MQCC_WARNING, 2080)
    assert info.value.original_length == 10
    assert qmgr.admin().inquire_queue(q).depth == 1
    assert inp.get(10, M.MD(), M.GMO(Options=C.MQGMO_NO_WAIT, Version=2)) == b"0123456789"
    inp.close()


def test_pcf_required_parameters_first(qmgr, qm) -> None:
    lib = qm.lib
    C, F = lib.CMQC, lib.CMQCFC
    q = qmgr.queue()
    pcf = qm._pcf()
    with pytest.raises(lib.MQMIError) as info:
        pcf.raw_command("MQCMD_INQUIRE_Q", {F.MQIACF_Q_ATTRS: [C.MQIA_MAX_Q_DEPTH],
                                            C.MQCA_Q_NAME: q.encode()})
    assert info.value.reason == F.MQRCCF_PARM_SEQUENCE_ERROR == 3035
    with pytest.raises(lib.MQMIError) as info:
        pcf.raw_command("MQCMD_CHANGE_Q", {C.MQIA_Q_TYPE: C.MQQT_LOCAL, C.MQCA_Q_NAME: q.encode(),
                                           C.MQIA_MAX_Q_DEPTH: 9})
    assert info.value.reason == 3035
    with pytest.raises(lib.MQMIError) as info:
        pcf.raw_command("MQCMD_CHANGE_Q", {C.MQCA_Q_NAME: q.encode(),
                                           C.MQIA_Q_TYPE: C.MQQT_ALIAS, C.MQIA_MAX_Q_DEPTH: 9})
    assert info.value.reason == F.MQRCCF_OBJECT_WRONG_TYPE
    pcf.raw_command("MQCMD_CHANGE_Q", {C.MQCA_Q_NAME: q.encode(), C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                                       C.MQIA_MAX_Q_DEPTH: 9})
    assert qmgr.admin().inquire_queue(q).max_depth == 9


def test_command_server_replies_like_mq(qmgr, qm) -> None:
    """A request put by hand: the reply goes to ReplyToQ, CorrelId = the request's MsgId,
    format MQADMIN, MQCFT_RESPONSE, MQCFC_LAST on the last."""
    raw, lib = _raw(qm)
    C, F, M = lib.CMQC, lib.CMQCFC, lib.module
    reply_q = qmgr.queue("REPLY")
    qmgr.queue("A")
    qmgr.queue("B")
    pattern = reply_q.rsplit(".", 1)[0] + ".*"
    name = pattern.encode()
    request = struct.pack("=9i", F.MQCFT_COMMAND, 36, 1, F.MQCMD_INQUIRE_Q, 1, 1, 0, 0, 1) + \
        struct.pack("=5i", F.MQCFT_STRING, 20 + len(name) + (-len(name) % 4),
                    C.MQCA_Q_NAME, 0, len(name)) + name + b"\x00" * (-len(name) % 4)
    md = M.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q.encode())
    raw.put1(b"SYSTEM.ADMIN.COMMAND.QUEUE", request, md, M.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    replies = [m for m in _browse(qm, reply_q)]
    assert len(replies) == 3  # one per queue: A, B, REPLY
    for i, m in enumerate(replies, 1):
        assert m.md.format == "MQADMIN " and m.md.msg_type == C.MQMT_REPLY
        assert m.md.correl_id == md.MsgId
        typ, _, _, command, seq, control, comp, _, _ = struct.unpack_from("<9i", m.body)
        assert (typ, command, seq, comp) == (F.MQCFT_RESPONSE, F.MQCMD_INQUIRE_Q, i, 0)
        assert control == (F.MQCFC_LAST if i == 3 else F.MQCFC_NOT_LAST)


def test_a_request_under_syncpoint_waits_for_commit(qmgr, qm) -> None:
    raw, lib = _raw(qm)
    C, F, M = lib.CMQC, lib.CMQCFC, lib.module
    reply_q = qmgr.queue("REPLY")
    request = struct.pack("=9i", F.MQCFT_COMMAND, 36, 1, F.MQCMD_INQUIRE_Q, 1, 1, 0, 0, 0)
    md = M.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q.encode())
    raw.put1(b"SYSTEM.ADMIN.COMMAND.QUEUE", request, md, M.PMO(Options=C.MQPMO_SYNCPOINT))
    assert _browse(qm, reply_q) == []
    raw.commit()
    [reply] = _browse(qm, reply_q)
    _, _, _, _, _, _, comp, reason, _ = struct.unpack_from("<9i", reply.body)
    assert (comp, reason) == (C.MQCC_FAILED, F.MQRCCF_PARM_SEQUENCE_ERROR)  # no Q name


def _browse(qm, queue: str):
    with qm.browse(queue) as cur:
        return cur.next_batch(100)


def test_pack_md_keeps_the_callers_version() -> None:
    from fake_ibmmqc import pack_md, parse_md

    like = MQMD(version=1).copy(version=2).pack(big_endian=False, ccsid=819, version=2)
    like = like[:4] + struct.pack("<i", 1) + like[8:]
    out = pack_md(MQMD(msg_seq_number=5, group_id=b"G" * 24), like)
    assert len(out) == len(like) and parse_md(out).version == 1

"""The stand-in's pass-context rules (issue 14, "the stand-in learns"), with ibmmq called
directly: MQPMO_PASS_ALL_CONTEXT takes the context saved on the handle PMO.Context names —
opened MQOO_SAVE_ALL_CONTEXT, a message got through it (not browsed) — and the target must
be opened MQOO_PASS_ALL_CONTEXT (2093); a handle that saves no context is 2097, one that
holds none (nothing got yet, or the last get browsed) 2098. (mqconsole itself keeps context
with set-all, the order that puts before it gets: docs/real-mq.md.) Before, the stand-in
answered every pass-context put 2097."""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message


@pytest.fixture
def raw(qmgr, ibmmq_lib):
    lib = ibmmq_lib
    q = lib.module.QueueManager(None)
    cd = lib.module.CD(ChannelName=b"DEV.APP.SVRCONN", ConnectionName=b"mqhost(1414)")
    q.connect_with_options(qmgr.name.encode(), cd=cd, user="mqadmin", password="s3cret-pw")
    yield lib, q
    q.disconnect()


def _setup(qmgr):
    src, dst = qmgr.queue(), qmgr.queue()
    md = MQMD(format="MQSTR   ", user_identifier="alice", appl_identity_data="id-data",
              put_appl_name="ORDERS.APP", put_date="20260101", put_time="12000000",
              appl_origin_data="orig")
    qmgr.admin().put(src, Message(md, b"one"), context=Context.SET_ALL, syncpoint=False)
    qmgr.admin().put(src, Message(md, b"two"), context=Context.SET_ALL, syncpoint=False)
    return src, dst


def _put(lib, target, source_handle, body=b"x", options=None):
    C = lib.CMQC
    pmo = lib.module.PMO(Options=options or C.MQPMO_PASS_ALL_CONTEXT | C.MQPMO_NO_SYNCPOINT,
                         Context=source_handle)
    target.put(body, lib.module.MD(), pmo)


def _error(lib, fn) -> int:
    with pytest.raises(lib.MQMIError) as info:
        fn()
    return info.value.reason


def test_pass_all_context_carries_the_message_got(qmgr, raw) -> None:
    lib, q = raw
    C = lib.CMQC
    src, dst = _setup(qmgr)
    source = lib.module.Queue(q, src.encode(), C.MQOO_INPUT_SHARED | C.MQOO_SAVE_ALL_CONTEXT)
    target = lib.module.Queue(q, dst.encode(), C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT)
    assert _error(lib, lambda: _put(lib, target, source.get_handle())) == 2098  # none yet
    body = source.get(None, lib.module.MD(), lib.module.GMO(Options=C.MQGMO_NO_SYNCPOINT))
    _put(lib, target, source.get_handle(), body)
    [moved] = [m for m in _browse(qmgr, dst)]
    assert (moved.md.user_identifier.strip(), moved.md.put_appl_name.strip(),
            moved.md.put_date, moved.md.appl_origin_data.strip()) == \
        ("alice", "ORDERS.APP", "20260101", "orig")
    source.close()
    target.close()


def test_pass_all_context_misuse(qmgr, raw) -> None:
    lib, q = raw
    C = lib.CMQC
    src, dst = _setup(qmgr)
    plain = lib.module.Queue(q, src.encode(), C.MQOO_INPUT_SHARED)
    target = lib.module.Queue(q, dst.encode(), C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT)
    plain.get(None, lib.module.MD(), lib.module.GMO(Options=C.MQGMO_NO_SYNCPOINT))
    assert _error(lib, lambda: _put(lib, target, plain.get_handle())) == 2097  # saves none
    browsing = lib.module.Queue(q, src.encode(), C.MQOO_INPUT_SHARED | C.MQOO_BROWSE |
                                C.MQOO_SAVE_ALL_CONTEXT)
    browsing.get(None, lib.module.MD(), lib.module.GMO(Options=C.MQGMO_BROWSE_FIRST))
    assert _error(lib, lambda: _put(lib, target, browsing.get_handle())) == 2098  # browsed
    browsing.get(None, lib.module.MD(), lib.module.GMO(Options=C.MQGMO_NO_SYNCPOINT))
    unready = lib.module.Queue(q, dst.encode(), C.MQOO_OUTPUT)
    assert _error(lib, lambda: _put(lib, unready, browsing.get_handle())) == 2093
    _put(lib, target, browsing.get_handle())  # a get, not a browse: its context passes
    assert len(_browse(qmgr, dst)) == 1
    for h in (plain, target, browsing, unready):
        h.close()


def _browse(qmgr, q):
    out = []
    with qmgr.admin().browse(q) as cur:
        while (m := cur.next()) is not None:
            out.append(m)
    return out
